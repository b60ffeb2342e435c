"""A job's metrics as the dashboards query them, read back from Prometheus' answers (recorded from the local
cluster's real Prometheus: tests/core/prometheus-answers.json), and the idle-GPU rule on series."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pai_lsp.core import metrics
from pai_lsp.core.metrics import Series

RECORDED = json.loads((Path(__file__).parent / "prometheus-answers.json").read_text())


def test_the_panels_are_the_dashboards_queries():
    # pai-taskview-dashboard.json.template, for one job (openpai-k8s.md §C.4)
    assert metrics.panel_query("cpu", "alice~mnist") == \
        'avg by (job_name, role_name, task_index) (task_cpu_percent{job_name="alice~mnist"})'
    assert metrics.panel_query("gpu", "alice~mnist") == \
        'avg by (job_name, role_name, task_index, minor_number) (task_gpu_percent{job_name="alice~mnist"})'
    assert metrics.job_query("alice~mnist") == RECORDED["query"]
    assert metrics.quoted('a"b\\c') == '"a\\"b\\\\c"'


def test_an_instant_answer_is_one_row_per_task():
    rows = metrics.tasks_now(RECORDED["instant"]["data"])
    assert [(r.role, r.index) for r in rows] == [("ps", 0), ("worker", 0), ("worker", 1)]
    ps, worker = rows[0], rows[1]
    assert worker.cpu_percent is not None and worker.cpu_percent > 5 * max(ps.cpu_percent or 0, 1)
    for row in rows:
        assert row.memory_limit_bytes == 256 * 2**20  # the roles' memoryMB
        assert 0 < row.memory_bytes < row.memory_limit_bytes
        assert row.memory_percent == pytest.approx(100 * row.memory_bytes / row.memory_limit_bytes, rel=0.05)
        assert row.gpus == []


def test_gpu_items_become_one_entry_per_gpu():
    item = {"metric": {"role_name": "w", "task_index": "0", "minor_number": "1", metrics.METRIC_LABEL: "gpu"}, "value": [1, "87.5"]}
    memory = {**item, "metric": {**item["metric"], metrics.METRIC_LABEL: "gpu_memory"}, "value": [1, "40"]}
    other = {**item, "metric": {**item["metric"], "minor_number": "0"}, "value": [1, "NaN"]}
    (row,) = metrics.tasks_now({"resultType": "vector", "result": [item, memory, other]})
    assert [(g.minor, g.utilization, g.memory_percent) for g in row.gpus] == [("0", None, None), ("1", 87.5, 40.0)]


def test_a_range_answer_is_one_series_per_task_and_panel():
    found = metrics.series(RECORDED["range"]["data"])
    assert {(s.role, s.index) for s in found} == {("ps", 0), ("worker", 0), ("worker", 1)}
    assert {s.metric for s in found} == {"cpu", "memory", "memory_limit", "memory_percent"}
    assert all(s.points and all(isinstance(t, float) and isinstance(v, float) for t, v in s.points) for s in found)


@pytest.mark.parametrize("data", [None, {}, {"resultType": "matrix", "result": []}, {"resultType": "vector", "result": "x"}])
def test_what_is_no_vector_is_refused(data):
    with pytest.raises(metrics.BadAnswer):
        metrics.tasks_now(data)


def gpu_series(values: list[float], end: float = 10_000.0, step: float = 30.0, minor: str = "0") -> Series:
    """A GPU's utilisation as Prometheus returns it, one value per `step` seconds up to `end`."""
    start = end - step * (len(values) - 1)
    return Series("worker", 0, "gpu", minor, [(start + i * step, v) for i, v in enumerate(values)])


def test_gpus_below_ten_percent_for_ten_minutes_are_idle():
    found = [gpu_series([3.0] * 21), gpu_series([5.0] * 21, minor="1")]
    verdict = metrics.idle_gpus(found, 10_000.0)
    assert verdict == metrics.IdleGpus(average=4.0, threshold=10.0, minutes=10.0, gpus=2)


def test_busy_gpus_and_short_histories_are_not_idle():
    assert metrics.idle_gpus([gpu_series([3.0] * 10 + [90.0] * 11)], 10_000.0) is None  # busy for the last half
    assert metrics.idle_gpus([gpu_series([0.0] * 6)], 10_000.0) is None  # 3 minutes of samples: not "over 10 minutes"
    assert metrics.idle_gpus([], 10_000.0) is None  # no GPU
    cpu = Series("worker", 0, "cpu", None, gpu_series([0.0] * 21).points)
    assert metrics.idle_gpus([cpu], 10_000.0) is None  # only GPU series count


def test_both_settings_move_the_rule():
    busy_then_idle = gpu_series([80.0] * 9 + [2.0] * 12)  # idle for the last 5.5 minutes
    assert metrics.idle_gpus([busy_then_idle], 10_000.0) is None
    assert metrics.idle_gpus([busy_then_idle], 10_000.0, minutes=5) == metrics.IdleGpus(2.0, 10.0, 5, 1)
    thirty = gpu_series([30.0] * 21)
    assert metrics.idle_gpus([thirty], 10_000.0) is None
    assert metrics.idle_gpus([thirty], 10_000.0, threshold=50) == metrics.IdleGpus(30.0, 50, 10.0, 1)


def test_the_range_step_keeps_a_long_range_small():
    assert metrics.range_step(0, 3600, 30) == 30
    assert metrics.range_step(0, 30 * 86400, 30) == pytest.approx(30 * 86400 / 500)
