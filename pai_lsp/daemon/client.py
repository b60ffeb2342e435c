"""Talking to the daemon, for the CLI and the language server alike: start it when it is not
running, call a method, receive the events that belong to the call, and follow a job's log across
daemon restarts without a byte lost or repeated.

Calls are asyncio; the CLI runs them with `call_sync` / `asyncio.run`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import Unreachable
from . import protocol, socket_path, state_dir

START_TIMEOUT = 15.0
RESTARTS = 5  # how often a follow reconnects to a daemon that died
READ_LIMIT = 1 << 24  # longest line read from the daemon

OnEvent = Callable[[protocol.Event], Awaitable[None] | None]
_ids = itertools.count(1)


def start_daemon() -> None:
    """Start the daemon in the background (its own session: it outlives the caller)."""
    state_dir().mkdir(parents=True, exist_ok=True)
    with open(state_dir() / "daemon.log", "ab") as log:
        subprocess.Popen([sys.executable, "-m", "pai_lsp", "daemon", "serve"], stdin=subprocess.DEVNULL,
                         stdout=log, stderr=log, start_new_session=True)


async def _connect(start: bool) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    deadline = time.monotonic() + START_TIMEOUT
    started = False
    while True:
        try:
            return await asyncio.open_unix_connection(str(socket_path()), limit=READ_LIMIT)
        except (FileNotFoundError, ConnectionRefusedError):
            if not start:
                raise Unreachable("the pai daemon is not running") from None
            if not started:
                await asyncio.to_thread(start_daemon)
                started = True
            if time.monotonic() > deadline:
                raise Unreachable(f"the pai daemon did not start: see {state_dir() / 'daemon.log'}") from None
            await asyncio.sleep(0.05)


async def call(params: protocol.Params, on_event: OnEvent | None = None, start: bool = True) -> Any:
    """One request on its own connection; the events that belong to it go to `on_event`.
    Raises the `errors` class of a failure, ConnectionError when the daemon goes away."""
    reader, writer = await _connect(start)
    rid = next(_ids)
    try:
        writer.write(protocol.request(rid, params))
        await writer.drain()
        while line := await reader.readline():
            reply = protocol.read_reply(json.loads(line), rid)
            if isinstance(reply, protocol.Reply):
                return reply.value
            if reply is not None and on_event is not None:
                done = on_event(reply)
                if asyncio.iscoroutine(done):
                    await done
        raise ConnectionError("the pai daemon closed the connection")
    finally:
        writer.close()


def call_sync(params: protocol.Params, on_event: OnEvent | None = None, start: bool = True) -> Any:
    return asyncio.run(call(params, on_event, start))


class LogCursor:
    """How many bytes of each task's log a follower has, so a resumed stream shows nothing twice."""

    def __init__(self, offsets: dict[str, int] | None = None) -> None:
        self.offsets: dict[str, int] = dict(offsets or {})

    def accept(self, log: protocol.JobLog) -> str:
        """The text of a `job.log` event not seen before (may be empty)."""
        have = self.offsets.get(log.task, 0)
        end = log.offset + log.length
        if end <= have:
            return ""
        text = log.text
        if log.offset < have:  # a replay that overlaps what we have: keep the new part
            text = text.encode("utf-8")[have - log.offset :].decode("utf-8", "replace")
        self.offsets[log.task] = end
        return text


async def follow(params: protocol.FollowLogs, on_log: Callable[[protocol.JobLog, str], None],
                 on_status: Callable[[protocol.JobStatus], None] | None = None) -> dict:
    """Stream a job's log (`on_log` gets each new piece of text) and its status changes until it
    ends (or, without `params.follow`, what is there now). When the daemon dies it is started
    again and asked to go on from the bytes already received."""
    cursor = LogCursor(params.offsets)

    def on_event(event: protocol.Event) -> None:
        if isinstance(event, protocol.JobLog):
            if text := cursor.accept(event):
                on_log(event, text)
        elif isinstance(event, protocol.JobStatus) and on_status is not None:
            on_status(event)

    for attempt in range(RESTARTS + 1):
        try:
            return await call(dataclasses.replace(params, offsets=cursor.offsets), on_event)
        except (ConnectionError, OSError):
            if attempt == RESTARTS:
                raise Unreachable(f"the pai daemon keeps stopping: see {state_dir() / 'daemon.log'}") from None
    raise AssertionError("unreachable")
