"""The local cluster's job-exporter: each running task's CPU, memory, block I/O and GPUs under the names,
units and labels OpenPAI's job-exporter gives them (openpai-k8s.md §C.2), in Prometheus' text format, for
the cluster's Prometheus to scrape (`prometheus.py`).

A task here is a tree of processes: a host task's is its command and what it started; a container
task's (`--runtime container`) is the container's first process and what runs below it, found on this
machine through its engine (`containers.py`), not the engine's client. Its CPU is the tree's CPU time
(what its reaped children spent included) over the time since the last sample, 100 being one core, as
docker stats says it; its memory is the tree's resident memory against its role's memoryMB (what a
container is given, `--memory`). GPU series exist for a task
that holds GPUs of this machine (`gpus.py`), one per GPU, labelled by minor number; none where the
machine has none. Samples are taken when Prometheus scrapes (nothing is sampled while nobody asks), in
a thread, one scan of the process table for every task.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field

import psutil
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import CollectorRegistry

from .containers import ContainerProcesses, Wanted
from .gpus import GpuReading, Gpus
from .job_data import Job, Task
from .processes import descendants, scan

TASK_LABELS = ("username", "job_name", "role_name", "task_index", "job_instance_id", "virtual_cluster")
UNKNOWN = "unknown"  # what job-exporter reports for a label it cannot read


@dataclass
class TaskTree:
    """What one sample needs of a running task: who it is and where its processes are."""
    job: Job
    task: Task
    leader: int | None  # its command's pid; a container task's first process, once found (`containers.py`)
    noted: dict[int, float] = field(default_factory=dict)  # descendants that left the tree (setsid): pid -> start time
    container: Wanted | None = None  # where a container task's processes are to be found
    started: float | None = None  # the leader's start time, where it was found by pid alone


@dataclass
class TaskSample:
    labels: dict[str, str]
    cpu_percent: float
    mem_usage: int
    mem_limit: int
    block_in: int
    block_out: int
    gpus: list[GpuReading]

    @property
    def mem_percent(self) -> float:
        return 100.0 * self.mem_usage / self.mem_limit if self.mem_limit else 0.0


def running_trees(cluster) -> list[TaskTree]:
    """The cluster's running tasks: a host task by its command, a container task by its container (the
    engine's client is no process of the task's)."""
    trees = []
    for (framework, role, index), running in list(cluster.running.items()):
        job = cluster.jobs.get(framework)
        task = next((t for t in job.tasks if t.role == role and t.index == index), None) if job else None
        if task is None or running.process.returncode is not None:
            continue
        if running.container is not None:
            trees.append(TaskTree(job, task, None, container=Wanted(*running.container, running.process.pid)))
        else:
            trees.append(TaskTree(job, task, running.process.pid, dict(running.processes.seen)))
    return trees


def task_labels(job: Job, task: Task) -> dict[str, str]:
    """job-exporter's labels, from what it reads of a container's environment: PAI_JOB_NAME (the
    framework name, `<user>~<job>`), PAI_USER_NAME, the role, FC_TASK_INDEX, the attempt's instance
    UID (a new one per retry) and PAI_VIRTUAL_CLUSTER."""
    instance = uuid.uuid5(uuid.NAMESPACE_URL, f"pai-local-cluster/{job.framework}/{job.created}/{job.attempt}")
    values = (job.user, job.framework, task.role, str(task.index), str(instance), job.virtual_cluster)
    return {name: value or UNKNOWN for name, value in zip(TASK_LABELS, values, strict=True)}


class Sampler:
    """Per-task samples, each CPU figure over the time since the task's previous one."""

    def __init__(self, gpus: Gpus | None = None) -> None:
        self.gpus = gpus or Gpus()
        self.containers = ContainerProcesses()
        self._last: dict[tuple[int, float], tuple[float, float]] = {}  # (leader, its start) -> (CPU seconds, when)
        self._lock = threading.Lock()

    def sample(self, trees: Iterable[TaskTree], readings: dict[int, GpuReading]) -> list[TaskSample]:
        """One sample of every task, with the GPUs' `readings` of this moment; blocking (run it in a thread)."""
        with self._lock:
            trees = self._placed(trees)
            procs, children = scan("cpu_times")  # with CPU times, read in the same pass
            now = time.monotonic()
            samples, kept = [], {}
            for tree in trees:
                leader = procs.get(tree.leader) if tree.leader is not None else None
                if leader is None or (tree.started is not None and leader.info["create_time"] is not None
                                      and abs(leader.info["create_time"] - tree.started) >= 0.01):
                    continue
                members = _members(leader, tree.noted, procs, children)
                cpu_seconds, rss, read, written = _totals(members)
                key = (tree.leader, leader.info["create_time"] or 0.0)
                before = self._last.get(key)
                if before is not None and now > before[1]:
                    percent = max(0.0, cpu_seconds - before[0]) / (now - before[1]) * 100
                else:  # its first sample: the average since it started
                    age = max(time.time() - (leader.info["create_time"] or time.time()), 1e-3)
                    percent = cpu_seconds / age * 100
                kept[key] = (cpu_seconds, now)
                limit = tree.job.role(tree.task.role).memory_mb * 2**20
                samples.append(TaskSample(task_labels(tree.job, tree.task), percent, rss, limit, read, written,
                                          [readings[g] for g in tree.task.gpus if g in readings]))
            self._last = kept  # a task gone is forgotten
            return samples

    def _placed(self, trees: Iterable[TaskTree]) -> list[TaskTree]:
        """The trees, a container task's with its container's first process as leader (those not found
        yet left out: a container still starting, or one whose processes are not this machine's)."""
        trees = list(trees)
        found = self.containers.find(t.container for t in trees if t.container is not None)
        placed = []
        for tree in trees:
            if tree.container is None:
                placed.append(tree)
            elif (where := found.get(tree.container)) is not None:
                placed.append(TaskTree(tree.job, tree.task, where.pid, {}, tree.container, where.started))
        return placed


