"""The pure core driven in-process, as the language server and `pai check` drive it: a file's text and
name go to the format registry, whose format answers. Offsets are indices into the text."""

from __future__ import annotations

from dataclasses import dataclass, field

from pai_lsp.core.formats import format_for
from pai_lsp.core.job_format import JobFormat
from pai_lsp.core.jsonc import Document
from pai_lsp.core.model import Diagnostic, Fix, Settings


@dataclass
class Buffer:
    """One job file being edited: its text, its format, the settings of its workspace."""

    text: str
    name: str = "job.pai.json"
    settings: Settings = field(default_factory=Settings)

    @property
    def format(self) -> JobFormat:
        return format_for(self.name, self.text)

    @property
    def doc(self) -> Document:
        return self.format.parse(self.text)

    def diagnostics(self) -> list[Diagnostic]:
        return self.format.diagnose(self.doc, self.settings)

    def found(self) -> dict[str, list[str]]:
        """Each diagnostic code with the text of every range it sits on."""
        out: dict[str, list[str]] = {}
        for d in self.diagnostics():
            out.setdefault(d.code, []).append(self.text[d.start : d.end])
        return out

    def offset(self, needle: str, delta: int = 0) -> int:
        return self.text.index(needle) + delta

    def complete(self, needle: str, delta: int = 0) -> dict:
        """Completion items by label at `needle` + `delta`."""
        return {c.label: c for c in self.format.complete(self.doc, self.offset(needle, delta), self.settings)}

    def hover(self, needle: str, delta: int = 0):
        return self.format.hover(self.doc, self.offset(needle, delta), self.settings)

    def apply(self, fix: Fix) -> list[Diagnostic]:
        """Apply a quick fix (its edits last first) and check the result."""
        for edit in sorted(fix.edits, key=lambda e: e.start, reverse=True):
            self.text = self.text[: edit.start] + edit.text + self.text[edit.end :]
        return self.diagnostics()


def fixes_of(diagnostic: Diagnostic) -> dict[str, Fix]:
    return {fix.title: fix for fix in diagnostic.fixes}
