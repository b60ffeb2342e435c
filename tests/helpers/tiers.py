"""The test tiers, marked at collection by what a test uses (registered in pyproject.toml):

- `editor`: drives a real editor (tests/vscode: VS Code in code-server; test_neovim*.py: Neovim);
- `subprocess`: starts a process (the language server, `pai`, the daemon, the local cluster, node):
  it uses a pytest-lsp client fixture or a fixture that requests `starts_processes`, or is marked so;
- `slow`: in-process like `unit`, but doing much work on purpose (memory over 24,000 edits, property
  searches, scans of the whole repository): marked by hand, run with the rest of the suite;
- `unit`: everything else, in-process: `pytest -m unit` answers for the whole core in seconds.

A unit (or slow) test that starts a process anyway (while it is set up or run) fails, saying so: the tier stays
honest. A program that is not installed is not started: it fails as it would (FileNotFoundError), so
code that asks git when there is one is tested in-process on a machine without it (`no_programs`).
A mark on the test or its module wins over what it uses.

A run that selects by tier alone (`-m unit`, `-m "unit or slow"`) does not import a module whose tests it
would deselect anyway, so the unit tier does not pay for importing (and rewriting the asserts of) the
end-to-end modules: one that says `pytestmark = pytest.mark.<tier>` and names no other tier, or a Neovim
module that names none.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

try:
    import _posixsubprocess  # multiprocessing's way past subprocess (POSIX only)
except ImportError:
    _posixsubprocess = None

TIERS = ("unit", "slow", "subprocess", "editor")
IN_PROCESS = ("unit", "slow")
SPAWNERS = [(subprocess.Popen, "_execute_child"), (_posixsubprocess, "fork_exec"), (os, "fork"), (os, "forkpty"),
            (os, "posix_spawn"), (os, "posix_spawnp"), (os, "system")]  # every way the standard library starts a process


@pytest.fixture(scope="session")
def starts_processes() -> None:
    """Requested by each fixture (or test) that starts a process: the tests that use it are `subprocess`."""


@pytest.fixture
def no_programs(tmp_path_factory, monkeypatch) -> None:
    """A PATH with no program on it: what the code would run (git, for a record's git state) is missing."""
    monkeypatch.setenv("PATH", str(tmp_path_factory.mktemp("no-programs")))


def tier(item: pytest.Item) -> str:
    marked = next((mark.name for mark in item.iter_markers() if mark.name in TIERS), None)
    if marked:
        return marked
    if _editor_path(Path(item.path)):
        return "editor"
    return "subprocess" if _starts_processes(item) else "unit"


def _editor_path(path: Path) -> bool:
    return "vscode" in path.parts or path.name.startswith("test_neovim")


def _starts_processes(item: pytest.Item) -> bool:
    if "starts_processes" in getattr(item, "fixturenames", ()):
        return True
    info = getattr(item, "_fixtureinfo", None)  # pytest-lsp's fixtures start the server; they request nothing we own
    return info is not None and any(defs[-1].func.__module__.startswith("pytest_lsp")
                                    for defs in info.name2fixturedefs.values() if defs)


MODULE_TIER = re.compile(r"^pytestmark = pytest\.mark\.(\w+)\b", re.MULTILINE)
NAMED_TIER = re.compile(r"\bmark\.(" + "|".join(TIERS) + r")\b")
WORD = re.compile(r"[()]|[^\s()]+")


def module_tier(path: Path) -> str | None:
    """The one tier every test of a module has, read from its text without importing it (None: not
    known before its tests are collected)."""
    text = path.read_text(encoding="utf-8")
    named = set(NAMED_TIER.findall(text))
    declared = MODULE_TIER.search(text)
    if declared and named == {declared[1]}:
        return declared[1]
    return "editor" if not named and _editor_path(path) else None


def selects(markexpr: str, tier: str) -> bool | None:
    """Whether `-m markexpr` selects a test whose only tier is `tier` (None: the expression names more
    than tiers, so a test's other marks count too)."""
    words = WORD.findall(markexpr)
    if not words or any(w not in TIERS and w not in ("and", "or", "not", "(", ")") for w in words):
        return None
    try:  # only True, False, and, or, not and brackets are left to evaluate
        return bool(eval(" ".join(str(w == tier) if w in TIERS else w for w in words), {"__builtins__": {}}))
    except SyntaxError:
        return None  # pytest says what is wrong with it


def only_selects(markexpr: str, tier: str) -> bool:
    """Whether `-m markexpr` selects the tests of `tier` and of no other tier."""
    return selects(markexpr, tier) is True and not any(selects(markexpr, other) for other in TIERS if other != tier)


def examples(wanted: int) -> int:
    """A property test's own count of examples (`@settings(max_examples=examples(150))`), or the fewer that
    the run's profile tries (the unit tier alone: tests/conftest.py)."""
    from hypothesis import settings

    return min(wanted, settings.default.max_examples)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    markexpr = config.getoption("markexpr", "")
    if not markexpr or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    tier = module_tier(collection_path)
    return True if tier is not None and selects(markexpr, tier) is False else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        name = tier(item)
        if item.get_closest_marker(name) is None:
            item.add_marker(name)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    return (yield from _no_process(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    return (yield from _no_process(item))


def _no_process(item: pytest.Item):
    """Runs a phase of a unit test with every way of starting a process refused (and noted, in case the
    code under test swallows the error)."""
    if not any(item.get_closest_marker(name) for name in IN_PROCESS):
        return (yield)
    started: list[str] = []
    saved = [(owner, name, getattr(owner, name)) for owner, name in SPAWNERS if hasattr(owner, name)]
    for owner, name, _ in saved:
        setattr(owner, name, _refuse(started, name))
    try:
        return (yield)
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
        if started:
            pytest.fail(f"a `unit` test started a process ({started[0]}): it is `subprocess` — request the "
                        "`starts_processes` fixture or mark it `@pytest.mark.subprocess`", pytrace=False)


def _refuse(started: list[str], how: str) -> Callable:
    def refuse(*args, **kwargs):
        if how == "_execute_child":  # (self, args, executable, preexec_fn, close_fds, pass_fds, cwd, env, ...)
            program = _program(args[1], args[2])
            if shutil.which(program, path=os.pathsep.join(os.get_exec_path(args[7]))) is None:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
            started.append(f"{program}: {args[1]!r}"[:200])
        else:
            started.append(how)
        raise RuntimeError("a unit test may not start a process")

    return refuse


def _program(argv, executable) -> str:
    first = executable or (argv if isinstance(argv, (str, bytes, os.PathLike)) else argv[0])
    return os.fsdecode(first)

