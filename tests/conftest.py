"""Shared helpers: the language server driven over stdio with pytest-lsp, as an editor drives it."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

SERVER = [sys.executable, "-m", "pai_lsp", "lsp"]
# shared/ lies beside the checkout, for developers and CI alike.
SHARED = Path(os.environ.get("PAI_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))


async def _start(client: LanguageClient, locale: str | None, options: dict | None = None) -> None:
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


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    await _start(lsp_client, "en")
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client_zh(lsp_client: LanguageClient):
    await _start(lsp_client, "zh-CN")
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client_scm(lsp_client: LanguageClient):
    await _start(lsp_client, "en", {"pai": {"cluster": {"kind": "scm"}}})
    yield
    await lsp_client.shutdown_session()


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


# Property tests: CI runs a fixed set of examples (a red CI must be reproducible);
# `HYPOTHESIS_PROFILE=explore` searches afresh with many more.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("dev", max_examples=300)
_hypothesis_settings.register_profile("ci", max_examples=300, derandomize=True)
_hypothesis_settings.register_profile("explore", max_examples=5000)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


class StandIn:
    """A stand-in for a misbehaving real cluster on 127.0.0.1: `respond(method, path, body)` returns
    (status, headers, body bytes or a JSON-able value)."""

    def __init__(self, respond):
        import threading
        from http.server import BaseHTTPRequestHandler, HTTPServer

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                status, headers, body = respond(self.command, self.path, self.rfile.read(length) if length else b"")
                if not isinstance(body, bytes):
                    body = json.dumps(body).encode()
                    headers = {"Content-Type": "application/json", **headers}
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_PUT = do_POST = do_DELETE = _answer

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def __enter__(self) -> StandIn:
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