def _members(leader: psutil.Process, noted: dict[int, float], procs: dict[int, psutil.Process],
             children: dict[int, list[psutil.Process]]) -> list[psutil.Process]:
    """The task's live processes: its command, those noted as its descendants (the same start time, so a
    reused pid is never counted), and everything below them."""
    roots = [leader] + [p for pid, started in noted.items() if (p := procs.get(pid)) is not None
                        and p.info["create_time"] is not None and abs(p.info["create_time"] - started) < 0.01]
    found = {p.pid: p for p in roots}
    for proc in descendants(roots, children):
        found.setdefault(proc.pid, proc)
    return list(found.values())


def _totals(members: list[psutil.Process]) -> tuple[float, int, int, int]:
    """CPU seconds (with reaped children's), resident bytes, bytes read and written from storage."""
    cpu = 0.0
    rss = read = written = 0
    for proc in members:
        times = proc.info["cpu_times"]
        if times is not None:
            cpu += times.user + times.system + getattr(times, "children_user", 0.0) + getattr(times, "children_system", 0.0)
        try:
            with proc.oneshot():
                rss += proc.memory_info().rss
                io = proc.io_counters() if hasattr(proc, "io_counters") else None
        except (psutil.Error, OSError):
            continue
        if io is not None:
            read += io.read_bytes
            written += io.write_bytes
    return cpu, rss, read, written


