"""The local cluster's process handling as Windows gets it, run here (PAI_LSP_PORTABLE_PROCESSES=1):
a task gets no POSIX session or process group of its own and nothing signals a group, yet stop, the
command's end and a restart after a crash end every process it started (psutil alone finds them);
the cluster is asked to stop through its data folder, not with a signal. (These are
test_task_processes.py's cases on the portable path; CI runs the daemon and editor-job tests so too.)"""

from __future__ import annotations

import json
import os
import subprocess
import time

import httpx
import psutil
import pytest

from pai_lsp.common.portable import PORTABLE_ENV
from pai_lsp.localcluster import launcher
from pai_lsp.localcluster.datadir import request_stop
from pai_lsp.localcluster.processes import descendants

from ..helpers.localcluster import (
    SLEEPER_KINDS,
    USER,
    all_started,
    detail,
    finished,
    job,
    own_cluster,
    role,
    sleepers,
    sleepers_command,
    start_cluster,
    submit,
    tagged,
    wait_for,
)

pytestmark = pytest.mark.subprocess  # local clusters and the processes their tasks start

PORTABLE = {PORTABLE_ENV: "1"}


def test_a_task_has_no_session_of_its_own_yet_stop_and_its_end_take_every_process(tmp_path):
    with tagged() as tag, own_cluster(tmp_path / "c", env=PORTABLE) as cluster, cluster.client() as c:
        submit(c, job("stopped", role("r", sleepers_command(tag + "a", "sleep 300"))))
        submit(c, job("ended", role("r", sleepers_command(tag + "b", "sleep 2; echo done"))))
        started = all_started(tag + "a")
        all_started(tag + "b")
        # What Windows has: the task stays in the cluster's session and process group (nothing to killpg).
        assert os.getsid(started["group"]) == os.getsid(cluster.process.pid)
        time.sleep(1.5)  # the scrubbed sleeper is known by having been seen in the task's tree
        assert c.put(f"/api/v1/user/{USER}/jobs/stopped/executionType", json={"value": "STOP"}).status_code == 202
        wait_for(lambda: not sleepers(tag + "a"), 10)
        assert finished(c, "stopped")["jobStatus"]["state"] == "STOPPED"
        # The command's end is seen without a pidfd (macOS, Windows), and what it left ends with it.
        assert finished(c, "ended", timeout=20)["jobStatus"]["state"] == "SUCCEEDED"
        wait_for(lambda: not sleepers(tag + "b"), 10)


def test_a_restarted_cluster_ends_what_a_killed_one_left_running(tmp_path):
    data = tmp_path / "crash"
    with tagged() as tag:
        cluster = start_cluster(data, env=PORTABLE)
        try:
            with cluster.client() as c:
                submit(c, job("tree", role("r", sleepers_command(tag, "while true; do echo tick; sleep 0.1; done"))))
                started = all_started(tag)
                assert os.getsid(started["group"]) == os.getsid(cluster.process.pid)
                time.sleep(1.5)
        finally:
            cluster.process.kill()  # kill -9: no chance to clean up
            cluster.process.wait()
        assert sleepers(tag).keys() == set(SLEEPER_KINDS)
        with own_cluster(data, env=PORTABLE) as again, again.client() as c:
            assert detail(c, "tree")["jobStatus"]["state"] == "FAILED"
            wait_for(lambda: not sleepers(tag), 10)


def test_a_stop_request_in_the_data_folder_stops_the_cluster_as_ctrl_c_does(tmp_path):
    data = tmp_path / "asked"
    with tagged() as tag, own_cluster(data, env=PORTABLE) as cluster:
        with cluster.client() as c:
            submit(c, job("running", role("r", sleepers_command(tag, "sleep 300"))))
            all_started(tag)
            request_stop(data, cluster.process.pid + 100_000)  # asked of another process: not this one's to follow
            time.sleep(1)
            assert cluster.process.poll() is None and c.get("/api/v2/info").status_code == 200
            request_stop(data, cluster.process.pid)
            assert cluster.process.wait(timeout=20) == 0
        wait_for(lambda: not sleepers(tag), 10)
        status = json.loads(next((data / "jobs").glob("*running/status.json")).read_text())
        assert "was stopped while this job was running" in json.dumps(status)
        assert not (data / "stop-request").exists()


@pytest.fixture
def launched(tmp_path, monkeypatch):
    """The local cluster as `pai` starts it (launcher), in a data folder of its own, the portable path forced."""
    monkeypatch.setenv("PAI_LOCAL_CLUSTER_DIR", str(tmp_path / "launched"))
    monkeypatch.setenv(PORTABLE_ENV, "1")
    running = launcher.ensure_running()
    pid = json.loads((tmp_path / "launched" / launcher.STATE_FILE).read_text())["pid"]
    yield running, pid
    launcher.stop()
    if psutil.pid_exists(pid):
        psutil.Process(pid).kill()


def test_pai_stops_the_cluster_it_started_without_a_signal(launched, tmp_path):
    running, pid = launched
    token = httpx.post(f"{running.url}/api/v1/token", json={"username": running.user,
                                                           "password": launcher.client_password()}).json()["token"]
    with tagged() as tag, httpx.Client(base_url=running.url, headers={"Authorization": f"Bearer {token}"}) as c:
        assert c.post(f"/api/v1/user/{running.user}/jobs", json=job("work", role("r", sleepers_command(tag, "sleep 300")))
                      ).is_success
        all_started(tag)
        time.sleep(1.5)
        began = time.monotonic()
        assert launcher.stop() is True
        took = time.monotonic() - began
        assert took < launcher.STOP_TIMEOUT, f"killed after the timeout ({took:.1f}s), not asked"
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        wait_for(lambda: not sleepers(tag), 10)
    status = next((tmp_path / "launched" / "jobs").glob("*work/status.json")).read_text()
    assert "was stopped while this job was running" in status  # its own shutdown, not a crash found by the next start


def test_a_process_older_than_its_parent_is_not_its_child():
    """Windows leaves an orphan its dead parent's pid, which a later process may be given: a process
    that names a parent started after itself is an orphan of that pid's earlier owner, never ended
    with the new one's task (psutil's own rule). The scan's records, built from real processes."""
    def record(proc: psutil.Process, created: float | None) -> psutil.Process:
        proc.info = {"create_time": created}
        return proc

    me = psutil.Process()
    parent = record(psutil.Process(), me.create_time())
    older = record(psutil.Process(1), psutil.Process(1).create_time())  # started at boot, before `parent`
    with subprocess.Popen(["sleep", "30"]) as child:
        try:
            younger = record(psutil.Process(child.pid), psutil.Process(child.pid).create_time())
            unreadable = record(psutil.Process(me.ppid()), None)  # psutil's AccessDenied: not ours to end
            found = descendants([parent], {parent.pid: [older, younger, unreadable]})
            assert [p.pid for p in found] == [child.pid]
        finally:
            child.kill()
