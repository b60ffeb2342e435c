"""Talking to the daemon, for the CLI and the language server alike: start it when it is not
running, call a method, receive the events that belong to the call, and follow a job's log across
daemon restarts without a byte lost or repeated.

Calls are asyncio; the CLI runs them with `call_sync` / `asyncio.run`. A read-only call of a daemon
that runs (`pai jobs`, `pai status`, a completion) is asked over one blocking connection instead
(`ask_running`): loading asyncio takes longer than such a call, so it loads, with what starts a
daemon, only when a call needs them.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from .. import api
from ..core.messages import message
from ..errors import Cancelled, ConfigError, Interrupted, Unreachable
from . import endpoint_path, lock_path, protocol, state_dir, transport

if TYPE_CHECKING:
    import asyncio

START_TIMEOUT = 15.0
STALE_GRACE = 5.0  # how long an endpoint that fails its proof may be a starting daemon's, not yet rewritten
RESTARTS = 5  # how often a call that can be resumed reconnects to a daemon that died
CANCEL_WAIT = 30.0  # seconds a cancelled call waits for the daemon to say what it stopped
BUFFER = 4 << 20  # bytes buffered from the socket: a `job.log` of 1 MiB fits whole (a longer message is read in pieces)

# Methods asked again, unchanged, when the daemon dies before answering: they only read, or (a
# submit with a request id) the new daemon finishes what the old one started.
READ_ONLY = frozenset({"ping", "jobs", "status", "config", "ssh", "hdfs.ls", "hdfs.stat", "hdfs.du", "hdfs.cat", "hdfs.tail",
                       "clusters.list", "storages.list"})

T = TypeVar("T")
OnEvent = Callable[[api.Event], Awaitable[None] | None]
_ids = itertools.count(1)


class DaemonStopped(ConnectionError):
    """The daemon went away before it answered."""


def start_daemon() -> None:
    """Start the daemon in the background, detached so that it outlives the caller (its own session;
    on Windows its own process group, no console window, and out of the editor's job object when
    that allows it, or closing the editor would end it). Callers that race may start several; all but
    one leave at once (`server.serve`)."""
    import subprocess

    state_dir().mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pai_lsp", "daemon", "serve"]
    with open(state_dir() / "daemon.log", "ab") as log:
        if sys.platform == "win32":
            flags = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW
            try:
                subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                 creationflags=flags | subprocess.CREATE_BREAKAWAY_FROM_JOB)
            except PermissionError:  # a job that may not be left: the daemon then ends with the editor
                subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, creationflags=flags)
        else:
            subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)


def restart() -> None:
    """Stop the running daemon and wait until it has let go (the next call starts a new one)."""
    try:
        call_sync(api.StopDaemon(), start=False)
    except Unreachable:
        return
    deadline = time.monotonic() + START_TIMEOUT
    while daemon_running():
        if time.monotonic() > deadline:
            raise Unreachable(message("daemon.no-restart", log=str(state_dir() / "daemon.log")))
        time.sleep(0.05)


def daemon_running() -> bool:
    """Does a daemon of this user serve now (it holds the lock for its whole life)?"""
    from ..common.userlock import try_hold

    fd = try_hold(lock_path())
    if fd is None:
        return True
    os.close(fd)
    return False


async def _connect(start: bool) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    import asyncio

    deadline = time.monotonic() + START_TIMEOUT
    started: float | None = None  # when we started a daemon
    doubted: float | None = None  # since when the endpoint fails its proof while a daemon runs
    while True:
        probed = False
        try:
            return await transport.connect(endpoint_path(), BUFFER)
        except (FileNotFoundError, ConnectionRefusedError):
            pass
        except transport.Refused as exc:
            if not exc.stale:  # this machine's set-up is wrong: no use trying again
                raise ConfigError(exc.said) from None
            probed = True
            if daemon_running():  # its own endpoint cannot fail, unless it is just being rewritten
                doubted = doubted or time.monotonic()
                if time.monotonic() - doubted > STALE_GRACE:
                    raise ConfigError(exc.said) from None
                await asyncio.sleep(0.1)
                continue
            # no daemon: the file is a dead one's, whatever listens on its port now
        if not start:
            raise Unreachable(message("daemon.not-running")) from None
        # Start one; again after a probe of the lock, which may have sent a starting one away.
        if started is None or (probed and time.monotonic() - started > 1.0):
            await asyncio.to_thread(start_daemon)
            started = time.monotonic()
        if time.monotonic() > deadline:
            raise Unreachable(message("daemon.did-not-start", log=str(state_dir() / "daemon.log"))) from None
        await asyncio.sleep(0.05)


async def _reply(reader: asyncio.StreamReader, params: api.Params, rid: int, on_event: OnEvent | None) -> api.Result:
    """Read until the reply to `rid` (its result as its class; its error raised as our class),
    handing its events on."""
    import asyncio

    while (line := await protocol.read_line(reader)) is not None:
        reply = protocol.read_reply(json.loads(line), rid)
        if isinstance(reply, protocol.Reply):
            return api.read_result(params, reply.value)
        if reply is not None and on_event is not None:
            done = on_event(reply)
            if asyncio.iscoroutine(done):
                await done
    raise DaemonStopped(message("daemon.closed"))


async def call_once(params: api.Params, on_event: OnEvent | None = None, start: bool = True) -> api.Result:
    """One request on its own connection; the events that belong to it go to `on_event`. The
    result as its class (`params.RESULT`); a failure raises its `errors` class, DaemonStopped when
    the daemon goes away first.

    Cancelled (Ctrl-C in `call_sync`, the editor's Cancel) while a cancellable method runs, it
    asks the daemon to stop it and waits for what the daemon did: `Cancelled` with its words (the
    result, when it was too late to stop)."""
    import asyncio

    reader, writer = await _connect(start)
    rid = next(_ids)
    try:
        writer.write(protocol.request(rid, params))
        await writer.drain()
        try:
            return await _reply(reader, params, rid, on_event)
        except asyncio.CancelledError:
            if params.METHOD not in api.CANCELLABLE:
                raise
            current = asyncio.current_task()
            if current is not None and hasattr(current, "uncancel"):  # (3.11+) handled here: nothing else is cancelled
                current.uncancel()
            writer.write(protocol.cancel_request(rid))
            await writer.drain()
            try:
                return await asyncio.wait_for(_reply(reader, params, rid, on_event), CANCEL_WAIT)
            except Interrupted as exc:
                raise Cancelled(exc.said) from None
            except asyncio.TimeoutError:
                raise Cancelled(message("daemon.cancel-unsaid", seconds=f"{CANCEL_WAIT:.0f}",
                                        log=str(state_dir() / "daemon.log"))) from None
    except (ConnectionError, OSError) as exc:
        raise DaemonStopped(str(exc)) from None
    finally:
        writer.close()


def resumable(params: api.Params) -> bool:
    return params.METHOD in READ_ONLY or (isinstance(params, api.Submit) and params.request_id is not None)


async def call(params: api.Params, on_event: OnEvent | None = None, start: bool = True,
               on_restart: Callable[[], None] | None = None) -> api.Result:
    """`call_once`, asked again of a new daemon when the old one died before answering, for
    requests that can be asked twice (`resumable`); `on_restart` hears of it (once: a dying daemon
    can also refuse the first reconnection). Otherwise a daemon that dies is one Unreachable line
    saying what may or may not have happened."""
    import asyncio

    for attempt in range(RESTARTS + 1):
        try:
            return await call_once(params, on_event, start)
        except DaemonStopped:
            if not resumable(params):
                raise Unreachable(message("daemon.stopped-unanswered", method=params.METHOD,
                                          log=str(state_dir() / "daemon.log"))) from None
            if attempt == 0 and on_restart is not None:
                on_restart()
            await asyncio.sleep(0.1 * attempt)
    raise Unreachable(message("daemon.keeps-stopping", log=str(state_dir() / "daemon.log")))


def call_sync(params: api.Params, on_event: OnEvent | None = None, start: bool = True,
              on_restart: Callable[[], None] | None = None) -> api.Result:
    if on_event is None:
        answer = ask_running(params)
        if answer is not None:
            return answer
    return run_sync(call(params, on_event, start, on_restart))


def ask_running(params: api.Params, timeout: float | None = None) -> api.Result | None:
    """A read-only call (`READ_ONLY`) answered by the daemon that runs, over one blocking connection to
    its Unix socket; None when it cannot be asked so (another method, the TCP transport, no daemon
    there, one that went away before answering, `timeout` seconds passed): the caller then takes
    the whole way (`call`), which starts a daemon and asks again, what a read-only call allows.
    A failure the daemon answers is raised as its class."""
    if sys.platform == "win32":  # (no Unix sockets: the TCP transport, with its handshake)
        return None
    import socket

    path = endpoint_path()
    if params.METHOD not in READ_ONLY or transport.kind(path.parent) != "unix":
        return None
    rid = next(_ids)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(protocol.request(rid, params))
            with sock.makefile("rb") as lines:  # a line of any length, read in pieces as it comes
                for line in lines:
                    reply = protocol.read_reply(json.loads(line), rid)
                    if isinstance(reply, protocol.Reply):
                        return api.read_result(params, reply.value)
    except OSError:  # none there, gone, or too slow
        return None
    return None


def run_sync(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` for a command of the terminal. Ctrl-C cancels it, so that what it started in the
    daemon stops too (a cancellable call then raises `Cancelled`, saying what stopped); a second
    Ctrl-C gives up waiting at once. Either way the caller sees KeyboardInterrupt or Cancelled."""
    try:
        import asyncio
        import signal
    except BaseException:  # Ctrl-C while they load: `work` never starts
        work.close()
        raise
    pressed: list[bool] = []
    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task | None = None

    def on_interrupt(signum: int, frame: Any) -> None:
        if task is None or loop is None:
            pressed.append(True)  # before the work started: it will not start
        elif pressed or task.done():
            raise KeyboardInterrupt
        else:
            pressed.append(True)
            loop.call_soon_threadsafe(task.cancel)

    previous: Any = None
    try:  # from here on `work` is closed whatever happens, even a Ctrl-C that comes as the handler is set
        try:
            previous = signal.signal(signal.SIGINT, on_interrupt)
        except ValueError:  # not the main thread: Ctrl-C is not ours to handle
            pass
        loop = asyncio.new_event_loop()
        if pressed:
            raise KeyboardInterrupt
        task = loop.create_task(work)
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        raise KeyboardInterrupt from None
    finally:
        if task is None:
            work.close()
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        if loop is not None:
            try:
                for other in asyncio.all_tasks(loop):
                    other.cancel()
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()


class LogCursor:
    """How many bytes of each task's log a follower has, so a resumed stream shows nothing twice."""

    def __init__(self, offsets: dict[str, int] | None = None) -> None:
        self.offsets: dict[str, int] = dict(offsets or {})

    def accept(self, log: api.JobLog) -> bytes:
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


async def follow(params: api.FollowLogs, on_log: Callable[[api.JobLog, bytes], None],
                 on_status: Callable[[api.JobStatus], None] | None = None) -> api.FollowLogsResult:
    """Stream a job's log (`on_log` gets each new piece, exactly the bytes the task wrote) and its
    status changes until it ends (or, without `params.follow`, what is there now). When the daemon
    dies it is started again and asked to go on from the bytes already received."""
    cursor = LogCursor(params.offsets)

    def on_event(event: api.Event) -> None:
        if isinstance(event, api.JobLog):
            if data := cursor.accept(event):
                on_log(event, data)
        elif isinstance(event, api.JobStatus) and on_status is not None:
            on_status(event)

    for _ in range(RESTARTS + 1):
        try:
            return await call_once(dataclasses.replace(params, offsets=cursor.offsets), on_event)
        except DaemonStopped:
            continue
    raise Unreachable(message("daemon.keeps-stopping", log=str(state_dir() / "daemon.log")))
