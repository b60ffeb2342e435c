"""`pai local-cluster`: the ASGI app (REST + WebHDFS, also under /rest-server) served by uvicorn."""

from __future__ import annotations

import asyncio
import getpass
import ipaddress
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount

from .auth import KEYRING_SERVICE, ensure_first_user
from .cluster import Capacity, LocalCluster
from .datadir import DataDirBusy, DataDirLock, default_data_dir, prepare, stop_requested
from .layout import LayoutError
from .rest import Api
from .storages import StorageConfigError
from .webhdfs_server import OPS, WebHdfs

__all__ = ["build_app", "default_data_dir", "serve"]

STOP_POLL_SECONDS = 0.2  # how often the cluster looks for a stop request (`datadir.request_stop`)


WEBHDFS = "/webhdfs/v1"


def build_app(cluster: LocalCluster, private: bool = False) -> Callable:
    """The ASGI app: WebHDFS calls straight to `WebHdfs`, everything else (the REST API, and the
    lifespan) through Starlette. `private`: every REST read and every WebHDFS call needs the cluster's token."""
    hdfs = WebHdfs(cluster.store, cluster.users.user_of_token, require_token=private)
    rest = _rest_app(cluster, private)

    async def app(scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] in OPS:
            path = scope["path"].removeprefix("/rest-server")
            if path == WEBHDFS or path.startswith(WEBHDFS + "/"):
                await hdfs(dict(scope, path_params={"path": path[len(WEBHDFS) + 1:]}), receive, send)
                return
        await rest(scope, receive, send)

    return app


def _rest_app(cluster: LocalCluster, private: bool) -> Starlette:
    """The REST API (also under /rest-server), with OpenPAI's answers for unknown routes and crashes."""
    routes = Api(cluster, private=private).routes()

    async def not_found(request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 405:
            return JSONResponse({"code": "NoApiError", "message": f"API {request.url.path} is not found."}, 404)
        return JSONResponse({"code": "NoApiError" if exc.status_code == 404 else "UnknownError",
                             "message": f"API {request.url.path} is not found." if exc.status_code == 404 else str(exc.detail)},
                            exc.status_code)

    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"code": "UnknownError", "message": str(exc) or type(exc).__name__}, 500)

    @asynccontextmanager
    async def lifespan(app: Starlette):
        cluster.start_background()
        yield
        await cluster.close()

    return Starlette(
        routes=[Mount("/rest-server", routes=routes), *routes],
        exception_handlers={HTTPException: not_found, Exception: crashed},
        lifespan=lifespan,
    )


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or a name) reaches this machine only."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return bool(addresses) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses)


def bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this: without it small responses wait for delayed ACKs (~40 ms).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def serve(data_dir: Path, host: str, port: int, hdfs_port: int | None, gpus: int | None, runtime: str,
          cpus: int | None = None, memory_mb: int | None = None, out=sys.stdout, allow_remote: bool = False,
          private: bool = False, strict_resources: bool = False, paddle_port: int = 0, enforce_memory: bool = False,
          metrics_interval: int | None = None, prometheus: str = "prometheus",
          storages: list[str] | None = None, azurite: str | None = None, tls: tuple[str, str] | None = None) -> int:
    """Serve until interrupted. Off loopback only with `allow_remote`, and then every call needs a token.
    `tls`: (certificate chain file, key file): served over HTTPS."""
    import uvicorn

    problem = argument_problem(data_dir, port=port, hdfs_port=hdfs_port, paddle_port=paddle_port, gpus=gpus, cpus=cpus,
                               memory_mb=memory_mb, metrics_interval=metrics_interval)
    if problem:
        print(f"pai local-cluster: {problem}", file=sys.stderr)
        return 2
    remote = not is_loopback(host)
    if remote and not allow_remote:
        print(f"pai local-cluster: {host} is reachable from other machines; the local cluster listens on loopback only "
              "unless you add --allow-remote (then every REST and WebHDFS call needs a token)", file=sys.stderr)
        return 2
    added, problem = added_storages(storages or [])
    if problem:
        print(f"pai local-cluster: {problem}", file=sys.stderr)
        return 2
    problem = prepare_data_dir(data_dir)
    if problem:
        print(f"pai local-cluster: {problem}", file=sys.stderr)
        return 2
    lock = DataDirLock(data_dir)
    try:
        lock.acquire()
    except DataDirBusy as exc:
        print(f"pai local-cluster: {exc}", file=sys.stderr)
        return 1
    user_umask = os.umask(0o077)  # everything the cluster writes is private; tasks get the user's own umask back
    socks = [bind(host, port)]
    if hdfs_port is not None:
        socks.append(bind(host, hdfs_port))
    socks.append(bind(host, paddle_port))  # PaddlePaddle Cloud's API: its /api/v1/jobs/ is not OpenPAI's
    actual = socks[0].getsockname()[1]
    paddle_actual = socks[-1].getsockname()[1]
    fs_port = socks[1].getsockname()[1] if hdfs_port is not None else actual
    effective_runtime = runtime
    note = ""
    engine = None
    if runtime == "container":
        import shutil

        engine = next((e for e in (shutil.which("docker"), shutil.which("podman")) if e and _engine_works(e)), None)
        if engine is None:
            effective_runtime, note = "host", " (no working docker or podman: tasks run on the host)"
    capacity = Capacity.of_machine(gpus)
    capacity.cpu = cpus or capacity.cpu
    capacity.memory_mb = memory_mb or capacity.memory_mb
    user = getpass.getuser()
    try:
        cluster = LocalCluster(data_dir, capacity, user, effective_runtime, engine, task_umask=user_umask,
                               strict_resources=strict_resources, enforce_memory=enforce_memory, added_storages=added)
    except (StorageConfigError, LayoutError) as exc:
        print(f"pai local-cluster: {exc}", file=sys.stderr)
        lock.release()
        return 2
    from .served_storages import ServedStorages
    from .storage_servers import ServerError

    servers = ServedStorages(data_dir, cluster.storages, azurite)
    try:
        served = servers.start()
    except (ServerError, OSError, subprocess.SubprocessError) as exc:
        print(f"pai local-cluster: a storage's server did not start: {exc}", file=sys.stderr)
        lock.release()
        return 2
    shown = f"[{host}]" if ":" in host else host
    cluster.fs_uri = f"hdfs://{shown}:{fs_port}"
    created = ensure_first_user(cluster.users, user)
    if created is not None:
        password, kept = created
        where = (f"kept in the keyring as '{KEYRING_SERVICE}'" if kept else
                 "no keyring backend on this machine, so it is stored nowhere: note it now, or add users with "
                 "`pai local-cluster users add NAME --password-stdin`")
        print(f"Created user {user} with password {password} ({where}; shown only this once).", file=out)
    from .paddle.cloud_api import PaddleApi, by_port

    app = by_port(build_app(cluster, private=private or remote), PaddleApi(cluster), paddle_actual)
    from .monitoring import DEFAULT_INTERVAL, Monitoring

    exporter = bind("127.0.0.1", 0)  # job-exporter's /metrics, for the cluster's Prometheus only (loopback)
    monitoring = Monitoring(cluster, data_dir, exporter, metrics_interval or DEFAULT_INTERVAL, prometheus, private or remote)
    app = monitoring.wrap(app)
    scheme = "https" if tls else "http"
    rest, webhdfs = f"{scheme}://{shown}:{actual}", f"{scheme}://{shown}:{fs_port}"
    paddle = f"{scheme}://{shown}:{paddle_actual}"
    lock.describe(url=rest, hdfs=webhdfs, paddle=paddle)
    if remote:
        print(f"pai local-cluster: WARNING: listening on {host}, reachable from other machines. Every REST call and every "
              f"WebHDFS call (delegation=<token>) needs a token; tasks run as {user} on this machine, so anyone who can "
              "log in can run commands as you (--runtime container isolates them).", file=sys.stderr, flush=True)
    print(f"PAI local cluster: REST {rest}  WebHDFS {webhdfs}/webhdfs/v1  PaddlePaddle Cloud {paddle} (datacenter local)  "
          f"data {data_dir}  capacity {cluster.capacity.cpu} CPU, {cluster.capacity.memory_mb} MB, "
          f"{cluster.capacity.gpu} GPU  runtime {effective_runtime}{note}  {monitoring.prometheus.status_line()}",
          file=out, flush=True)
    if served:
        print(f"PAI local cluster: storages served on 127.0.0.1: {', '.join(served)}", file=out, flush=True)
    from .heads import MAX_HEAD_BYTES, bounded_heads

    # uvicorn as it is documented: h11 bounds a head still arriving, `bounded_heads` one that came whole
    config = uvicorn.Config(bounded_heads(app), log_level="warning", lifespan="on", timeout_graceful_shutdown=5,
                            http="h11", h11_max_incomplete_event_size=MAX_HEAD_BYTES, ssl_certfile=tls[0] if tls else None,
                            ssl_keyfile=tls[1] if tls else None)
    server = uvicorn.Server(config)
    try:
        asyncio.run(_serve_until_stopped(server, [*socks, exporter], data_dir))
    finally:
        servers.stop()
        lock.release()
    return 0


