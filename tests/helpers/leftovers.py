"""A pytest plugin: the run fails if a process the tests started is still alive when they end.

Every process the session starts carries `PAI_TEST_SESSION=<pytest's pid>` in its environment
(set here, inherited by `pai`, the daemons and local clusters it starts, editors and language-server
workers), so one that outlived its parent and moved to a new session is found too. At the end,
after every fixture has cleaned up, those still alive get a few seconds to finish exiting; the rest
are killed and named, and the run fails.
"""

from __future__ import annotations

import os

import pytest

MARK = "PAI_TEST_SESSION"
GRACE = 5.0  # seconds a process that is ending anyway (a daemon told to stop) gets


def pytest_configure(config):
    os.environ[MARK] = str(os.getpid())


def _ours(mark: str, root: int | None) -> list:
    """The processes under `root` (its children, theirs…) and those whose environment carries `mark`."""
    import psutil

    me = os.getpid()
    found = {p.pid: p for p in psutil.Process(root).children(recursive=True)} if root else {}
    for process in psutil.process_iter():
        if process.pid in found or process.pid == me:
            continue
        try:
            if process.environ().get(MARK) == mark:
                found[process.pid] = process
        except (psutil.Error, OSError):
            continue
    alive = []
    for process in found.values():
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.Error:
            continue
    return alive


def _describe(process) -> str:
    import psutil

    try:
        return f"pid {process.pid}: {' '.join(process.cmdline())[:200]} (cwd {process.cwd()})"
    except psutil.Error:
        return f"pid {process.pid}"


def leftovers(mark: str, root: int | None, grace: float = GRACE) -> list[str]:
    """The processes of a session (`mark`, started under `root`) still alive after `grace` seconds,
    killed, as lines naming them."""
    import psutil

    alive = _ours(mark, root)
    if not alive:
        return []
    _, alive = psutil.wait_procs(alive, timeout=grace)
    named = [_describe(p) for p in alive]
    for process in alive:
        try:
            process.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=grace)
    return named


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if os.environ.get(MARK) != str(os.getpid()) or in_process_only(session.config):
        return
    named = leftovers(str(os.getpid()), os.getpid())
    if not named:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = ["processes the tests started were still alive at the end (now killed):", *named]
    if reporter is not None:
        reporter.write_sep("=", "leftover processes", red=True)
        for line in lines:
            reporter.write_line(line)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def in_process_only(config: pytest.Config) -> bool:
    """Whether the run selects only tiers whose tests may start no process (`-m unit`): each that
    tried failed already (tests/helpers/tiers.py), so there is nothing to look for."""
    from .tiers import selects

    markexpr = config.getoption("markexpr", "")
    return bool(markexpr) and all(selects(markexpr, tier) is False for tier in ("subprocess", "editor"))
