"""Request bodies, bounded as the real servers bound them: read up to a size limit (what lies beyond
is never held in memory: the answer is a 413 as soon as the limit is passed), and JSON parsed as
JSON.parse reads it, nested no deeper than a job config ever is (the core's limit, the editor's too).
Every route that reads a body reads it here."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from ..core.jsonc import MAX_DEPTH
from .rest_errors import ClusterError

REST_LIMIT = 100 * 1024  # OpenPAI's rest-server: body-parser's default limit ("100kb") for JSON, forms and text/*
DJANGO_LIMIT = 2_621_440  # PaddlePaddle Cloud's Django server: DATA_UPLOAD_MAX_MEMORY_SIZE


class BodyTooLarge(ClusterError):
    """Answered with `Connection: close`: the rest of the body is never read (parsing what a client
    goes on sending would cost the event loop as much as taking it)."""

    def __init__(self, limit: int):
        super().__init__(413, "PayloadTooLargeError", f"request entity too large: the body is over {limit:,} bytes, "
                                                      "the most this API takes", {"Connection": "close"})


class NotJson(ValueError):
    """Not JSON (as JSON.parse reads it)."""


class TooDeep(NotJson):
    """JSON nested deeper than MAX_DEPTH."""

    def __init__(self) -> None:
        super().__init__(f"the JSON is nested more than {MAX_DEPTH} levels deep")


async def read(request: Request, limit: int) -> bytes:
    """The whole body, or BodyTooLarge once more than `limit` bytes are announced or arrive."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(limit)
    pieces, size = [], 0
    async for piece in request.stream():
        size += len(piece)
        if size > limit:
            raise BodyTooLarge(limit)
        pieces.append(piece)
    return b"".join(pieces)


def parse_json(raw: bytes | str) -> Any:
    """JSON as JSON.parse reads it (NaN and Infinity are no JSON), at most MAX_DEPTH levels deep."""
    try:
        value = json.loads(raw, parse_constant=_not_json)
    except RecursionError:
        raise TooDeep() from None
    except ValueError as exc:
        raise NotJson(str(exc)) from None
    if _deeper_than(value, MAX_DEPTH):
        raise TooDeep()
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest more than `limit` levels (a walk without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not JSON")
