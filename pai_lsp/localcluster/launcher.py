"""The local cluster as the `local` cluster profile uses it: started in the background on demand,
with a user of its own for `pai`, stopped on request.

This is the one module of the local cluster the client side may import (an import contract in
the tests keeps it so): the client never reads or writes the cluster's users or secrets itself.
"""

from __future__ import annotations

import getpass
import json
import os
import secrets
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from ..common.atomic import write_atomic
from ..common.userlock import held
from .auth import Users
from .datadir import default_data_dir, request_stop, secrets_dir, serving

STATE_FILE = "server.json"  # url, hdfs and pid of the cluster started for the client
START_TIMEOUT = 10.0
STOP_TIMEOUT = 20.0  # seconds a stopping cluster gets to stop its tasks before it is killed


class LaunchError(Exception):
    """The local cluster is not running (and was not to be started), or did not start."""


@dataclass
class Running:
    url: str  # REST
    hdfs: str  # WebHDFS, without /webhdfs/v1
    user: str  # pai's user there: the OS user's name
    paddle: str | None = None  # its PaddlePaddle Cloud API (jobs and PFS)


def data_dir() -> Path:
    return default_data_dir()


def ensure_running(start: bool = True) -> Running:
    """The running local cluster; started first when it is not running (unless `start` is False).
    Callers that come at once (threads of the daemon, several processes) start one cluster: the
    check and the start happen under one lock."""
    data = data_dir()
    running = _already_running(data)
    if running is not None:
        return running
    if not start:
        raise LaunchError("the local cluster is not running")
    data.mkdir(parents=True, exist_ok=True, mode=0o700)
    with held(data / "server.lock"):
        return _already_running(data) or _start(data)


def _already_running(data: Path) -> Running | None:
    """The cluster in the state file when it answers (after waiting for one that does not answer but
    still runs: busy, or shutting down, when it holds the data folder until it exits), else the one
    that holds the data folder, else None."""
    state = data / STATE_FILE
    try:
        info = json.loads(state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        info = None
    deadline = time.monotonic() + START_TIMEOUT
    while info is not None:
        if _alive(info["url"]):
            return _running(info)
        pid = info.get("pid")
        if not isinstance(pid, int) or not _process_runs(pid) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    holder = serving(data)  # a cluster serves this folder but did not answer in time (busy), or was started by hand
    if holder is not None and holder.get("url"):
        info = {"url": holder["url"], "hdfs": holder["hdfs"], "pid": holder["pid"]}
        _ensure_client_user(data)  # a running cluster picks a new user up at once
        if _answers_soon(info["url"]):
            write_atomic(state, json.dumps(info), private=True)
            return _running(info)
    return None


def _start(data: Path) -> Running:
    _ensure_client_user(data)
    extra = shlex.split(os.environ.get("PAI_LOCAL_CLUSTER_ARGS", ""))  # e.g. "--cpus 64" for benchmarks
    log_fd = os.open(data / "server.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    from .processes import spawn_options  # here: it loads psutil, which only starting and stopping need

    detached = spawn_options(sys.platform != "win32")  # its own session; on Windows its own process group, no window
    with os.fdopen(log_fd, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(data), "--port", "0", *extra],
            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, **detached)
    line = process.stdout.readline() if process.stdout else ""
    if "REST " not in line:
        raise LaunchError(f"the local cluster did not start: see {data / 'server.log'}")
    url = line.split("REST ")[1].split()[0]
    info = {"url": url, "hdfs": line.split("WebHDFS ")[1].split()[0].removesuffix("/webhdfs/v1"), "pid": process.pid,
            "paddle": line.split("PaddlePaddle Cloud ")[1].split()[0] if "PaddlePaddle Cloud " in line else None}
    write_atomic(data / STATE_FILE, json.dumps(info), private=True)
    if not _answers_soon(url):
        raise LaunchError(f"the local cluster at {url} does not answer")
    return _running(info)


def _answers_soon(url: str) -> bool:
    deadline = time.monotonic() + START_TIMEOUT
    while not _alive(url):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def client_password() -> str | None:
    """The password of pai's user on the local cluster (made when the cluster was first started)."""
    path = _password_file(data_dir())
    return path.read_text(encoding="utf-8").strip() if path.exists() else None


def stop() -> bool:
    """Stop the cluster started for the client and wait until it has exited (its tasks stopped, its
    data folder free), so a command right after can start it again; False when none was running.
    Asked as Ctrl-C asks (SIGINT; where signals cannot ask, a stop request in its data folder), killed
    after STOP_TIMEOUT if it still serves the folder (so never a process that merely got its pid)."""
    from .processes import posix_processes

    data = data_dir()
    state = data / STATE_FILE
    try:
        info = json.loads(state.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        info = {}
    pid = info.get("pid")
    if isinstance(pid, int) and pid > 0 and _process_runs(pid):
        if posix_processes():
            try:
                os.kill(pid, signal.SIGINT)  # the cluster stops its tasks and exits
            except (ProcessLookupError, PermissionError):
                pass
        else:
            request_stop(data, pid)
        if not _wait_exit(pid, STOP_TIMEOUT) and (serving(data) or {}).get("pid") == pid:
            _kill(pid)
            _wait_exit(pid, 5)
    state.unlink(missing_ok=True)
    return True


def _kill(pid: int) -> None:
    """SIGKILL; TerminateProcess on Windows. The tasks it leaves are ended by the next cluster."""
    import psutil

    try:
        psutil.Process(pid).kill()
    except psutil.Error:
        pass


def _process_runs(pid: int) -> bool:
    """Whether `pid` is a live process (one that exited and nobody reaped yet counts as gone)."""
    import psutil

    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:  # another user's: it runs
        return True


def _wait_exit(pid: int, seconds: float) -> bool:
    """Wait up to `seconds` for process `pid` to exit; whether it did."""
    deadline = time.monotonic() + seconds
    while _process_runs(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _running(info: dict) -> Running:
    return Running(info["url"], info["hdfs"], getpass.getuser(), info.get("paddle"))


def _alive(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/v2/info", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _password_file(data: Path) -> Path:
    """Beside the cluster's own secrets, outside the data folder its tasks run in."""
    return secrets_dir(data) / "pai-client-password"


def _ensure_client_user(data: Path) -> None:
    """pai's user (named after the OS user, an admin) with a random password only this user can read."""
    users = Users(data)
    user = getpass.getuser()
    secret = _password_file(data)
    if user in users.users and secret.exists():
        return
    password = secrets.token_urlsafe(16)
    users.add(user, password, admin=True)
    write_atomic(secret, password, private=True)
