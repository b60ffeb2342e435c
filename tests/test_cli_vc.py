"""`pai vc`, and a waiting job's explanation in `pai status` and `pai why`, as a user runs them against
the embedded local cluster shaped as a small cluster (tests/helpers/vc_jobs.py): the table agrees with
the REST answer; a job that waits says the right reason and jobs-ahead count, then runs when its
blocker ends, and the explanation is gone."""

from __future__ import annotations

import getpass
import json
import time
from pathlib import Path

import httpx
import pytest

from .helpers.cli import isolated_env, local_client_password, pai, stop_all
from .helpers.vc_jobs import LAYOUT, v2_job

pytestmark = pytest.mark.usefixtures("starts_processes")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("pai-vc")
    environment = isolated_env(root)
    folder = Path(environment["PAI_LOCAL_CLUSTER_DIR"])
    folder.mkdir(parents=True)
    (folder / "virtual-clusters.json").write_text(json.dumps(LAYOUT))
    yield environment
    stop_all(environment)


def workspace(tmp_path: Path, jobs: dict[str, str]) -> Path:
    ws = tmp_path / "ws"
    (ws / ".vscode").mkdir(parents=True, exist_ok=True)
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.enabled": False,
                                                              "pai.job.generateJobName.enabled": False}))
    for name, text in jobs.items():
        (ws / f"{name}.pai.yaml").write_text(text)
    return ws


def until(predicate, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.3)
    return value


def state_of(env, job: str) -> str:
    return json.loads(pai(env, "status", job, "-o", "json").stdout)["state"]


def test_pai_vc_agrees_with_the_rest_answer(env, tmp_path):
    shown = pai(env, "vc", "-o", "json")
    assert shown.returncode == 0, shown.stderr
    result = json.loads(shown.stdout)
    rows = {row["name"]: row for row in result["vcs"]}
    server = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())["url"]
    login = {"username": getpass.getuser(), "password": local_client_password(env)}
    token = httpx.post(f"{server}/api/v1/token", json=login).json()["token"]
    answer = httpx.get(f"{server}/api/v2/virtual-clusters", headers={"Authorization": f"Bearer {token}"}).json()
    for name, info in answer.items():
        assert rows[name]["total"]["gpu"] == info["resourcesGuaranteed"]["gpu"]
        assert rows[name]["used"]["cpu"] == info["resourcesUsed"]["cpu"]
    assert rows["vc1"]["total"] == {"cpu": 8, "memory": 16384, "gpu": 4} and rows["vc1"]["permitted"] is True
    assert sorted(n["name"] for n in result["nodes"]) == ["w1", "w2", "w3"]
    table = pai(env, "vc", "--nodes")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split()[0] == "VC"
    assert next(line for line in lines if line.startswith("vc1")).split()[1:4] == ["4/0/4", "8/0/8", "16384/0/16384"]
    assert next(line for line in lines if line.startswith("w1")).split()[1:] == ["4", "0", "4"]


def test_a_waiting_job_says_why_then_runs_when_its_blocker_ends(env, tmp_path):
    ws = workspace(tmp_path, {"holder": v2_job("holder", gpu=2), "first": v2_job("first", gpu=2, instances=2, command="sleep 600"),
                              "second": v2_job("second", gpu=2, instances=2, command="echo done")})
    for name in ("holder", "first", "second"):
        sent = pai(env, "submit", "--cluster", "local", f"{name}.pai.yaml", cwd=ws)
        assert sent.returncode == 0, sent.stderr
        if name == "holder":
            until(lambda: state_of(env, "holder") == "RUNNING")
    until(lambda: state_of(env, "second") == "WAITING")
    status = pai(env, "status", "second")
    assert status.returncode == 0, status.stderr
    assert "waiting: not enough free GPUs in vc1: it asks 4, 2 free of 4" in status.stdout
    assert "jobs ahead: 1 (an estimate" in status.stdout  # `first` was submitted before it
    assert "free now in vc1: 2 GPUs" in status.stdout
    assert "held by:" in status.stdout and "~holder (" in status.stdout and "2 GPUs, since " in status.stdout
    why = pai(env, "why", "second")
    assert why.returncode == 0, why.stderr
    assert why.stdout.splitlines()[0] == "second: WAITING" and "not enough free GPUs in vc1" in why.stdout
    as_json = json.loads(pai(env, "why", "second", "-o", "json").stdout)
    assert as_json["state"] == "WAITING" and as_json["explanation"]["ahead"] == 1
    assert as_json["explanation"]["reason"]["code"] == "capacity.vc-short"
    table = pai(env, "vc").stdout
    vc1 = next(line for line in table.splitlines() if line.startswith("vc1")).split()
    assert vc1[1] == "2/2/4" and vc1[4:6] == ["2", "1"]  # two waiting, one running
    assert pai(env, "stop", "holder").returncode == 0
    until(lambda: state_of(env, "first") == "RUNNING")  # first in line: it starts; second still waits for it
    assert "jobs ahead: 0" in pai(env, "status", "second").stdout
    assert pai(env, "stop", "first").returncode == 0
    until(lambda: state_of(env, "second") in ("RUNNING", "SUCCEEDED"))
    after = pai(env, "status", "second").stdout
    assert "waiting:" not in after and "jobs ahead" not in after
