"""Python tracebacks in a task's log, as frames on the user's own files.

The traceback that ended the task is the last one printed: CPython's `Traceback (most recent call
last):` (with its chain: `During handling of the above exception…` / `The above exception was the
direct cause…`), or faulthandler's dump after a crash (`Current thread 0x… (most recent call
first):`). Lines may carry a prefix (torchrun's `[rank0]:`, `[default0]:`, a timestamp): the
header's prefix is taken off every line of its block. A launcher's own traceback (torchrun's
`ChildFailedError`, `subprocess.CalledProcessError`) says only that a child failed: the child's
traceback printed before it is the one that explains. A child's traceback that a parent re-raises
(`multiprocessing.pool.RemoteTraceback`, `torch.multiprocessing`'s `-- Process N terminated with
the following error:`) is marked as the child's: its frames are where the bug is.

Frames whose files lie under the job's code folder in the task map back to the workspace files they
were uploaded from (the upload manifest); the deepest frame not in the standard library or
site-packages is the user's frame where the diagnostic goes.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Callable

from .logtext import Log
from .result import Frame, PythonException, Traceback
from .task_facts import CodeLayout

HEADER = "traceback (most recent call last):"
FAULT_CURRENT = "current thread 0x"  # faulthandler: `Current thread 0x00007f… (most recent call first):`
FAULT_STACK = "stack (most recent call first):"  # faulthandler, when it knows no thread
CHAINS = ("during handling of the above exception, another exception occurred:",
          "the above exception was the direct cause of the following exception:")
CHILD_MARKERS = ("remotetraceback", "terminated with the following error:")
LAUNCHERS = ("ChildFailedError", "CalledProcessError")  # a launcher saying its child failed, nothing more
MAX_BLOCK = 2000  # lines of one traceback
MAX_MESSAGE = 20  # continuation lines of an exception's message
MAX_CHAIN = 8
MAX_STRAYS = 5  # lines of other output a block may hold
MAX_RELATED = 20
MAX_DEPTH = 64  # path components looked at when mapping a frame
MAX_PREFIX = 80  # longer text before a header on its line is not a prefix (a progress bar without its newline)
CHILD_DISTANCE = 256 * 1024  # a child's traceback this far before its launcher's is the child's

_FRAME = re.compile(r'^\s{0,16}File "(?P<path>[^"\n]{1,1000})", line (?P<line>\d{1,9})(?:,? in (?P<function>[^\n]{1,300}))?')
_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]{0,200})(?:: (?P<message>[^\n]*)|:)?$")  # not `INFO:root:…`
_DIGITS = re.compile(r"\d")
_LIBRARY = re.compile(r"(?:^|/)(?:site-packages|dist-packages)/|(?:^|/)lib(?:64)?/python\d(?:\.\d{1,3})?/")


def is_library(path: str) -> bool:
    """The standard library, an installed package, or code without a file (`<frozen …>`, `<string>`)."""
    return path.startswith("<") or _LIBRARY.search(path.replace("\\", "/")) is not None


def parse(log: Log, layout: CodeLayout | None = None) -> Traceback | None:
    """The traceback that ended the task (the last one in the log), its frames mapped through `layout`."""
    chain, first = _last_chain(log, len(log))
    if chain and chain[-1].type.rsplit(".", 1)[-1] in LAUNCHERS:
        earlier, _ = _last_chain(log, first)  # the child's own traceback, printed shortly before its launcher's
        if earlier and first - earlier[-1].offset <= CHILD_DISTANCE:
            chain = [*earlier, *chain]
    if not chain:
        return None
    layout = layout or CodeLayout()
    chain = [dataclasses.replace(e, frames=tuple(_mapped(f, layout) for f in e.frames)) for e in chain]
    primary, related = _user_frames(chain)
    return Traceback(chain=tuple(chain), primary=primary, related=related)


def deciding(tb: Traceback) -> PythonException:
    """The exception that tells why: the last one that is not a launcher's report about its child."""
    return next((e for e in reversed(tb.chain) if e.type.rsplit(".", 1)[-1] not in LAUNCHERS), tb.chain[-1])


# -- reading blocks ---------------------------------------------------------------------------
def _last_chain(log: Log, end: int) -> tuple[list[PythonException], int]:
    """The last traceback (or faulthandler dump) before `end`, and where its first block starts."""
    header = log.find_last(HEADER, end)
    fault = max(log.find_last(FAULT_CURRENT, end), log.find_last(FAULT_STACK, end))
    if fault > header:
        return _fault_chain(log, fault), fault
    if header < 0:
        return [], 0
    return _chain(log, header)


