"""Clusters with their own settings: queueing by resources, simulated GPUs, restart, Ctrl-C."""

from __future__ import annotations

import psutil

from ..helpers.localcluster import (
    USER,
    detail,
    finished,
    job,
    log,
    own_cluster,
    role,
    start_cluster,
    stop_cluster,
    submit,
    task_pids,
    wait_for,
)


def test_jobs_wait_until_they_fit_and_gpus_are_simulated(tmp_path):
    with own_cluster(tmp_path / "small", "--gpus", "2") as cluster:
        with cluster.client() as c:
            # 64 CPUs are offered; each job takes 40, so the second waits for the first.
            submit(c, job("big1", role("r", "sleep 4; echo $CUDA_VISIBLE_DEVICES", cpuNumber=40, gpuNumber=2)))
            submit(c, job("big2", role("r", "echo $CUDA_VISIBLE_DEVICES", cpuNumber=40, gpuNumber=1)))
            wait_for(lambda: detail(c, "big1")["jobStatus"]["state"] == "RUNNING")
            assert detail(c, "big2")["jobStatus"]["state"] == "WAITING"
            assert finished(c, "big2")["jobStatus"]["state"] == "SUCCEEDED"
            assert log(cluster, c, "big1", "r") == "0,1\n"
            assert log(cluster, c, "big2", "r") in ("0\n", "1\n")
            refused = submit(c, job("gpus", role("r", "true", gpuNumber=3)))
            assert refused.status_code == 400 and "3 GPU" in refused.json()["message"]


def test_restart_keeps_finished_jobs_and_fails_running_ones(tmp_path):
    data = tmp_path / "restart"
    cluster = start_cluster(data)
    with cluster.client() as c:
        submit(c, job("done", role("r", "echo kept")))
        finished(c, "done")
        submit(c, job("long", role("r", "sleep 300")))
        wait_for(lambda: detail(c, "long")["jobStatus"]["state"] == "RUNNING")
        pids = wait_for(lambda: task_pids("long"))
    stop_cluster(cluster)  # Ctrl-C: tasks are stopped with the cluster
    assert not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids)
    with own_cluster(data) as cluster:
        with cluster.client() as c:
            assert detail(c, "done")["jobStatus"]["state"] == "SUCCEEDED"
            assert log(cluster, c, "done", "r") == "kept\n"
            long = detail(c, "long")["jobStatus"]
            assert long["state"] == "FAILED" and "stopped while this job was running" in long["appExitDiagnostics"]
            assert [j["name"] for j in c.get(f"/api/v1/user/{USER}/jobs").json()] == ["long", "done"]


def test_debug_jobs_keep_a_failed_task_until_stopped(tmp_path):
    with own_cluster(tmp_path / "debug") as cluster:
        with cluster.client() as c:
            submit(c, job("dbg", role("r", "exit 4"), jobEnvs={"isDebug": True}))
            wait_for(lambda: "task kept for debugging" in log(cluster, c, "dbg", "r", which="stderr"))
            assert detail(c, "dbg")["jobStatus"]["state"] == "RUNNING"
            c.put(f"/api/v1/user/{USER}/jobs/dbg/executionType", json={"value": "STOP"})
            assert finished(c, "dbg")["jobStatus"]["state"] == "STOPPED"


def test_retry_minus_two_restarts_even_after_success_until_stopped(tmp_path):
    with own_cluster(tmp_path / "service") as cluster:
        with cluster.client() as c:
            submit(c, job("service", role("r", "echo run; sleep 0.2"), retryCount=-2))
            wait_for(lambda: detail(c, "service")["jobStatus"]["retries"] >= 2)
            c.put(f"/api/v1/user/{USER}/jobs/service/executionType", json={"value": "STOP"})
            assert finished(c, "service")["jobStatus"]["state"] == "STOPPED"
            submit(c, job("forever", role("r", f"echo x >> {tmp_path}/tries; exit 1"), retryCount=-1))
            wait_for(lambda: detail(c, "forever")["jobStatus"]["retries"] >= 3)
            assert detail(c, "forever")["jobStatus"]["state"] in ("RUNNING", "WAITING")
            c.put(f"/api/v1/user/{USER}/jobs/forever/executionType", json={"value": "STOP"})
            assert finished(c, "forever")["jobStatus"]["state"] == "STOPPED"


def test_container_runtime_says_when_tasks_run_on_the_host(tmp_path):
    import shutil
    import subprocess

    engine = any(shutil.which(e) and subprocess.run([e, "info"], capture_output=True).returncode == 0 for e in ("docker", "podman"))
    with own_cluster(tmp_path / "container", "--runtime", "container") as cluster:
        with cluster.client() as c:
            submit(c, job("where", role("r", "true")))
            assert finished(c, "where")["jobStatus"]["runtime"] == ("container" if engine else "host")
