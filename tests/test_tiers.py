"""The test tiers (tests/helpers/tiers.py) on a test session of their own, run in this process: a test is
`unit` unless what it uses starts a process or it is marked, and a unit test that starts one fails."""

from __future__ import annotations

INNER = '''
import subprocess

import pytest


def test_pure():
    assert sorted([2, 1]) == [1, 2]


def test_starts_a_process():
    subprocess.run(["true"])


def test_starts_one_and_swallows_the_error():
    try:
        subprocess.run(["true"])
    except Exception:
        pass


def test_asks_for_a_program_that_is_not_there(no_programs):
    with pytest.raises(FileNotFoundError):
        subprocess.run(["git", "status"])


def test_uses_a_fixture_that_starts_processes(starts_processes):
    pass


@pytest.mark.subprocess
def test_marked():
    pass
'''


def test_a_test_is_unit_unless_it_starts_processes_and_a_unit_test_that_does_fails(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\nmarkers =\n    unit: u\n    subprocess: s\n    editor: e\n")
    pytester.makepyfile(test_inner=INNER)
    unit = pytester.runpytest_inprocess("-p", "tests.helpers.tiers", "-p", "no:cacheprovider", "-m", "unit", "-rN")  # no summary: each said once
    unit.assert_outcomes(passed=2, failed=2, deselected=2)
    said = "a `unit` test started a process (true: ['true']): it is `subprocess` — request the `starts_processes` fixture"
    assert unit.stdout.str().count(said) == 2  # the one that swallowed the error too
    others = pytester.runpytest_inprocess("-p", "tests.helpers.tiers", "-p", "no:cacheprovider", "-m", "subprocess",
                                          "--collect-only", "-q")
    others.stdout.fnmatch_lines(["*::test_uses_a_fixture_that_starts_processes", "*::test_marked", "2/6 tests collected*"])


def test_a_run_of_one_tier_does_not_import_a_module_whose_tests_are_all_of_another(pytester):
    """`-m unit` leaves out, unimported, a module marked `subprocess` as a whole (it would deselect each of
    its tests); one that also names another tier is imported, and a run that selects by other marks too
    imports everything."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\nmarkers =\n    unit: u\n    slow: l\n"
                     "    subprocess: s\n    editor: e\n    other: o\n")
    broken = "import pytest\n\npytestmark = pytest.mark.subprocess\n\nraise ImportError('imported')\n"
    pytester.makepyfile(test_whole=broken, test_neovim_x="raise ImportError('imported')\n",
                        test_mixed=("import pytest\n\npytestmark = pytest.mark.subprocess\n\n\n"
                                    "@pytest.mark.unit\ndef test_in_process():\n    pass\n"),
                        test_plain="def test_pure():\n    pass\n")
    unit = pytester.runpytest_inprocess("-p", "tests.helpers.tiers", "-p", "no:cacheprovider", "-m", "unit and not slow")
    unit.assert_outcomes(passed=2)
    for markexpr in ("subprocess", "unit or other"):  # selects the module / names a mark that is no tier
        assert "ImportError: imported" in pytester.runpytest_inprocess(
            "-p", "tests.helpers.tiers", "-p", "no:cacheprovider", "-m", markexpr).stdout.str()


def test_a_run_of_the_unit_tier_alone_is_told_from_the_others():
    """What makes the property tests try fewer examples (tests/conftest.py): `-m` picks unit tests and no other tier's."""
    from .helpers.tiers import only_selects

    assert only_selects("unit", "unit") and only_selects("unit and not slow", "unit") and only_selects("(unit)", "unit")
    assert not any(only_selects(markexpr, "unit") for markexpr in
                   ("", "not subprocess", "unit or slow", "slow", "unit and other", "unit and", "not (unit"))