def _chain(log: Log, header: int) -> tuple[list[PythonException], int]:
    """The block at `header` and the blocks chained before it; where the first one starts."""
    blocks: list[PythonException] = []
    pos, first = header, header
    for _ in range(MAX_CHAIN):
        block = _block(log, pos)
        if block is None:
            break
        blocks.insert(0, block)
        start = first = log.text.rfind("\n", 0, pos) + 1
        joint = _previous_meaningful(log, start)
        if joint is None or not joint[2].strip().lower().endswith(CHAINS):  # (after a prefix such as `[rank1]: `)
            break
        pos = log.find_last(HEADER, joint[0])
        if pos < 0:
            break
    return blocks, first


def _previous_meaningful(log: Log, pos: int) -> tuple[int, int, str] | None:
    for s, e in log.lines_before(pos, 4):
        line = log.line(s, e)
        if line.strip():
            return s, e, line
    return None


def _prefix_stripper(prefix: str) -> Callable[[str], str | None]:
    """Takes a block's line prefix (`[rank0]: `) off its lines; None for a line without it (another
    rank's, interleaved). A prefix with many digits (a timestamp) need only have the same shape."""
    if not prefix:
        return lambda line: line
    shape = _DIGITS.sub("0", prefix) if sum(c.isdigit() for c in prefix) >= 6 else None

    def strip(line: str) -> str | None:
        if line.startswith(prefix) or (shape is not None and _DIGITS.sub("0", line[:len(prefix)]) == shape):
            return line[len(prefix):]
        return None
    return strip


def _is_child(log: Log, line_start: int) -> bool:
    before = _previous_meaningful(log, line_start)
    if before is not None and before[2].strip() == '"""':
        before = _previous_meaningful(log, before[0])
    return before is not None and any(marker in before[2].lower() for marker in CHILD_MARKERS)


def _block(log: Log, header: int) -> PythonException | None:
    """One `Traceback (most recent call last):` block: its frames and its exception. What precedes
    the header on its line is a prefix of every line of the block (`[rank1]: `), or, when the block
    makes no sense so, text that lacked its newline (a progress bar)."""
    start = log.text.rfind("\n", 0, header) + 1
    prefix = log.text[start:header].rsplit("\r", 1)[-1]
    found = _block_with(log, header, start, prefix) if prefix and len(prefix) <= MAX_PREFIX else None
    return found or _block_with(log, header, start, "")


def _block_with(log: Log, header: int, start: int, prefix: str) -> PythonException | None:
    strip = _prefix_stripper(prefix)
    line_no = log.number(start)
    frames: list[Frame] = []
    strays = 0
    lines = log.lines_from(start, MAX_BLOCK)
    next(lines, None)  # the header
    for s, e in lines:
        line_no += 1
        line = strip(log.line(s, e))
        if line is None:
            continue
        m = _FRAME.match(line)
        if m:
            function = m.group("function")
            frames.append(Frame(path=m.group("path"), line=int(m.group("line")), log_line=line_no,
                                function=function.strip() if function else None))
            continue
        stripped = line.strip()
        if not stripped or line[:1].isspace() or stripped.startswith("[Previous line repeated"):
            if frames and stripped and frames[-1].source is None and not set(stripped) <= set("^~ ") and stripped[0] != "[":
                frames[-1] = dataclasses.replace(frames[-1], source=stripped[:300])
            continue
        exception = _EXCEPTION.match(stripped)
        if exception is None or not (exception.group("message") is not None or exception.group("type").rsplit(".", 1)[-1][:1].isupper()):
            strays += 1  # a line another process printed in the middle
            if strays > MAX_STRAYS:
                return None
            continue
        message = _message(log, e, strip, exception.group("message") or "")
        return PythonException(type=exception.group("type"), message=message, frames=tuple(frames), log_line=line_no,
                               header_line=log.number(header), child=_is_child(log, start), offset=start)
    return None


def _message(log: Log, end: int, strip: Callable[[str], str | None], first: str) -> str:
    """An exception's message: its line and the lines that continue it (up to a blank line)."""
    parts = [first.strip()]
    for s, e in log.lines_from(end + 1, MAX_MESSAGE):
        line = strip(log.line(s, e))
        if line is None:
            continue
        low = line.strip().lower()
        if not low or low == '"""' or low.startswith(HEADER) or low in CHAINS or _FRAME.match(line):
            break
        parts.append(line.strip())
    return "\n".join(p for p in parts if p)[:4000]


