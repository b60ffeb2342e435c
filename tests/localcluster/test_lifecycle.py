"""Clusters with their own settings: queueing by resources, simulated GPUs, restart, Ctrl-C."""

from __future__ import annotations

import time

import psutil
import pytest

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

pytestmark = pytest.mark.subprocess  # local clusters of their own, and their tasks


def test_jobs_wait_until_they_fit_and_gpus_are_simulated(tmp_path):
    with own_cluster(tmp_path / "small", "--gpus", "2", "--strict-resources") as cluster:
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
    try:
        with cluster.client() as c:
            submit(c, job("done", role("r", "echo kept")))
            finished(c, "done")
            submit(c, job("long", role("r", "sleep 300")))
            wait_for(lambda: detail(c, "long")["jobStatus"]["state"] == "RUNNING")
            pids = wait_for(lambda: task_pids("long"))
    finally:
        stop_cluster(cluster)  # Ctrl-C: tasks are stopped with the cluster
    assert _live(pids) == []
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


def _code_tree(cluster, name: str, files: int) -> str:
    """A codeDir of many small files, written straight into the cluster's HDFS folder (test setup only)."""
    root = cluster.data_dir / "hdfs" / USER / name
    for i in range(files):
        folder = root / f"d{i % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.py").write_text(f"# {i}\n")
    return f"$PAI_DEFAULT_FS_URI/{USER}/{name}"


def test_stop_while_tasks_are_still_starting_leaves_no_process(cluster):
    code_dir = _code_tree(cluster, "slowcopy", 4000)  # each task's copy takes a moment
    with cluster.client() as c:
        submit(c, job("race", role("r", "sleep 300 & sleep 300 & wait", taskNumber=3), codeDir=code_dir))
        wait_for(lambda: detail(c, "race")["jobStatus"]["state"] == "RUNNING", interval=0.01)
        stop = c.put(f"/api/v1/user/{USER}/jobs/race/executionType", json={"value": "STOP"})
        assert stop.status_code == 202
        assert finished(c, "race")["jobStatus"]["state"] == "STOPPED"
        # Tasks that were being prepared must never start, now or later.
        for _ in range(30):
            assert _live(task_pids("race")) == [], "a task started after STOP"
            time.sleep(0.1)
        assert all(t["taskState"] == "STOPPED" for t in detail(c, "race")["taskRoles"]["r"]["taskStatuses"])


def test_a_task_that_ends_takes_what_it_left_running_with_it(cluster):
    with cluster.client() as c:
        submit(c, job("leaver", role("r", "sleep 300 & echo started")))
        done = finished(c, "leaver", timeout=20)
        assert done["jobStatus"]["state"] == "SUCCEEDED"
        assert log(cluster, c, "leaver", "r") == "started\n"
        wait_for(lambda: _live(task_pids("leaver")) == [], 10)


def test_shutdown_kills_every_process_group_it_started(tmp_path):
    cluster = start_cluster(tmp_path / "shutdown")
    try:
        code_dir = _code_tree(cluster, "bigcode", 4000)
        with cluster.client() as c:
            submit(c, job("tree", role("r", "(sleep 300 &); sleep 300 & sleep 300", taskNumber=2)))
            submit(c, job("late", role("r", "sleep 300", taskNumber=3), codeDir=code_dir))
            wait_for(lambda: len(_live(task_pids("tree"))) >= 6)
            wait_for(lambda: detail(c, "late")["jobStatus"]["state"] == "RUNNING", interval=0.01)
    finally:
        stop_cluster(cluster)  # Ctrl-C while "late" is still copying code for its tasks
    for _ in range(20):
        assert _live(task_pids("tree")) == [] and _live(task_pids("late")) == []
        time.sleep(0.1)


def test_a_second_cluster_on_the_same_data_folder_refuses_and_names_the_first(tmp_path):
    import subprocess
    import sys

    with own_cluster(tmp_path / "shared") as first:
        second = subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(first.data_dir),
                                 "--port", "0"], capture_output=True, text=True, timeout=60)
        assert second.returncode == 1 and second.stdout == ""
        assert f"another local cluster (pid {first.process.pid}, REST {first.url}) already serves {first.data_dir}" in second.stderr
        assert first.client().get("/api/v2/info").status_code == 200
    with own_cluster(tmp_path / "shared") as again:  # the lock goes with the cluster
        assert again.client().get("/api/v2/info").status_code == 200


def test_the_api_answers_while_a_big_code_dir_is_copied(cluster):
    code_dir = _code_tree(cluster, "hugecode", 5000)  # a copy long enough to poll through
    answered_during_copy = 0
    with cluster.client() as c:
        submit(c, job("huge-code", role("r", "ls hugecode | wc -l"), codeDir=code_dir))
        while (d := detail(c, "huge-code"))["jobStatus"]["state"] not in ("SUCCEEDED", "FAILED"):
            copying = d["jobStatus"]["state"] == "RUNNING" and d["taskRoles"]["r"]["taskStatuses"][0]["taskState"] == "WAITING"
            assert c.get("/api/v2/info", timeout=2).status_code == 200  # the client's health check allows 2 s
            answered_during_copy += copying
            time.sleep(0.005)
        assert log(cluster, c, "huge-code", "r") == "50\n"
    assert answered_during_copy >= 10  # the copy runs beside the API, not in its way


def _live(pids: list[int]) -> list[int]:
    live = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                live.append(pid)
        except psutil.NoSuchProcess:  # gone between the scan and this look
            pass
    return live
