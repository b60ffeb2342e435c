"""Request heads bounded at `MAX_HEAD_BYTES`, with uvicorn as it is meant to be used.

uvicorn serves with h11 (`http="h11"`), which refuses a head still incomplete past
`h11_max_incomplete_event_size` (one endless header, a head spread over many reads: 400 and the
connection closed, having cost at most the bound plus one read). `bounded_heads` refuses a head that
arrived whole but is over the bound, from what the ASGI scope holds of it (its line and headers), so
no part of the app sees it.
"""

from __future__ import annotations

from collections.abc import Callable

# A request's line and headers, at most: Node's default (--max-http-header-size, 16 KiB since Node 12.18),
# the REST server's; clients here send well under 1 KiB.
MAX_HEAD_BYTES = 16 * 1024
TOO_LARGE = b"Request head too large."


def head_size(scope: dict) -> int:
    """The bytes of a request's head as it was sent: `METHOD target HTTP/1.1`, each `name: value`, CRLFs."""
    target = len(scope.get("raw_path") or scope["path"].encode()) + (len(scope["query_string"]) + 1 if scope.get("query_string") else 0)
    line = len(scope["method"]) + 1 + target + len(" HTTP/1.1\r\n")
    return line + sum(len(name) + len(value) + 4 for name, value in scope["headers"]) + 2


def bounded_heads(app: Callable) -> Callable:
    """`app`, with a request whose head is over the bound answered 400 and its connection closed."""

    async def bounded(scope, receive, send) -> None:
        if scope["type"] == "http" and head_size(scope) > MAX_HEAD_BYTES:
            await send({"type": "http.response.start", "status": 400, "headers": [
                (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(TOO_LARGE)).encode()),
                (b"connection", b"close")]})
            await send({"type": "http.response.body", "body": TOO_LARGE})
            return
        await app(scope, receive, send)

    return bounded
