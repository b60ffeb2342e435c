"""The language server driven over stdio with pytest-lsp, as an editor drives it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
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


class RawServer:
    """The language server as a subprocess spoken to in raw bytes, for what pytest-lsp cannot send
    (malformed headers) or survive (the server killed). Its messages are read on a thread."""

    def __init__(self, cwd: Path, command: list[str] | None = None):
        self.process = subprocess.Popen(command or SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
        self.received: queue.Queue[dict] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if not line or length is None:
                return
            self.received.put(json.loads(out.read(length)))

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict, header: bytes | None = None) -> None:
        """`message` framed with `header` (default: the right Content-Length)."""
        body = json.dumps(message).encode()
        self.write((header if header is not None else b"Content-Length: %d\r\n\r\n" % len(body)) + body)

    def initialize(self) -> None:
        self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"capabilities": {}}})
        self.wait_for(lambda m: m.get("id") == "init")
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def open(self, path: Path, text: str) -> None:
        self.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": path.as_uri(), "languageId": "json", "version": 1, "text": text}}})

    def wait_for(self, condition, timeout: float = 30) -> dict:
        """The first message received (from now on) that meets `condition`."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.received.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"timed out waiting for the server; its stderr: {''.join(self.stderr)[-2000:]}") from None
            if condition(message):
                return message

    def close(self) -> None:
        """End the server and every process it started that is still running."""
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(self.process.pid).children(recursive=True):
                child.kill()
        self.process.kill()
        self.process.wait(10)
