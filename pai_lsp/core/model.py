"""Plain data the core hands to the language server and the CLI. Offsets are indices into the text."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Edit:
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]


@dataclass(slots=True)
class Diagnostic:
    start: int
    end: int
    code: str
    severity: str  # "error" | "warning" | "info"
    message: str
    fixes: list[Fix] = field(default_factory=list)

    def moved(self, delta: int) -> Diagnostic:
        """The same finding `delta` characters further on (fixes included)."""
        fixes = [Fix(f.title, tuple(Edit(e.start + delta, e.end + delta, e.text) for e in f.edits)) for f in self.fixes]
        return Diagnostic(self.start + delta, self.end + delta, self.code, self.severity, self.message, fixes)


@dataclass(slots=True)
class Completion:
    label: str
    kind: str  # "property" | "value" | "snippet" | "variable"
    insert: str  # snippet text (LSP snippet syntax)
    start: int  # range the insert replaces
    end: int
    detail: str = ""
    documentation: str = ""
    filter: str = ""  # what the client matches typed text against, when not the label


@dataclass(frozen=True, slots=True)
class NewFile:
    """A file a code action writes beside a job file: its name (a sibling's), its text; `disabled`
    says why the action cannot be taken (then there is no text)."""

    title: str
    name: str
    text: str
    disabled: str = ""


@dataclass(slots=True)
class Hover:
    markdown: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Settings:
    """Every `pai.*` setting, with its default (here and nowhere else). `pai_lsp.settings.read` builds
    it from `.vscode/settings.json` and the editor's configuration; the key each field comes from
    is its `key`."""

    # The job-file dialect: `pai.cluster.kind` ("openpai" | "scm") for v1 configs; a file's format puts its own.
    dialect: str = field(default="openpai", metadata={"key": "pai.cluster.kind"})
    locale: str | None = field(default=None, metadata={"key": "pai.locale"})  # else the editor's or terminal's
    upload_enabled: bool = field(default=True, metadata={"key": "pai.job.upload.enabled"})
    upload_include: tuple[str, ...] = field(default=("**/*.py",), metadata={"key": "pai.job.upload.include"})  # VS Code globs
    upload_exclude: tuple[str, ...] = field(default=(), metadata={"key": "pai.job.upload.exclude"})
    upload_respect_gitignore: bool = field(default=True, metadata={"key": "pai.job.upload.respectGitignore"})
    # The OpenPAI manual: codeDir "should not contain any data and should be less than 200MB".
    upload_max_bytes: int = field(default=200 * 1024 * 1024, metadata={"key": "pai.job.upload.maxBytes"})
    upload_max_files: int = field(default=10_000, metadata={"key": "pai.job.upload.maxFiles"})
    generate_job_name: bool = field(default=True, metadata={"key": "pai.job.generateJobName.enabled"})
    # Where each cluster's code goes when a job names no codeDir: {cluster: {storage, path}} read as
    # (cluster, storage, path); a cluster not named uses the user's default storage, `<user>~<job>/` in it.
    upload_storage: tuple[tuple[str, str, str], ...] = field(default=(), metadata={"key": "pai.job.upload.storage"})
    # A job whose commands run workspace files that no upload reaches: refused (true) or sent with a warning.
    upload_require_route: bool = field(default=True, metadata={"key": "pai.job.upload.requireRoute"})


# LSP counts exactly these as line ends (not U+2028, U+2029, U+0085, \x0b, \x0c, \x1c as
# `str.splitlines` does): positions computed any other way drift from the editor's.
_BREAK = re.compile(r"\r\n?|\n")
ENCODINGS = ("utf-8", "utf-16", "utf-32")


def _units(text: str, encoding: str) -> int:
    """Length of `text` in position units. A lone surrogate (an editor may hold one) is one UTF-16
    unit, as in the editor's own string."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _line_starts(text: str, lo: int = 0, hi: int | None = None) -> list[int]:
    """Offsets just after each line end that finishes in text[lo:hi] (a CR at `hi` - 1 followed by
    LF belongs to the break that ends after the LF, so it adds nothing)."""
    hi = len(text) if hi is None else hi
    if "\r" not in text:
        out = []
        find = text.find
        pos = find("\n", lo, hi)
        while pos >= 0:
            out.append(pos + 1)
            pos = find("\n", pos + 1, hi)
        return out
    out = [m.end() for m in _BREAK.finditer(text, lo, hi)]
    if out and out[-1] == hi and text[hi - 1] == "\r" and text.startswith("\n", hi):
        out.pop()
    return out


class LineIndex:
    """Offsets <-> (line, column) as LSP defines them: lines end at \\n, \\r\\n or \\r only;
    columns count `encoding` units ("utf-16" is the LSP default, "utf-32" means code points,
    as a terminal shows them). Positions past a line's end mean its end; past the last line,
    the end of the text; negative numbers mean 0."""

    def __init__(self, text: str, encoding: str = "utf-16", starts: list[int] | None = None):
        self.text = text
        self.encoding = encoding
        self._starts = starts
        self._ascii: bool | None = None  # whether a column is the offset from the line's start in any encoding

    @property
    def starts(self) -> list[int]:
        """Offset of each line's start (found when first asked: a config with no problem to
        place never needs them)."""
        if self._starts is None:
            self._starts = [0, *_line_starts(self.text)]
        return self._starts

    def edited(self, start: int, end: int, new: str) -> LineIndex:
        """The index of the text with text[start:end] replaced by `new`; only the lines around
        the edit are scanned again, the others are shifted."""
        text = self.text[:start] + new + self.text[end:]
        if self._starts is None:
            return LineIndex(text, self.encoding)
        old = self._starts
        kept = old[: max(1, bisect.bisect_left(old, start))]
        delta = len(new) - (end - start)
        scanned = _line_starts(text, max(start - 1, 0), start + len(new))
        moved = old[bisect.bisect_left(old, end + 1) :]
        if delta:
            moved = [s + delta for s in moved]
        return LineIndex(text, self.encoding, kept + scanned + moved)

    def line_of(self, offset: int) -> int:
        return max(bisect.bisect_right(self.starts, offset) - 1, 0)

    def line_end(self, line: int) -> int:
        """Offset of the end of `line`, before its line break."""
        starts, text = self.starts, self.text
        end = starts[line + 1] if line + 1 < len(starts) else len(text)
        while end > starts[line] and text[end - 1] in "\r\n":
            end -= 1
        return end

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.text)))
        starts = self.starts
        line = max(bisect.bisect_right(starts, offset) - 1, 0)
        if self._ascii is None:
            self._ascii = self.encoding == "utf-32" or self.text.isascii()
        if self._ascii:
            return line, offset - starts[line]
        return line, _units(self.text[starts[line] : offset], self.encoding)

    def offset(self, line: int, column: int) -> int:
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start, end = self.starts[line], self.line_end(line)
        if column <= 0:
            return start
        if self.encoding == "utf-32" or self.text[start : start + column].isascii():
            return min(start + column, end)
        units = 0
        for i in range(start, end):
            units += _units(self.text[i], self.encoding)
            if units > column:
                return i  # inside a character: its start
            if units == column:
                return i + 1
        return end
