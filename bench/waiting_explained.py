"""Why a job waits, on a big queue (wanted: the explanation within 2 s of asking), and what the
editor's "will it fit" check adds to a keystroke (wanted: at most 1 ms per didChange).

The embedded local cluster, shaped by virtual-clusters.json as 200 simulated nodes of 8 GPUs in four
virtual clusters under HiveD's SKUs, gets 2,000 jobs over its REST API: 50 fill vc0 (one 8-GPU
instance each, running), 1,000 more wait in vc0 behind them in mixed priority classes, and 950 wait
in vc1-vc3 with instances no node can hold. Then, as users run it (in an environment of its own):

- `pai why JOB` and `pai status JOB` for a job in the middle of vc0's queue: the reason, the jobs
  ahead, what is free and who holds it (wall time of the command, daemon warm);
- the same explanation made in-process (`service.vc.waiting` on the OpenPAI backend): the cluster's
  state, the job's events and config fetched, the rules run;
- the edit-time check (`server.capacity_check`: the job's asks read from its parsed text and judged
  against the cached state of these 2,000 jobs and 200 nodes), per call.

    .venv/bin/python bench/waiting_explained.py [RUNS]     (default 5)
"""

from __future__ import annotations

import getpass
import json
import os
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.cli import isolated_env, local_client_password, pai, stop_all  # noqa: E402
from tests.helpers.vc_jobs import v2_job  # noqa: E402

NODES, GPUS, VCS = 200, 8, 4
RUNNING, WAITING_VC0, WAITING_ELSEWHERE = 50, 1000, 950


def layout() -> dict:
    nodes = {f"n{i:03d}": {"gpu": GPUS, "cpu": 32, "memoryMB": 262144, "sku": "G"} for i in range(NODES)}
    per = NODES // VCS
    vcs = {f"vc{v}": {"nodes": [f"n{i:03d}" for i in range(v * per, (v + 1) * per)]} for v in range(VCS)}
    return {"nodes": nodes, "virtualClusters": vcs, "groups": {"default": list(vcs)},
            "skuTypes": {"G": {"gpu": 1, "cpu": 4, "memory": 32768}}, "hived": True}


def jobs() -> list[tuple[str, str]]:
    rng = random.Random(33)
    out = [(f"run{i:02d}", v2_job(f"run{i:02d}", vc="vc0", gpu=GPUS, cpu=4, memory_mb=4096, command="sleep 3600"))
           for i in range(RUNNING)]
    for i in range(WAITING_VC0):
        priority = rng.choice(["prod", "test", None, None])
        out.append((f"q{i:04d}", v2_job(f"q{i:04d}", vc="vc0", gpu=GPUS, cpu=4, memory_mb=4096, priority=priority)))
    for i in range(WAITING_ELSEWHERE):
        out.append((f"x{i:04d}", v2_job(f"x{i:04d}", vc=f"vc{1 + i % 3}", gpu=2 * GPUS, cpu=4, memory_mb=4096)))
    return out


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    target = f"q{WAITING_VC0 // 2:04d}"
    with tempfile.TemporaryDirectory() as tmp:
        env = isolated_env(Path(tmp))
        folder = Path(env["PAI_LOCAL_CLUSTER_DIR"])
        folder.mkdir(parents=True)
        (folder / "virtual-clusters.json").write_text(json.dumps(layout()))
        try:
            assert pai(env, "vc").returncode == 0  # starts the daemon and the cluster
            url = json.loads((folder / "server.json").read_text())["url"]
            token = httpx.post(f"{url}/api/v1/token", json={"username": getpass.getuser(),
                                                            "password": local_client_password(env)}).json()["token"]
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "text/yaml"}
            started = time.monotonic()
            with httpx.Client(base_url=url, headers=headers, timeout=120) as c, ThreadPoolExecutor(4) as pool:
                for response in pool.map(lambda job: c.post("/api/v2/jobs", content=job[1]), jobs()):
                    assert response.status_code == 202, response.text
                submitted = time.monotonic() - started
                while len(c.get("/api/v2/jobs", params={"state": "RUNNING"}).json()) < RUNNING:
                    time.sleep(0.5)
            in_process = explain_in_process(env, target, runs)
            why, status = [], []
            pai(env, "why", target)  # warm
            for _ in range(runs):
                t0 = time.perf_counter()
                shown = pai(env, "why", target)
                why.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                pai(env, "status", target)
                status.append(time.perf_counter() - t0)
            edit = edit_time_check(env)
        finally:
            stop_all(env)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min)  cluster: {NODES} nodes x {GPUS} GPUs in {VCS} VCs, "
          f"{RUNNING + WAITING_VC0 + WAITING_ELSEWHERE} jobs ({RUNNING} running); submitted in {submitted:.0f} s")
    print(shown.stdout.rstrip())
    print(f"pai why {target}: median {statistics.median(why) * 1000:.0f} ms (max {max(why) * 1000:.0f})")
    print(f"pai status {target}: median {statistics.median(status) * 1000:.0f} ms (max {max(status) * 1000:.0f})")
    print(f"explanation made in-process (state, events, config, rules): median {statistics.median(in_process) * 1000:.0f} ms "
          f"(max {max(in_process) * 1000:.0f})")
    print(f"edit-time check per didChange: median {edit * 1e6:.0f} us")


def explain_in_process(env: dict, target: str, runs: int) -> list[float]:
    os.environ.update(env)
    from pai_lsp.clusters.connect import connect
    from pai_lsp.service import vc

    backend = connect("local")
    took = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = vc.waiting(backend, target)
        took.append(time.perf_counter() - t0)
        assert result.explanation is not None and result.explanation["ahead"] > 0, result
    backend.close()
    return took


def edit_time_check(env: dict) -> float:
    """Seconds per check of a job being written against the state of this cluster (median of 2,000)."""
    from pai_lsp.clusters.connect import connect
    from pai_lsp.core.fit import judge
    from pai_lsp.core.formats import format_for
    from pai_lsp.server.capacity_check import job_target

    backend = connect("local")
    state = backend.cluster_state()
    backend.close()
    assert len(state.jobs) >= RUNNING + WAITING_VC0 and len(state.nodes) == NODES
    text = v2_job("editing", vc="vc0", gpu=GPUS, instances=2)
    fmt = format_for("editing.pai.yaml", text)
    times = []
    for i in range(2000):
        doc = fmt.parse(text + f"# {i}\n")  # a fresh parse, as after each keystroke (not timed: the server parses anyway)
        t0 = time.perf_counter()
        asks, name, priority, _ = job_target(doc)
        verdict = judge(asks, name, state, priority)
        times.append(time.perf_counter() - t0)
    assert verdict is not None and verdict.kind == "wait", verdict
    return statistics.median(times)


if __name__ == "__main__":
    main()
