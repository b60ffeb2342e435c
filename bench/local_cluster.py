"""Local cluster speed: job turnaround, WebHDFS throughput with the `hdfs` package,
and list/status latency while 50 two-task jobs run.

    python bench/local_cluster.py
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil
from hdfs import InsecureClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.localcluster import USER, start_cluster, stop_cluster  # noqa: E402


def job(name: str, command: str, tasks: int = 1) -> dict:
    return {"jobName": name, "image": "local", "taskRoles": [{"name": "r", "taskNumber": tasks, "cpuNumber": 1,
                                                              "memoryMB": 64, "shmMB": 32, "command": command}]}


def turnaround(c: httpx.Client, rounds: int) -> float:
    times = []
    for i in range(rounds):
        t0 = time.perf_counter()
        c.post(f"/api/v1/user/{USER}/jobs", json=job(f"turn{i}", "true")).raise_for_status()
        while c.get(f"/api/v1/user/{USER}/jobs/turn{i}").json()["jobStatus"]["state"] != "SUCCEEDED":
            time.sleep(0.005)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def upload(client: InsecureClient, files: int, size: int, threads: int, server_pid: int) -> tuple[float, str]:
    """(MB/s, where the time went): the client's own CPU time shows when it, not the server, is the limit."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "tree"
        for i in range(files):
            folder = src / f"d{i % 20}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"f{i}.bin").write_bytes(os.urandom(size))
        server = psutil.Process(server_pid)
        s0, c0, t0 = sum(server.cpu_times()[:2]), _own_cpu(), time.perf_counter()
        client.upload("/bench/tree", str(src), n_threads=threads, overwrite=True)
        elapsed = time.perf_counter() - t0
        s1, c1 = sum(server.cpu_times()[:2]), _own_cpu()
    split = f"wall {elapsed:.1f} s, client CPU {c1 - c0:.1f} s, server CPU {s1 - s0:.1f} s"
    return files * size / elapsed / 1e6, split


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def read(client: InsecureClient, size_mb: int, rounds: int = 3) -> tuple[float, float]:
    """(MB/s through WebHDFS OPEN, MB/s reading the same bytes from a local file in 1 MiB pieces —
    the page cache, this machine's limit for any server that serves from disk), medians."""
    chunk = os.urandom(1 << 20)
    client.write("/bench/big.bin", data=(chunk for _ in range(size_mb)), overwrite=True)
    ours, local = [], []
    with tempfile.NamedTemporaryFile() as f:
        for _ in range(size_mb):
            f.write(chunk)
        f.flush()
        for _ in range(rounds):
            t0 = time.perf_counter()
            total = 0
            with client.read("/bench/big.bin", chunk_size=1 << 20) as reader:
                for part in reader:
                    total += len(part)
            assert total == size_mb << 20
            ours.append(total / (time.perf_counter() - t0) / 1e6)
            t0 = time.perf_counter()
            with open(f.name, "rb") as again:
                while again.read(1 << 20):
                    pass
            local.append(total / (time.perf_counter() - t0) / 1e6)
    return statistics.median(ours), statistics.median(local)


def busy_latency(c: httpx.Client, jobs: int, rounds: int) -> tuple[float, float]:
    for i in range(jobs):
        c.post(f"/api/v1/user/{USER}/jobs", json=job(f"busy{i}", "sleep 60", tasks=2)).raise_for_status()
    while sum(j["state"] == "RUNNING" for j in c.get("/api/v1/jobs").json()) < jobs:
        time.sleep(0.1)
    lists, statuses = [], []
    for i in range(rounds):
        t0 = time.perf_counter()
        c.get("/api/v2/jobs").raise_for_status()
        lists.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        c.get(f"/api/v2/jobs/{USER}~busy{i % jobs}").raise_for_status()
        statuses.append(time.perf_counter() - t0)
    for i in range(jobs):
        c.put(f"/api/v1/user/{USER}/jobs/busy{i}/executionType", json={"value": "STOP"})
    return statistics.median(lists), statistics.median(statuses)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")  # the cluster's secrets: never the real ~/.config
        cluster = start_cluster(Path(tmp) / "data", "--cpus", "256")
        try:
            client = InsecureClient(cluster.hdfs_url, user=USER)
            with cluster.client() as c:
                speed, split = upload(client, 2000, 10_000, 8, cluster.process.pid)
                rows = [
                    ("one-task job, submit -> SUCCEEDED, median of 21 (s)", f"{turnaround(c, 21):.3f}", "≤ 0.5"),
                    (f"WebHDFS upload, 2,000 files / 20 MB, 8 threads (MB/s; {split})", f"{speed:.1f}", "≥ 50"),
                ]
                for mb in (50, 200, 500):
                    ours, local = read(client, mb)
                    rows.append((f"WebHDFS read of a {mb} MB file (MB/s; reading it from a local file: {local:.0f})",
                                 f"{ours:.0f}", "≥ 300"))
                lst, st = busy_latency(c, 50, 41)
                rows.append(("list jobs while 50 × 2-task jobs run, median (ms)", f"{lst * 1000:.1f}", "≤ 20"))
                rows.append(("job status while 50 × 2-task jobs run, median (ms)", f"{st * 1000:.1f}", "≤ 20"))
        finally:
            stop_cluster(cluster)
    print("| measure | local cluster | target |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
