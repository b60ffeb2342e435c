"""Any config runs locally: requests beyond the machine run scaled to it, with one clear note;
a machine with GPUs still assigns and queues them; --strict-resources keeps a real cluster's refusal."""

from __future__ import annotations

from .conftest import USER, own_cluster, wait_for
from .test_jobs import detail, finished, job, log, role, submit

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
