"""No POSIX-only API where Windows (or macOS) would meet it: checked statically, since no Windows or
macOS machine runs these tests.

- mypy, with typeshed's per-OS stubs, run for linux, win32 and darwin: an error that only another OS
  has is an API that OS lacks (`fcntl`, `os.setsid`, `signal.SIGKILL`, `asyncio.start_unix_server` …),
  used outside a `sys.platform` guard.
- A walk of the code for the calls, modules and paths that give POSIX away, accepted only under a
  `sys.platform` / `os.name` guard.

What stays is allowed one use at a time, each with the reason it is safe; nothing else may use these.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .helpers.paths import ROOT

PACKAGE = ROOT / "pai_lsp"

# What the walk (WALK_ALLOWED) or mypy (MYPY_ALLOWED) reports in a module, allowed there: (module, part of
# the report) -> why it is safe on every OS. Each must still be reported (a fixed one leaves the list).
WALK_ALLOWED = {
    ("pai_lsp/localcluster/hdfs_store.py", "'/tmp'"): "an HDFS path (the cluster's own namespace), not a local file",
}
MYPY_ALLOWED = {
    ("pai_lsp/localcluster/hdfs_store.py", '"pathconf"'): "its AttributeError is caught: Windows gets the common limits",
}


def unallowed(reports: list[tuple[str, str]], allowances: dict[tuple[str, str], str]) -> list[str]:
    """The (module, report) pairs no allowance covers; fails on an allowance nothing needs any more."""
    used = {key for key in allowances for module, report in reports if module == key[0] and key[1] in report}
    assert used == set(allowances), f"allowed, but no longer reported: {set(allowances) - used}"
    return [f"{module}: {report}" for module, report in reports
            if not any(module == m and what in report for m, what in allowances)]


# -- mypy, per OS ------------------------------------------------------------------------------
def mypy_errors(platform: str, cache: Path, target: str = "pai_lsp") -> set[str]:
    result = subprocess.run([sys.executable, "-m", "mypy", "--platform", platform, "--no-error-summary",
                             "--cache-dir", str(cache / platform), "--config-file", str(ROOT / "pyproject.toml"), target],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode in (0, 1), result.stderr or result.stdout  # 2: mypy itself failed
    return {line for line in result.stdout.splitlines() if ": error:" in line}


@pytest.mark.subprocess
def test_mypy_finds_no_api_that_windows_or_macos_lacks(tmp_path_factory):
    if shutil.which("mypy") is None and subprocess.run([sys.executable, "-m", "mypy", "--version"],
                                                       capture_output=True).returncode != 0:
        pytest.skip("mypy is not installed here (it is in the test extras: CI has it)")
    cache = tmp_path_factory.mktemp("mypy")
    # The check sees what it must: a module that uses what Windows lacks, unguarded, is reported for win32.
    sample = cache / "posix_sample.py"
    sample.write_text("import os, signal\nos.killpg(1, signal.SIGKILL)\n")
    with ThreadPoolExecutor(4) as pool:
        linux, win32, darwin, planted = pool.map(lambda args: mypy_errors(*args), [
            ("linux", cache), ("win32", cache), ("darwin", cache), ("win32", cache / "sample", str(sample))])
    only_there = unallowed(sorted((e.split(":", 1)[0], f"[{name}] {e}") for name, errors in (("win32", win32), ("darwin", darwin))
                                  for e in errors - linux), MYPY_ALLOWED)
    assert not only_there, "\n".join(only_there)
    assert any("killpg" in e for e in planted) and any("SIGKILL" in e for e in planted), planted


# -- a walk of the code ----------------------------------------------------------------------
POSIX_ATTRIBUTES = {
    "os": {"setsid", "killpg", "getuid", "geteuid", "getgid", "getegid", "getpgid", "setpgrp", "fork", "pwrite", "pread",
           "chown", "lchown", "mkfifo", "WNOHANG"},
    "signal": {"SIGKILL", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGCHLD", "SIGALRM", "SIGPIPE", "SIGSTOP", "SIGCONT"},
    "socket": {"AF_UNIX"},
    "asyncio": {"start_unix_server", "open_unix_connection"},
}
POSIX_MODULES = {"fcntl", "pwd", "grp", "termios", "resource", "posix"}


def _guard(test: ast.expr) -> bool:
    """An `if` that asks which OS this is."""
    text = ast.unparse(test)
    return "sys.platform" in text or "os.name" in text


def _string_joins_path(node: ast.AST) -> bool:
    """`str(path) + "/x"`, `f"{str(path)}/x"`, `os.path.join(a, "b/c")`: a local path put together with `/`."""
    def local(value: ast.AST) -> bool:
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "str" or \
            isinstance(value, ast.Call) and ast.unparse(value.func) in ("os.fspath", "os.getcwd", "os.path.expanduser")

    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        pairs = ((node.left, node.right), (node.right, node.left))
        return any(local(a) and isinstance(b, ast.Constant) and isinstance(b.value, str) and b.value.startswith("/")
                   for a, b in pairs)
    if isinstance(node, ast.JoinedStr):
        parts = node.values
        return any(isinstance(a, ast.FormattedValue) and local(a.value) and isinstance(b, ast.Constant)
                   and str(b.value).startswith("/") for a, b in zip(parts, parts[1:], strict=False))
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "os.path.join":
        return any(isinstance(a, ast.Constant) and isinstance(a.value, str) and "/" in a.value for a in node.args)
    return False


def posix_uses(source: str) -> list[tuple[int, str]]:
    """Each POSIX-only use in `source` outside an OS guard: (line, what)."""
    tree = ast.parse(source)
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.If) and _guard(node.test):
            for child in (*node.body, *node.orelse):
                visit(child, True)
            return
        if not guarded:
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.attr in POSIX_ATTRIBUTES.get(node.value.id, ()):
                found.append((node.lineno, f"{node.value.id}.{node.attr}"))
            elif isinstance(node, ast.Import):
                found.extend((node.lineno, f"import {a.name}") for a in node.names if a.name in POSIX_MODULES)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                if node.module in POSIX_MODULES:
                    found.append((node.lineno, f"from {node.module} import"))
                found.extend((node.lineno, f"from {node.module} import {a.name}") for a in node.names
                             if a.name in POSIX_ATTRIBUTES.get(node.module or "", ()))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings and \
                    (node.value == "/tmp" or node.value.startswith("/tmp/")):
                found.append((node.lineno, repr(node.value)))
            elif _string_joins_path(node):
                found.append((getattr(node, "lineno", 0), f"a path joined with '/': {ast.unparse(node)[:60]}"))
        for _, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if isinstance(child, ast.AST):
                    visit(child, guarded)
                # `if sys.platform == "win32": raise …` guards the rest of the block, as mypy reads it
                guarded = guarded or (isinstance(child, ast.If) and _guard(child.test) and not child.orelse
                                      and isinstance(child.body[-1], (ast.Raise, ast.Return)))

    visit(tree, False)
    return found


def test_the_walk_finds_what_it_looks_for():
    source = '''
import fcntl, os, signal, socket, sys
from os import setsid
os.killpg(1, signal.SIGKILL)
sock = socket.socket(socket.AF_UNIX)
log = "/tmp/x.log"
p = str(folder) + "/" + name
q = f"{str(folder)}/{name}"
r = os.path.join(base, "a/b")
if sys.platform != "win32":
    os.setsid(); uid = os.getuid(); signal.SIGHUP
else:
    pass
hdfs = "/user/x/" + name
def f():
    if sys.platform == "win32":
        raise OSError("none there")
    return socket.AF_UNIX
os.fork()
'''
    assert [what for _, what in posix_uses(source)] == [
        "import fcntl", "from os import setsid", "os.killpg", "signal.SIGKILL", "socket.AF_UNIX", "'/tmp/x.log'",
        "a path joined with '/': str(folder) + '/'", "a path joined with '/': f'{str(folder)}/{name}'",
        "a path joined with '/': os.path.join(base, 'a/b')", "os.fork"]


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_no_posix_only_api_outside_os_guards():
    reports = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        reports += [(rel, f"{line}: {what}") for line, what in posix_uses(path.read_text(encoding="utf-8"))]
    found = unallowed(reports, WALK_ALLOWED)
    assert not found, "POSIX-only, outside a sys.platform guard (see tests/test_portable_static.py):\n" + "\n".join(found)


# -- text files as UTF-8 -----------------------------------------------------------------
def _binary(mode: ast.expr | None) -> bool:
    if isinstance(mode, ast.IfExp):
        return _binary(mode.body) and _binary(mode.orelse)
    return isinstance(mode, ast.Constant) and "b" in str(mode.value)


def text_without_encoding(source: str) -> list[tuple[int, str]]:
    """Each text-mode file read or write in `source` that names no encoding: Python then uses the
    locale's (Windows: the ANSI code page, cp1252 or cp936), so a file pai-lsp wrote as UTF-8 reads
    back garbled there, or not at all. (`python -X warn_default_encoding` says the same at run time.)"""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
            continue
        name = ast.unparse(node.func)
        mode = next((k.value for k in node.keywords if k.arg == "mode"), None)
        if name.endswith((".read_text", ".write_text")):
            found.append((node.lineno, name))
        elif name in ("open", "io.open", "os.fdopen"):  # text unless the mode says binary
            mode = node.args[1] if len(node.args) > 1 else mode
            if not _binary(mode):
                found.append((node.lineno, f"{name}(…{ast.unparse(mode) if mode is not None else ''})"))
        elif name.endswith(".open") and name != "os.open":  # `path.open("w")`; other objects' `open` are not files'
            mode = node.args[0] if node.args else mode
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) <= set("rwaxt+") and mode.value:
                found.append((node.lineno, f"{name}(…{ast.unparse(mode)})"))
    return sorted(found)


def test_the_walk_finds_text_files_without_an_encoding():
    source = '''
a = path.read_text()
path.write_text(data)
with open(name) as f: pass
with open(name, "w") as f: pass
os.fdopen(fd, "w")
ok = path.read_text(encoding="utf-8"), open(name, "rb"), os.fdopen(fd, "ab"), path.open("rb"), open(n, "ab" if x else "wb")
path.open("w")
'''
    assert [what for _, what in text_without_encoding(source)] == [
        "path.read_text", "path.write_text", "open(…)", "open(…'w')", "os.fdopen(…'w')", "path.open(…'w')"]


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_text_files_are_read_and_written_as_utf8():
    found = [f"{path.relative_to(ROOT).as_posix()}:{line}: {what}" for path in sorted(PACKAGE.rglob("*.py"))
             for line, what in text_without_encoding(path.read_text(encoding="utf-8"))]
    assert not found, "text read or written in the locale's encoding (Windows: its code page), say encoding=:\n" + "\n".join(found)
