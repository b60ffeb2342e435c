"""One function per LSP feature, each a thin mapping of what the document's job-file format (core/formats.py)
answers to LSP types."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path, to_fs_path

from ..core.messages import render
from ..core.model import Hover
from ..core.upload_facts import hover_markdown, on_code_dir
from ..settings import is_settings_file
from .feature_registry import FeatureRegistry

if TYPE_CHECKING:
    from .language_server import Analysis, PaiLanguageServer

registry = FeatureRegistry()

# command: its title's message; Preview shows the files, the job's name and final config: what Submit would send
CODE_LENSES = {"pai.submitJob": "lens.submit", "pai.runLocally": "lens.run-locally", "pai.debugJob": "lens.debug",
               "pai.previewUpload": "lens.preview"}
DEBUG_LENS = "pai.debugJob"  # shown where the file's format has task roles pai can debug (core/debug)
REQUEST_FAILED = -32803  # LSP's RequestFailed: the request was valid, its answer is no


@registry.feature(types.INITIALIZE)
def initialize(ls: PaiLanguageServer, params: types.InitializeParams) -> None:
    ls.locale = params.locale
    if params.initialization_options:
        ls.update_client_settings(params.initialization_options)
        client = params.initialization_options.get("client") if isinstance(params.initialization_options, dict) else None
        ls.client_shows_messages = bool(isinstance(client, dict) and client.get("showsMessages"))


@registry.feature(types.INITIALIZED)
async def initialized(ls: PaiLanguageServer, params: types.InitializedParams) -> None:
    if ls.uploads.client_offers_watching(ls.client_capabilities):
        await ls.uploads.ask_client_to_watch()


@registry.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: PaiLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    ls.uploads.files_changed([Path(p) for change in params.changes if (p := to_fs_path(change.uri))])


@registry.feature(types.SHUTDOWN)
def shutdown(ls: PaiLanguageServer, params: None) -> None:
    ls.shut_down = True  # `exit` ends the process with 0 from now on (else 1)
    ls.uploads.shutdown()


@registry.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: PaiLanguageServer, params: types.DidChangeConfigurationParams) -> None:
    if isinstance(params.settings, dict):
        ls.update_client_settings(params.settings)
    for uri in ls.documents:
        ls.publish(uri)


@registry.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: PaiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@registry.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: PaiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule_diagnostics(params.text_document.uri)


@registry.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: PaiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.analyses.pop(uri, None)
    ls.uploads.closed(uri)
    ls.cluster.closed(uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


COMPLETION_KIND = {
    "property": types.CompletionItemKind.Property,
    "value": types.CompletionItemKind.Value,
    "snippet": types.CompletionItemKind.Snippet,
    "variable": types.CompletionItemKind.Variable,
}


@registry.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"', "$", ":"]))
def completion(ls: PaiLanguageServer, params: types.CompletionParams) -> types.CompletionList:
    if is_settings_file(params.text_document.uri):
        return types.CompletionList(is_incomplete=False, items=[])
    result = ls.analysis(params.text_document.uri)
    offset = ls.offset(result, params.position)
    items = []
    job_format = ls.job_format(params.text_document.uri)
    settings = ls.settings_for(params.text_document.uri)
    found = job_format.complete(result.doc, offset, settings)
    incomplete = getattr(found, "incomplete", False)
    if ls.capacity.state is not None:  # the cluster's VCs with what is free, in place of the schema's bare names
        vcs = ls.capacity.completions(result.doc, offset, settings.locale)
        named = {c.label for c in vcs}
        found = [*(c for c in found if c.label not in named), *vcs]
    found = [*found, *ls.cluster.complete(params.text_document.uri, result.doc, offset)]  # the cluster's names (storages)
    # YAML snippets carry their own indentation: the editor must not indent their lines again.
    mode = types.InsertTextMode.AsIs if job_format.syntax == "yaml" else None
    for c in found:
        items.append(types.CompletionItem(
            label=c.label,
            kind=COMPLETION_KIND[c.kind],
            detail=c.detail or None,
            documentation=types.MarkupContent(types.MarkupKind.Markdown, c.documentation) if c.documentation else None,
            filter_text=c.filter or None,
            insert_text_format=types.InsertTextFormat.Snippet,
            insert_text_mode=mode,
            text_edit=types.TextEdit(ls.range(result, c.start, c.end), c.insert),
        ))
    return types.CompletionList(is_incomplete=incomplete, items=items)


@registry.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: PaiLanguageServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    if is_settings_file(uri):
        return None
    result = ls.analysis(uri)
    offset = ls.offset(result, params.position)
    settings = ls.settings_for(uri)
    found = ls.job_format(uri).hover(result.doc, offset, settings) or ls.cluster.hover(uri, result.doc, offset)
    room = ls.capacity.hover(result.doc, offset, settings.locale)  # virtualCluster: what is free there
    if room is not None:
        found = Hover(f"{found.markdown}\n\n---\n\n{room.markdown}", found.start, found.end) if found else room
    prop = on_code_dir(result.doc, offset) if ls.uploads.applies(uri) else None
    if prop is not None:  # codeDir: also what an upload would send from here
        upload = hover_markdown(await ls.uploads.facts(uri), settings.locale)
        found = Hover(f"{found.markdown}\n\n---\n\n{upload}", found.start, found.end) if found else Hover(upload, prop.start, prop.end)
    if found is None:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, found.markdown), ls.range(result, found.start, found.end))


@registry.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite]))
def code_actions(ls: PaiLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    if is_settings_file(uri):
        return []
    result = ls.analysis(uri)
    start, end = ls.offset(result, params.range.start), ls.offset(result, params.range.end)
    actions = []
    for d in result.diagnostics:
        if d.end < start or d.start > end:
            continue
        for fix in d.fixes:
            edits = [types.TextEdit(ls.range(result, e.start, e.end), e.text) for e in fix.edits]
            actions.append(types.CodeAction(
                title=fix.title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[ls.to_lsp(d, result)],
                is_preferred=len(d.fixes) == 1,
                edit=types.WorkspaceEdit(changes={uri: edits}),
            ))
    actions.extend(ls.cluster.actions(uri, result, start, end))  # on what the cluster's facts said
    wanted = params.context.only
    if wanted is None or any(types.CodeActionKind.RefactorRewrite.startswith(kind) for kind in wanted):
        actions.extend(_new_file_actions(ls, uri, result))
    return actions


def _new_file_actions(ls: PaiLanguageServer, uri: str, result) -> list[types.CodeAction]:
    """Actions writing a file beside this one (a v1 config in the v2 protocol): a CreateFile and its
    text, under a name no file has yet; offered when the editor can create files."""
    capabilities = ls.client_capabilities.workspace
    edit_caps = capabilities.workspace_edit if capabilities is not None else None
    operations = (edit_caps.resource_operations or []) if edit_caps is not None else []
    path = to_fs_path(uri)
    if not path or types.ResourceOperationKind.Create not in operations or not (edit_caps and edit_caps.document_changes):
        return []
    code_action = ls.client_capabilities.text_document.code_action if ls.client_capabilities.text_document else None
    shows_disabled = bool(code_action and code_action.disabled_support)
    out = []
    for new in ls.job_format(uri).new_files(result.doc, path, ls.settings_for(uri)):
        if new.disabled:
            if shows_disabled:
                out.append(types.CodeAction(title=new.title, kind=types.CodeActionKind.RefactorRewrite,
                                            disabled=types.CodeActionDisabled(new.disabled)))
            continue
        target = _free_sibling(Path(path).with_name(new.name))
        new_uri = from_fs_path(str(target)) or target.as_uri()
        title = new.title.replace(new.name, target.name)
        changes = [types.CreateFile(uri=new_uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False)),
                   types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=new_uri, version=None),
                                          edits=[types.TextEdit(types.Range(types.Position(0, 0), types.Position(0, 0)), new.text)])]
        out.append(types.CodeAction(title=title, kind=types.CodeActionKind.RefactorRewrite,
                                    edit=types.WorkspaceEdit(document_changes=changes)))
    return out


def _free_sibling(path: Path) -> Path:
    """`path`, or `stem-2.pai.yaml`, `stem-3…` when a file of that name exists: nothing is overwritten."""
    if not path.exists():
        return path
    stem, _, suffix = path.name.partition(".")
    for n in range(2, 1000):
        candidate = path.with_name(f"{stem}-{n}.{suffix}")
        if not candidate.exists():
            return candidate
    return path


@registry.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: PaiLanguageServer, params: types.DefinitionParams) -> list[types.Location]:
    uri = params.text_document.uri
    if is_settings_file(uri):
        return []
    result = ls.analysis(uri)
    found = ls.job_format(uri).definition(result.doc, ls.offset(result, params.position))
    return [types.Location(uri, ls.range(result, a, b)) for a, b in found]


@registry.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: PaiLanguageServer, params: types.ReferenceParams) -> list[types.Location]:
    uri = params.text_document.uri
    if is_settings_file(uri):
        return []
    result = ls.analysis(uri)
    found = ls.job_format(uri).references(result.doc, ls.offset(result, params.position), params.context.include_declaration)
    return [types.Location(uri, ls.range(result, a, b)) for a, b in found]


@registry.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: PaiLanguageServer, params: types.PrepareRenameParams) -> types.Range | None:
    uri = params.text_document.uri
    if is_settings_file(uri):
        return None
    result = ls.analysis(uri)
    found = ls.job_format(uri).prepare_rename(result.doc, ls.offset(result, params.position))
    return ls.range(result, *found) if found is not None else None


@registry.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
def rename(ls: PaiLanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    uri = params.text_document.uri
    if is_settings_file(uri):
        return None
    from ..core.job_format import RenameError

    result = ls.analysis(uri)
    try:
        edits = ls.job_format(uri).rename(result.doc, ls.offset(result, params.position), params.new_name)
    except RenameError as e:
        raise JsonRpcException(e.message.render(ls.settings_for(uri).locale), REQUEST_FAILED) from None
    if not edits:
        return None
    return types.WorkspaceEdit(changes={uri: [types.TextEdit(ls.range(result, e.start, e.end), e.text) for e in edits]})


SYMBOL_KIND = {"job": types.SymbolKind.Module, "role": types.SymbolKind.Class, "port": types.SymbolKind.Field,
               "prerequisite": types.SymbolKind.Package, "deployment": types.SymbolKind.Event,
               "parameter": types.SymbolKind.Variable, "secret": types.SymbolKind.Key}


@registry.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(ls: PaiLanguageServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    if is_settings_file(params.text_document.uri):
        return []
    result = ls.analysis(params.text_document.uri)
    return [_symbol(ls, result, s) for s in ls.job_format(params.text_document.uri).symbols(result.doc)]


def _symbol(ls: PaiLanguageServer, result: Analysis, s: Any) -> types.DocumentSymbol:
    """One outline entry and those below it. A module function, not a closure: a closure that calls
    itself is a cycle, which kept the analysis (a parse, its text) until a full garbage collection."""
    return types.DocumentSymbol(
        name=s.name, kind=SYMBOL_KIND[s.kind], detail=s.detail or None,
        range=ls.range(result, s.start, s.end), selection_range=ls.range(result, s.select_start, s.select_end),
        children=[_symbol(ls, result, c) for c in s.children],
    )


@registry.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
def folding(ls: PaiLanguageServer, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
    if is_settings_file(params.text_document.uri):
        return []
    result = ls.analysis(params.text_document.uri)
    out = []
    for start, end, kind in ls.job_format(params.text_document.uri).folding_ranges(result.doc):
        a, b = result.lines.line_of(start), result.lines.line_of(end)
        if b > a:
            # a JSON region's closing bracket stays visible; a YAML block ("block") has none
            out.append(types.FoldingRange(start_line=a, end_line=b - 1 if kind == "region" else b,
                                          kind=types.FoldingRangeKind.Comment if kind == "comment" else types.FoldingRangeKind.Region))
    return out


@registry.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: PaiLanguageServer, params: types.DocumentFormattingParams) -> list[types.TextEdit]:
    if is_settings_file(params.text_document.uri):
        return []  # VS Code formats settings.json its own way
    result = ls.analysis(params.text_document.uri)
    indent = "\t" if not params.options.insert_spaces else " " * params.options.tab_size
    formatted = ls.job_format(params.text_document.uri).format_text(result.doc, indent)
    if formatted is None or formatted == result.doc.text:
        return []
    return [types.TextEdit(ls.range(result, 0, len(result.doc.text)), formatted)]


@registry.feature(types.TEXT_DOCUMENT_CODE_LENS)
def code_lens(ls: PaiLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    if is_settings_file(params.text_document.uri):
        return []
    result = ls.analysis(params.text_document.uri)
    root = result.doc.root
    settings = ls.settings_for(params.text_document.uri)
    job_format = ls.job_format(params.text_document.uri)
    prop = root.get_property(job_format.name_key) if root is not None and root.type == "object" else None
    if prop is None:
        return []
    where = ls.range(result, prop.start, prop.start)
    locale = settings.locale
    debuggable = isinstance(root.value, dict) and bool(_task_roles(job_format, root.value))
    return [
        types.CodeLens(range=where, command=types.Command(render(title, locale), name, arguments=[params.text_document.uri]))
        for name, title in CODE_LENSES.items() if name != DEBUG_LENS or debuggable
    ]


def _task_roles(job_format, job: dict) -> list:
    """The roles a Debug Job could stop (none in a half-typed file is fine)."""
    try:
        return job_format.task_roles(job)
    except (KeyError, TypeError, AttributeError):
        return []
