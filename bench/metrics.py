"""What watching a job's metrics costs, for a job of 100 running tasks on the local cluster (its real
Prometheus scraping its job-exporter every 10 s):

- the daemon: CPU time per `job.metrics` refresh (one PromQL query through /prometheus, 100 tasks read
  back), and its share of a core at one refresh per sampling interval (10 s here, 30 s on OpenPAI).
  Target: at most 2 % of a core. Also one `job.metricsRange` of the last hour (a chart opened).
- the cluster's side, for reference: its CPU share (the exporter sampling 100 process trees at each
  scrape) and Prometheus', over the same minute.
- reference: the same query sent by curl (no daemon, no Python): its wall time.

    .venv/bin/python bench/metrics.py [--tasks 100] [--refreshes 30]
"""

from __future__ import annotations

import argparse
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

from bench.daemon import Cluster, cpu, daemon_process, load  # noqa: E402
from bench.report import print_markdown  # noqa: E402
from pai_lsp import api  # noqa: E402
from pai_lsp.core import metrics  # noqa: E402
from pai_lsp.daemon import client as daemon  # noqa: E402

INTERVAL = 10


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--refreshes", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ.update(XDG_CONFIG_HOME=str(work / "config"), XDG_STATE_HOME=str(work / "state"),
                          PAI_LOCAL_CLUSTER_DIR=str(work / "local"), PAI_LSP_SECRETS="file",
                          PAI_LOCAL_CLUSTER_ARGS=f"--cpus 512 --memory-mb 262144 --metrics-interval {INTERVAL}")
        cluster = Cluster.__new__(Cluster)  # bench/daemon.py's, started with the scrape interval above
        cluster.work = work
        cluster.start()
        try:
            run(cluster, args.tasks, args.refreshes)
        finally:
            cluster.stop()


def run(cluster: Cluster, tasks: int, refreshes: int) -> None:
    cluster.http.post(f"/api/v1/user/{cluster.user}/jobs", json={"jobName": "many", "image": "local", "taskRoles": [
        {"name": "r", "taskNumber": tasks, "command": "sleep 3600", "cpuNumber": 1, "memoryMB": 16, "shmMB": 8}]}).raise_for_status()
    cluster.wait_running(["many"])
    ask = api.JobMetrics(job="many", cluster="local")
    deadline = time.monotonic() + 120
    while len(daemon.call_sync(ask).tasks) < tasks:  # every task sampled and scraped
        assert time.monotonic() < deadline, "the tasks' metrics never all came"
        time.sleep(1)
    proc = daemon_process()
    local = psutil.Process(cluster.pid)
    prometheus = next(p for p in local.children(recursive=True) if p.name() == "prometheus")
    walls, costs = [], []
    before_cluster, before_prom, start = cpu(local), cpu(prometheus), time.monotonic()
    for _ in range(refreshes):
        c0, t0 = cpu(proc), time.perf_counter()
        answer = daemon.call_sync(ask)
        walls.append(time.perf_counter() - t0)
        costs.append(cpu(proc) - c0)
        assert len(answer.tasks) == tasks
        time.sleep(max(0.0, 2.0 - walls[-1]))
    span = time.monotonic() - start
    cluster_share = (cpu(local) - before_cluster) / span * 100
    prom_share = (cpu(prometheus) - before_prom) / span * 100
    c0, t0 = cpu(proc), time.perf_counter()
    history = daemon.call_sync(api.JobMetricsRange(job="many", cluster="local", step=INTERVAL))
    range_wall, range_cost = time.perf_counter() - t0, cpu(proc) - c0
    url = f"{cluster.profile.rest_uri}/prometheus/api/v1/query"
    query = metrics.job_query(metrics.framework_name(cluster.user, "many"))
    curls = []
    for _ in range(10):
        t0 = time.perf_counter()
        subprocess.run(["curl", "-sf", "-o", "/dev/null", "--get", "--data-urlencode", f"query={query}", url], check=True)
        curls.append(time.perf_counter() - t0)
    per_refresh = statistics.median(costs)
    rows = [
        ["daemon: CPU per job.metrics refresh (median)", f"{per_refresh * 1000:.1f} ms"],
        ["daemon: share of a core, one refresh per 10 s (local)", f"{per_refresh / INTERVAL * 100:.2f} %"],
        ["daemon: share of a core, one refresh per 30 s (OpenPAI)", f"{per_refresh / 30 * 100:.2f} %"],
        ["job.metrics wall time (median / p90)", f"{statistics.median(walls) * 1000:.0f} / "
                                                 f"{sorted(walls)[int(0.9 * len(walls))] * 1000:.0f} ms"],
        ["reference: curl of the same query (median)", f"{statistics.median(curls) * 1000:.0f} ms"],
        ["job.metricsRange, last hour: daemon CPU / wall", f"{range_cost * 1000:.0f} / {range_wall * 1000:.0f} ms "
                                                           f"({len(history.series)} series)"],
        ["local cluster (exporter sampling at each scrape): share of a core", f"{cluster_share:.2f} %"],
        ["its Prometheus: share of a core", f"{prom_share:.2f} %"],
    ]
    print(f"{tasks} running tasks, {refreshes} refreshes, scrape every {INTERVAL} s; {load()}")
    print_markdown(["measure", "value"], rows)
    print(json.dumps({"per_refresh_ms": per_refresh * 1000, "share_10s": per_refresh / INTERVAL * 100}))


if __name__ == "__main__":
    main()
