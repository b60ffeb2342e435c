"""Any config runs locally: requests beyond the machine run scaled to it, with one clear note;
a machine with GPUs still assigns and queues them; --strict-resources keeps a real cluster's refusal."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ..helpers.localcluster import USER, detail, finished, job, log, own_cluster, role, submit, wait_for

pytestmark = pytest.mark.subprocess  # local clusters, `pai run`, and their tasks

NO_GPU = "this machine has no GPU: tasks run without one; CUDA_VISIBLE_DEVICES is empty"


def test_a_gpu_job_runs_on_a_machine_without_gpus(tmp_path):
    with own_cluster(tmp_path / "nogpu", "--gpus", "0") as cluster:
        with cluster.client() as c:
            # The seed configs ask for one GPU per task.
            response = submit(c, job("seed", role("train", 'echo "gpus=[$CUDA_VISIBLE_DEVICES] asked=$PAI_TASK_GPU_NUM"', gpuNumber=1)))
            assert response.status_code == 201
            assert NO_GPU in response.headers["x-warning"]
            assert NO_GPU in response.json()["jobStatus"]["localNote"]
            done = finished(c, "seed")
            assert done["jobStatus"]["state"] == "SUCCEEDED" and NO_GPU in done["jobStatus"]["localNote"]
            assert log(cluster, c, "seed", "train") == "gpus=[] asked=1\n"
            assert log(cluster, c, "seed", "train", which="stderr").startswith("[PAI local cluster] Run scaled to this machine")
            plain = submit(c, job("fits", role("r", "true")))
            assert "x-warning" not in plain.headers and plain.json()["jobStatus"]["localNote"] == ""


def test_a_machine_with_gpus_assigns_and_queues_them(tmp_path):
    with own_cluster(tmp_path / "onegpu", "--gpus", "1") as cluster:
        with cluster.client() as c:
            submit(c, job("first", role("r", "echo $CUDA_VISIBLE_DEVICES; sleep 3", gpuNumber=1)))
            wait_for(lambda: detail(c, "first")["jobStatus"]["state"] == "RUNNING")
            submit(c, job("second", role("r", "echo $CUDA_VISIBLE_DEVICES", gpuNumber=1)))
            assert detail(c, "second")["jobStatus"]["state"] == "WAITING"  # the one GPU is taken
            assert finished(c, "second")["jobStatus"]["state"] == "SUCCEEDED"
            assert detail(c, "first")["jobStatus"]["state"] == "SUCCEEDED"
            assert log(cluster, c, "first", "r") == "0\n" and log(cluster, c, "second", "r") == "0\n"
            # Two one-GPU tasks on a one-GPU machine: scaled, sharing it.
            both = submit(c, job("pair", role("r", "echo $CUDA_VISIBLE_DEVICES", gpuNumber=1, taskNumber=2)))
            assert "the job asks for 2 GPUs, this machine has 1: its tasks share them" in both.headers["x-warning"]
            assert finished(c, "pair")["jobStatus"]["state"] == "SUCCEEDED"
            assert [log(cluster, c, "pair", "r", i) for i in (0, 1)] == ["0\n", "0\n"]


def test_strict_resources_refuses_what_can_never_fit(tmp_path):
    with own_cluster(tmp_path / "strict", "--gpus", "0", "--strict-resources") as cluster:
        with cluster.client() as c:
            refused = submit(c, job("seed", role("train", "true", gpuNumber=1)))
            assert (refused.status_code, refused.json()["code"]) == (400, "NoEnoughQuotaError")
            assert refused.json()["message"] == ("Job seed needs 1 GPU in total but this local cluster has 0: it can never run "
                                                 "here. Lower the role's resources or taskNumber.")
            assert c.get(f"/api/v1/user/{USER}/jobs/seed").status_code == 404


def _pai_env(tmp_path, data_dir) -> dict:
    return dict(os.environ, XDG_CONFIG_HOME=os.environ["XDG_CONFIG_HOME"], XDG_STATE_HOME=str(tmp_path / "state"),
                PAI_LOCAL_CLUSTER_DIR=str(data_dir), PAI_LSP_SECRETS="file", LANG="C.UTF-8",
                PAI_LOCAL_CLUSTER_ARGS="--gpus 0")


def _pai(env: dict, *args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pai_lsp", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=180)


def test_pai_run_runs_a_seed_config_on_a_machine_without_gpus(tmp_path):
    """The seed configs ask for a GPU: `pai run` runs them anyway and says so in one line."""
    ws = tmp_path / "ws"
    ws.mkdir()
    config = {"jobName": "seed", "image": "openpai/pytorch", "taskRoles": [
        {"name": "train", "taskNumber": 1, "cpuNumber": 4, "memoryMB": 8192, "gpuNumber": 1,
         "command": 'echo "training on [$CUDA_VISIBLE_DEVICES]"'}]}
    (ws / "seed.pai.json").write_text(json.dumps(config))
    env = _pai_env(tmp_path, tmp_path / "local")
    try:
        result = _pai(env, "run", "seed.pai.json", "--follow", cwd=ws)
        assert result.returncode == 0, result.stderr
        assert "training on []" in result.stdout
        # Said once when submitting (the cluster's X-Warning) and once in the job's own log.
        (warning,) = [line for line in result.stderr.splitlines() if "Run scaled to this machine" in line]
        assert warning.startswith("warning: Run scaled to this machine") and NO_GPU in warning
        (logged,) = [line for line in result.stdout.splitlines() if "Run scaled to this machine" in line]
        assert logged == "[PAI local cluster] " + warning.removeprefix("warning: ")
    finally:
        _pai(env, "daemon", "stop")
        _pai(env, "cluster", "stop-local")


def test_pai_uses_the_cluster_already_serving_its_data_folder(tmp_path):
    """A cluster started by hand on the same data folder is used, never a second one beside it."""
    with own_cluster(tmp_path / "local") as cluster:
        env = _pai_env(tmp_path, cluster.data_dir)
        try:
            listed = _pai(env, "jobs")
            assert listed.returncode == 0, listed.stderr
            state = json.loads((cluster.data_dir / "server.json").read_text())
            assert state["url"] == cluster.url and state["pid"] == cluster.process.pid
        finally:
            _pai(env, "daemon", "stop")
        assert cluster.client().get("/api/v2/info").status_code == 200