def _fault_chain(log: Log, header: int) -> list[PythonException]:
    """faulthandler's dump: `Fatal Python error: Segmentation fault`, then the current thread's
    frames, most recent first."""
    start = log.text.rfind("\n", 0, header) + 1
    header_no = log.number(start)
    frames: list[Frame] = []
    line_no = header_no
    lines = log.lines_from(start, MAX_BLOCK)
    next(lines, None)
    for s, e in lines:
        line_no += 1
        m = _FRAME.match(log.line(s, e))
        if not m:
            break
        function = m.group("function")
        frames.append(Frame(path=m.group("path"), line=int(m.group("line")), function=function.strip() if function else None,
                            log_line=line_no))
    what = "Fatal Python error"
    message = ""
    for s, e in log.lines_before(start, 6):
        line = log.line(s, e).strip()
        if line.lower().startswith("fatal python error:"):
            message = line.split(":", 1)[1].strip()
            break
    return [PythonException(type=what, message=message, frames=tuple(reversed(frames)), log_line=header_no, header_line=header_no,
                            offset=start)]


# -- frames on the user's files -------------------------------------------------------------------
def locate(path: str, layout: CodeLayout) -> tuple[str, str, str] | None:
    """(uploaded path, workspace file, how) of a path printed in the task, or None."""
    manifest = layout.manifest
    if not manifest or path.startswith("<"):
        return None
    p = posixpath.normpath(path.replace("\\", "/"))
    parts = p.split("/")[-MAX_DEPTH:]
    if not p.startswith("/") and p in manifest:  # run from inside the code folder: `cd $PAI_JOB_NAME && python x.py`
        return p, manifest[p], "code-dir"
    for folder in layout.code_dirs:
        base = folder if folder.startswith("/") else posixpath.join(layout.workdir, folder) if layout.workdir else ""
        if base and p.startswith(base.rstrip("/") + "/"):
            rel = p[len(base.rstrip("/")) + 1:]
            if rel in manifest:
                return rel, manifest[rel], "code-dir"
    names = {posixpath.basename(folder.rstrip("/")) for folder in layout.code_dirs}
    for i, part in enumerate(parts[:-1]):
        if part in names:
            rel = "/".join(parts[i + 1:])
            if rel in manifest:
                return rel, manifest[rel], "code-dir"
    if is_library(p):
        return None
    for i in range(len(parts)):
        rel = "/".join(parts[i:])
        if rel in manifest:
            return rel, manifest[rel], "suffix"
    return None


def _mapped(frame: Frame, layout: CodeLayout) -> Frame:
    found = locate(frame.path, layout)
    uploaded, workspace, how = found if found else (None, None, None)
    user = not is_library(uploaded) if uploaded else not (is_library(frame.path) or _entry_point(frame.path))
    return dataclasses.replace(frame, user=user, uploaded=uploaded, workspace=workspace, matched_by=how)


def _entry_point(path: str) -> bool:
    """A console script an installed package made (`/usr/local/bin/torchrun`, `…/conda/bin/deepspeed`)."""
    folder, name = posixpath.split(path)
    return path.startswith("/") and posixpath.basename(folder) == "bin" and not name.endswith(".py")


def _deepest(frames: tuple[Frame, ...]) -> Frame | None:
    """The innermost user frame: one mapped to the workspace if there is one, else any user frame."""
    return (next((f for f in reversed(frames) if f.user and f.workspace), None)
            or next((f for f in reversed(frames) if f.user), None))


def _user_frames(chain: list[PythonException]) -> tuple[Frame | None, tuple[Frame, ...]]:
    """The frame for the diagnostic and the other user frames (deepest first): a child's traceback
    first (the parent only re-raised it), then the exception that ended the task, then its causes,
    then a launcher's (its frames are the launcher's own)."""
    launcher = [e for e in reversed(chain) if e.type.rsplit(".", 1)[-1] in LAUNCHERS]
    order = [e for e in reversed(chain) if e.child] + [e for e in reversed(chain) if not e.child and e not in launcher] + launcher
    primary = next((f for e in order if (f := _deepest(e.frames)) is not None), None)
    related: list[Frame] = []
    seen = {(primary.path, primary.line)} if primary else set()
    for e in order:
        for f in reversed(e.frames):
            if f.user and (f.path, f.line) not in seen and len(related) < MAX_RELATED:
                seen.add((f.path, f.line))
                related.append(f)
    return primary, tuple(related)
