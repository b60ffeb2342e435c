"""A job's per-task metrics as OpenPAI's own dashboards ask its Prometheus for them (openpai-k8s.md §C.4:
the TaskLevelMetrics dashboard's `avg by (job_name, role_name, task_index[, minor_number])` of
job-exporter's series), read back into plain figures; and the idle-GPU rule of the portal's admin page
(`avg_over_time(task_gpu_percent[10m]) < 10`), applied to series already fetched. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass, field

TASK = "job_name, role_name, task_index"
# name -> (job-exporter's series, whether it is one per GPU): the panels of the TaskLevelMetrics dashboard
SERIES: dict[str, tuple[str, bool]] = {
    "cpu": ("task_cpu_percent", False),  # 100 = one core
    "memory": ("task_mem_usage_byte", False),
    "memory_limit": ("task_mem_limit_byte", False),
    "memory_percent": ("task_mem_usage_percent", False),  # of the limit
    "gpu": ("task_gpu_percent", True),  # 0-100, per GPU
    "gpu_memory": ("task_gpu_mem_percent", True),  # framebuffer used, percent, per GPU
}
METRIC_LABEL = "pai_lsp_metric"  # the label the combined query adds, so one answer carries every panel
IDLE_THRESHOLD = 10.0  # percent: the portal's low-GPU rule
IDLE_MINUTES = 10.0


def framework_name(user: str, job: str) -> str:
    """The `job_name` label: the framework name `<user>~<job>` (PAI_JOB_NAME)."""
    return f"{user}~{job}"


def quoted(value: str) -> str:
    """A PromQL string literal."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def panel_query(metric: str, job_name: str) -> str:
    """One dashboard panel's query for one job: e.g. `avg by (job_name, role_name, task_index) (task_cpu_percent{job_name="alice~mnist"})`."""
    series, per_gpu = SERIES[metric]
    by = f"{TASK}, minor_number" if per_gpu else TASK
    return f"avg by ({by}) ({series}{{job_name={quoted(job_name)}}})"


def job_query(job_name: str, metrics: tuple[str, ...] = tuple(SERIES)) -> str:
    """Every panel in one query (one request per refresh), each result labelled with its panel's name."""
    return " or ".join(f'label_replace({panel_query(m, job_name)}, "{METRIC_LABEL}", "{m}", "", "")' for m in metrics)


@dataclass
class GpuNow:
    minor: str
    utilization: float | None = None
    memory_percent: float | None = None


@dataclass
class TaskNow:
    role: str
    index: int
    cpu_percent: float | None = None
    memory_bytes: float | None = None
    memory_limit_bytes: float | None = None
    memory_percent: float | None = None
    gpus: list[GpuNow] = field(default_factory=list)


@dataclass
class Series:
    role: str
    index: int
    metric: str  # a key of SERIES
    minor: str | None  # the GPU's minor number, for a GPU series
    points: list[tuple[float, float]]  # (unix seconds, value)


class BadAnswer(ValueError):
    """Prometheus answered something that is not a query result."""


def _result(data: object, kind: str) -> list[dict]:
    if not isinstance(data, dict) or data.get("resultType") != kind or not isinstance(data.get("result"), list):
        raise BadAnswer(f"not a {kind}")
    return [r for r in data["result"] if isinstance(r, dict) and isinstance(r.get("metric"), dict)]


def _task(labels: dict) -> tuple[str, int] | None:
    try:
        return str(labels["role_name"]), int(labels["task_index"])
    except (KeyError, ValueError, TypeError):
        return None


def _number(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if number != number else number  # NaN: no figure


def tasks_now(data: object) -> list[TaskNow]:
    """The instant answer of `job_query` (Prometheus' `data`) as one row per task, ordered by role and index."""
    rows: dict[tuple[str, int], TaskNow] = {}
    for item in _result(data, "vector"):
        labels = item["metric"]
        key, metric = _task(labels), labels.get(METRIC_LABEL)
        value = item.get("value")
        if key is None or metric not in SERIES or not isinstance(value, list) or len(value) != 2:
            continue
        row = rows.setdefault(key, TaskNow(*key))
        number = _number(value[1])
        if SERIES[metric][1]:
            minor = str(labels.get("minor_number", "?"))
            gpu = next((g for g in row.gpus if g.minor == minor), None)
            if gpu is None:
                gpu = GpuNow(minor)
                row.gpus.append(gpu)
            setattr(gpu, "utilization" if metric == "gpu" else "memory_percent", number)
        else:
            setattr(row, {"cpu": "cpu_percent", "memory": "memory_bytes", "memory_limit": "memory_limit_bytes",
                          "memory_percent": "memory_percent"}[metric], number)
    for row in rows.values():
        row.gpus.sort(key=lambda g: (len(g.minor), g.minor))
    return [rows[k] for k in sorted(rows)]


def series(data: object) -> list[Series]:
    """The range answer of `job_query` as one series per task, panel and GPU."""
    found = []
    for item in _result(data, "matrix"):
        labels = item["metric"]
        key, metric = _task(labels), labels.get(METRIC_LABEL)
        if key is None or metric not in SERIES or not isinstance(item.get("values"), list):
            continue
        points = [(float(t), v) for t, raw in item["values"] if (v := _number(raw)) is not None]
        minor = str(labels.get("minor_number", "?")) if SERIES[metric][1] else None
        found.append(Series(key[0], key[1], metric, minor, points))
    found.sort(key=lambda s: (s.role, s.index, list(SERIES).index(s.metric), s.minor or ""))
    return found


def range_step(start: float, end: float, sampling: float, points: int = 500) -> float:
    """The step of a range query: the cluster's sampling interval, or coarser so a series has about `points`
    points at most (Prometheus refuses more than 11,000)."""
    return max(sampling, (end - start) / points, 1.0)


@dataclass(frozen=True)
class IdleGpus:
    """A running job whose GPUs stayed below `threshold` percent on average over the last `minutes`."""
    average: float  # percent, every GPU of the job over the window
    threshold: float
    minutes: float
    gpus: int  # how many GPU series it held


def idle_gpus(found: list[Series], end: float, threshold: float = IDLE_THRESHOLD, minutes: float = IDLE_MINUTES,
              slack: float = 60.0) -> IdleGpus | None:
    """The portal's low-GPU rule on a job's GPU utilisation series: their average over the window ending at
    `end` is below `threshold`, and they cover the window (samples from its start on, within `slack`
    seconds: a job that has run 3 minutes is not idle "over 10 minutes"). None otherwise, and for a job
    without GPU series."""
    start = end - minutes * 60
    gpu = [s for s in found if s.metric == "gpu" and s.points]
    if not gpu or min(s.points[0][0] for s in gpu) > start + slack:
        return None
    values = [v for s in gpu for t, v in s.points if start <= t <= end]
    if not values:
        return None
    average = sum(values) / len(values)
    if average >= threshold:
        return None
    return IdleGpus(round(average, 2), threshold, minutes, len(gpu))
