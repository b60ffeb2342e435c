"""A real local cluster for each test module: a subprocess on free 127.0.0.1 ports, stopped at the end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

USER, PASSWORD = "alice", "secret-pw"


@dataclass
class Cluster:
    url: str
    hdfs_url: str
    data_dir: Path
    process: subprocess.Popen
    token: str = ""

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
    cluster = Cluster(url, hdfs_url, data_dir, process)
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


@pytest.fixture(scope="session", autouse=True)
def private_config(tmp_path_factory):
    """The clusters' secrets go to the config dir: a temporary one, never the real ~/.config."""
    saved = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))
    yield
    if saved is None:
        os.environ.pop("XDG_CONFIG_HOME", None)
    else:
        os.environ["XDG_CONFIG_HOME"] = saved


def secret_file(data_dir: Path, name: str) -> Path:
    from pai_lsp.localcluster.datadir import secrets_dir

    return secrets_dir(data_dir) / name


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield c
    stop_cluster(c)


def wait_for(predicate, timeout: float = 30, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(interval)
