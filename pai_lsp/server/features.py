"""One function per LSP feature, each a thin mapping of a core function to LSP types."""

from __future__ import annotations

from lsprotocol import types

from ..core.completion import complete
from ..core.hover import hover
from ..core.messages import pick
from ..core.outline import folding_ranges, format_text, symbols
from . import jobs
from .app import PaiLanguageServer, server

COMMANDS = {
    "pai.submitJob": ("Submit Job to PAI Cluster", "提交作业到 PAI 集群"),
    "pai.runLocally": ("Run locally", "在本机运行"),
}


@server.feature(types.INITIALIZE)
def initialize(ls: PaiLanguageServer, params: types.InitializeParams) -> None:
    ls.locale = params.locale
    if params.initialization_options:
        ls.update_client_settings(params.initialization_options)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: PaiLanguageServer, params: types.DidChangeConfigurationParams) -> None:
    if isinstance(params.settings, dict):
        ls.update_client_settings(params.settings)
    for uri in ls.documents:
        ls.publish(uri)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: PaiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: PaiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule_diagnostics(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: PaiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.analyses.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


COMPLETION_KIND = {
    "property": types.CompletionItemKind.Property,
    "value": types.CompletionItemKind.Value,
    "snippet": types.CompletionItemKind.Snippet,
    "variable": types.CompletionItemKind.Variable,
}


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"', "$", ":"]))
def completion(ls: PaiLanguageServer, params: types.CompletionParams) -> types.CompletionList:
    result = ls.analysis(params.text_document.uri)
    offset = ls.offset(result, params.position)
    items = []
    for c in complete(result.doc, offset, ls.settings_for(params.text_document.uri)):
        items.append(types.CompletionItem(
            label=c.label,
            kind=COMPLETION_KIND[c.kind],
            detail=c.detail or None,
            documentation=types.MarkupContent(types.MarkupKind.Markdown, c.documentation) if c.documentation else None,
            filter_text=c.filter or None,
            insert_text_format=types.InsertTextFormat.Snippet,
            text_edit=types.TextEdit(ls.range(result, c.start, c.end), c.insert),
        ))
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: PaiLanguageServer, params: types.HoverParams) -> types.Hover | None:
    result = ls.analysis(params.text_document.uri)
    found = hover(result.doc, ls.offset(result, params.position), ls.settings_for(params.text_document.uri))
    if found is None:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, found.markdown), ls.range(result, found.start, found.end))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
def code_actions(ls: PaiLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
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
    return actions


SYMBOL_KIND = {"job": types.SymbolKind.Module, "role": types.SymbolKind.Class, "port": types.SymbolKind.Field}


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbols(ls: PaiLanguageServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    result = ls.analysis(params.text_document.uri)

    def convert(s) -> types.DocumentSymbol:
        return types.DocumentSymbol(
            name=s.name, kind=SYMBOL_KIND[s.kind], detail=s.detail or None,
            range=ls.range(result, s.start, s.end), selection_range=ls.range(result, s.select_start, s.select_end),
            children=[convert(c) for c in s.children],
        )

    return [convert(s) for s in symbols(result.doc)]


@server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
def folding(ls: PaiLanguageServer, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
    result = ls.analysis(params.text_document.uri)
    out = []
    for start, end, kind in folding_ranges(result.doc):
        a, b = result.lines.line_of(start), result.lines.line_of(end)
        if b > a:
            out.append(types.FoldingRange(start_line=a, end_line=b - 1 if kind == "region" else b,
                                          kind=types.FoldingRangeKind.Comment if kind == "comment" else types.FoldingRangeKind.Region))
    return out


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: PaiLanguageServer, params: types.DocumentFormattingParams) -> list[types.TextEdit]:
    result = ls.analysis(params.text_document.uri)
    indent = "\t" if not params.options.insert_spaces else " " * params.options.tab_size
    formatted = format_text(result.doc, indent)
    if formatted is None or formatted == result.doc.text:
        return []
    return [types.TextEdit(ls.range(result, 0, len(result.doc.text)), formatted)]


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
def code_lens(ls: PaiLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    result = ls.analysis(params.text_document.uri)
    root = result.doc.root
    prop = root.get_property("jobName") if root is not None and root.type == "object" else None
    if prop is None:
        return []
    where = ls.range(result, prop.start, prop.start)
    locale = ls.settings_for(params.text_document.uri).locale
    return [
        types.CodeLens(range=where, command=types.Command(pick(locale, en, zh), name, arguments=[params.text_document.uri]))
        for name, (en, zh) in COMMANDS.items()
    ]


@server.command("pai.submitJob")
async def submit_job(ls: PaiLanguageServer, *args) -> dict:
    return await jobs.submit(ls, _uri_arg(args), cluster=None)


@server.command("pai.runLocally")
async def run_locally(ls: PaiLanguageServer, *args) -> dict:
    return await jobs.submit(ls, _uri_arg(args), cluster="local")


@server.command("pai.jobOutputs")
async def job_outputs(ls: PaiLanguageServer, *args) -> dict:
    """Arguments: job name, destination folder[, cluster]."""
    flat = [a for arg in args for a in (arg if isinstance(arg, list) else [arg])]
    if len(flat) < 2:
        return {"ok": False, "message": "pai.jobOutputs needs a job name and a destination folder"}
    return await jobs.call_or_fail(ls, "outputs", {"job": flat[0], "dest": flat[1], "cluster": flat[2] if len(flat) > 2 else None})


def _hdfs_command(op: str):
    """`pai.hdfs.<op>`: one argument, an object with the daemon method's params (docs/protocol.md)."""

    async def command(ls: PaiLanguageServer, *args) -> dict:
        params = next((a for a in args if isinstance(a, dict)), None)
        if params is None and args and isinstance(args[0], list):
            params = next((a for a in args[0] if isinstance(a, dict)), None)
        result = await jobs.call_or_fail(ls, f"hdfs.{op}", params or {})
        if result.get("ok") and "data" in result:
            import base64

            result["text"] = base64.b64decode(result.pop("data")).decode("utf-8", "replace")
        return result

    command.__name__ = f"hdfs_{op}"
    return command


for _op in ("ls", "stat", "mkdir", "rm", "mv", "cat", "tail", "put", "get"):
    server.command(f"pai.hdfs.{_op}")(_hdfs_command(_op))


def _uri_arg(args: tuple) -> str | None:
    for arg in args:
        if isinstance(arg, str):
            return arg
        if isinstance(arg, list) and arg and isinstance(arg[0], str):
            return arg[0]
    return None