def families(samples: list[TaskSample]) -> list[GaugeMetricFamily]:
    """The task_* families job-exporter exports, from these samples (a GPU family only where a task has one)."""
    def family(name: str, doc: str, extra: tuple[str, ...] = ()) -> GaugeMetricFamily:
        return GaugeMetricFamily(name, doc, labels=[*TASK_LABELS, *extra])

    cpu = family("task_cpu_percent", "how much percent of cpu this task used (100 is one core)")
    mem_usage = family("task_mem_usage_byte", "resident memory of this task's processes, in bytes")
    mem_limit = family("task_mem_limit_byte", "memory this task's role asks for (memoryMB), in bytes")
    mem_percent = family("task_mem_usage_percent", "memory this task uses, percent of its limit")
    block_in = family("task_block_in_byte", "bytes this task's processes read from storage, cumulative")
    block_out = family("task_block_out_byte", "bytes this task's processes wrote to storage, cumulative")
    gpu = family("task_gpu_percent", "GPU utilization of a GPU this task holds, 0-100", ("minor_number",))
    gpu_mem = family("task_gpu_mem_percent", "framebuffer used of a GPU this task holds, percent", ("minor_number",))
    for s in samples:
        values = [s.labels[name] for name in TASK_LABELS]
        cpu.add_metric(values, s.cpu_percent)
        mem_usage.add_metric(values, s.mem_usage)
        mem_limit.add_metric(values, s.mem_limit)
        mem_percent.add_metric(values, s.mem_percent)
        block_in.add_metric(values, s.block_in)
        block_out.add_metric(values, s.block_out)
        for reading in s.gpus:
            gpu.add_metric([*values, str(reading.minor_number)], reading.utilization)
            gpu_mem.add_metric([*values, str(reading.minor_number)], reading.memory_percent)
    found = [cpu, mem_usage, mem_limit, mem_percent, block_in, block_out]
    return found + [f for f in (gpu, gpu_mem) if f.samples]


def node_families(readings: dict[int, GpuReading]) -> list[GaugeMetricFamily]:
    """The node's GPUs, as job-exporter's nvidia-smi collector names them (none without a GPU)."""
    if not readings:
        return []
    util = GaugeMetricFamily("nvidiasmi_utilization_gpu", "GPU utilization", labels=["minor_number"])
    memory = GaugeMetricFamily("nvidiasmi_utilization_memory", "GPU memory utilization", labels=["minor_number"])
    for reading in readings.values():
        util.add_metric([str(reading.minor_number)], reading.utilization)
        memory.add_metric([str(reading.minor_number)], reading.memory_percent)
    return [util, memory]


class _Snapshot:
    """A prometheus-client collector answering what was sampled for this scrape."""

    def __init__(self) -> None:
        self.found: list[GaugeMetricFamily] = []

    def collect(self):
        return iter(self.found)


class Exporter:
    """The ASGI app Prometheus scrapes (`GET /metrics`): a fresh sample of the running tasks at each scrape,
    or the last one when scrapes come closer together than `min_gap` seconds."""

    def __init__(self, trees, min_gap: float = 0.5, sampler: Sampler | None = None) -> None:
        """`trees`: a callable giving the running tasks now (read on the event loop)."""
        self.trees = trees
        self.sampler = sampler or Sampler()
        self.min_gap = min_gap
        self._snapshot = _Snapshot()
        self._registry = CollectorRegistry(auto_describe=False)
        self._registry.register(self._snapshot)  # type: ignore[arg-type]
        self._body = b""
        self._when = float("-inf")
        self._lock = asyncio.Lock()

    async def exposition(self) -> bytes:
        async with self._lock:
            if time.monotonic() - self._when >= self.min_gap:
                self._body = await asyncio.to_thread(self._render, list(self.trees()))
                self._when = time.monotonic()
            return self._body

    def _render(self, trees: list[TaskTree]) -> bytes:
        readings = self.sampler.gpus.read()
        samples = self.sampler.sample(trees, readings)
        self._snapshot.found = families(samples) + node_families(readings)
        return generate_latest(self._registry)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] != "/metrics":
            await _answer(send, 404, b"job-exporter serves /metrics only\n", b"text/plain; charset=utf-8")
            return
        await _answer(send, 200, await self.exposition(), CONTENT_TYPE_LATEST.encode())


async def _answer(send, status: int, body: bytes, content_type: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
