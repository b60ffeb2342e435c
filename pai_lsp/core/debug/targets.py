"""What a debugged task says in its log once it waits for a debugger (the launcher's line, written
after its port accepts connections), and the path mappings that make the workspace's breakpoints
bind: the script's path in the container, matched against the files the upload sent (the longest
relative path it ends with), gives the folder the workspace is in there."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

_LINE = re.compile(r"^\[pai debug\] (?:(?P<failed>\S+) ended the program: waiting \S+ minutes|waiting) "
                   r"for a debugger on (?P<host>\S+):(?P<port>\d+)(?: as worker (?P<worker>\d+))? \(script (?P<script>.*)\)\s*$", re.M)
_GAVE_UP = re.compile(r"^\[pai debug\] (?:no debugger came|debugpy could not be installed|the task has no debug port)", re.M)


@dataclass(frozen=True)
class Listening:
    host: str
    port: int
    script: str  # the program's path in the container
    failed: str | None  # post-mortem: the exception that ended it
    worker: int | None = None  # the local worker (LOCAL_RANK) of a task that starts several (torchrun)


def listening_lines(text: str) -> list[Listening]:
    """Every place the log says a process waits for a debugger, in order."""
    return [Listening(m["host"], int(m["port"]), m["script"], m["failed"], int(m["worker"]) if m["worker"] else None)
            for m in _LINE.finditer(text)]


def gave_up(text: str) -> bool:
    """The launcher said it stopped waiting (or could not start)."""
    return _GAVE_UP.search(text) is not None


def path_mappings(script: str, workspace: str, files: Iterable[str]) -> list[dict[str, str]]:
    """[{localRoot, remoteRoot}] for a program at `script` in the container, from a workspace whose
    files (relative, posix) were sent: the longest of them the script's path ends with says where the
    workspace's root is; with none (code that came with the image), the script's folder is taken for it."""
    script = posixpath.normpath(script)
    best = ""
    for rel in files:
        if (script == rel or script.endswith("/" + rel)) and len(rel) > len(best):
            best = rel
    remote = script[: len(script) - len(best)].rstrip("/") or "/" if best else posixpath.dirname(script)
    return [{"localRoot": workspace, "remoteRoot": remote}]
