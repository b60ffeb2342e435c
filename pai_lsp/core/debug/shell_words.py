"""Where a shell line runs Python: its simple commands (between `&&`, `||`, `;`, `|`, `&`, newlines and
parentheses, outside quotes), and which of them start a Python program the debug launcher can run."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

_PYTHON = re.compile(r"(?:.*/)?python(?:\d+(?:\.\d+)*)?")
_TORCHRUN = re.compile(r"(?:.*/)?torchrun")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_TORCH_LAUNCHERS = ("torch.distributed.launch", "torch.distributed.run")
_ARG_OPTIONS = {"-X", "-W", "-Q"}  # interpreter options that take the next word
_NOT_PROGRAMS = {"pip", "pip3", "venv", "ensurepip", "http.server", "json.tool"}  # `python -m` of a tool, not the program
_TORCH_FLAGS = {"--standalone", "--use-env", "--use_env", "--run-path", "--run_path"}  # torchrun options without a value

Word = tuple[str, int, int]  # its value, and where it is in the segment's text


@dataclass(frozen=True)
class Segment:
    """A simple command of a line: its text at [start, end) of the line."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Invocation:
    """A Python program a segment starts. The launcher goes in at `insert_at` of the segment's text,
    in place of [insert_at, resume_at) (torchrun's `-m`, which the launcher takes instead), before the
    program (`-m pkg` or a script) and its arguments; `workers`: the Python processes it starts
    (torchrun's --nproc-per-node; 1 otherwise)."""

    segment: Segment
    insert_at: int
    resume_at: int
    module: bool  # the program is a module (`-m pkg`): the launcher gets `-m` from torchrun's part
    program: str  # the script or module, as written
    workers: int  # 0: as many as the node has (`--nproc-per-node gpu`)
    launcher: str  # "python", "torchrun" or "torch-launch"


def segments(line: str) -> list[Segment]:
    out: list[Segment] = []
    start, i, quote = 0, 0, ""
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch == "\\":
            i += 2
            continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t\n;&|("):
            _add(out, line, start, i)
            end = line.find("\n", i)
            start = i = len(line) if end < 0 else end
            continue
        elif ch in ";&|()\n":
            _add(out, line, start, i)
            start = i + 1
        i += 1
    _add(out, line, start, len(line))
    return out


def _add(out: list[Segment], line: str, start: int, end: int) -> None:
    text = line[start:end]
    stripped = text.strip()
    if stripped:
        lead = len(text) - len(text.lstrip())
        out.append(Segment(start + lead, start + lead + len(stripped), stripped))


def words(text: str) -> list[Word]:
    """The words of a simple command (an empty list for one the shell could not read)."""
    out: list[Word] = []
    i = 0
    while i < len(text):
        if text[i] in " \t":
            i += 1
            continue
        start, quote = i, ""
        while i < len(text) and (quote or text[i] not in " \t"):
            ch = text[i]
            if quote:
                if ch == "\\" and quote == '"':
                    i += 1
                elif ch == quote:
                    quote = ""
            elif ch == "\\":
                i += 1
            elif ch in "'\"":
                quote = ch
            i += 1
        try:
            value = shlex.split(text[start:i])
        except ValueError:
            return []
        out.append((value[0] if value else "", start, i))
    return out


def invocation(segment: Segment) -> Invocation | None:
    """The Python program `segment` starts, or None (not Python, `python -c`, `python -m pip`, a REPL)."""
    w = words(segment.text)
    i = 0
    while i < len(w) and _ASSIGNMENT.match(w[i][0]):
        i += 1
    if i == len(w):
        return None
    if _TORCHRUN.fullmatch(w[i][0]):
        return _torch(segment, w, i + 1, "torchrun")
    if not _PYTHON.fullmatch(w[i][0]):
        return None
    j = i + 1
    while j < len(w) and w[j][0].startswith("-") and w[j][0] not in ("-m", "-c", "-"):
        if w[j][0] in ("-V", "--version", "-h", "--help"):
            return None
        j += 2 if w[j][0] in _ARG_OPTIONS else 1
    if j >= len(w) or w[j][0] in ("-c", "-"):
        return None
    if w[j][0] == "-m":
        if j + 1 >= len(w) or w[j + 1][0] in _NOT_PROGRAMS:
            return None
        if w[j + 1][0] in _TORCH_LAUNCHERS:
            return _torch(segment, w, j + 2, "torch-launch")
        return Invocation(segment, w[j][1], w[j][1], False, w[j + 1][0], 1, "python")
    return Invocation(segment, w[j][1], w[j][1], False, w[j][0], 1, "python")


def _torch(segment: Segment, w: list[Word], at: int, launcher: str) -> Invocation | None:
    """torchrun's (or torch.distributed.launch's) options up to its script: it starts --nproc-per-node
    workers, each `python -u script …` (`--no-python`: not a Python program)."""
    j, workers, module_flag = at, 1, None
    while j < len(w) and w[j][0].startswith("-"):
        option, _, value = w[j][0].partition("=")
        if option in ("--no-python", "--no_python"):
            return None
        if option in ("-m", "--module"):
            module_flag = w[j]
            j += 1
            continue
        takes_value = not value and option not in _TORCH_FLAGS
        if takes_value and j + 1 < len(w):
            value = w[j + 1][0]
        if option in ("--nproc-per-node", "--nproc_per_node"):
            workers = int(value) if value.isdigit() else 0  # `gpu`, `auto`: as many as the node has (unknown here)
        j += 2 if takes_value else 1
    if j >= len(w):
        return None
    if module_flag is not None:  # torchrun's script is the launcher then, which runs the module
        return Invocation(segment, module_flag[1], module_flag[2], True, w[j][0], workers, launcher)
    return Invocation(segment, w[j][1], w[j][1], False, w[j][0], workers, launcher)
