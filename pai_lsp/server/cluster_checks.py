"""What the cluster a job goes to holds, in the editor: storage names completed and explained, names
the user may not use and `readOnly` values the server overwrites said, and a command that runs a
workspace file no upload reaches said before submit, with a quick fix (the job file's formats say
what: `JobFormat.cluster_*`).

The facts are the default cluster's, as the language server's one poller of the daemon last heard
them (cluster_data.py): typing never waits, and with no daemon or no cluster these checks are absent.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from ..core.messages import render
from ..core.model import Completion, Diagnostic, Hover
from ..settings import SETTINGS_FILE, is_settings_file, settings_folder, workspace_of
from .host import Host

if TYPE_CHECKING:

    from ..core.jsonc import Document
    from ..core.route_rules import ClusterFacts
    from .cluster_data import ClusterData


logger = logging.getLogger(__name__)
EXISTS_FOR = 2.0  # seconds a workspace path's existence is taken as known
EXISTS_KEPT = 4096
UPLOAD_ON = "pai.job.upload.enabled"


class ClusterChecks:
    """The language server's storage checks on the cluster's facts (`data`), and what each document
    was last told."""

    def __init__(self, ls: Host, data: ClusterData) -> None:
        self.ls = ls
        self.data = data
        self.shown: dict[str, list[Diagnostic]] = {}  # uri -> the diagnostics last given (their fixes answer code actions)
        self.exists: dict[Path, tuple[float, bool]] = {}

    def current(self) -> ClusterFacts | None:
        """The facts as last heard (None: unknown); asked again in the background when old."""
        self.data.refresh_if_due()
        return self.data.facts

    # -- what the features ask -----------------------------------------------------------
    def diagnostics(self, uri: str, doc: Document) -> list[Diagnostic]:
        if is_settings_file(uri):
            return []
        facts = self.current()
        if facts is None or doc.root is None:
            self.shown.pop(uri, None)
            return []
        job_format = self.ls.job_format(uri)
        try:
            found = job_format.cluster_diagnostics(doc, facts, self.ls.settings_for(uri), self._existing(uri, job_format, doc))
        except Exception:  # noqa: BLE001 - the document's own diagnostics must still be published; logged
            logger.exception("checking %s against the cluster's facts failed", uri)
            found = []
        self.shown[uri] = found
        return found

    def complete(self, uri: str, doc: Document, offset: int) -> list[Completion]:
        facts = self.current()
        if facts is None or is_settings_file(uri):
            return []
        return self.ls.job_format(uri).cluster_complete(doc, offset, facts, self.ls.settings_for(uri))

    def hover(self, uri: str, doc: Document, offset: int) -> Hover | None:
        facts = self.current()
        if facts is None or is_settings_file(uri):
            return None
        return self.ls.job_format(uri).cluster_hover(doc, offset, facts, self.ls.settings_for(uri))

    def closed(self, uri: str) -> None:
        self.shown.pop(uri, None)

    def _existing(self, uri: str, job_format: Any, doc: Document) -> frozenset[str]:
        """Which paths the job's commands may run are in its workspace (a `stat` each, remembered for
        `EXISTS_FOR` seconds: a keystroke costs none)."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if not path:
            return frozenset()
        workspace = workspace_of(Path(path))
        now = time.monotonic()
        found = set()
        for rel in job_format.workspace_paths(doc):
            target = workspace / rel
            known = self.exists.get(target)
            if known is None or now - known[0] > EXISTS_FOR:
                try:
                    there = target.is_dir() if rel.endswith("/") else target.is_file()
                except (OSError, ValueError):
                    there = False
                if len(self.exists) >= EXISTS_KEPT:
                    self.exists.clear()
                known = self.exists[target] = (now, there)
            if known[1]:
                found.add(rel)
        return frozenset(found)

    # -- the quick fix that lives in another file ---------------------------------------------
    def actions(self, uri: str, result: Any, start: int, end: int) -> list[types.CodeAction]:
        """The fixes of the diagnostics given here, and "turn uploads on", which edits the
        workspace's `.vscode/settings.json` (made when there is none)."""
        out = []
        for d in self.shown.get(uri, []):
            if d.end < start or d.start > end:
                continue
            lsp = self.ls.to_lsp(d, result)
            for fix in d.fixes:
                edits = [types.TextEdit(self.ls.range(result, e.start, e.end), e.text) for e in fix.edits]
                out.append(types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=[lsp],
                                            is_preferred=len(d.fixes) == 1, edit=types.WorkspaceEdit(changes={uri: edits})))
            if d.code == "route.upload-off":
                edit = _upload_on(uri)
                if edit is not None:
                    out.append(types.CodeAction(title=render("route.fix-upload-on", self.ls.settings_for(uri).locale),
                                                kind=types.CodeActionKind.QuickFix, diagnostics=[lsp], is_preferred=True, edit=edit))
        return out


def _upload_on(uri: str) -> types.WorkspaceEdit | None:
    """`pai.job.upload.enabled: true` in the workspace's settings file: the value replaced where it is
    set (flat or nested), else added first; a new file where there is none."""
    from ..core.jsonc import find, parse

    path = to_fs_path(uri) if uri.startswith("file:") else None
    if not path:
        return None
    folder = settings_folder(Path(path)) or workspace_of(Path(path))
    target = folder / SETTINGS_FILE
    target_uri = from_fs_path(str(target)) or target.as_uri()
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        created = json.dumps({UPLOAD_ON: True}, indent=2) + "\n"
        return types.WorkspaceEdit(document_changes=[
            types.CreateFile(uri=target_uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True)),
            types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=target_uri, version=None),
                                   edits=[types.TextEdit(types.Range(types.Position(0, 0), types.Position(0, 0)), created)])])
    except (OSError, UnicodeDecodeError):
        return None
    doc = parse(text)
    if doc.root is None or doc.root.type != "object":
        return None
    from ..core.model import LineIndex

    lines = LineIndex(text)
    node = find(doc.root, [UPLOAD_ON]) or find(doc.root, ["pai", "job", "upload", "enabled"])
    edit = doc.insert_member(doc.root, UPLOAD_ON, True) if node is None else None
    a, b = (node.start, node.end) if node is not None else (edit.start, edit.end)
    new_text = "true" if node is not None else edit.text
    return types.WorkspaceEdit(changes={target_uri: [types.TextEdit(
        types.Range(types.Position(*lines.position(a)), types.Position(*lines.position(b))), new_text)]})
