"""REST latency while a job with a big codeDir starts (the copy
once ran in the event loop and stalled every request for its whole length).

For each size: a local cluster started as users start it, a codeDir of N small files in its HDFS,
and a one-task job using it. A client polls the job's detail and the job list back to back while
the cluster copies the code into the task's folder; the same polling on the idle cluster first is
the floor, and `cp -r` of the same tree is the copy's own physical limit.

    .venv/bin/python bench/codedir_start.py [N ...]     (default: 10000 50000)
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.localcluster import USER, start_cluster, stop_cluster  # noqa: E402


def make_tree(root: Path, files: int) -> None:
    for i in range(files):
        folder = root / f"pkg{i % 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i}.py").write_text(f"VALUE = {i}\n")


def poll(c: httpx.Client, name: str, until) -> list[float]:
    """Latencies (s) of alternating detail / list requests until `until(detail)` holds."""
    times = []
    while True:
        t0 = time.perf_counter()
        detail = c.get(f"/api/v1/user/{USER}/jobs/{name}").json()
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        c.get("/api/v1/jobs").raise_for_status()
        times.append(time.perf_counter() - t0)
        if until(detail):
            return times
        time.sleep(0.002)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def measure(files: int, work: Path) -> dict:
    cluster = start_cluster(work / "data", "--cpus", "64")
    try:
        tree = cluster.data_dir / "hdfs" / USER / "code"
        make_tree(tree, files)
        t0 = time.perf_counter()
        subprocess.run(["cp", "-r", str(tree), str(work / "cp-copy")], check=True)
        cp_seconds = time.perf_counter() - t0
        shutil.rmtree(work / "cp-copy")
        body = {"jobName": "code", "image": "local", "codeDir": f"$PAI_DEFAULT_FS_URI/{USER}/code",
                "taskRoles": [{"name": "r", "command": "true", "cpuNumber": 1, "memoryMB": 64, "shmMB": 32}]}
        with cluster.client() as c:
            c.post(f"/api/v1/user/{USER}/jobs", json={**body, "jobName": "idle", "codeDir": ""}).raise_for_status()
            poll(c, "idle", lambda d: d["jobStatus"]["state"] == "SUCCEEDED")
            idle = [t for _ in range(250) for t in poll(c, "idle", lambda d: True)]
            t0 = time.perf_counter()
            c.post(f"/api/v1/user/{USER}/jobs", json=body).raise_for_status()
            busy = poll(c, "code", lambda d: d["taskRoles"]["r"]["taskStatuses"][0]["taskState"] != "WAITING")
            start_seconds = time.perf_counter() - t0
    finally:
        stop_cluster(cluster)
    return {"files": files, "idle_p99": percentile(idle, 99), "busy_p50": statistics.median(busy),
            "busy_p99": percentile(busy, 99), "busy_max": max(busy), "requests": len(busy),
            "start": start_seconds, "cp": cp_seconds}


def main() -> int:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 50_000]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")  # the cluster's secrets: never the real ~/.config
        for files in sizes:
            work = Path(tmp) / str(files)
            work.mkdir()
            rows.append(measure(files, work))
            shutil.rmtree(work)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| codeDir files | REST p50 / p99 / max while the job starts (ms) | requests | idle p99 (ms) | "
          "submit → task started (s) | `cp -r` of the tree (s) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['files']:,} | {r['busy_p50'] * 1000:.1f} / {r['busy_p99'] * 1000:.1f} / {r['busy_max'] * 1000:.1f} | "
              f"{r['requests']} | {r['idle_p99'] * 1000:.1f} | {r['start']:.1f} | {r['cp']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
