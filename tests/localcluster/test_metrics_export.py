"""The job-exporter's text, in-process: what Prometheus reads from it (parsed with prometheus-client's own
parser), for a task of this process's own tree and GPU readings as NVML gives them; and a machine without
NVML has no GPU at all."""

from __future__ import annotations

import os
import time

import pytest
from prometheus_client.core import CollectorRegistry
from prometheus_client.exposition import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from pai_lsp.core.roles import TaskRole
from pai_lsp.localcluster.gpus import GpuReading, Gpus
from pai_lsp.localcluster.job_data import Job, Task
from pai_lsp.localcluster.metrics_export import TASK_LABELS, Sampler, TaskTree, families, node_families


def a_job() -> tuple[Job, Task]:
    role = TaskRole(name="worker", tasks=1, cpu=1, memory_mb=1024, gpu=1, shm_mb=64, command="python3 train.py", ports={},
                    min_failed=1, min_succeeded=None)
    job = Job(user="alice", name="mnist", version=2, legacy=False, config={}, virtual_cluster="vc1", roles=[role],
              retry_count=0)
    task = Task("worker", 0, gpus=[0])
    job.tasks = [task]
    return job, task


class Fixed:
    def __init__(self, found):
        self.found = found

    def collect(self):
        return iter(self.found)


def exposition(found) -> dict:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Fixed(found))
    text = generate_latest(registry).decode()
    return {f.name: f.samples for f in text_string_to_metric_families(text)}


def test_a_tasks_series_carry_job_exporters_names_units_and_labels():
    job, task = a_job()
    busy_until = time.process_time() + 0.05
    while time.process_time() < busy_until:  # this process's tree is the task: it has spent some CPU
        pass
    gpu = GpuReading(index=0, minor_number=3, utilization=87.0, memory_used=40 << 30, memory_total=80 << 30)
    samples = Sampler(Gpus()).sample([TaskTree(job, task, os.getpid())], {0: gpu})
    read = exposition(families(samples) + node_families({0: gpu}))
    labels = {"username": "alice", "job_name": "alice~mnist", "role_name": "worker", "task_index": "0",
              "virtual_cluster": "vc1"}
    (cpu,) = read["task_cpu_percent"]
    assert set(cpu.labels) == set(TASK_LABELS) and {k: cpu.labels[k] for k in labels} == labels
    assert cpu.value > 0
    (limit,) = read["task_mem_limit_byte"]
    assert limit.value == 1024 * 2**20
    (used,) = read["task_mem_usage_byte"]
    (percent,) = read["task_mem_usage_percent"]
    assert 0 < used.value and percent.value == used.value / limit.value * 100
    (gpu_percent,) = read["task_gpu_percent"]
    (gpu_memory,) = read["task_gpu_mem_percent"]
    assert gpu_percent.labels["minor_number"] == "3" and gpu_percent.value == 87.0
    assert gpu_memory.labels == gpu_percent.labels and gpu_memory.value == 50.0
    assert [(s.labels, s.value) for s in read["nvidiasmi_utilization_gpu"]] == [({"minor_number": "3"}, 87.0)]


def test_a_task_without_gpus_has_no_gpu_series_and_the_next_sample_is_over_the_time_between():
    job, task = a_job()
    task.gpus = []
    sampler = Sampler(Gpus())
    tree = TaskTree(job, task, os.getpid())
    sampler.sample([tree], {})
    time.sleep(0.25)  # idle: this process spends (almost) nothing meanwhile (a clock tick is 10 ms: 4 %)
    (sample,) = sampler.sample([tree], {})
    read = exposition(families([sample]))
    assert "task_gpu_percent" not in read and "task_gpu_mem_percent" not in read
    assert read["task_cpu_percent"][0].value < 20


def test_a_machine_without_nvml_has_no_gpu():
    if os.path.exists("/dev/nvidiactl"):
        pytest.skip("a GPU machine: bench/gpu_metrics_check.sh is its check")
    assert Gpus().read() == {}
    assert node_families({}) == []


@pytest.mark.subprocess
@pytest.mark.skipif(not os.path.exists("/proc/self/cgroup"), reason="Linux: a process's cgroups are in /proc")
def test_an_engine_pid_counts_only_where_it_is_the_containers_process_here():
    """A container's pid the engine gives is taken only when it is this machine's process of that container:
    started after the task's engine client, in a cgroup that names the container's id. A process of this
    machine outside it (as a pid from Docker Desktop's VM would be) or older than the client is not."""
    import subprocess

    import psutil

    from pai_lsp.localcluster.containers import ContainerProcesses, Wanted, ours

    child = subprocess.Popen(["sleep", "30"])
    try:
        started = psutil.Process(child.pid).create_time()
        assert ours(child.pid, "f" * 64, started - 1) is None  # not in a cgroup of that container
        cgroups = open(f"/proc/{child.pid}/cgroup", encoding="utf-8").read()
        path = cgroups.splitlines()[-1].split(":", 2)[2]  # a cgroup it is in: the container's here
        assert ours(child.pid, path, started + 5) is None  # started before the client
        found = ours(child.pid, path, started - 1)
        assert found is not None and (found.pid, found.started) == (child.pid, started)
    finally:
        child.kill()
        child.wait()
    # An engine that cannot be run finds nothing, and says nothing.
    assert ContainerProcesses().find([Wanted("/nonexistent/docker", "pai-x", os.getpid())]) == {}
