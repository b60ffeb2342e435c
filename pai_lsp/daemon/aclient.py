"""The daemon from asyncio code (the language server): same protocol as `client`, without blocking."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import Unreachable
from . import socket_path, state_dir
from .client import START_TIMEOUT, classify, start_daemon

Notify = Callable[[str, dict], Awaitable[None] | None]
_ids = itertools.count(1)


async def _connect() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    deadline = time.monotonic() + START_TIMEOUT
    started = False
    while True:
        try:
            return await asyncio.open_unix_connection(str(socket_path()), limit=1 << 24)
        except (FileNotFoundError, ConnectionRefusedError):
            if not started:
                await asyncio.to_thread(start_daemon)
                started = True
            if time.monotonic() > deadline:
                raise Unreachable(f"the pai daemon did not start: see {state_dir() / 'daemon.log'}") from None
            await asyncio.sleep(0.05)


async def call(method: str, params: dict | None = None, on_notification: Notify | None = None) -> Any:
    """One request on its own connection; notifications that belong to it go to `on_notification`."""
    reader, writer = await _connect()
    rid = next(_ids)
    try:
        writer.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}).encode() + b"\n")
        await writer.drain()
        while line := await reader.readline():
            kind, value = classify(json.loads(line), rid)
            if kind == "notification" and on_notification is not None:
                result = on_notification(*value)
                if asyncio.iscoroutine(result):
                    await result
            elif kind == "result":
                return value
        raise ConnectionError("the pai daemon closed the connection")
    finally:
        writer.close()
