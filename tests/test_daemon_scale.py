"""The daemon's costs grow with what changes, not with everything: many followers are
all served at once, a big log travels in bounded pieces, a big file is never read whole, and
watching never asks for the whole history. Functional checks with generous time limits; the
numbers are in bench/daemon.py and docs/benchmarks.md."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

from pai_lsp import api
from pai_lsp.core.openpai_rest import JobSummary
from pai_lsp.daemon import client
from pai_lsp.daemon.server import Daemon
from pai_lsp.daemon.sessions import Sessions

from .helpers.cli import command_job, pai
from .helpers.memory import MemoryBackend


def daemon_process(env: dict) -> psutil.Process:
    return psutil.Process(int(pai(env, "daemon", "status").stdout.split("pid ")[1].split(",")[0]))


def test_more_followers_than_threads_are_all_served_at_once(env, tmp_path, monkeypatch):
    """Followers once held a thread each while they waited: beyond the pool's size, the others got
    nothing until a job ended. These jobs print one line and wait; every follower must see it."""
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "PAI_LOCAL_CLUSTER_DIR", "PAI_LSP_SECRETS"):
        monkeypatch.setenv(name, env[name])
    ws = command_job(tmp_path, "wait.pai.json", "echo ready; sleep 120")
    jobs = [pai(env, "run", "wait.pai.json", cwd=ws).stdout.split()[1] for _ in range(2)]  # two CPU slots here
    ready: set[int] = set()

    async def follow_all() -> None:
        async def one(i: int) -> None:
            def on_log(log: api.JobLog, data: bytes) -> None:
                if b"ready" in data:
                    ready.add(i)

            await client.follow(api.FollowLogs(job=jobs[i % 2], cluster="local"), on_log)

        followers = [asyncio.ensure_future(one(i)) for i in range(40)]
        deadline = time.monotonic() + 60
        while len(ready) < len(followers) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        for follower in followers:
            follower.cancel()

    try:
        asyncio.run(follow_all())
        assert ready == set(range(40))
        assert pai(env, "jobs").returncode == 0  # answered while all of them follow (bench/daemon.py times it)
    finally:
        for job in jobs:
            pai(env, "stop", job)


def test_a_big_log_arrives_whole_in_bounded_pieces(env, tmp_path):
    """64 MB written at once: `pai logs -f` prints every byte once, and the daemon never holds it whole."""
    writer = ("python3 -c \"import sys\nline=b'0123456789'*9+b'abcdefgh\\n'\nout=sys.stdout.buffer\n"
              "for i in range(640): out.write(line*1000)\"")
    ws = command_job(tmp_path, "big.pai.json", writer)
    proc = daemon_process(env) if pai(env, "jobs").returncode == 0 else None
    peak = [0.0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.02):
            peak[0] = max(peak[0], proc.memory_info().rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        run = subprocess.run([sys.executable, "-m", "pai_lsp", "run", "big.pai.json", "--follow"], cwd=ws, env=env,
                             capture_output=True, timeout=300)
    finally:
        stop.set()
        sampler.join()
    assert run.returncode == 0, run.stderr
    printed = run.stdout.split(b"\n", 1)[1]
    expected = (b"0123456789" * 9 + b"abcdefgh\n") * 640_000
    assert len(printed) == len(expected) and hashlib.sha256(printed).digest() == hashlib.sha256(expected).digest()
    assert peak[0] < 150e6, f"the daemon reached {peak[0] / 1e6:.0f} MB for a 64 MB log"


def test_a_big_file_is_uploaded_without_being_read_whole(env, tmp_path):
    """A 256 MB file in the workspace: the upload streams it (and hashes it once, on the way)."""
    import getpass

    ws = command_job(tmp_path, "model.pai.json", "ls -l $PAI_JOB_NAME/weights.bin | awk '{print $5}'")
    config = json.loads((ws / "model.pai.json").read_text())
    config["codeDir"] = "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME"
    (ws / "model.pai.json").write_text(json.dumps(config))
    (ws / ".vscode").mkdir(exist_ok=True)
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.include": ["*.bin"]}))
    block = bytes(range(256)) * 4096
    with open(ws / "weights.bin", "wb") as f:
        for _ in range(256):
            f.write(block)
    script = ("import sys\nfrom pathlib import Path\nfrom pai_lsp.storage.upload import select, upload\n"
              "from pai_lsp.storage.webhdfs import Hdfs\n"
              "print(upload(Hdfs(sys.argv[1], sys.argv[2]), select(Path(sys.argv[3]), ['*.bin'], []), '/big/code').sent_bytes)")
    pai(env, "jobs")
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    uploader = subprocess.Popen([sys.executable, "-c", script, info["hdfs"], getpass.getuser(), str(ws)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    with contextlib.suppress(psutil.Error):  # (ru_maxrss would count this test's own memory: it survives exec)
        process = psutil.Process(uploader.pid)
        while uploader.poll() is None:
            peak = max(peak, process.memory_info().rss)
            time.sleep(0.01)
    out, err = uploader.communicate(timeout=300)
    assert uploader.returncode == 0, err
    assert int(out) == 256 << 20
    assert peak < 100e6, f"{peak / 1e6:.0f} MB resident to upload a 256 MB file"


class LongHistory(MemoryBackend):
    """A cluster with thousands of finished jobs that can list the unfinished ones alone."""

    def __init__(self) -> None:
        super().__init__()
        self.whole_lists = 0
        self.history = [JobSummary(name=f"old{i}", state="SUCCEEDED") for i in range(5000)]

    def jobs(self) -> list[JobSummary]:
        self.whole_lists += 1
        return self.history + super().jobs()

    def active_jobs(self) -> list[JobSummary] | None:
        return [j for j in super().jobs() if j.state not in ("SUCCEEDED", "FAILED", "STOPPED")]


async def test_watching_never_asks_for_the_whole_history(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr("pai_lsp.daemon.watcher.WATCH_INTERVAL", 0.05)
    monkeypatch.setattr("pai_lsp.daemon.watcher.LOCAL_WATCH_INTERVAL", 0.05)  # the cluster is named `local`
    cluster = LongHistory()
    cluster.submit({"jobName": "mine"})
    daemon = Daemon(tmp_path / "daemon.sock", Sessions(connect=lambda name, start=True: cluster))
    changes: list[str] = []

    async def on_change(event: api.JobStatus) -> None:
        changes.append(event.state)

    daemon.watcher.subscribers.add(on_change)
    daemon.watcher.watch("local", "mine")
    deadline = time.monotonic() + 30
    while "SUCCEEDED" not in changes and time.monotonic() < deadline:
        cluster.job("mine")  # the job goes on: WAITING, RUNNING, SUCCEEDED
        await asyncio.sleep(0.1)
    assert changes[-1] == "SUCCEEDED" and cluster.whole_lists == 0
