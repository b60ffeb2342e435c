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
