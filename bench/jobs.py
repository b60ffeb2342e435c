"""Job daemon and submit speed, against the named references in the same run:

- selecting files by include/exclude globs in a 100,000-file tree vs a bare `os.scandir` walk;
- a task's log line to the LSP client (p95);
- the daemon watching 100 running jobs: CPU share of one core and resident memory.

    python bench/jobs.py

Uploads against `hdfscli upload`, and uploading again unchanged or after an edit, are measured by
bench/uploads.py (here pai ran first on an empty cluster and `hdfscli` second with pai's
files stored).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import print_table  # noqa: E402
from bench.trees import scandir_walk  # noqa: E402
from pai_lsp.clusters.profiles import local_password, local_profile  # noqa: E402
from pai_lsp.storage.upload import select  # noqa: E402

INCLUDE = ["**/*.py", "**/*.sh", "configs/**/*.{yaml,json}"]
EXCLUDE = ["**/__pycache__/**", "**/.git/**", "**/test_*"]


def bench_selection(work: Path) -> list[tuple[str, str]]:
    """A repository-like tree: sources, configs, data, a .git folder, __pycache__ folders."""
    tree = work / "big"
    kinds = ["py", "py", "txt", "sh", "json", "pyc", "md", "py", "yaml", "png"]
    for i in range(100_000):
        top = ["src", "configs", "data", ".git", "docs"][i % 5]
        folder = tree / top / f"m{i % 97}" / ("__pycache__" if i % 11 == 0 else f"p{i % 13}")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{'test_' if i % 17 == 0 else ''}f{i}.{kinds[i % 10]}").touch()

    walks, selects = [], []
    for _ in range(7):
        t0 = time.perf_counter()
        scandir_walk(tree)
        walks.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        chosen = select(tree, INCLUDE, EXCLUDE)
        selects.append(time.perf_counter() - t0)
    walk, sel = statistics.median(walks), statistics.median(selects)
    return [(f"select by globs in 100,000 files vs bare scandir walk (include {INCLUDE}, exclude {EXCLUDE}; target ≤ 1.5×)",
             f"{sel * 1000:.0f} ms vs {walk * 1000:.0f} ms = {sel / walk:.2f}× ({len(chosen):,} chosen)")]


async def bench_log_latency(work: Path) -> list[tuple[str, str]]:
    """A task prints its own clock; the LSP client notes when each line arrives as pai/jobLog."""
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    job_file = work / "latency.pai.json"
    job_file.write_text(json.dumps({"jobName": "latency", "image": "local", "taskRoles": [{
        "name": "r", "command": "python3 -c \"import time\nfor i in range(60):\n print(repr(time.time()), flush=True); time.sleep(0.05)\""}]}))
    client = LanguageClient("bench", "1")
    delays: list[float] = []
    done = asyncio.Event()

    @client.feature("pai/jobLog")
    def on_log(params) -> None:
        now = time.time()
        for line in params.text.splitlines():
            try:
                delays.append(now - float(line))
            except ValueError:
                pass

    @client.feature("pai/jobStatus")
    def on_status(params) -> None:
        if params.state in ("SUCCEEDED", "FAILED", "STOPPED"):
            done.set()

    await client.start_io(sys.executable, "-m", "pai_lsp", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    await client.workspace_execute_command_async(types.ExecuteCommandParams("pai.runLocally", [job_file.as_uri()]))
    await asyncio.wait_for(done.wait(), 60)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    delays.sort()
    p95 = delays[int(len(delays) * 0.95) - 1]
    return [("task log line -> LSP client, p95 / median (target p95 ≤ 300 ms)",
             f"{p95 * 1000:.0f} ms / {statistics.median(delays) * 1000:.0f} ms ({len(delays)} lines)")]


def bench_watch() -> list[tuple[str, str]]:
    from pai_lsp import api
    from pai_lsp.daemon import client as daemon

    profile = local_profile()
    import httpx

    token = httpx.post(f"{profile.rest_uri}/api/v1/token", json={
        "username": profile.user, "password": local_password()}).json()["token"]
    names = []
    with httpx.Client(base_url=profile.rest_uri, headers={"Authorization": f"Bearer {token}"}) as c:
        for i in range(100):
            name = f"watched{i}"
            c.post(f"/api/v1/user/{profile.user}/jobs", json={"jobName": name, "image": "local", "taskRoles": [
                {"name": "r", "command": "sleep 120", "cpuNumber": 1, "memoryMB": 16, "shmMB": 8}]}).raise_for_status()
            names.append(name)
        daemon.call_sync(api.Watch(cluster="local", jobs=names))
        pid = daemon.call_sync(api.Ping()).pid
        process = psutil.Process(pid)
        time.sleep(3)
        c0, t0 = sum(process.cpu_times()[:2]), time.perf_counter()
        time.sleep(30)
        share = (sum(process.cpu_times()[:2]) - c0) / (time.perf_counter() - t0)
        rss = process.memory_info().rss / 1e6
        for name in names:
            c.put(f"/api/v1/user/{profile.user}/jobs/{name}/executionType", json={"value": "STOP"})
    return [("daemon watching 100 running jobs: CPU of one core / resident memory (targets ≤ 5 %, ≤ 100 MB)",
             f"{share * 100:.1f} % / {rss:.0f} MB")]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ.update(XDG_CONFIG_HOME=str(work / "config"), XDG_STATE_HOME=str(work / "state"),
                          PAI_LOCAL_CLUSTER_DIR=str(work / "local"), PAI_LSP_SECRETS="file",
                          PAI_LOCAL_CLUSTER_ARGS="--cpus 256 --memory-mb 65536")
        rows: list[tuple[str, str]] = []
        try:
            rows += bench_selection(work)
            rows += asyncio.run(bench_log_latency(work))
            rows += bench_watch()
        finally:
            for command in (["daemon", "stop"], ["cluster", "stop-local"]):
                subprocess.run([sys.executable, "-m", "pai_lsp", *command], capture_output=True)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
