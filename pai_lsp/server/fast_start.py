"""Answer `initialize` while the server is still loading.

Importing pygls and lsprotocol takes most of half a second; an editor waits for the
`initialize` answer before it sends anything else. So the stdio server starts loading in a
thread, answers `initialize` from a snapshot of its own capabilities (stdlib only), then hands
the whole conversation — the `initialize` request included, so pygls sets up its state as
usual — to the real server, dropping the server's second answer to that request. Requests
sent meanwhile wait in a pipe and are served in order. Every message reaches pygls framed anew by
`framing.FrameReader`, which survives a malformed header.

`capabilities.json` is the snapshot; `python -m pai_lsp.server.fast_start` rewrites it, and a
test fails when it differs from what the server builds.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

from .framing import FrameReader, frame

SNAPSHOT = Path(__file__).with_name("capabilities.json")
ENCODINGS = ("utf-8", "utf-16", "utf-32")


def initialize_result(params: dict) -> dict:
    """What the server answers to `initialize`, without loading it."""
    from .. import __version__

    capabilities = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    wanted = ((params.get("capabilities") or {}).get("general") or {}).get("positionEncodings") or []
    capabilities["positionEncoding"] = next((e for e in wanted if e in ENCODINGS), "utf-16")
    return {"capabilities": capabilities, "serverInfo": {"name": "pai-lsp", "version": __version__}}


class _DropAnswer:
    """stdout for pygls that swallows its own answer to the request already answered."""

    def __init__(self, out: BinaryIO, request_id: Any):
        self.out = out
        self.request_id = request_id

    def write(self, data: bytes) -> None:
        if self.request_id is not None:
            _, _, body = data.partition(b"\r\n\r\n")
            try:
                message = json.loads(body)
            except ValueError:
                message = {}
            if message.get("id") == self.request_id and "method" not in message:
                self.request_id = None
                return
        self.out.write(data)

    def flush(self) -> None:
        self.out.flush()

    def close(self) -> None:
        self.out.close()


def _parse(body: bytes | None) -> dict:
    try:
        message = json.loads(body) if body else None
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def serve_stdio() -> None:
    loaded: list = []

    def load() -> None:
        from ..core.validate import warm_up
        from . import create_language_server  # the slow import (pygls, lsprotocol) happens here

        loaded.append(create_language_server())
        warm_up()

    loader = threading.Thread(target=load, daemon=True)
    loader.start()
    stdout = sys.stdout.buffer
    reader = FrameReader(sys.stdin.buffer)
    first = reader.next()
    message = _parse(first)
    answered = None
    if message.get("method") == "initialize":
        answered = message.get("id")
        body = json.dumps({"jsonrpc": "2.0", "id": answered, "result": initialize_result(message.get("params") or {})})
        stdout.write(frame(body.encode("utf-8")))
        stdout.flush()
    loader.join()
    (server,) = loaded
    read_fd, write_fd = os.pipe()

    def feed() -> None:
        with os.fdopen(write_fd, "wb", buffering=0) as pipe:
            try:
                body = first
                while body is not None:
                    pipe.write(frame(body))
                    body = reader.next()
            except (BrokenPipeError, OSError):
                pass

    threading.Thread(target=feed, daemon=True).start()
    server.start_io(os.fdopen(read_fd, "rb"), _DropAnswer(stdout, answered))
    # pygls's reader thread may still wait on the pipe; the conversation is over, so leave now,
    # with the exit code the protocol asks for (0 only after a `shutdown` request).
    os._exit(0 if getattr(server.protocol, "_shutdown", False) else 1)


def snapshot_from_server() -> dict:
    """The capabilities pygls builds for this server, as JSON (encoding left to the client)."""
    from lsprotocol import types
    from pygls.capabilities import ServerCapabilitiesBuilder

    from . import create_language_server

    server = create_language_server()
    protocol = server.protocol
    builder = ServerCapabilitiesBuilder(
        types.ClientCapabilities(),
        set({**protocol.fm.features, **protocol.fm.builtin_features}.keys()),
        protocol.fm.feature_options,
        list(protocol.fm.commands.keys()),
        server._text_document_sync_kind,
        server._notebook_document_sync,
        types.PositionEncodingKind.Utf16,
    )
    caps = protocol._converter.unstructure(builder.build())
    caps.pop("positionEncoding", None)
    return caps


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(snapshot_from_server(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
