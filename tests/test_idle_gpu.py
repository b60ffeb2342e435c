"""The idle-GPU guard of the daemon's `status`, in-process against a cluster in memory whose Prometheus answers
a job's GPU series: a running job below the threshold over the window is reported with its numbers, with
either setting moved; a busy one, a finished one and one on a cluster without metrics are not."""

from __future__ import annotations

import json
import time

import pytest

from pai_lsp.core.metrics import Series
from pai_lsp.daemon import protocol
from pai_lsp.daemon.server import Daemon
from pai_lsp.daemon.sessions import Sessions

from .helpers.memory import MemoryBackend, Script


class WithGpus(MemoryBackend):
    """A cluster in memory whose job `train` held two GPUs at `utilization` percent for the last 20 minutes."""

    def __init__(self, utilization: list[float]) -> None:
        super().__init__()
        self.utilization = utilization
        self.asked: list[tuple[str, float, float, float]] = []

    def task_series(self, name: str, start: float, end: float, step: float) -> list[Series]:
        self.asked.append((name, start, end, step))
        first = time.time() - 1200
        points = [(first + 30 * i, u) for i, u in enumerate(self.utilization)]
        return [Series("worker", 0, "gpu", minor, [p for p in points if start <= p[0] <= end]) for minor in ("0", "1")]


@pytest.fixture(autouse=True)
def folders(tmp_path, monkeypatch, no_programs):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


async def status(cluster: MemoryBackend, tmp_path, **params) -> dict:
    daemon = Daemon(tmp_path / "daemon.sock", Sessions(connect=lambda name, start=True: cluster))
    async def send(message: dict) -> None:
        raise AssertionError(f"status sends no event: {message}")

    reply = await daemon.dispatch({"jsonrpc": "2.0", "id": 1, "method": "status", "params": {"job": "train", **params}}, send)
    return json.loads(protocol.encode(reply))["result"]


def running(cluster: MemoryBackend, states: tuple[str, ...] = ("RUNNING",)) -> MemoryBackend:
    cluster.submit({"jobName": "train"})
    cluster.scripts["train"] = Script(list(states) * 3)
    return cluster


async def test_a_running_job_whose_gpus_idle_is_reported_with_its_numbers(tmp_path):
    cluster = running(WithGpus([90.0] * 10 + [4.0] * 31))  # busy for 5 minutes, then 15 idle
    result = await status(cluster, tmp_path)
    assert result["state"] == "RUNNING"
    assert result["idleGpu"] == {"average": 4.0, "threshold": 10.0, "minutes": 10.0, "gpus": 2}
    (name, start, end, step), = cluster.asked
    assert name == "train" and end - start == pytest.approx(600) and step <= 30


async def test_either_setting_moves_the_guard(tmp_path):
    busy = running(WithGpus([30.0] * 41))
    assert "idleGpu" not in await status(busy, tmp_path)
    assert (await status(busy, tmp_path, idleThreshold=50))["idleGpu"]["average"] == 30.0
    lately = running(WithGpus([90.0] * 30 + [1.0] * 11))  # idle for the last 5 minutes only
    assert "idleGpu" not in await status(lately, tmp_path)
    assert (await status(lately, tmp_path, idleMinutes=4))["idleGpu"] == {"average": 1.0, "threshold": 10.0, "minutes": 4.0,
                                                                          "gpus": 2}


async def test_a_finished_job_and_a_cluster_without_metrics_say_nothing_of_gpus(tmp_path):
    ended = running(WithGpus([0.0] * 41), ("SUCCEEDED",))
    result = await status(ended, tmp_path)
    assert result["state"] == "SUCCEEDED" and "idleGpu" not in result and ended.asked == []  # not even asked
    plain = running(MemoryBackend())  # its task_series refuses: no Prometheus
    result = await status(plain, tmp_path)
    assert result["state"] == "RUNNING" and "idleGpu" not in result
