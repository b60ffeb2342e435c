"""A full disk under the data folder: a job whose output cannot be written fails with that reason
(instead of hanging with its writers blocked), and stopping a job always works. The disk is a real
small tmpfs mounted for the test (so it needs the right to mount: root here, skipped elsewhere)."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import psutil
import pytest

from ..helpers.localcluster import USER, detail, finished, job, own_cluster, role, submit, task_pids, wait_for
from ..helpers.webhdfs import hdfs, remote_exception

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process


@pytest.fixture
def small_disk(tmp_path: Path, starts_processes):
    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs to fill needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=700", "tmpfs", str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_a_full_disk_fails_the_job_that_writes_and_stop_still_works(small_disk):
    filler = f"pai-disk-filler-{uuid.uuid4().hex[:8]}"
    with own_cluster(small_disk / "data") as cluster, cluster.client() as c:
        submit(c, job("sleeper", role("r", "sleep 300")))
        wait_for(lambda: detail(c, "sleeper")["jobStatus"]["state"] == "RUNNING")
        submit(c, job("printer", role("r", f"yes {filler}")))
        printer = finished(c, "printer", timeout=30)["jobStatus"]
        assert printer["state"] == "FAILED" and printer["appExitCode"] == 198
        assert printer["appExitDiagnostics"] == ("The task's output could not be written to its log "
                                                 "(No space left on device): the task was stopped.")
        assert not [p for p in psutil.process_iter(["cmdline"]) if filler in (p.info["cmdline"] or [])]
        # The disk is still full: a stop (whose state cannot be saved) still stops, and says so with 202.
        stop = c.put(f"/api/v1/user/{USER}/jobs/sleeper/executionType", json={"value": "STOP"})
        assert stop.status_code == 202, stop.text
        assert finished(c, "sleeper")["jobStatus"]["state"] == "STOPPED"
        wait_for(lambda: not task_pids("sleeper"), 10)
        # WebHDFS says it as a namenode would, and keeps no half-written file.
        full = hdfs(cluster, "PUT", f"/user/{USER}/big.bin", "CREATE", USER, b"x" * (1 << 20))
        assert remote_exception(full) == (403, "IOException", "No space left on device")
        assert hdfs(cluster, "GET", f"/user/{USER}/big.bin", "GETFILESTATUS", USER).status_code == 404
