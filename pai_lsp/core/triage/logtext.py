"""The end of a task's log, looked at in bounded steps: a hostile 1 MB log (one endless line, a
million short ones, a pattern repeated everywhere) costs a few C-level scans, never a regex over the
whole text and never a regex over more than one (cut) line at a time."""

from __future__ import annotations

from collections.abc import Iterator

MAX_LOG = 1 << 20  # characters of the log's end that are looked at
MAX_LINE = 4096  # a longer line is looked at in a window this wide
SHOWN = 300  # characters of a line kept as evidence
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


class Log:
    """The text of a log's end, its lower-case twin (same offsets) for keyword search, and line
    numbers counted from `first_line` (the line number, in the whole log, of the text's first line)."""

    def __init__(self, text: str, first_line: int = 1):
        if len(text) > MAX_LOG:  # the caller should not send more; if it does, its end is what counts
            cut = len(text) - MAX_LOG
            newline = text.find("\n", cut, cut + MAX_LINE)
            text = text[newline + 1 if newline >= 0 else cut:]
        self.text = text
        low = text.lower()
        self.low = low if len(low) == len(text) else text.translate(_ASCII_LOWER)  # e.g. "İ" lowers to two characters
        self.first_line = first_line

    def __len__(self) -> int:
        return len(self.text)

    def bounds(self, pos: int) -> tuple[int, int]:
        """The line around `pos`, within a window of MAX_LINE on each side."""
        text = self.text
        start = text.rfind("\n", max(0, pos - MAX_LINE), pos) + 1 or max(0, pos - MAX_LINE)
        end = text.find("\n", pos, pos + MAX_LINE)
        return start, (end if end >= 0 else min(len(text), pos + MAX_LINE))

    def line(self, start: int, end: int) -> str:
        """A line for matching: at most MAX_LINE characters, without its `\\r\\n` end."""
        return self.text[start:min(end, start + MAX_LINE)].rstrip("\r")

    def number(self, pos: int) -> int:
        return self.first_line + self.text.count("\n", 0, pos)

    def lines_from(self, pos: int, limit: int) -> Iterator[tuple[int, int]]:
        """(start, end) of up to `limit` lines from the line holding `pos` on."""
        text, n = self.text, len(self.text)
        start = text.rfind("\n", max(0, pos - MAX_LINE), pos) + 1 or max(0, pos - MAX_LINE)
        for _ in range(limit):
            if start >= n:
                return
            end = text.find("\n", start)
            end = n if end < 0 else end
            yield start, end
            start = end + 1

    def lines_before(self, pos: int, limit: int) -> Iterator[tuple[int, int]]:
        """(start, end) of up to `limit` lines that end before `pos`, nearest first."""
        text = self.text
        end = text.rfind("\n", 0, pos)
        for _ in range(limit):
            if end < 0:
                return
            start = text.rfind("\n", 0, end) + 1
            yield start, end
            end = start - 1

    def find_last(self, keyword: str, end: int | None = None, start: int = 0) -> int:
        """The last occurrence of a lower-case keyword before `end` (-1 if none)."""
        return self.low.rfind(keyword, start, len(self.low) if end is None else end)


def shown(line: str) -> str:
    """A line as evidence: a carriage return inside it shows as `^M` (a script saved with Windows
    line ends), a progress bar's many redraws as its last one, and a long line is cut."""
    line = line.rstrip("\r\n")
    if "\r" in line:
        parts = line.split("\r")
        line = next((p for p in reversed(parts) if p.strip()), "") if len(parts) > 3 else line.replace("\r", "^M")
    return line if len(line) <= SHOWN else line[:SHOWN - 1] + "…"


def meaningful(line: str) -> bool:
    """Whether a line says something: not blank, not a rule of `=` / `-` / `*`."""
    stripped = line.strip()
    return bool(stripped) and bool(stripped.strip("=-*_#~.+|<> \t"))
