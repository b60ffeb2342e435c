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
RESTARTS = 5  # how often a call that can be resumed reconnects to a daemon that died
BUFFER = 4 << 20  # bytes buffered from the socket: a `job.log` of 1 MiB fits whole (a longer message is read in pieces)

# Methods asked again, unchanged, when the daemon dies before answering: they only read, or (a
# submit with a request id) the new daemon finishes what the old one started.
READ_ONLY = frozenset({"ping", "jobs", "status", "config", "ssh", "hdfs.ls", "hdfs.stat", "hdfs.cat", "hdfs.tail",
                       "clusters.list"})

OnEvent = Callable[[protocol.Event], Awaitable[None] | None]
_ids = itertools.count(1)


class DaemonStopped(ConnectionError):
    """The daemon went away before it answered."""


def start_daemon() -> None:
    """Start the daemon in the background (its own session: it outlives the caller). Callers that
    race may start several; all but one leave at once (`server.serve`)."""
    state_dir().mkdir(parents=True, exist_ok=True)
    with open(state_dir() / "daemon.log", "ab") as log:
        subprocess.Popen([sys.executable, "-m", "pai_lsp", "daemon", "serve"], stdin=subprocess.DEVNULL,
                         stdout=log, stderr=log, start_new_session=True)


async def _connect(start: bool) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    deadline = time.monotonic() + START_TIMEOUT
    started = False
    while True:
        try:
            return await asyncio.open_unix_connection(str(socket_path()), limit=BUFFER)
        except (FileNotFoundError, ConnectionRefusedError):
            if not start:
                raise Unreachable("the pai daemon is not running") from None
            if not started:
                await asyncio.to_thread(start_daemon)
                started = True
            if time.monotonic() > deadline:
                raise Unreachable(f"the pai daemon did not start: see {state_dir() / 'daemon.log'}") from None
            await asyncio.sleep(0.05)


async def call_once(params: protocol.Params, on_event: OnEvent | None = None, start: bool = True) -> Any:
    """One request on its own connection; the events that belong to it go to `on_event`.
    Raises the `errors` class of a failure, DaemonStopped when the daemon goes away first."""
    reader, writer = await _connect(start)
    rid = next(_ids)
    try:
        writer.write(protocol.request(rid, params))
        await writer.drain()
        while (line := await protocol.read_line(reader)) is not None:
            reply = protocol.read_reply(json.loads(line), rid)
            if isinstance(reply, protocol.Reply):
                return reply.value
            if reply is not None and on_event is not None:
                done = on_event(reply)
                if asyncio.iscoroutine(done):
                    await done
    except (ConnectionError, OSError) as exc:
        raise DaemonStopped(str(exc)) from None
    finally:
        writer.close()
    raise DaemonStopped("the pai daemon closed the connection")


def resumable(params: protocol.Params) -> bool:
    return params.METHOD in READ_ONLY or (isinstance(params, protocol.Submit) and params.request_id is not None)


async def call(params: protocol.Params, on_event: OnEvent | None = None, start: bool = True,
               on_restart: Callable[[], None] | None = None) -> Any:
    """`call_once`, asked again of a new daemon when the old one died before answering, for
    requests that can be asked twice (`resumable`); `on_restart` hears of it (once: a dying daemon
    can also refuse the first reconnection). Otherwise a daemon that dies is one Unreachable line
    saying what may or may not have happened."""
    for attempt in range(RESTARTS + 1):
        try:
            return await call_once(params, on_event, start)
        except DaemonStopped:
            if not resumable(params):
                raise Unreachable(f"the pai daemon stopped before it answered `{params.METHOD}`, which may or may not "
                                  f"have been done: check, then try again (see {state_dir() / 'daemon.log'})") from None
            if attempt == 0 and on_restart is not None:
                on_restart()
            await asyncio.sleep(0.1 * attempt)
    raise Unreachable(f"the pai daemon keeps stopping: see {state_dir() / 'daemon.log'}")


def call_sync(params: protocol.Params, on_event: OnEvent | None = None, start: bool = True,
              on_restart: Callable[[], None] | None = None) -> Any:
    return asyncio.run(call(params, on_event, start, on_restart))


class LogCursor:
    """How many bytes of each task's log a follower has, so a resumed stream shows nothing twice."""

    def __init__(self, offsets: dict[str, int] | None = None) -> None:
        self.offsets: dict[str, int] = dict(offsets or {})

    def accept(self, log: protocol.JobLog) -> bytes:
        """The bytes of a `job.log` event not seen before (may be none): exactly what the task wrote."""
        have = self.offsets.get(log.task, 0)
        end = log.offset + log.length
        if end <= have:
            return b""
        data = log.raw()
        if log.offset < have:  # a replay that overlaps what we have: keep the new part
            data = data[have - log.offset :]
        self.offsets[log.task] = end
        return data


async def follow(params: protocol.FollowLogs, on_log: Callable[[protocol.JobLog, bytes], None],
                 on_status: Callable[[protocol.JobStatus], None] | None = None) -> dict:
    """Stream a job's log (`on_log` gets each new piece, exactly the bytes the task wrote) and its
    status changes until it ends (or, without `params.follow`, what is there now). When the daemon
    dies it is started again and asked to go on from the bytes already received."""
    cursor = LogCursor(params.offsets)

    def on_event(event: protocol.Event) -> None:
        if isinstance(event, protocol.JobLog):
            if data := cursor.accept(event):
                on_log(event, data)
        elif isinstance(event, protocol.JobStatus) and on_status is not None:
            on_status(event)

    for _ in range(RESTARTS + 1):
        try:
            return await call_once(dataclasses.replace(params, offsets=cursor.offsets), on_event)
        except DaemonStopped:
            continue
    raise Unreachable(f"the pai daemon keeps stopping: see {state_dir() / 'daemon.log'}")