def added_storages(specs: list[str]) -> tuple[dict, str]:
    """The storages `--storage TYPE:NAME` asks the cluster to serve (a Samba, NFS or Azure Blob
    server it starts), by name, or why one cannot be (one line)."""
    from .storages import NAME, SERVED_TYPES
    from .storages import Storage as Table

    kinds = {t.lower(): t for t in SERVED_TYPES} | {"blob": "azureBlob", "azure-blob": "azureBlob", "smb": "samba"}
    added: dict = {}
    for spec in specs:
        kind, _, name = spec.partition(":")
        if kind.lower() not in kinds or not NAME.match(name) or name in added or name == "local":
            return {}, (f"--storage {spec}: give TYPE:NAME, TYPE one of samba, nfs, azureBlob and NAME a new storage "
                        "name (lower-case letters, digits, '-' and '.')")
        added[name] = Table(name, None, kinds[kind.lower()], serve=True)
    return added, ""


async def _serve_until_stopped(server, socks: list[socket.socket], data_dir: Path) -> None:
    """Serve until Ctrl-C (SIGINT, SIGTERM) or a stop request in the data folder (how `pai cluster
    stop-local` asks where signals cannot: Windows), either of which stops the tasks first."""
    async def watch() -> None:
        while not server.should_exit:
            if stop_requested(data_dir):
                server.should_exit = True
            await asyncio.sleep(STOP_POLL_SECONDS)

    watcher = asyncio.ensure_future(watch())
    try:
        await server.serve(sockets=socks)
    finally:
        watcher.cancel()


def argument_problem(data_dir: Path, *, gpus: int | None, cpus: int | None, memory_mb: int | None,
                     metrics_interval: int | None = None, **ports: int | None) -> str:
    """What is wrong with `serve`'s arguments, in one line ("" when nothing is): checked before anything
    is bound or written."""
    for name, value in ports.items():
        if value is not None and not 0 <= value <= 65535:
            return f"--{name.replace('_', '-')} {value}: a port is 0 to 65535 (0 picks a free one)"
    for name, value, least in (("gpus", gpus, 0), ("cpus", cpus, 1), ("memory-mb", memory_mb, 1),
                               ("metrics-interval", metrics_interval, 1)):
        if value is not None and value < least:
            return f"--{name} {value}: give {least} or more"
    if data_dir.exists() and not data_dir.is_dir():
        return f"--data-dir {data_dir}: it is a file, not a folder"
    return ""


def prepare_data_dir(data_dir: Path) -> str:
    """Create the data folder (private) for `serve` or `users add`; what stands in the way, in one line ("" when
    nothing does)."""
    if data_dir.exists() and not data_dir.is_dir():
        return f"--data-dir {data_dir}: it is a file, not a folder"
    try:
        prepare(data_dir)
    except OSError as exc:
        return f"cannot use {data_dir} as the data folder: {exc.strerror or exc}"
    return ""


def _engine_works(engine: str) -> bool:
    import subprocess

    try:
        return subprocess.run([engine, "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
