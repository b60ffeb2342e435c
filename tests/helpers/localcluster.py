"""A real local cluster for tests: a subprocess on free 127.0.0.1 ports, and small clients of its REST API."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

USER, PASSWORD = "alice", "secret-pw"


@dataclass
class Cluster:
    url: str
    hdfs_url: str
    data_dir: Path
    process: subprocess.Popen
    token: str = ""
    paddle_url: str = ""  # its PaddlePaddle Cloud API (jobs and PFS), on a port of its own

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token or self.token}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


def start_cluster(data_dir: Path, *extra: str, env: dict[str, str] | None = None) -> Cluster:
    data_dir.mkdir(parents=True, exist_ok=True)
    if not (data_dir / "users.json").exists():
        subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(data_dir), "users", "add", USER,
                        "--password-stdin", "--admin"], input=PASSWORD + "\n", text=True, check=True, capture_output=True)
        subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(data_dir), "users", "add", "bob",
                        "--password-stdin"], input=PASSWORD + "\n", text=True, check=True, capture_output=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(data_dir), "--port", "0", "--hdfs-port", "0",
         "--cpus", "64", "--memory-mb", "65536", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1", **(env or {})))
    line = process.stdout.readline()
    if "REST " not in line:
        process.kill()
        raise RuntimeError(f"local cluster did not start: {line}{process.stderr.read()}")
    url = line.split("REST ")[1].split()[0]
    hdfs_url = line.split("WebHDFS ")[1].split()[0].removesuffix("/webhdfs/v1")
    cluster = Cluster(url, hdfs_url, data_dir, process, paddle_url=line.split("PaddlePaddle Cloud ")[1].split()[0])
    cluster.token = login(url, USER)
    return cluster


def login(url: str, user: str) -> str:
    return httpx.post(f"{url}/api/v1/token", json={"username": user, "password": PASSWORD}).json()["token"]


def stop_cluster(cluster: Cluster) -> None:
    cluster.process.send_signal(signal.SIGINT)
    try:
        cluster.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        cluster.process.kill()
        cluster.process.wait()


@contextmanager
def own_cluster(data_dir: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[Cluster]:
    """A cluster of the test's own (its own data dir and settings), stopped whatever happens."""
    cluster = start_cluster(data_dir, *extra, env=env)
    try:
        yield cluster
    finally:
        stop_cluster(cluster)


def secret_file(data_dir: Path, name: str) -> Path:
    from pai_lsp.localcluster.datadir import secrets_dir

    return secrets_dir(data_dir) / name


def wait_for(predicate, timeout: float = 30, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(interval)


def job(name: str, *roles: dict, **extra) -> dict:
    return {"jobName": name, "image": "ubuntu:18.04", "taskRoles": list(roles), **extra}


def role(name: str, command: str, **extra) -> dict:
    return {"name": name, "command": command, "cpuNumber": 1, "memoryMB": 256, **extra}


def submit(c: httpx.Client, body: dict) -> httpx.Response:
    return c.post(f"/api/v1/user/{USER}/jobs", json=body)


def detail(c: httpx.Client, name: str) -> dict:
    return c.get(f"/api/v1/user/{USER}/jobs/{name}").json()


def finished(c: httpx.Client, name: str, timeout: float = 30) -> dict:
    return wait_for(lambda: (d := detail(c, name))["jobStatus"]["state"] in ("SUCCEEDED", "FAILED", "STOPPED") and d, timeout)


def log(cluster, c: httpx.Client, name: str, role_name: str, index: int = 0, which: str = "stdout") -> str:
    """The task's log; "" while the task has none yet."""
    d = detail(c, name)
    task = d["taskRoles"][role_name]["taskStatuses"][index]
    locations = c.get(task["containerLog"]).json().get("locations")
    if locations is None:
        return ""
    uri = next(loc["uri"] for loc in locations if loc["name"] == which)
    return c.get(uri).text


def task_pids(name: str) -> list[int]:
    marker = f"PAI_LOCAL_TASK_ID={USER}~{name}/".encode()
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            environ = open(f"/proc/{proc.pid}/environ", "rb").read()
        except OSError:
            continue
        if any(item.startswith(marker) for item in environ.split(b"\0")):
            found.append(proc.pid)
    return found


def processes_named(prefix: str) -> list[psutil.Process]:
    """Live processes whose argv[0] starts with `prefix` (tests name their sleepers with `exec -a`)."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = proc.info["cmdline"] or []
        if cmdline and cmdline[0].startswith(prefix) and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


# -- a task's processes that outlive a plain process-group kill ---------------------------------
SLEEPER_KINDS = ("group", "session", "scrubbed")


def sleepers_command(tag: str, then: str) -> str:
    """Three sleepers that outlive a plain process-group kill in different ways, then `then`."""
    return (f"(exec -a {tag}-group sleep 300) & "
            f"setsid bash -c 'exec -a {tag}-session sleep 300' & "
            f"setsid env -i bash -c 'exec -a {tag}-scrubbed sleep 300' & "
            f"{then}")


def sleepers(tag: str) -> dict[str, int]:
    """The live sleepers of one command, by kind."""
    return {proc.info["cmdline"][0].removeprefix(tag + "-"): proc.pid for proc in processes_named(tag + "-")}


@contextmanager
def tagged() -> Iterator[str]:
    """A tag for this test's sleepers (and the start of theirs); whatever they leave behind is ended, pass or fail."""
    tag = f"pai-test-{uuid.uuid4().hex[:12]}"
    try:
        yield tag
    finally:
        for proc in processes_named(tag):
            try:
                proc.kill()
            except psutil.NoSuchProcess:
                pass


def all_started(tag: str) -> dict[str, int]:
    return wait_for(lambda: (found := sleepers(tag)).keys() == set(SLEEPER_KINDS) and found, 20)


def seed_store(data_dir: Path, files: int, folders: int = 1000) -> None:
    """`files` empty files in `folders` folders under /seed of the HDFS store in `data_dir`, owned by
    the OS user (the cluster's superuser), before a cluster serves it: a cluster that has taken many
    uploads. The first file of each folder is written through the store; the others are made beside
    it with the very metadata row the store gave it, in one transaction (500,000 files one by one
    would take longer than the runs that use them)."""
    import getpass

    from pai_lsp.localcluster.hdfs_store import HdfsStore

    me = getpass.getuser()
    store = HdfsStore(data_dir / "hdfs", me)
    try:
        rows = {}
        for d in range(min(folders, files)):
            with store.writer(me, f"/seed/d{d}/f{d}", False, None):
                pass
            rows[d] = store._db.execute("SELECT * FROM inodes WHERE path = ?", (f"/seed/d{d}/f{d}",)).fetchone()
        batch, seeded = [], store.local("/seed")
        for i in range(folders, files):
            os.close(os.open(seeded / f"d{i % folders}" / f"f{i}", os.O_CREAT | os.O_WRONLY, 0o644))
            batch.append((f"/seed/d{i % folders}/f{i}", *rows[i % folders][1:]))
        if batch:
            with store._transaction() as db:
                db.executemany(f"INSERT INTO inodes VALUES ({', '.join('?' * len(batch[0]))})", batch)
    finally:
        store.close()
