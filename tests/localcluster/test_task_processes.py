"""Every process a task starts ends with it: on stop, when its command ends, at shutdown, and when a
restarted cluster finds what a killed one left running — its process group, the children that left
it with `setsid`, and those that also dropped the task's environment."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from ..helpers.localcluster import (
    USER,
    Cluster,
    detail,
    finished,
    job,
    own_cluster,
    processes_named,
    role,
    start_cluster,
    stop_cluster,
    submit,
    wait_for,
)

KINDS = ("group", "session", "scrubbed")


def _command(tag: str, then: str) -> str:
    """Three sleepers that outlive a plain process-group kill in different ways, then `then`."""
    return (f"(exec -a {tag}-group sleep 300) & "
            f"setsid bash -c 'exec -a {tag}-session sleep 300' & "
            f"setsid env -i bash -c 'exec -a {tag}-scrubbed sleep 300' & "
            f"{then}")


def _sleepers(tag: str) -> dict[str, int]:
    """The live sleepers of one command, by kind."""
    return {proc.info["cmdline"][0].removeprefix(tag + "-"): proc.pid for proc in processes_named(tag + "-")}


@contextmanager
def _tagged() -> Iterator[str]:
    """A tag for this test's sleepers (and the start of theirs); whatever they leave behind is ended, pass or fail."""
    tag = f"pai-test-{uuid.uuid4().hex[:12]}"
    try:
        yield tag
    finally:
        for proc in processes_named(tag):
            try:
                proc.kill()
            except psutil.NoSuchProcess:
                pass


def _all_started(tag: str) -> dict[str, int]:
    return wait_for(lambda: (found := _sleepers(tag)).keys() == set(KINDS) and found, 20)


def test_stop_and_the_commands_end_take_every_process_with_them(cluster):
    with _tagged() as tag, cluster.client() as c:
        submit(c, job("stopped", role("r", _command(tag + "a", "sleep 300"))))
        submit(c, job("ended", role("r", _command(tag + "b", "sleep 2; echo done"))))
        _all_started(tag + "a")
        _all_started(tag + "b")
        time.sleep(1.5)  # the scrubbed sleeper is known by having been seen in the task's tree
        started = time.monotonic()
        assert c.put(f"/api/v1/user/{USER}/jobs/stopped/executionType", json={"value": "STOP"}).status_code == 202
        wait_for(lambda: not _sleepers(tag + "a"), 10)
        print(f"stop -> every process gone: {time.monotonic() - started:.2f}s")
        assert finished(c, "stopped")["jobStatus"]["state"] == "STOPPED"
        # A command that ends leaves nothing behind, and its job completes (no child keeps its output open).
        assert finished(c, "ended", timeout=20)["jobStatus"]["state"] == "SUCCEEDED"
        wait_for(lambda: not _sleepers(tag + "b"), 10)


def _run_then_end(data: Path, tag: str, then: str, end: Callable[[Cluster], None]) -> None:
    """A cluster running one job of sleepers, then ended by `end`, whatever happens."""
    cluster = start_cluster(data)
    try:
        with cluster.client() as c:
            submit(c, job("tree", role("r", _command(tag, then))))
            _all_started(tag)
            time.sleep(1.5)  # the scrubbed sleeper is known by having been seen in the task's tree
    finally:
        end(cluster)


def test_shutdown_ends_every_process_of_every_task(tmp_path):
    with _tagged() as tag:
        _run_then_end(tmp_path / "shutdown", tag, "sleep 300", stop_cluster)  # Ctrl-C
        wait_for(lambda: not _sleepers(tag), 10)


def _crash(cluster: Cluster) -> None:
    cluster.process.kill()  # kill -9: no chance to clean up
    cluster.process.wait()


def test_a_restarted_cluster_ends_what_a_killed_one_left_running(tmp_path):
    data = tmp_path / "crash"
    with _tagged() as tag:
        # The command's own shell dies with the cluster (its output pipe breaks); what it started does not.
        _run_then_end(data, tag, "while true; do echo tick; sleep 0.1; done", _crash)
        left = _sleepers(tag)
        assert left.keys() == set(KINDS), left  # what the restart must end
        print(f"processes left by the killed cluster: {len(left)}")
        with own_cluster(data) as again, again.client() as c:
            assert detail(c, "tree")["jobStatus"]["state"] == "FAILED"
            wait_for(lambda: not _sleepers(tag), 10)
