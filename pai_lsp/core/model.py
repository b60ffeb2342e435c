"""Plain data the core hands to the language server and the CLI. Offsets are indices into the text."""

from __future__ import annotations

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


@dataclass(frozen=True, slots=True)
class Settings:
    """Every `pai.*` setting, with its default (here and nowhere else). `pai_lsp.settings.read` builds
    it from `.vscode/settings.json` and the editor's configuration; the key each field comes from
    is its `key`."""

    dialect: str = field(default="openpai", metadata={"key": "pai.cluster.kind"})  # "openpai" | "scm"
    locale: str | None = field(default=None, metadata={"key": "pai.locale"})  # else the editor's or terminal's
    upload_enabled: bool = field(default=True, metadata={"key": "pai.job.upload.enabled"})
    upload_include: tuple[str, ...] = field(default=("**/*.py",), metadata={"key": "pai.job.upload.include"})  # VS Code globs
    upload_exclude: tuple[str, ...] = field(default=(), metadata={"key": "pai.job.upload.exclude"})
    generate_job_name: bool = field(default=True, metadata={"key": "pai.job.generateJobName.enabled"})


def dialect_of(kind: object) -> str:
    """The job-config dialect of a cluster kind (`pai.cluster.kind`, or a cluster profile's kind):
    the one place the editor, `pai check` and submit decide it."""
    return "scm" if kind == "scm" else "openpai"


def _units(text: str, encoding: str) -> int:
    if text.isascii() or encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


class LineIndex:
    """Offsets <-> (line, column); columns count in `encoding` units ("utf-16" is the LSP default,
    "utf-32" means code points, as a terminal shows them)."""

    def __init__(self, text: str, encoding: str = "utf-16"):
        self.text = text
        self.encoding = encoding
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos >= 0:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self.starts = starts

    def line_of(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def position(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.text)))
        line = self.line_of(offset)
        return line, _units(self.text[self.starts[line] : offset], self.encoding)

    def offset(self, line: int, column: int) -> int:
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[max(line, 0)]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        text = self.text[start:end]
        if text.isascii() or self.encoding == "utf-32":
            return start + min(max(column, 0), len(text))
        units = 0
        for i, ch in enumerate(text):
            if units >= column:
                return start + i
            units += _units(ch, self.encoding)
        return end
