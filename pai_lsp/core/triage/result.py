"""What an explanation of a failure is, as plain data that goes over the daemon's protocol as JSON
(camelCase keys, as the rest of the protocol) and comes back (`from_json`): the class, the words in
both languages, the evidence lines, and the traceback's frames on the user's own files."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from ..messages import pick

T = TypeVar("T")


@dataclass(frozen=True)
class Text:
    """One text in English and in Simplified Chinese: the daemon answers clients of either locale."""

    en: str
    zh: str

    def pick(self, locale: str | None) -> str:
        return pick(locale, self.en, self.zh)


@dataclass(frozen=True)
class Evidence:
    """A log line that shows the cause."""

    line: int  # 1-based, in the log (counted from `TaskFacts.first_line`); 0 when not from the log
    text: str  # the line, without its end and cut to a few hundred characters
    source: str = "log"  # "log", or "diagnostics" (what the platform said)


@dataclass(frozen=True)
class Frame:
    """One frame of a Python traceback, and the workspace file it came from when it is the user's."""

    path: str  # as the task printed it
    line: int
    function: str | None = None  # None for a SyntaxError's location
    source: str | None = None  # the code line printed under it
    log_line: int = 0  # where the frame's `File "…"` line is in the log
    user: bool = False  # not the standard library, not site-packages / dist-packages, not `<frozen …>`
    uploaded: str | None = None  # its path inside the uploaded code folder (the upload manifest's key)
    workspace: str | None = None  # the workspace file it came from (relative to the workspace root)
    matched_by: str | None = None  # how it was mapped: "code-dir" (under the job's code folder) or "suffix" (by name)


@dataclass(frozen=True)
class PythonException:
    """One exception of a traceback: `type: message` and the frames, outermost first."""

    type: str  # as printed: "ValueError", "torch.cuda.OutOfMemoryError"
    message: str  # the first line, and the continuation lines (bounded)
    frames: tuple[Frame, ...] = ()
    log_line: int = 0  # the line of `type: message`
    header_line: int = 0  # the line of `Traceback (most recent call last):` (or faulthandler's dump)
    child: bool = False  # raised in a child process (multiprocessing, torch.distributed) and printed by it
    offset: int = field(default=0, compare=False, metadata={"internal": True})  # where its header is in the log text


@dataclass(frozen=True)
class Traceback:
    """The Python traceback that ended the task: the chain (`During handling…` / `The above
    exception…`), the cause first and the exception that ended the task last, and its deepest frame
    in the user's own code."""

    chain: tuple[PythonException, ...]
    primary: Frame | None = None  # the deepest user frame (mapped to the workspace when one can be)
    related: tuple[Frame, ...] = ()  # the other user frames, deepest first

    @property
    def exception(self) -> PythonException:
        return self.chain[-1]


@dataclass(frozen=True)
class Explanation:
    """Why a task (or a job) failed, and what to do."""

    kind: str  # the class: see `catalogue.FAILURE_CLASSES`
    title: Text  # a few words for a list row: "CUDA out of memory"
    message: Text  # one sentence: what happened and what to do
    exit_code: int | None = None  # the platform's code
    user_exit_code: int | None = None  # the command's own, when known
    exit_words: Text | None = None  # the exit code in words: "exit code 137: killed by SIGKILL"
    phrase: str | None = None  # the OpenPAI exit-spec phrase that applies ("ContainerCudaOOMKilled")
    spec_code: int | None = None  # that phrase's code
    evidence: tuple[Evidence, ...] = ()
    last_lines: tuple[Evidence, ...] = ()  # the log's last meaningful lines (always; the story when nothing matched)
    traceback: Traceback | None = None
    signal: str | None = None  # "SIGSEGV"
    package: str | None = None  # the package missing in the image (pip's name)
    module: str | None = None  # the module Python could not import
    path: str | None = None  # a path that was not found or not allowed: the caller may check it on HDFS
    hdfs: bool = False  # whether `path` is an HDFS path
    command: str | None = None  # a command that was not found, or a script's interpreter
    image: str | None = None
    role: str | None = None  # the task it explains (None for a job)
    index: int | None = None
    retries: int | None = None  # retries used (job explanations)
    retries_allowed: int | None = None
    cause: Explanation | None = None  # for a job: the explanation of the task that ended it

    @property
    def frame(self) -> Frame | None:
        """Where the diagnostic goes: the deepest user frame."""
        return self.traceback.primary if self.traceback else None

    def to_json(self) -> dict:
        return _to_json(self)

    @classmethod
    def from_json(cls, data: dict) -> Explanation:
        return _from_json(cls, data)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _to_json(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {_camel(f.name): _to_json(getattr(value, f.name)) for f in dataclasses.fields(value) if not f.metadata.get("internal")}
    if isinstance(value, (tuple, list)):
        return [_to_json(v) for v in value]
    return value


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _from_json(cls: type[T], data: Any) -> T:
    """A dataclass back from `_to_json`'s output (keys it does not know are ignored: a newer
    daemon may send more)."""
    hints = _hints(cls)
    values = {}
    for f in dataclasses.fields(cls):
        key = _camel(f.name)
        if key in data:
            values[f.name] = _value(hints[f.name], data[key])
    return cls(**values)


def _value(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) is tuple:
        return tuple(_value(args[0], v) for v in value)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1:
        return _value(args[0], value)
    if dataclasses.is_dataclass(hint):
        return _from_json(hint, value)
    return value

