"""`pai top` and the idle-GPU line of `pai status`, as a user runs them: `pai` a subprocess, its daemon, and the
embedded local cluster with a real Prometheus scraping its tasks every second."""

from __future__ import annotations

import json
import shutil
import time

import pytest

from .helpers.cli import command_job, isolated_env, pai, stop_all, typed_on_a_terminal
from .helpers.daemon import open_endpoint
from .helpers.localcluster import wait_for
from .helpers.servers import missing

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def env(tmp_path_factory, starts_processes):
    if shutil.which("prometheus") is None:
        missing("needs a Prometheus (Debian: apt-get install prometheus)")
    environment = dict(isolated_env(tmp_path_factory.mktemp("pai-home")), PAI_LOCAL_CLUSTER_ARGS="--metrics-interval 1")
    yield environment
    stop_all(environment)


def rpc(env: dict, method: str, params: dict) -> dict:
    """One request to the daemon of `env`, as an editor's client sends it; its result."""
    with open_endpoint(env) as sock:
        sock.sendall(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode() + b"\n")
        reply = json.loads(sock.makefile("rb").readline())
    assert "result" in reply, reply
    return reply["result"]


def submitted(env, ws, file: str) -> str:
    result = pai(env, "run", file, cwd=ws)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()[0].split()[1]


def test_top_shows_each_tasks_cpu_and_memory(env, tmp_path):
    ws = command_job(tmp_path, "burn.pai.json", "while :; do :; done", taskNumber=2, memoryMB=512)
    job = submitted(env, ws, "burn.pai.json")

    def figures() -> dict | None:
        result = pai(env, "top", job, "-o", "json")
        assert result.returncode == 0, result.stderr
        answer = json.loads(result.stdout)
        cpu = [t["cpuPercent"] for t in answer["tasks"]]
        return answer if len(cpu) == 2 and all(c is not None and c > 5 for c in cpu) else None

    answer = wait_for(figures, 60, 1)
    assert answer["job"] == job and answer["cluster"] == "local"
    assert [(t["role"], t["index"]) for t in answer["tasks"]] == [("train", 0), ("train", 1)]
    for task in answer["tasks"]:
        assert task["memoryLimitBytes"] == 512 * 2**20
        assert 0 < task["memoryBytes"] < 512 * 2**20
        assert 0 < task["memoryPercent"] < 100
        assert task["gpus"] == []  # no GPU on this machine: none shown, not zeros

    # Piped (no terminal), `pai top` prints its table once and ends.
    table = pai(env, "top", job)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].startswith(f"{job} on local at ")
    assert lines[1].split()[:3] == ["TASK", "CPU", "MEMORY"]
    rows = [line.split() for line in lines[2:]]
    assert [row[0] for row in rows] == ["train:0", "train:1"]
    assert all(row[1].endswith("%") and "/" in row for row in rows)

    # On a terminal the view is redrawn (the screen cleared) every --interval seconds; Ctrl-C ends it quietly.
    code, shown = typed_on_a_terminal(env, b"\x03", lambda out: out.count(b" on local at ") >= 2, "top", job, "--interval", "1")
    assert code == 0, shown
    assert shown.count(" on local at ") >= 2 and "\x1b[2J" in shown and "train:1" in shown

    # The history of the same figures, for the charts: the daemon's `job.metricsRange`, over its socket.
    history = rpc(env, "job.metricsRange", {"job": job, "cluster": "local", "start": time.time() - 30, "step": 1})
    assert history["step"] == 1
    panels = {(s["role"], s["index"], s["metric"]) for s in history["series"]}
    assert panels >= {("train", i, m) for i in (0, 1) for m in ("cpu", "memory", "memory_limit", "memory_percent")}
    cpu = next(s for s in history["series"] if s["metric"] == "cpu")
    assert len(cpu["points"]) >= 2 and all(len(p) == 2 and p[0] >= history["start"] for p in cpu["points"])

    assert pai(env, "stop", job).returncode == 0


def test_a_cluster_without_metrics_says_so_in_one_line(env, tmp_path):
    result = pai(env, "top", "no-such-job", "--cluster", "local-paddle")
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "PaddlePaddle Cloud" in lines[0] and "no job metrics" in lines[0]


def test_status_of_a_running_job_without_gpus_says_nothing_of_idle_gpus(env, tmp_path):
    ws = command_job(tmp_path, "idle.pai.json", "sleep 600")
    job = submitted(env, ws, "idle.pai.json")
    wait_for(lambda: json.loads(pai(env, "status", job, "-o", "json").stdout)["state"] == "RUNNING", 30, 0.5)
    status = json.loads(pai(env, "status", job, "-o", "json", "--idle-for", "0.05").stdout)
    assert "idleGpu" not in status  # the guard looks at GPU series only: a CPU job is never "idle GPUs"
    assert pai(env, "stop", job).returncode == 0


def test_top_of_a_job_the_cluster_lacks_says_so_in_one_line(env):
    result = pai(env, "top", "no_such_job")
    assert result.returncode != 0 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no_such_job" in lines[0], result.stderr

