"""Plain pygls (no workaround of server/pygls_compat.py), showing each behaviour that module works
around. Each test here FAILS once pygls behaves: then delete that workaround (and this test), as
docs/pygls-workarounds.md says. What the server does instead is tested over stdio elsewhere
(test_lsp_sync.py, test_lsp_framing.py, test_lsp_resources.py, test_hostile_input.py)."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
import threading

import pytest
from lsprotocol import types
from pygls.io_ import run_async
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument


def framed(message: dict, header: bytes | None = None) -> bytes:
    body = json.dumps(message).encode()
    return (header if header is not None else b"Content-Length: %d\r\n\r\n" % len(body)) + body


class BytesReader:
    """What pygls's read loop reads from: these bytes."""

    def __init__(self, data: bytes):
        self.stream = io.BytesIO(data)

    async def readline(self) -> bytes:
        return self.stream.readline()

    async def readexactly(self, n: int) -> bytes:
        return self.stream.read(n)


class Written:
    """What pygls writes: the messages, decoded."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))

    def close(self) -> None:
        pass


def serve_bytes(server: LanguageServer, data: bytes) -> list[dict]:
    """pygls's own read loop over `data`; what the server wrote back."""
    written = Written()
    server.protocol.set_writer(written)

    async def run() -> None:
        await run_async(threading.Event(), BytesReader(data), server.protocol)
        await asyncio.sleep(0.05)  # let handlers scheduled by the last message finish

    asyncio.run(run())
    return written.messages


def test_pygls_keeps_the_future_of_every_notification():
    """Worked around by CompatProtocol._execute_handler."""
    server = LanguageServer("plain", "1")
    server.feature(types.INITIALIZED)(lambda ls, params: None)
    protocol = server.protocol
    for _ in range(3):
        protocol.handle_message(json.loads(framed({"jsonrpc": "2.0", "method": "initialized", "params": {}}).split(b"\r\n\r\n")[1],
                                           object_hook=protocol.structure_message))
    assert len(protocol._request_futures) == 3, "pygls forgets finished futures now: drop CompatProtocol._execute_handler"


def test_pygls_answers_nothing_to_a_request_whose_params_do_not_fit():
    """Worked around by CompatProtocol.structure_message / handle_message."""
    server = LanguageServer("plain", "1")
    bad = {"jsonrpc": "2.0", "id": "bad", "method": "textDocument/hover",
           "params": {"textDocument": {"uri": "file:///x"}, "position": {"line": -1, "character": 0}}}
    answers = serve_bytes(server, framed({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"capabilities": {}}})
                          + framed(bad))
    assert [m.get("id") for m in answers] == ["init"], "pygls answers bad params now: drop CompatProtocol's _Refused"


def test_pygls_loses_the_messages_after_a_header_it_does_not_take():
    """Worked around by ReframedStdin (and framing.FrameReader)."""
    server = LanguageServer("plain", "1")
    pings: list[object] = []
    server.feature("custom/ping")(lambda ls, params: pings.append(params))
    ping = json.dumps({"jsonrpc": "2.0", "method": "custom/ping", "params": {}}).encode()
    serve_bytes(server, b"content-length: %d\n\n" % len(ping) + ping + framed({"jsonrpc": "2.0", "method": "custom/ping", "params": {}}))
    assert pings == [], "pygls reads lenient headers now: drop ReframedStdin"


def test_pygls_text_document_breaks_lines_where_lsp_does_not():
    """Worked around by the server's own documents (documents.py, CompatProtocol's document sync)."""
    assert len(TextDocument("file:///x.txt", "a\u2028b\nc\n").lines) == 3, "pygls counts lines as LSP does now"
    reversed_range = TextDocument("file:///x.txt", "abcdef\n")
    reversed_range.apply_change(types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 4), types.Position(0, 2)), text="X"))
    assert reversed_range.source == "abcdXcdef\n", "pygls applies a reversed range without duplicating text now"


PLAIN_SERVER = "from pygls.lsp.server import LanguageServer; LanguageServer('plain', '1').start_io()"


@pytest.mark.subprocess
def test_pygls_start_io_does_not_end_with_the_exit_code_the_protocol_asks_for():
    """Worked around by pygls_compat.serve: after `exit` without `shutdown`, LSP asks for exit code 1;
    plain pygls ends with 0 (or, were its reading thread to keep it alive, not at all)."""
    process = subprocess.Popen([sys.executable, "-c", PLAIN_SERVER], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        assert process.stdin is not None
        process.stdin.write(framed({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
                            + framed({"jsonrpc": "2.0", "method": "exit"}))
        process.stdin.flush()
        try:
            code = process.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        assert code in (None, 0), "pygls ends with the protocol's exit code now: drop pygls_compat.serve's exit code"
    finally:
        process.kill()
        process.wait()
