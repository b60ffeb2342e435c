"""`pai daemon serve`: the API (`pai_lsp/api.py`, framed by `protocol.py`) on the user's own endpoint (`transport.py`), each
method one call into the service layer on the cluster's kept session.

Followers get `job.log` from the offsets they already have, so after a daemon restart they resume
with nothing lost or repeated, and `job.status` on every change, from the one poller of that job.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import api
from ..clusters.kinds import local_for
from ..clusters.profiles import LOCALS
from ..common.userlock import try_hold
from ..core.messages import message
from ..errors import Interrupted, InvalidInput, PaiError, ServerError
from ..service import clusters, job_metrics, mounted_storages, records, vc
from ..service import hdfs as explorer
from ..service import jobs as service
from ..service import preview as dry_run
from ..service.notice_channels import settings_path as notice_settings_path
from ..storage.base import Cancel
from . import endpoint_path, lock_path, protocol, settings, state_dir, transport
from .debugging import Debugging
from .explanations import Explainer
from .facts_cache import ClusterFactsCache
from .journal import SubmitJournal, prune
from .notices import Notices
from .sessions import Sessions
from .ssh_tunnel import TunnelRegistry, new_key
from .watcher import CHUNK, Feed, Follower, Watcher, status_event

if TYPE_CHECKING:
    from ..clusters.backend import Backend
    from ..storage.base import Storage

Notify = Callable[[api.Event], Awaitable[None]]
Handler = Callable[[Any, Notify], Awaitable[Any]]


class Daemon:
    def __init__(self, path: Path, sessions: Sessions | None = None):
        self.path = path
        self.started = time.time()
        self.stopping = asyncio.Event()
        self.sessions = sessions or Sessions()
        self.watcher = Watcher(self.sessions, state_dir() / "watched.json")
        self.explainer = Explainer(self.sessions, state_dir() / "why")
        self.watcher.subscribers.add(self.explainer.on_status)  # a watched job that ends is explained at once
        self.notices = Notices(self.explainer, notice_settings_path())
        self.watcher.ends.add(self.notices.on_end)  # ... and told: the editors, the desktop, the webhooks
        self.facts = ClusterFactsCache(self.sessions)  # what the editor's checks need of each cluster: storages, capacity
        self.tunnels = TunnelRegistry()  # SSH tunnels to tasks' ports (a debugger's), by job: closed when the job ends
        self.watcher.ends.add(self.tunnels.on_end)
        self.debugging = Debugging(self.sessions, self.tunnels)  # Debug Job: where its tasks wait for a debugger
        self.handlers: dict[str, Handler] = {
            api.Ping.METHOD: self.ping,
            api.StopDaemon.METHOD: self.stop_daemon,
            api.Submit.METHOD: self.submit,
            api.Debug.METHOD: self.submit,
            api.DebugTargets.METHOD: lambda p, notify: self.debugging.targets(p),
            api.DebugEnd.METHOD: lambda p, notify: self.debugging.end(p),
            api.Preview.METHOD: self.preview,
            api.Jobs.METHOD: self.jobs,
            api.Status.METHOD: self.status,
            api.JobMetrics.METHOD: self.metrics,
            api.JobMetricsRange.METHOD: self.metrics_range,
            api.Why.METHOD: self.why,
            api.Config.METHOD: self.config,
            api.Ssh.METHOD: self.ssh,
            api.Stop.METHOD: self.stop,
            api.Outputs.METHOD: self.outputs,
            api.Watch.METHOD: self.watch,
            api.Subscribe.METHOD: self.subscribe,
            api.FollowLogs.METHOD: self.follow_logs,
            api.LogRead.METHOD: self.log_read,
            **{cls.METHOD: self.hdfs for cls in api.HDFS_METHODS},
            api.StorageList.METHOD: self.storage_list,
            api.ClusterFacts.METHOD: self.cluster_facts,
            **{cls.METHOD: self.profiles for cls in api.CLUSTER_METHODS},
            **{cls.METHOD: self.backend_call for cls in api.BACKEND_METHODS},
            **{cls.METHOD: self.records for cls in api.RECORD_METHODS},
            **{cls.METHOD: self.capacity for cls in api.CAPACITY_METHODS},
        }

    # -- transport -------------------------------------------------------------------
    async def serve(self) -> None:
        server = await transport.listen(self.connection, self.path)
        stop_on_signals(asyncio.get_running_loop(), self.stopping.set)
        prune(state_dir() / "submits")
        watcher = asyncio.ensure_future(self.watcher.run())
        async with server:
            await self.stopping.wait()
        watcher.cancel()
        await self.tunnels.close_all()
        transport.close(self.path)
        self.sessions.close()

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Requests on one connection run concurrently; each reply and event is one line, written
        whole (and waited for, so a slow reader slows its own stream, not the daemon)."""
        lock = asyncio.Lock()
        # Two log pieces in flight: the next is on its way while the client handles one (the
        # stream overlaps instead of taking turns), and a slow client holds at most this much here.
        writer.transport.set_write_buffer_limits(high=2 * CHUNK)

        async def send(message: dict | list) -> None:
            data = protocol.encode(message)
            async with lock:
                writer.write(data)
                await writer.drain()

        tasks: set[asyncio.Task] = set()
        running: dict[Any, asyncio.Task] = {}  # request id -> its task, for `$/cancelRequest`
        try:
            while (line := await protocol.read_line(reader)) is not None:
                if line.strip():
                    task = asyncio.ensure_future(self.answer(line, send, running))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            for task in tasks:
                task.cancel()
            writer.close()

    async def answer(self, line: bytes, send: Callable[[dict | list], Awaitable[None]],
                     running: dict[Any, asyncio.Task] | None = None) -> None:
        """One line from a client: a request, a notification, or a batch of them (JSON-RPC 2.0 §6);
        anything else gets the JSON-RPC error that says what is wrong with it. `$/cancelRequest`
        cancels a request of the same connection (`running`): a cancellable one stops cleanly and
        its reply says what was and was not done."""
        try:
            message = json.loads(line)
        except ValueError:
            await send(protocol.error(None, ServerError("parse error: not JSON"), protocol.PARSE_ERROR))
            return
        if isinstance(message, list):
            if not message:
                await send(protocol.error(None, InvalidInput("invalid request: an empty batch"), protocol.INVALID_REQUEST))
                return
            replies = await asyncio.gather(*(self.dispatch(m, send) for m in message))
            if answered := [r for r in replies if r is not None]:
                await send(answered)
            return
        running = running if running is not None else {}
        if isinstance(message, dict) and message.get("method") == api.CANCEL_REQUEST:
            target = running.get((message.get("params") or {}).get("id")) if isinstance(message.get("params"), dict) else None
            if target is not None:
                target.cancel()
            return
        rid = message.get("id") if isinstance(message, dict) else None
        if isinstance(rid, (str, int)):
            running[rid] = asyncio.current_task()  # type: ignore[assignment]
        try:
            reply = await self.dispatch(message, send)
        finally:
            if isinstance(rid, (str, int)):
                running.pop(rid, None)
        if reply is not None:
            with contextlib.suppress(ConnectionError):
                await send(reply)

    async def dispatch(self, request: Any, send: Callable[[dict | list], Awaitable[None]]) -> dict | None:
        """The reply to one request (None for a notification, which gets none)."""
        if not isinstance(request, dict) or not isinstance(request.get("method"), str):
            rid = request.get("id") if isinstance(request, dict) and isinstance(request.get("id"), (str, int)) else None
            return protocol.error(rid, InvalidInput("invalid request: a JSON-RPC request is an object with a string `method`"),
                                  protocol.INVALID_REQUEST)
        method, rid = request["method"], request.get("id")

        async def notify(event: api.Event) -> None:
            await send(protocol.notification(event))

        cls, handler = api.METHODS.get(method), self.handlers.get(method)
        if cls is None or handler is None:
            reply = protocol.error(rid, InvalidInput(message("params.unknown-method", method=method)), protocol.METHOD_NOT_FOUND)
        else:
            try:
                params = cls.from_json(request.get("params"))
            except InvalidInput as exc:
                reply = protocol.error(rid, exc, protocol.INVALID_PARAMS)
            else:
                try:
                    reply = protocol.result(rid, await handler(params, notify))
                except PaiError as exc:
                    reply = protocol.error(rid, exc)
                except asyncio.CancelledError:  # `$/cancelRequest` for work that has nothing to stop
                    reply = protocol.error(rid, Interrupted(message("jobs.cancelled-upload")))
                except Exception as exc:  # noqa: BLE001 - a daemon must answer, whatever went wrong
                    reply = protocol.error(rid, ServerError(f"{type(exc).__name__}: {exc}"), protocol.INTERNAL_ERROR)
        return reply if "id" in request else None

    def progress(self, token: str | int | None, event: type[api.Progress], notify: Notify):
        """A progress callback for worker threads, or None when the caller asked for none."""
        if token is None:
            return None
        loop = asyncio.get_running_loop()

        def report(done: int, total: int, files: int, all_files: int) -> None:
            asyncio.run_coroutine_threadsafe(notify(event(token=token, bytes=done, total_bytes=total, files=files,
                                                          total_files=all_files)), loop)

        return report

    # -- methods ---------------------------------------------------------------------
    async def ping(self, p: api.Ping, notify: Notify) -> api.PingResult:
        return api.PingResult(pid=os.getpid(), uptime=time.time() - self.started, watched=len(self.watcher.watched),
                                   settings=settings())

    async def stop_daemon(self, p: api.StopDaemon, notify: Notify) -> api.StopDaemonResult:
        asyncio.get_running_loop().call_later(0.05, self.stopping.set)
        return api.StopDaemonResult(stopping=True)

    async def stoppable(self, cluster: str | None, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(backend, *args, cancelled)` in a thread. Cancelling the request (`$/cancelRequest`:
        Ctrl-C, the editor's Cancel; or a closed connection) sets `cancelled`; the request then
        ends once the work has stopped and cleaned up, its error saying what was and was not done
        (or with its result, when it was too late to stop)."""
        cancelled = Cancel()
        work = asyncio.ensure_future(self.sessions.run(cluster, fn, *args, cancelled))
        work.add_done_callback(lambda f: f.cancelled() or f.exception())  # heard even when nobody waits any more
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            cancelled.set()
            return await work

    async def submit(self, p: api.Submit, notify: Notify) -> api.SubmitResult:
        """Cancelling it (or closing the connection) while the upload runs stops it: nothing is submitted."""
        progress = self.progress(p.progress_token, api.UploadProgress, notify)
        try:
            journal = await self.sessions.thread(SubmitJournal, state_dir() / "submits", p.request_id) if p.request_id else None
        except ValueError as exc:
            raise InvalidInput(message("params.request-id", reason=str(exc))) from None
        cluster = await self.cluster_for(p.cluster, p.file)

        debug = p.debug if isinstance(p, api.Debug) else None
        private, session_key = session_key_for(debug)

        def submit(backend: Backend, cancelled: threading.Event) -> api.SubmitResult:
            return service.submit(backend, Path(p.file), p.settings, progress, p.locale, p.shown, journal, cancelled, p.force,
                                  debug, session_key)

        result = await self.stoppable(cluster, submit)
        if session_key is not None and session_key.used:  # the job's tasks let in this key only: its tunnels use it
            self.tunnels.keep_key(result.cluster, result.job, private)
        await self.explainer.submitted(result, p.file)
        self.watcher.watch(result.cluster, result.job)
        return result

    async def preview(self, p: api.Preview, notify: Notify) -> api.PreviewResult:
        """What `submit` with the same params would do; nothing is sent."""
        _, session_key = session_key_for(p.debug)  # shown as a submit would add it (a submit makes its own)
        return await self.sessions.run(await self.cluster_for(p.cluster, p.file), dry_run.preview, Path(p.file), p.settings,
                                       p.locale, p.shown, p.list_files, p.show_secrets, p.debug,
                                       session_key.public if session_key else None)

    async def cluster_for(self, cluster: str | None, file: str) -> str | None:
        """The local cluster serves each kind of job file through its own API."""
        if await self.sessions.resolve(cluster) in LOCALS:
            return local_for(file)
        return cluster

    async def jobs(self, p: api.Jobs, notify: Notify) -> api.JobsResult:
        return await self.sessions.run(p.cluster, service.list_jobs, p.offset, p.limit)

    async def status(self, p: api.Status, notify: Notify) -> api.StatusResult:
        def status(backend: Backend) -> api.StatusResult:
            job = backend.job(p.job)
            idle = job_metrics.idle_gpu(backend, p.job, p.idle_threshold, p.idle_minutes) if job.state == "RUNNING" else None
            return api.StatusResult.of(job, backend.profile.name, clusters.web_portal(backend.profile, p.job), idle)

        return await self.sessions.run(p.cluster, status)

    async def metrics(self, p: api.JobMetrics, notify: Notify) -> api.JobMetricsResult:
        return await self.sessions.run(p.cluster, job_metrics.now, p.job)

    async def metrics_range(self, p: api.JobMetricsRange, notify: Notify) -> api.JobMetricsRangeResult:
        return await self.sessions.run(p.cluster, job_metrics.history, p.job, p.start, p.end, p.step)

    async def why(self, p: api.Why, notify: Notify) -> api.WhyResult:
        return await self.explainer.get(await self.sessions.resolve(p.cluster), p.job, p.refresh)

    async def config(self, p: api.Config, notify: Notify) -> api.ConfigResult:
        return api.ConfigResult(job=p.job, config=await self.sessions.run(p.cluster, lambda backend: backend.config(p.job)))

    async def ssh(self, p: api.Ssh, notify: Notify) -> api.SshResult:
        tasks = await self.sessions.run(p.cluster, lambda backend: service.ssh_info(backend.job(p.job), p.task,
                                                                                   service.ssh_user(backend.profile)))
        return api.SshResult(job=p.job, tasks=tasks)

    async def profiles(self, p: api.Params, notify: Notify) -> api.Result:
        """`clusters.*`: a change of profiles drops the kept sessions, which may be stale now."""
        if not isinstance(p, api.ClustersList):
            self.sessions.forget()
            self.facts.forget()
        return await asyncio.to_thread(PROFILES[type(p)], p)

    async def stop(self, p: api.Stop, notify: Notify) -> api.StopResult:
        return await self.sessions.run(p.cluster, service.stop, p.job)

    async def outputs(self, p: api.Outputs, notify: Notify) -> api.PathResult:
        progress = self.progress(p.progress_token, api.TransferProgress, notify)
        target = await self.stoppable(p.cluster, service.outputs, p.job, Path(p.dest), progress, p.overwrite)
        return api.PathResult(path=str(target))

    async def watch(self, p: api.Watch, notify: Notify) -> api.WatchResult:
        """Watch jobs submitted elsewhere: their changes go to `jobs.subscribe`rs."""
        cluster = await self.sessions.resolve(p.cluster)
        for job in p.jobs or ([p.job] if p.job else []):
            self.watcher.watch(cluster, job)
        return api.WatchResult(watched=len(self.watcher.watched))

    async def subscribe(self, p: api.Subscribe, notify: Notify) -> api.Nothing:
        """`job.status` for every watched job's change and `job.ended` for each end, until the connection closes."""
        self.watcher.subscribers.add(notify)
        self.notices.listeners.add(notify)
        try:
            await asyncio.Event().wait()
        finally:
            self.watcher.subscribers.discard(notify)
            self.notices.listeners.discard(notify)
        return api.Nothing()

    async def follow_logs(self, p: api.FollowLogs, notify: Notify) -> api.FollowLogsResult:
        """`job.log` from the given offsets until the job ends (or just what is there now, without
        `follow`), in pieces of at most CHUNK bytes, each sent once the caller has taken the one
        before (a slow reader slows only itself); `job.status` on every state change."""
        cluster = await self.sessions.resolve(p.cluster)
        if p.task:  # a task the job does not have is an error that lists those it has, not an empty stream
            await self.sessions.run(cluster, lambda backend: service.check_task(backend.job(p.job), p.task))
        text = Utf8Chunks(p.job, notify)
        if p.follow:
            follower = Follower(p.task, p.which, dict(p.offsets or {}), p.tail)
            async with self.watcher.follow(cluster, p.job, follower) as feed:
                state = await self._stream(cluster, feed, follower, text, notify)
            offsets = follower.offsets
        else:
            state, offsets = await self._snapshot(cluster, p, text, notify)
        await text.flush()
        return api.FollowLogsResult(job=p.job, state=state, offsets=offsets)

    async def log_read(self, p: api.LogRead, notify: Notify) -> api.LogPiece:
        """One range of a task's log: what a view opened at its tail reads backwards."""
        data = await self.sessions.run(p.cluster, lambda backend: service.read_log_range(
            backend, backend.job(p.job), p.task, p.which, p.offset, p.length))
        piece = api.JobLog.of(p.job, p.task, p.offset, data)
        return api.LogPiece(job=p.job, task=p.task, offset=p.offset, length=piece.length, text=piece.text, data=piece.data)

    async def _stream(self, cluster: str, feed: Feed, follower: Follower, text: Utf8Chunks, notify: Notify) -> str | None:
        """What the job's feed publishes, from where this follower is, until the feed is done."""
        last_state = None
        while True:
            seen, done = feed.version, feed.done
            if feed.error is not None:
                raise feed.error
            if feed.status is not None and feed.status.state != last_state:
                last_state = feed.status.state
                await notify(status_event(cluster, feed.status))
            for label, tail in feed.matching(follower):
                if label not in follower.offsets and follower.tail is not None:  # its tail first
                    follower.offsets[label] = max(tail.start, tail.end - follower.tail)
                while (offset := follower.offsets.get(label, 0)) < tail.end:
                    data = tail.slice(offset, CHUNK)
                    if data is None:  # behind the window: read it from the cluster
                        data = await self.sessions.run(
                            cluster, lambda b, t=tail, o=offset: b.read_log(t.uri, o, min(CHUNK, t.end - o)), fresh=False)
                        if not data:
                            break
                    await text.send(label, offset, data)
                    follower.offsets[label] = offset + len(data)
                    feed.progressed()
            if done:
                return last_state
            await feed.changed(seen)

    async def _snapshot(self, cluster: str, p: api.FollowLogs, text: Utf8Chunks, notify: Notify) -> tuple[str, dict]:
        """What the logs hold now, read in pieces of at most CHUNK bytes."""
        logs = service.TaskLogs(p.task, p.which, p.offsets, p.tail)
        status = await self.sessions.run(cluster, lambda backend: backend.job(p.job))
        await notify(status_event(cluster, status))
        while pieces := await self.sessions.run(cluster, logs.read, status, CHUNK):
            for label, offset, data in pieces:
                for at in range(0, len(data), CHUNK):  # (a tail may be longer than a piece)
                    await text.send(label, offset + at, data[at : at + CHUNK])
            if all(len(data) < CHUNK for _, _, data in pieces):
                break
        return status.state, logs.offsets

    async def backend_call(self, p: api.Params, notify: Notify) -> api.Result:
        """Quota and registry secrets: one call of the cluster's backend."""
        return await self.sessions.run(getattr(p, "cluster", None), BACKEND[type(p)], p)

    async def capacity(self, p: api.Params, notify: Notify) -> api.Result:
        """`vc.list` and `job.waiting`: the cluster's capacity, and why a job waits (service/vc.py)."""
        if isinstance(p, api.Waiting):
            return await self.sessions.run(p.cluster, lambda backend: vc.waiting(backend, p.job))
        return await self.sessions.run(getattr(p, "cluster", None), vc.virtual_clusters)

    async def records(self, p: api.Params, notify: Notify) -> api.Result:
        """`record.*`: what a job ran (service/records.py); a rerun is watched like a submit."""
        progress = self.progress(getattr(p, "progress_token", None), api.UploadProgress, notify)
        result = await self.sessions.run(getattr(p, "cluster", None), RECORDS[type(p)], p, progress)
        if isinstance(p, api.RecordRerun) and not p.dry_run:
            self.watcher.watch(result.cluster, result.job)
        return result

    async def hdfs(self, p: api.Params, notify: Notify) -> api.Result:
        """`hdfs.*`: on the cluster's HDFS (PFS), or on the storage `p.storage` names, opened for
        this request (`service/mounted_storages.py`; a read-only one refuses the writes)."""
        progress = self.progress(getattr(p, "progress_token", None), api.TransferProgress, notify)
        write = type(p) in WRITES

        def on_storage(backend: Backend, *args: Any) -> api.Result:
            with mounted_storages.opened(backend, getattr(p, "storage", None), write) as storage:
                return (TRANSFERS if isinstance(p, api.HdfsTransfer) else HDFS)[type(p)](storage, p, progress, *args)

        if isinstance(p, api.HdfsTransfer):
            return await self.stoppable(p.cluster, on_storage)
        return await self.sessions.run(getattr(p, "cluster", None), on_storage)

    async def storage_list(self, p: api.StorageList, notify: Notify) -> api.StorageListResult:
        return await self.sessions.run(p.cluster, mounted_storages.listing)

    async def cluster_facts(self, p: api.ClusterFacts, notify: Notify) -> api.ClusterFactsResult:
        return await self.facts.get(p.cluster)


class Utf8Chunks:
    """`job.log` events from raw log bytes: each carries whole UTF-8 characters (a character cut
    by a read waits for its end) and the exact number of bytes it stands for."""

    def __init__(self, job: str, notify: Notify):
        self.job, self.notify = job, notify
        self.pending: dict[str, tuple[int, bytes]] = {}  # task -> (offset, start of a cut character)

    async def send(self, task: str, offset: int, data: bytes) -> None:
        if task in self.pending:
            start, head = self.pending.pop(task)
            offset, data = start, head + data
        whole, cut = split_utf8(data)
        if cut:
            self.pending[task] = (offset + len(whole), cut)
        await self._emit(task, offset, whole)

    async def flush(self) -> None:
        for task, (offset, cut) in self.pending.items():
            await self._emit(task, offset, cut)
        self.pending.clear()

    async def _emit(self, task: str, offset: int, data: bytes) -> None:
        if data:
            await self.notify(api.JobLog.of(self.job, task, offset, data))


def split_utf8(data: bytes) -> tuple[bytes, bytes]:
    """(complete UTF-8 text, the start of a character cut off at the end)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # the first byte of the last character
            need = 1 if byte < 0x80 else 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4
            return (data, b"") if need <= back else (data[:-back], data[-back:])
    return data, b""


def _read(op: Callable[..., bytes]) -> Callable[..., api.HdfsData]:
    def run(storage: Storage, p: Any, progress: Any) -> api.HdfsData:
        return api.HdfsData(path=explorer.absolute(storage, p.path), data=base64.b64encode(op(storage, p)).decode())

    return run


HDFS: dict[type, Callable[..., api.Result]] = {
    api.HdfsList: lambda storage, p, progress: explorer.ls(storage, p.path, p.recursive),
    api.HdfsDu: lambda storage, p, progress: explorer.du(storage, p.path, p.summary),
    api.HdfsStat: lambda storage, p, progress: explorer.stat(storage, p.path),
    api.HdfsMkdir: lambda storage, p, progress: explorer.mkdir(storage, p.path),
    api.HdfsRemove: lambda storage, p, progress: explorer.rm(storage, p.path, p.recursive),
    api.HdfsMove: lambda storage, p, progress: explorer.mv(storage, p.source, p.target),
    api.HdfsCat: _read(lambda storage, p: explorer.cat(storage, p.path, p.offset, p.length)),
    api.HdfsTail: _read(lambda storage, p: explorer.tail(storage, p.path, p.size)),
}

WRITES = frozenset({api.HdfsMkdir, api.HdfsRemove, api.HdfsMove, api.HdfsPut})  # refused on a read-only storage

TRANSFERS: dict[type, Callable[..., api.Result]] = {  # stopped by `cancelled` (`Daemon.stoppable`)
    api.HdfsPut: lambda storage, p, progress, cancelled: explorer.put(storage, Path(p.local), p.remote, progress,
                                                                           overwrite=p.overwrite, cancelled=cancelled),
    api.HdfsGet: lambda storage, p, progress, cancelled: explorer.get(storage, p.remote, p.local, progress,
                                                                           overwrite=p.overwrite, cancelled=cancelled),
}


RECORDS: dict[type, Callable[..., api.Result]] = {
    api.RecordShow: lambda backend, p, progress: records.show(backend, p.job, p.locale),
    api.RecordCode: lambda backend, p, progress: records.code(backend, p.job, Path(p.dest), p.force, p.locale),
    api.RecordFile: lambda backend, p, progress: api.RecordFileResult(
        job=p.job, path=p.path, data=base64.b64encode(records.file(backend, p.job, p.path)).decode()),
    api.RecordRerun: lambda backend, p, progress: records.rerun(backend, p.job, p.config, p.name, p.dry_run, progress, p.locale),
    api.RecordDiff: lambda backend, p, progress: records.diff(backend, p.job, p.other, p.locale),
    api.RecordCompare: lambda backend, p, progress: records.compare_workspace(backend, p.job, Path(p.workspace), p.locale),
}


# The backend answers these in its own JSON (clusters/backend.py); read as the API's classes here.
BACKEND: dict[type, Callable[..., api.Result]] = {
    api.Quota: lambda backend, p: api.QuotaResult.from_json(backend.quota()),
    api.RegistryList: lambda backend, p: api.RegistryListResult(
        cluster=backend.profile.name, registries=[api.Registry.from_json(r) for r in backend.registries()]),
    api.RegistryAdd: lambda backend, p: api.RegistrySecret.from_json(backend.add_registry(p.name, p.username, p.password,
                                                                                                  p.server)),
    api.RegistryRemove: lambda backend, p: api.RegistrySecret.from_json(backend.remove_registry(p.name)),
}


PROFILES: dict[type, Callable[[Any], api.Result]] = {
    api.ClustersList: lambda p: clusters.list_profiles(),
    api.ClustersAdd: lambda p: clusters.add(p.name, p.rest, p.webhdfs, p.user, p.kind, p.protocol, p.password,
                                                 p.datacenter, p.make_default),
    api.ClustersImportPaddle: lambda p: clusters.import_paddle(p.config, p.remove_passwords),
    api.ClustersLogin: lambda p: clusters.login(p.name, p.password),
    api.ClustersRemove: lambda p: clusters.remove(p.name),
    api.ClustersSetDefault: lambda p: clusters.set_default(p.name),
    api.ClustersStopLocal: lambda p: clusters.stop_local_cluster(),
}


def stop_on_signals(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> None:
    """SIGTERM and Ctrl-C end the daemon cleanly; where the event loop takes no signal handlers
    (Windows), the signal module's own, handed to the loop."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop)
        except NotImplementedError:
            signal.signal(sig, lambda *_: loop.call_soon_threadsafe(stop))


def serve() -> int:
    """Serve unless a daemon of this user already does: however many clients start one at the same
    time, one serves (the lock is held for the daemon's life) and the others leave at once."""
    path = endpoint_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = try_hold(lock_path())
    if lock is None:
        return 0
    asyncio.run(Daemon(path).serve())
    return 0


def session_key_for(debug: api.DebugOptions | None) -> tuple[Any, service.SessionKey | None]:
    """A Debug Job through ssh: a new key pair for its session (the private key, kept here in memory;
    the public half, for a job whose ssh plugin names no key of the user's). Otherwise none."""
    if debug is None or debug.via != "ssh":
        return None, None
    private, public = new_key()
    return private, service.SessionKey(public)
