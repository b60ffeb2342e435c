"""A job's per-task metrics (`pai top`, the editors' Jobs view and charts) and the idle-GPU guard of
`pai status`, on any `Backend`: the figures come from its `task_metrics` / `task_series`, the rule from
`core.metrics`."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .. import api
from ..core import metrics
from ..errors import PaiError

if TYPE_CHECKING:
    from ..clusters.backend import Backend

SAMPLING = 30.0  # seconds: OpenPAI's scrape interval (openpai-k8s.md §C.3), the finest step worth asking for
DEFAULT_RANGE = 3600.0  # seconds of history when no start is given


def now(backend: Backend, job: str) -> api.JobMetricsResult:
    """Each running task's figures; a job the cluster does not have is NotFound (Prometheus alone would
    answer nothing, as for a job whose first samples are not in yet)."""
    tasks = backend.task_metrics(job)
    if not tasks:
        backend.job(job)
    return api.JobMetricsResult(job=job, cluster=backend.profile.name, time=time.time(), tasks=[
        api.TaskFigures(role=t.role, index=t.index, cpu_percent=t.cpu_percent, memory_bytes=t.memory_bytes,
                        memory_limit_bytes=t.memory_limit_bytes, memory_percent=t.memory_percent,
                        gpus=[api.GpuFigures(minor=g.minor, utilization=g.utilization, memory_percent=g.memory_percent)
                              for g in t.gpus])
        for t in tasks])


def history(backend: Backend, job: str, start: float | None = None, end: float | None = None,
            step: float | None = None) -> api.JobMetricsRangeResult:
    end = time.time() if end is None else end
    start = end - DEFAULT_RANGE if start is None else start
    step = step or metrics.range_step(start, end, SAMPLING)
    found = backend.task_series(job, start, end, step)
    return api.JobMetricsRangeResult(job=job, cluster=backend.profile.name, start=start, end=end, step=step, series=[
        api.MetricSeries(role=s.role, index=s.index, metric=s.metric, minor=s.minor, points=[[t, v] for t, v in s.points])
        for s in found])


def idle_gpu(backend: Backend, job: str, threshold: float = metrics.IDLE_THRESHOLD,
             minutes: float = metrics.IDLE_MINUTES) -> api.IdleGpu | None:
    """Whether a running job's GPUs sit idle by the portal's rule; None when they do not, or when the cluster
    cannot say (no metrics, no GPU): a status is never refused for want of metrics."""
    end = time.time()
    start = end - minutes * 60
    try:
        found = backend.task_series(job, start, end, metrics.range_step(start, end, min(SAMPLING, minutes * 60 / 10)))
    except PaiError:
        return None
    verdict = metrics.idle_gpus(found, end, threshold, minutes)
    if verdict is None:
        return None
    return api.IdleGpu(average=verdict.average, threshold=verdict.threshold, minutes=verdict.minutes, gpus=verdict.gpus)
