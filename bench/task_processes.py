"""What a task leaves running: a job whose command starts three sleepers that leave a plain
process-group kill in different ways (`sleep &` in the group, a `setsid` child, a `setsid env -i`
child), then: how long from STOP until all are gone; how many are left after its command ends; how many
a restarted cluster leaves after the first was killed with SIGKILL. Runs alternate between this
checkout and a reference one (`--reference DIR`, e.g. a `git worktree` of the base commit).

    python bench/task_processes.py --reference /tmp/ref --runs 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.helpers.localcluster import USER, detail, job, processes_named, role, start_cluster, stop_cluster, submit  # noqa: E402

LIMIT = 10.0  # seconds: "never" beyond this


def command(tag: str, then: str) -> str:
    return (f"(exec -a {tag}-group sleep 300) & setsid bash -c 'exec -a {tag}-session sleep 300' & "
            f"setsid env -i bash -c 'exec -a {tag}-scrubbed sleep 300' & {then}")


def until(predicate, limit: float = LIMIT) -> float | None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        if predicate():
            return time.monotonic() - t0
        time.sleep(0.02)
    return None


def clean(tag: str) -> None:
    for proc in processes_named(tag):
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass


def one_run(source: Path, folder: Path) -> dict[str, float | int | None]:
    env = {"PYTHONPATH": str(source)}
    os.chdir(source)  # `python -m` looks in its working folder first
    tag = f"pai-bench-{uuid.uuid4().hex[:10]}"
    result: dict[str, float | int | None] = {}
    cluster = start_cluster(folder / "data", env=env)
    try:
        with cluster.client() as c:
            submit(c, job("stopped", role("r", command(tag + "s", "sleep 300"))))
            submit(c, job("ended", role("r", command(tag + "e", "sleep 2; echo done"))))
            submit(c, job("crashed", role("r", command(tag + "c", "while true; do echo tick; sleep 0.1; done"))))
            until(lambda: len(processes_named(tag)) == 9, 30)
            time.sleep(1.5)
            t0 = time.monotonic()
            c.put(f"/api/v1/user/{USER}/jobs/stopped/executionType", json={"value": "STOP"}).raise_for_status()
            gone = until(lambda: not processes_named(tag + "s"))
            result["stop_to_gone_s"] = None if gone is None else time.monotonic() - t0
            result["left_after_stop"] = len(processes_named(tag + "s"))
            until(lambda: detail(c, "ended")["jobStatus"]["state"] not in ("WAITING", "RUNNING"), 15)
            result["ended_job_final"] = int(detail(c, "ended")["jobStatus"]["state"] == "SUCCEEDED")
            until(lambda: not processes_named(tag + "e"), 3)
            result["left_after_command_end"] = len(processes_named(tag + "e"))
    finally:
        cluster.process.kill()  # kill -9 while "crashed" runs
        cluster.process.wait()
    result["left_by_killed_cluster"] = len(processes_named(tag + "c"))
    again = start_cluster(folder / "data", env=env)
    try:
        until(lambda: not processes_named(tag + "c"), 5)
        result["left_after_restart"] = len(processes_named(tag + "c"))
    finally:
        stop_cluster(again)
        clean(tag)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp())
    print(f"load: {os.getloadavg()}")
    results: dict[str, list[dict]] = {"reference": [], "this": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            order = [("reference", args.reference), ("this", ROOT)] if i % 2 == 0 else [("this", ROOT), ("reference", args.reference)]
            for name, source in order:
                results[name].append(one_run(source, Path(tmp) / f"{name}{i}"))
    print(f"load: {os.getloadavg()}")
    for name, runs in results.items():
        print(f"{name}:")
        for key in runs[0]:
            values = [r[key] for r in runs]
            known = [v for v in values if v is not None]
            median = statistics.median(known) if known else None
            print(f"  {key}: median {median if median is None else round(median, 3)} "
                  f"(runs: {', '.join('never' if v is None else str(round(v, 3)) for v in values)})")


if __name__ == "__main__":
    main()
