"""The language server driven over stdio with pytest-lsp, as an editor drives it."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

SERVER = [sys.executable, "-m", "pai_lsp", "lsp"]


async def start_session(client: LanguageClient, locale: str | None, options: dict | None = None) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    completion=types.CompletionClientCapabilities(
                        completion_item=types.ClientCompletionItemOptions(
                            snippet_support=True, documentation_format=[types.MarkupKind.Markdown]
                        )
                    ),
                    hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
                ),
                window=types.WindowClientCapabilities(work_done_progress=True),
            ),
            locale=locale,
            initialization_options=options,
        )
    )


class Editor:
    """Opens and edits documents the way an editor does, and waits for the server's answer."""

    def __init__(self, client: LanguageClient, path: Path):
        self.client = client
        self.uri = path.as_uri()
        self.version = 0
        self.text = ""

    async def open(self, text: str) -> list[types.Diagnostic]:
        self.text = text
        self.version = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(self.uri, "json", self.version, text))
        )
        return await self.diagnostics()

    async def replace_all(self, text: str) -> list[types.Diagnostic]:
        self.text = text
        self.version += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(self.version, self.uri),
            [types.TextDocumentContentChangeWholeDocument(text)],
        ))
        return await self.diagnostics()

    async def edit(self, edits: list[types.TextEdit]) -> list[types.Diagnostic]:
        """Apply text edits as incremental changes (last first, so ranges stay valid)."""
        self.version += 1
        changes = []
        for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            changes.append(types.TextDocumentContentChangePartial(range=e.range, text=e.new_text))
            self.text = apply_edit(self.text, e)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(self.version, self.uri), changes))
        return await self.diagnostics()

    async def diagnostics(self) -> list[types.Diagnostic]:
        while True:
            await self.client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if self.uri in self.client.diagnostics:
                return list(self.client.diagnostics[self.uri])

    def position(self, needle: str, delta: int = 0) -> types.Position:
        """Position of `needle` (plus `delta` characters) in the current ASCII text."""
        offset = self.text.index(needle) + delta
        line = self.text.count("\n", 0, offset)
        return types.Position(line, offset - (self.text.rfind("\n", 0, offset) + 1))

    def doc(self) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(self.uri)


# The editor's side of positions, written independently of the server's LineIndex: lines end at
# \n, \r\n or \r and nowhere else; columns count UTF-16 units unless another encoding was agreed.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


def editor_lines(text: str) -> list[str]:
    """The lines of `text` with their line ends, as LSP counts them (the last one may be empty)."""
    lines = [m.group(0) for m in _LINE.finditer(text)]
    return lines[:-1] if len(lines) > 1 and lines[-1] == "" and lines[-2][-1:] not in ("\r", "\n") else lines


def _width(ch: str, encoding: str) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    return 2 if ord(ch) > 0xFFFF else 1


def offset_of(text: str, pos: types.Position, encoding: str = "utf-16") -> int:
    lines = editor_lines(text)
    if pos.line >= len(lines):
        return len(text)
    offset = sum(len(line) for line in lines[: pos.line])
    body = lines[pos.line].rstrip("\r\n")
    units = 0
    for ch in body:
        if units >= pos.character:
            break
        units += _width(ch, encoding)
        offset += 1
    return offset


def position_of(text: str, offset: int, encoding: str = "utf-16") -> types.Position:
    line, start = 0, 0
    for i, body in enumerate(editor_lines(text)):
        if start + len(body) > offset or i == len(editor_lines(text)) - 1:
            line = i
            break
        start += len(body)
    return types.Position(line, sum(_width(ch, encoding) for ch in text[start:offset]))


def apply_edit(text: str, edit: types.TextEdit, encoding: str = "utf-16") -> str:
    start, end = offset_of(text, edit.range.start, encoding), offset_of(text, edit.range.end, encoding)
    start, end = min(start, end), max(start, end)
    return text[:start] + edit.new_text + text[end:]


def text_at(text: str, rng: types.Range) -> str:
    return text[offset_of(text, rng.start) : offset_of(text, rng.end)]


async def until(condition, timeout: float = 60) -> None:
    """Wait for what the server sends (it may have arrived already): no waiting for a message twice."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting for the server"
        await asyncio.sleep(0.02)
