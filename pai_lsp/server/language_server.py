"""The server's state: settings, and one cached analysis per open document version.

Features and commands live in their own modules; `create_language_server` (in `__init__`) puts
them on a `PaiLanguageServer`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter
from pygls.uris import to_fs_path

from .. import __version__
from ..api import is_params
from ..core.messages import render
from ..core.model import Diagnostic, LineIndex, Settings
from ..settings import find_workspace_settings, flatten, is_settings_file, read
from .capacity_check import CapacityChecks
from .cluster_checks import ClusterChecks
from .cluster_data import ClusterData
from .documents import Documents, OpenDocument, tune_allocator, tune_garbage_collection
from .pygls_compat import CompatProtocol
from .uploads import Uploads

if TYPE_CHECKING:
    from ..core.job_format import JobFormat
    from ..core.jsonc import Document

# Documents larger than this wait a moment for the next keystroke before being checked;
# smaller ones are checked at once (a fixed debounce only slows them down).
DEBOUNCE_BYTES = 256 * 1024
DEBOUNCE_SECONDS = 0.02
# Documents larger than this (in characters: bytes, for the ASCII of a job config) are kept in sync
# but not checked: one Information diagnostic says so, and completion, hover and the outline are off
# (as VS Code's JSON support caps what it computes for large files). Past this size a keystroke's
# re-check grows from a fraction of a second to seconds (docs/benchmarks.md, bench/lsp_latency.py).
# The biggest real configs are far smaller; 10,000 task roles are 4.3 MB.
LARGEST_CHECKED = 5 * 1024 * 1024


@dataclass
class Analysis:
    version: int | None
    revision: int  # of the OpenDocument analysed
    doc: Document
    lines: LineIndex
    diagnostics: list[Diagnostic]


def _converter():
    """pygls's converter, which also reads the daemon protocol's params (typed command arguments)."""
    converter = default_converter()
    converter.register_structure_hook_func(is_params, lambda data, cls: cls.from_json(data))
    return converter


class PaiLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("pai-lsp", __version__, protocol_cls=CompatProtocol, converter_factory=_converter)
        tune_garbage_collection()
        tune_allocator()
        self.locale: str | None = None
        self.shut_down = False  # the editor asked for `shutdown`
        self.client_settings: dict[str, Any] = {}
        self.client_shows_messages = False  # the client shows command failures and job ends itself
        self.analyses: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.jobs: Any = None  # the job relay (jobs.py `JobRelay`, which owns its state), made by `create_language_server`
        self.uploads = Uploads(self)  # what an upload would send, for codeDir's hover and warnings
        self.cluster_data = ClusterData(self)  # the default cluster's data, polled from the daemon: both checks below read it
        self.cluster = ClusterChecks(self, self.cluster_data)  # what the job's cluster holds: its storages, whether the code reaches it
        self.capacity = CapacityChecks(self, self.cluster_data)  # will the job fit its virtual cluster

    # -- settings --------------------------------------------------------------------
    def settings_for(self, uri: str) -> Settings:
        values: dict[str, Any] = {}
        path = to_fs_path(uri)
        if path:
            values.update(find_workspace_settings(Path(path)))
        values.update(self.client_settings)
        return read(values, self.locale)

    def job_format(self, uri: str) -> JobFormat:
        """The format of a document (by its name, else its text), which reads and checks it."""
        from ..core.formats import format_for  # the formats load with the first document, not before `initialize`

        document = self.documents.get(uri)
        return format_for(uri, document.text if document is not None else None)

    def update_client_settings(self, raw: Any) -> None:
        self.client_settings = flatten(raw)
        self.analyses.clear()
        self.uploads.settings_changed()
        self.cluster_data.forget()

    # -- analysis --------------------------------------------------------------------
    @property
    def documents(self) -> Documents:
        """The open documents, as the editor has them (see documents.py)."""
        return self.protocol.documents

    def analysis(self, uri: str) -> Analysis:
        """The analysis of the document as it is now (computed once per change)."""
        document = self.documents.get(uri) or OpenDocument(uri, None, LineIndex("", self.documents.encoding))
        cached = self.analyses.get(uri)
        if cached is not None and cached.revision == document.revision and cached.doc.text is document.text:
            return cached
        if len(document.text) > LARGEST_CHECKED:
            # Not read at all: features see an empty document.
            doc, found = document.parse(""), [self.too_large(uri, len(document.text))]
        else:
            doc = document.parsed
            # A .vscode/settings.json is checked by `uploads` (its globs are counted against the workspace).
            found = [] if is_settings_file(uri) else self.job_format(uri).diagnose(doc, self.settings_for(uri))
        result = Analysis(document.version, document.revision, doc, document.lines, found)
        self.analyses[uri] = result
        return result

    def too_large(self, uri: str, size: int) -> Diagnostic:
        mb, limit = f"{size / 1024 / 1024:.1f}", LARGEST_CHECKED // 1024 // 1024
        return Diagnostic(0, 0, "file.too-large", "info", render("file.too-large", self.settings_for(uri).locale, mb=mb, limit=limit))

    def schedule_diagnostics(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        document = self.documents.get(uri)
        size = len(document.text) if document is not None else 0
        if size < DEBOUNCE_BYTES:
            self.publish(uri)
        else:
            self.pending[uri] = asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, self.publish, uri)

    def publish(self, uri: str) -> None:
        self.pending.pop(uri, None)
        if uri not in self.documents:
            return
        result = self.analysis(uri)
        found = result.diagnostics + self.uploads.diagnostics(uri, result.doc)
        if not is_settings_file(uri) and len(result.doc.text) <= LARGEST_CHECKED:
            found += self.capacity.diagnostics(uri, result)
        found += self.cluster.diagnostics(uri, result.doc)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=result.version, diagnostics=[self.to_lsp(d, result) for d in found])
        )

    # -- conversions -----------------------------------------------------------------
    def range(self, result: Analysis, start: int, end: int) -> types.Range:
        a, b = result.lines.position(start), result.lines.position(end)
        return types.Range(types.Position(*a), types.Position(*b))

    def offset(self, result: Analysis, position: types.Position) -> int:
        return result.lines.offset(position.line, position.character)

    def to_lsp(self, d: Diagnostic, result: Analysis) -> types.Diagnostic:
        return types.Diagnostic(
            range=self.range(result, d.start, d.end),
            message=d.message,
            severity=SEVERITY[d.severity],
            code=d.code,
            source="pai",
        )


SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}
