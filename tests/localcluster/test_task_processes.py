"""Every process a task starts ends with it: on stop, when its command ends, at shutdown, and when a
restarted cluster finds what a killed one left running — its process group, the children that left
it with `setsid`, and those that also dropped the task's environment."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ..helpers.localcluster import (
    SLEEPER_KINDS,
    USER,
    Cluster,
    all_started,
    detail,
    finished,
    job,
    own_cluster,
    role,
    sleepers,
    sleepers_command,
    start_cluster,
    stop_cluster,
    submit,
    tagged,
    wait_for,
)

pytestmark = pytest.mark.subprocess  # local clusters and the processes their tasks start


def test_stop_and_the_commands_end_take_every_process_with_them(cluster):
    with tagged() as tag, cluster.client() as c:
        submit(c, job("stopped", role("r", sleepers_command(tag + "a", "sleep 300"))))
        submit(c, job("ended", role("r", sleepers_command(tag + "b", "sleep 2; echo done"))))
        all_started(tag + "a")
        all_started(tag + "b")
        time.sleep(1.5)  # the scrubbed sleeper is known by having been seen in the task's tree
        started = time.monotonic()
        assert c.put(f"/api/v1/user/{USER}/jobs/stopped/executionType", json={"value": "STOP"}).status_code == 202
        wait_for(lambda: not sleepers(tag + "a"), 10)
        print(f"stop -> every process gone: {time.monotonic() - started:.2f}s")
        assert finished(c, "stopped")["jobStatus"]["state"] == "STOPPED"
        # A command that ends leaves nothing behind, and its job completes (no child keeps its output open).
        assert finished(c, "ended", timeout=20)["jobStatus"]["state"] == "SUCCEEDED"
        wait_for(lambda: not sleepers(tag + "b"), 10)


def _run_then_end(data: Path, tag: str, then: str, end: Callable[[Cluster], None]) -> None:
    """A cluster running one job of sleepers, then ended by `end`, whatever happens."""
    cluster = start_cluster(data)
    try:
        with cluster.client() as c:
            submit(c, job("tree", role("r", sleepers_command(tag, then))))
            all_started(tag)
            time.sleep(1.5)  # the scrubbed sleeper is known by having been seen in the task's tree
    finally:
        end(cluster)


def test_shutdown_ends_every_process_of_every_task(tmp_path):
    with tagged() as tag:
        _run_then_end(tmp_path / "shutdown", tag, "sleep 300", stop_cluster)  # Ctrl-C
        wait_for(lambda: not sleepers(tag), 10)


def _crash(cluster: Cluster) -> None:
    cluster.process.kill()  # kill -9: no chance to clean up
    cluster.process.wait()


def test_a_restarted_cluster_ends_what_a_killed_one_left_running(tmp_path):
    data = tmp_path / "crash"
    with tagged() as tag:
        # The command's own shell dies with the cluster (its output pipe breaks); what it started does not.
        _run_then_end(data, tag, "while true; do echo tick; sleep 0.1; done", _crash)
        left = sleepers(tag)
        assert left.keys() == set(SLEEPER_KINDS), left  # what the restart must end
        print(f"processes left by the killed cluster: {len(left)}")
        with own_cluster(data) as again, again.client() as c:
            assert detail(c, "tree")["jobStatus"]["state"] == "FAILED"
            wait_for(lambda: not sleepers(tag), 10)
