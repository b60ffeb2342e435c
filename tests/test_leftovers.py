"""The session-end check (tests/helpers/leftovers.py): a run whose tests leave a process alive fails,
naming it, and the process is ended."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]

LEAKY = '''
import subprocess, sys

def test_starts_a_process_and_forgets_it(tmp_path):
    (tmp_path / "pid").write_text(str(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                                                       start_new_session=True).pid))
    (PIDFILE).write_text((tmp_path / "pid").read_text())
'''

TIDY = '''
import subprocess, sys

def test_starts_a_process_and_ends_it():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    child.kill()
    child.wait()
'''



@pytest.mark.subprocess
def test_a_run_that_leaves_a_process_alive_fails_and_names_it(pytester, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pidfile = tmp_path / "leaked.pid"
    pytester.makepyfile(test_inner=LEAKY.replace("PIDFILE", f"__import__('pathlib').Path({str(pidfile)!r})"))
    result = pytester.runpytest_subprocess("-p", "tests.helpers.leftovers", "-p", "no:cacheprovider")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(["*leftover processes*", "*time.sleep(300)*"])
    leaked = int(pidfile.read_text())
    assert not psutil.pid_exists(leaked) or psutil.Process(leaked).status() == psutil.STATUS_ZOMBIE


@pytest.mark.subprocess
def test_a_run_that_ends_what_it_starts_passes(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_inner=TIDY)
    result = pytester.runpytest_subprocess("-p", "tests.helpers.leftovers", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    assert "leftover" not in result.stdout.str()


def test_the_session_marks_what_it_starts():
    assert os.environ["PAI_TEST_SESSION"] == str(os.getpid()) and sys.executable


def test_a_run_of_the_in_process_tiers_alone_looks_for_no_process(pytestconfig, monkeypatch):
    """Their tests could start none (tests/helpers/tiers.py), so `-m unit` skips the look at every process."""
    from .helpers.leftovers import in_process_only

    for markexpr, skipped in [("unit", True), ("unit or slow", True), ("not subprocess and not editor", True),
                              ("", False), ("subprocess", False), ("not slow", False), ("unit or other", False)]:
        monkeypatch.setattr(pytestconfig.option, "markexpr", markexpr)
        assert in_process_only(pytestconfig) is skipped, markexpr
