"""A job's logs as lines, every task's at once, and the filter a reader puts on them (by role, task
index, text or regular expression) — for lines already there and lines still arriving alike.

Pieces of each task's log arrive in any size (a read ends wherever the log ended then); a line is
given once it is whole, and a task's last line, unterminated when the task was killed right after
writing it, at the end (`Lines.end`): no line is cut in two, none is lost. A log opened at its tail
begins mid-line; that first part is left out, so every line shown is whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field


def task_role(label: str) -> str:
    """The role of a task label "role:index"."""
    return label.rpartition(":")[0] or label


def task_index(label: str) -> int | None:
    index = label.rpartition(":")[2]
    return int(index) if index.isdigit() else None


@dataclass(frozen=True)
class LogFilter:
    """Which lines a reader wants: tasks of these roles (any when empty), these indices (any when
    empty), lines matching `pattern` (any when None)."""

    roles: frozenset[str] = frozenset()
    indices: frozenset[int] = frozenset()
    pattern: re.Pattern[str] | None = None

    @classmethod
    def of(cls, roles: Iterable[str] = (), indices: Iterable[int] = (), text: str | None = None, regex: bool = True,
           ignore_case: bool = False) -> LogFilter:
        """re.error for a pattern that is not one."""
        pattern = None
        if text:
            pattern = re.compile(text if regex else re.escape(text), re.IGNORECASE if ignore_case else 0)
        return cls(frozenset(roles), frozenset(indices), pattern)

    def wants_task(self, label: str) -> bool:
        return (not self.roles or task_role(label) in self.roles) and (not self.indices or task_index(label) in self.indices)

    def wants(self, label: str, line: bytes) -> bool:
        if not self.wants_task(label):
            return False
        return self.pattern is None or self.pattern.search(line.decode("utf-8", "replace")) is not None


@dataclass
class Lines:
    """Whole lines from each task's pieces, in the order they arrive."""

    pending: dict[str, bytearray] = field(default_factory=dict)  # per task: the start of a line not ended yet
    seen: set[str] = field(default_factory=set)  # tasks a piece came from
    cut: set[str] = field(default_factory=set)  # tasks whose log was opened mid-line: the part before the first newline is dropped

    def feed(self, label: str, offset: int, data: bytes) -> Iterator[bytes]:
        """The lines `data` completes (each with its newline)."""
        if label not in self.seen:
            self.seen.add(label)
            if offset > 0:
                self.cut.add(label)
        buffer = self.pending.setdefault(label, bytearray())
        buffer += data
        end = buffer.rfind(b"\n")
        if end < 0:
            return
        whole = bytes(buffer[: end + 1])
        del buffer[: end + 1]
        lines = whole.splitlines(keepends=True)
        if label in self.cut:
            self.cut.discard(label)
            lines = lines[1:]
        yield from lines

    def end(self) -> Iterator[tuple[str, bytes]]:
        """Each task's last line, when it did not end with a newline (the task stopped right after writing it)."""
        for label, buffer in self.pending.items():
            if buffer and label not in self.cut:
                yield label, bytes(buffer)
        self.pending.clear()
