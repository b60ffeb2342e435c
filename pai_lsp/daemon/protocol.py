"""The daemon's framing: one JSON-RPC 2.0 message per line, UTF-8, both ways. What the messages
carry (every method's params and result, every event) is the API's (`pai_lsp/api.py`), and a
failure travels in its one wire form (`errors.PaiError.to_wire`) as the JSON-RPC error's `data`.

Callers name the messages by the API's module (`api.Submit`, `api.JobLog`); this one only frames them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..api import CANCEL_REQUEST, EVENTS, Event, Params, Result
from ..core.messages import message
from ..errors import PaiError

if TYPE_CHECKING:
    import asyncio  # (loaded by who reads a stream; a blocking caller of `read_reply` needs none)

# JSON-RPC's own codes, for what is not a request we can answer; ours is 1 (`FAILED`).
FAILED, PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = 1, -32700, -32600, -32601, -32602, -32603


def encode(message: dict | list) -> bytes:
    return json.dumps(message).encode() + b"\n"


async def read_line(reader: asyncio.StreamReader) -> bytes | None:
    """One message (a line) of any length, or None when the other side closed between messages.
    There is no size limit: a long file list or a big result is read in pieces as it comes."""
    import asyncio

    parts: list[bytes] = []
    while True:
        try:
            parts.append(await reader.readuntil(b"\n"))
            return b"".join(parts)
        except asyncio.LimitOverrunError as exc:
            parts.append(await reader.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:
            if exc.partial or parts:
                raise ConnectionError(message("daemon.cut-off")) from None
            return None


def request(rid: int, params: Params) -> bytes:
    return encode({"jsonrpc": "2.0", "id": rid, "method": params.METHOD, "params": params.to_json()})


def cancel_request(rid: int) -> bytes:
    """Stop request `rid` (LSP's `$/cancelRequest`: Ctrl-C, the editor's Cancel); see `api.CANCELLABLE`."""
    return encode({"jsonrpc": "2.0", "method": CANCEL_REQUEST, "params": {"id": rid}})


def notification(event: Event) -> dict:
    return {"jsonrpc": "2.0", "method": event.EVENT, "params": event.to_json()}


def result(rid: Any, value: Result) -> dict:
    """The one place a result becomes JSON."""
    return {"jsonrpc": "2.0", "id": rid, "result": value.to_json()}


def error(rid: Any, exc: PaiError, code: int = FAILED) -> dict:
    """A failure: `code` 1 for one of ours (JSON-RPC's own for a message that is no request we can
    answer), the one line (English), and in `data` the failure's wire form, which says it again with
    its catalogue code, for the client to say in its reader's language."""
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": exc.message, "data": exc.to_wire()}}


@dataclass(frozen=True)
class Reply:
    """The result of a request (its JSON: `api.read_result` reads it as its class)."""

    value: Any


def read_reply(message: dict, rid: int) -> Event | Reply | None:
    """What one line from the daemon is for a caller waiting on request `rid`: an event, the
    reply, or None (someone else's, or an event this client does not know). An error reply raises
    its `errors` class."""
    if "method" in message and "id" not in message:
        cls = EVENTS.get(message["method"])
        return cls.from_json(message.get("params")) if cls is not None else None
    if message.get("id") != rid:
        return None
    if "error" in message:
        failure = message["error"]
        raise PaiError.from_wire(failure.get("data"), str(failure.get("message") or ""))
    return Reply(message["result"])
