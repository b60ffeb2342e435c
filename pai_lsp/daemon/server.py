"""`pai daemon serve`: JSON-RPC over a Unix socket, each method one call into `service.jobs`.

Blocking work (HTTP, uploads) runs in threads so one slow cluster never stalls other clients.
Followers stream `job.log` and `job.status` notifications; a client passes the byte offsets it
already has, so after a daemon restart it resumes with nothing lost or repeated.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from ..clusters import PaiError
from ..service import clusters
from ..service import jobs as service
from . import socket_path, state_dir

FINAL = service.FINAL
WATCH_INTERVAL = 2.0  # seconds between two looks at the watched jobs (one request per cluster)


class Daemon:
    def __init__(self, path: Path):
        self.path = path
        self.started = time.time()
        self.server: asyncio.base_events.Server | None = None
        self.stopping = asyncio.Event()
        self.watch_file = state_dir() / "watched.json"
        self.watched: dict[str, dict] = json.loads(self.watch_file.read_text()) if self.watch_file.exists() else {}
        self.subscribers: set = set()
        self.connections: dict[str | None, service.Connection] = {}

    # -- transport -------------------------------------------------------------------
    async def serve(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.path.parent, 0o700)
        if self.path.exists():
            self.path.unlink()
        self.server = await asyncio.start_unix_server(self.connection, path=str(self.path))
        os.chmod(self.path, 0o600)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        watcher = asyncio.ensure_future(self.watch_forever())
        async with self.server:
            await self.stopping.wait()
        watcher.cancel()
        self.path.unlink(missing_ok=True)
        for conn in self.connections.values():
            conn.close()

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        lock = asyncio.Lock()

        async def send(message: dict) -> None:
            async with lock:
                writer.write(json.dumps(message).encode() + b"\n")
                await writer.drain()

        tasks: set[asyncio.Task] = set()
        try:
            while line := await reader.readline():
                try:
                    request = json.loads(line)
                except ValueError:
                    await send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
                    continue
                task = asyncio.ensure_future(self.dispatch(request, send))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            for task in tasks:
                task.cancel()
            writer.close()

    async def dispatch(self, request: dict, send) -> None:
        method, params, rid = request.get("method"), request.get("params") or {}, request.get("id")
        handler = getattr(self, "rpc_" + str(method).replace(".", "_"), None)
        if handler is None and str(method).startswith("hdfs."):
            handler = self.hdfs_handler(str(method)[5:])
        try:
            if handler is None:
                raise PaiError("invalid", f"unknown method {method}")
            result = await handler(params, lambda m, p: send({"jsonrpc": "2.0", "method": m, "params": p}))
            reply = {"jsonrpc": "2.0", "id": rid, "result": result}
        except PaiError as exc:
            reply = {"jsonrpc": "2.0", "id": rid, "error": {"code": 1, "message": exc.message, "data": {"kind": exc.kind}}}
        except Exception as exc:  # noqa: BLE001 - a daemon must answer, whatever went wrong
            reply = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": f"{type(exc).__name__}: {exc}",
                                                            "data": {"kind": "server"}}}
        if rid is not None:
            await send(reply)

    # -- methods ---------------------------------------------------------------------
    def hdfs_handler(self, op: str):
        return _hdfs_handler_impl(self, op) if op in HDFS_OPS else None

    async def rpc_ping(self, params: dict, notify) -> dict:
        return {"pid": os.getpid(), "uptime": time.time() - self.started, "watched": len(self.watched)}

    async def rpc_daemon_stop(self, params: dict, notify) -> dict:
        asyncio.get_running_loop().call_later(0.05, self.stopping.set)
        return {"stopping": True}

    async def rpc_submit(self, params: dict, notify) -> dict:
        """Submit; closing the connection while the upload runs stops it (nothing is submitted)."""
        loop = asyncio.get_running_loop()
        token = params.get("progressToken")
        cancelled = threading.Event()

        def progress(done: int, total: int, files: int, all_files: int) -> None:
            if token is not None:
                asyncio.run_coroutine_threadsafe(
                    notify("upload.progress", {"token": token, "bytes": done, "totalBytes": total, "files": files,
                                               "totalFiles": all_files}), loop)

        try:
            result = await asyncio.to_thread(service.submit, Path(params["file"]), params.get("cluster"),
                                             params.get("settings"), progress, params.get("locale"), params.get("shown"),
                                             cancelled)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        self.watch(result["cluster"], result["job"])
        return result

    def watch(self, cluster: str, job: str, state: str | None = None) -> None:
        self.watched[f"{cluster}/{job}"] = {"cluster": cluster, "job": job, "state": state}
        self._save_watched()

    async def watch_forever(self) -> None:
        """Keep the state of every watched job current and push changes to subscribers: one list
        request per cluster per interval, however many jobs run (resumes after a restart)."""
        while True:
            await asyncio.sleep(WATCH_INTERVAL)
            clusters = {w["cluster"] for w in self.watched.values() if w.get("state") not in FINAL}
            for cluster in clusters:
                try:
                    answer = await self._with_connection(cluster, lambda conn: conn.rest.jobs())
                except PaiError:
                    continue
                states = {j["name"]: j for j in answer}
                changed = False
                for w in list(self.watched.values()):
                    job = states.get(w["job"]) if w["cluster"] == cluster else None
                    if job is None or job["state"] == w.get("state"):
                        continue
                    w["state"] = job["state"]
                    changed = True
                    for notify in list(self.subscribers):
                        await notify("job.status", {"job": w["job"], "cluster": cluster, "state": job["state"],
                                                    "exitCode": job.get("appExitCode"), "diagnostics": ""})
                if changed:
                    self._save_watched()

    async def rpc_watch(self, params: dict, notify) -> dict:
        """Watch a job (or several) submitted elsewhere: its changes go to `jobs.subscribe`rs."""
        for job in params.get("jobs") or [params["job"]]:
            self.watch(params.get("cluster") or "local", job)
        return {"watched": len(self.watched)}

    async def rpc_jobs_subscribe(self, params: dict, notify) -> dict:
        """Receive `job.status` for every watched job until the connection closes."""
        self.subscribers.add(notify)
        try:
            await asyncio.Event().wait()
        finally:
            self.subscribers.discard(notify)
        return {}

    def _save_watched(self) -> None:
        self.watch_file.parent.mkdir(parents=True, exist_ok=True)
        temp = self.watch_file.with_suffix(".tmp")
        temp.write_text(json.dumps(self.watched))
        os.replace(temp, self.watch_file)

    async def _with_connection(self, cluster: str | None, fn, *args: Any) -> Any:
        """Run `fn(connection, *args)` in a thread, on a session kept per cluster (logged in once)."""

        def run() -> Any:
            conn = self.connections.get(cluster)
            if conn is None:
                conn = self.connections[cluster] = service.connect(cluster)
            try:
                return fn(conn, *args)
            except PaiError as exc:
                if exc.kind == "unreachable":  # e.g. the local cluster restarted on another port
                    self.connections.pop(cluster, None)
                raise

        return await asyncio.to_thread(run)

    async def rpc_jobs(self, params: dict, notify) -> dict:
        return await self._with_connection(params.get("cluster"), service.list_jobs, int(params.get("offset") or 0),
                                           params.get("limit"))

    async def rpc_status(self, params: dict, notify) -> dict:
        def status(conn: service.Connection) -> dict:
            return {**service.job_status(conn, params["job"]), "cluster": conn.profile.name,
                    "webPortal": clusters.web_portal(conn.profile, params["job"])}

        return await self._with_connection(params.get("cluster"), status)

    async def rpc_ssh(self, params: dict, notify) -> dict:
        def ssh(conn: service.Connection) -> dict:
            return {"job": params["job"], "tasks": service.ssh_info(service.job_status(conn, params["job"]), params.get("task"))}

        return await self._with_connection(params.get("cluster"), ssh)

    async def rpc_config(self, params: dict, notify) -> dict:
        return await self._with_connection(params.get("cluster"), lambda conn: {"job": params["job"],
                                                                                "config": conn.rest.config(params["job"])})

    # -- cluster profiles: every change drops the cached sessions, which may be stale now -----
    async def rpc_clusters_list(self, params: dict, notify) -> dict:
        return await asyncio.to_thread(clusters.list_profiles)

    async def rpc_clusters_add(self, params: dict, notify) -> dict:
        return await self._changing_profiles(clusters.add, params["name"], params["rest"], params["webhdfs"], params["user"],
                                             params.get("kind") or "openpai", params.get("protocol"), params.get("password"))

    async def rpc_clusters_login(self, params: dict, notify) -> dict:
        return await self._changing_profiles(clusters.login, params.get("name"), params["password"])

    async def rpc_clusters_remove(self, params: dict, notify) -> dict:
        return await self._changing_profiles(clusters.remove, params["name"])

    async def rpc_clusters_setDefault(self, params: dict, notify) -> dict:
        return await self._changing_profiles(clusters.set_default, params["name"])

    async def rpc_clusters_stopLocal(self, params: dict, notify) -> dict:
        return await self._changing_profiles(clusters.stop_local_cluster)

    async def _changing_profiles(self, fn, *args: Any) -> dict:
        self.connections.clear()  # not closed: a request may still be using one
        return await asyncio.to_thread(fn, *args)

    async def rpc_stop(self, params: dict, notify) -> dict:
        await self._with_connection(params.get("cluster"), lambda conn: conn.rest.stop(params["job"]))
        return {"stopped": params["job"]}

    async def rpc_outputs(self, params: dict, notify) -> dict:
        target = await self._with_connection(params.get("cluster"), service.outputs, params["job"], Path(params["dest"]))
        return {"path": str(target)}

    async def rpc_logs_follow(self, params: dict, notify) -> dict:
        """Stream `job.log` notifications from the given offsets until the job ends (or just what
        is there now, without `follow`); `job.status` on every state change."""
        job, cluster = params["job"], params.get("cluster")
        offsets: dict[str, int] = dict(params.get("offsets") or {})
        loop = asyncio.get_running_loop()

        pending: dict[str, bytes] = {}

        def emit(label: str, data: bytes, end: int) -> None:
            if data:
                text = {"job": job, "task": label, "offset": end - len(data), "text": data.decode("utf-8", "replace")}
                asyncio.run_coroutine_threadsafe(notify("job.log", text), loop).result()

        def follow(conn: service.Connection) -> dict:
            last_state = None
            for label, data in service.follow_logs(conn, job, params.get("task"), bool(params.get("follow", True)),
                                                   params.get("which", "all"), offsets=offsets):
                # Never split a UTF-8 character between two notifications.
                data = pending.pop(label, b"") + data
                complete, tail = split_utf8(data)
                if tail:
                    pending[label] = tail
                emit(label, complete, offsets[label] - len(tail))
            for label, tail in pending.items():
                emit(label, tail, offsets[label])
            status = service.job_status(conn, job)
            if status["state"] != last_state:
                asyncio.run_coroutine_threadsafe(notify("job.status", {"job": job, "state": status["state"],
                                                                       "exitCode": status["exitCode"],
                                                                       "diagnostics": status["diagnostics"]}), loop).result()
            return {"job": job, "state": status["state"], "offsets": offsets}

        return await self._with_connection(cluster, follow)


HDFS_OPS = {"ls", "stat", "mkdir", "rm", "mv", "cat", "tail", "put", "get"}


def _hdfs_handler_impl(daemon: Daemon, op: str):
    from ..service import hdfs as explorer

    async def handler(params: dict, notify) -> dict:
        loop = asyncio.get_running_loop()
        token = params.get("progressToken")

        def progress(done: int, total: int, files: int, all_files: int) -> None:
            if token is not None:
                asyncio.run_coroutine_threadsafe(notify("transfer.progress", {
                    "token": token, "bytes": done, "totalBytes": total, "files": files, "totalFiles": all_files}), loop)

        def run(conn: service.Connection) -> dict:
            if op == "ls":
                return explorer.ls(conn, params["path"])
            if op == "stat":
                return explorer.stat(conn, params["path"])
            if op == "mkdir":
                return explorer.mkdir(conn, params["path"])
            if op == "rm":
                return explorer.rm(conn, params["path"], bool(params.get("recursive")))
            if op == "mv":
                return explorer.mv(conn, params["from"], params["to"])
            if op in ("cat", "tail"):
                data = (explorer.cat(conn, params["path"], params.get("offset", 0), params.get("length")) if op == "cat"
                        else explorer.tail(conn, params["path"], params.get("bytes", 1024)))
                return {"path": explorer.absolute(conn, params["path"]), "data": base64.b64encode(data).decode()}
            if op == "put":
                return explorer.put(conn, Path(params["local"]), params["remote"], progress)
            return explorer.get(conn, params["remote"], Path(params["local"]), progress)

        return await daemon._with_connection(params.get("cluster"), run)

    return handler


def split_utf8(data: bytes) -> tuple[bytes, bytes]:
    """(complete UTF-8 text, the start of a character cut off at the end)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # the first byte of the last character
            need = 1 if byte < 0x80 else 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4
            return (data, b"") if need <= back else (data[:-back], data[-back:])
    return data, b""


def serve() -> int:
    daemon = Daemon(socket_path())
    asyncio.run(daemon.serve())
    return 0
