"""The local cluster: accepts jobs, fits them to this machine's resources, runs their tasks, and
applies OpenPAI's completion, retry and stop rules (openpai-api.md §5). State is kept in the
data dir so finished jobs and their logs survive a restart.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
from dataclasses import dataclass
from pathlib import Path

from ..files import write_atomic
from .auth import Users
from .errors import ClusterError
from .hdfs_store import HdfsStore
from .model import FINAL, STOPPED_BY_USER, TASK_STOPPED_ON_COMPLETION, Job, Task, now_ms, write_json
from .runner import RunningTask, allocate_ports, environment, kill_leftover, reported_exit, start, substitute_dir

STOP_GRACE_SECONDS = 2.0


@dataclass
class Capacity:
    cpu: int
    memory_mb: int
    gpu: int

    @classmethod
    def of_machine(cls, gpus: int | None) -> Capacity:
        memory = 0
        try:
            for line in Path("/proc/meminfo").read_text().splitlines():
                if line.startswith("MemTotal:"):
                    memory = int(line.split()[1]) // 1024
        except OSError:
            memory = 4096
        if gpus is None:
            gpus = _nvidia_gpus()
        return cls(os.cpu_count() or 1, memory, gpus)


def _nvidia_gpus() -> int:
    if shutil.which("nvidia-smi") is None:
        return 0
    import subprocess

    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


class LocalCluster:
    def __init__(self, data_dir: Path, capacity: Capacity, default_user: str, runtime: str = "host",
                 engine: str | None = None, task_umask: int = 0o022):
        """`default_user` is the OS user the cluster runs as: HDFS's superuser. Tasks create their
        files with `task_umask` (the user's own), while the cluster's files are private."""
        self.data_dir = data_dir
        self.jobs_dir = data_dir / "jobs"
        self.jobs_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.capacity = capacity
        self.runtime = runtime
        self.engine = engine if runtime == "container" else None
        self.task_umask = task_umask
        self.store = HdfsStore(data_dir / "hdfs", superuser=default_user, groups_of=lambda name: self.users.groups(name))
        self.users = Users(data_dir, on_new_user=self.store.ensure_home)  # each user gets an HDFS home
        self.fs_uri = "hdfs://127.0.0.1:0"
        self.jobs: dict[str, Job] = {}
        self.order: list[str] = []  # submission order, for scheduling
        self.running: dict[tuple[str, str, int], RunningTask] = {}
        self.gpu_free = set(range(capacity.gpu))
        self._wake = asyncio.Event()
        self._scheduler: asyncio.Task | None = None
        self._watchers: set[asyncio.Task] = set()
        self.virtual_clusters = self._load_virtual_clusters()
        self._load_jobs()

    # -- persistence -----------------------------------------------------------------
    def _load_virtual_clusters(self) -> dict[str, dict]:
        path = self.data_dir / "virtual-clusters.json"
        vcs = json.loads(path.read_text()) if path.exists() else {}
        vcs.setdefault("default", {"capacity": 100})
        return vcs

    def _load_jobs(self) -> None:
        for status in sorted(self.jobs_dir.glob("*/status.json"), key=lambda p: p.stat().st_mtime):
            try:
                job = Job.from_json(json.loads(status.read_text()))
            except (ValueError, TypeError, KeyError):
                continue
            if job.state not in FINAL:
                for task in job.tasks:
                    if task.pid:
                        kill_leftover(task.pid, f"{job.framework}/{job.attempt}/{task.role}/{task.index}")
                    if not task.finished:
                        task.state, task.completed = "FAILED", now_ms()
                self._finish(job, "FAILED", -1, "The local cluster stopped while this job was running; it was not restarted.")
            self.jobs[job.framework] = job
            self.order.append(job.framework)

    def save(self, job: Job) -> None:
        folder = self.jobs_dir / job.framework
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_json(folder / "status.json", job.to_json())

    def job_dir(self, job: Job) -> Path:
        return self.jobs_dir / job.framework

    def task_dir(self, job: Job, attempt: int, role: str, index: int) -> Path:
        return self.job_dir(job) / f"attempt-{attempt}" / f"{role}-{index}"

    # -- lifecycle -------------------------------------------------------------------
    def start_background(self) -> None:
        self._scheduler = asyncio.ensure_future(self._schedule_forever())

    async def close(self) -> None:
        """Stop every task (Ctrl-C): jobs still running are marked FAILED, as after a crash."""
        if self._scheduler is not None:
            self._scheduler.cancel()
        for job in list(self.jobs.values()):
            if job.state not in FINAL:
                await self._kill_tasks(job, "FAILED", None)
                self._finish(job, "FAILED", -1, "The local cluster was stopped while this job was running.")
        for watcher in list(self._watchers):
            watcher.cancel()

    def submit(self, job: Job, original: object, raw_text: str | None = None) -> None:
        if job.framework in self.jobs:
            raise ClusterError(409, "ConflictJobError", f"Job name {job.name} already exists" if job.version == 1
                               else f"Job {job.framework} already exists.")
        if job.virtual_cluster not in self.virtual_clusters:
            raise ClusterError(404, "NoVirtualClusterError", f"Virtual cluster {job.virtual_cluster} is not found.")
        self._check_fits(job)
        folder = self.job_dir(job)
        if folder.exists():
            shutil.rmtree(folder)  # left over from a deleted job of the same name
        folder.mkdir(mode=0o700, parents=True)
        if raw_text is not None:
            write_atomic(folder / "JobConfig.yaml", raw_text, private=True)
        write_json(folder / "JobConfig.json", original)
        job.runtime = self.runtime
        job.tasks = [Task(r.name, i) for r in job.roles for i in range(r.tasks)]
        self.jobs[job.framework] = job
        self.order.append(job.framework)
        self.save(job)
        self._wake.set()

    def _check_fits(self, job: Job) -> None:
        need = {"CPU": sum(r.tasks * r.cpu for r in job.roles), "memory (MB)": sum(r.tasks * r.memory_mb for r in job.roles),
                "GPU": job.total_gpus}
        have = {"CPU": self.capacity.cpu, "memory (MB)": self.capacity.memory_mb, "GPU": self.capacity.gpu}
        for resource, amount in need.items():
            if amount > have[resource]:
                raise ClusterError(400, "NoEnoughQuotaError",
                                   f"Job {job.name} needs {amount} {resource} in total but this local cluster has "
                                   f"{have[resource]}: it can never run here. Lower the role's resources or taskNumber.")

    def _used(self) -> tuple[int, int]:
        cpu = mem = 0
        for job in self.jobs.values():
            if job.state == "RUNNING":
                cpu += sum(r.tasks * r.cpu for r in job.roles)
                mem += sum(r.tasks * r.memory_mb for r in job.roles)
        return cpu, mem

    async def _schedule_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            for framework in list(self.order):
                job = self.jobs.get(framework)
                if job is None or job.state != "WAITING" or job.execution_type == "STOP":
                    continue
                cpu, mem = self._used()
                if cpu + sum(r.tasks * r.cpu for r in job.roles) <= self.capacity.cpu \
                        and mem + sum(r.tasks * r.memory_mb for r in job.roles) <= self.capacity.memory_mb \
                        and job.total_gpus <= len(self.gpu_free):
                    await self._launch(job)

    async def _launch(self, job: Job) -> None:
        job.state = "RUNNING"
        job.launched = job.launched or now_ms()
        gpus = sorted(self.gpu_free)
        allocate_ports(job)
        for task in job.tasks:
            role = job.role(task.role)
            task.gpus, gpus = gpus[: role.gpu], gpus[role.gpu :]
            self.gpu_free -= set(task.gpus)
        for task in job.tasks:
            env = environment(job, task, self.fs_uri, job.virtual_cluster)
            folder = self.task_dir(job, job.attempt, task.role, task.index)
            workdir = folder / "work"
            workdir.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                self._copy_code(job, workdir)
                running = await start(job, task, workdir, folder / "logs", env, self.engine, self.task_umask)
            except (OSError, ValueError) as exc:
                task.state, task.completed, task.diagnostics = "FAILED", now_ms(), f"Task could not start: {exc}"
                task.exit_code = 254
                self._task_done(job, task)
                continue
            task.state, task.pid, task.launched = "RUNNING", running.process.pid, now_ms()
            self.running[(job.framework, task.role, task.index)] = running
            watcher = asyncio.ensure_future(self._watch(job, job.attempt, task, running))
            self._watchers.add(watcher)
            watcher.add_done_callback(self._watchers.discard)
        self.save(job)

    def _copy_code(self, job: Job, workdir: Path) -> None:
        """codeDir on this cluster's HDFS is copied to ./<last path component> (seed 000 `cd`s there)."""
        code_dir = substitute_dir(job.config.get("codeDir") or "", job, self.fs_uri)
        match = re.match(r"^(?:hdfs|webhdfs)://[^/]*(/.*)$", code_dir) or re.match(r"^(/.*)$", code_dir)
        if not match:
            return
        source = self.store.local(match.group(1))
        if not source.is_dir():
            return
        name = source.name or "code"
        shutil.copytree(source, workdir / name, symlinks=False, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("*.pai-upload"))
        if job.framework != name and name == job.name and not (workdir / job.framework).exists():
            # $PAI_JOB_NAME is <user>~<job>: make `cd $PAI_JOB_NAME` find the code too.
            (workdir / job.framework).symlink_to(name)

    async def _watch(self, job: Job, attempt: int, task: Task, running: RunningTask) -> None:
        code = await running.wait()
        self.running.pop((job.framework, task.role, task.index), None)
        if job.attempt != attempt or task.finished:
            return  # stopped or superseded meanwhile
        task.exit_code, task.original_exit_code = reported_exit(code)
        task.state, task.completed = ("SUCCEEDED" if code == 0 else "FAILED"), now_ms()
        if task.original_exit_code is not None:
            task.diagnostics = f"The command exited with code {task.original_exit_code}."
        self._task_done(job, task)

    def _task_done(self, job: Job, task: Task) -> None:
        self.gpu_free |= set(task.gpus)
        outcome = self._completion(job, task)
        self.save(job)
        if outcome is not None:
            asyncio.ensure_future(self._complete_attempt(job, *outcome))

    def _completion(self, job: Job, task: Task) -> tuple[str, Task | None] | None:
        """Per-role completion policy (§5.2): ("SUCCEEDED" | "FAILED", triggering task) or None."""
        if job.state != "RUNNING":
            return None
        role = job.role(task.role)
        mine = [t for t in job.tasks if t.role == role.name]
        failed = sum(t.state == "FAILED" for t in mine)
        succeeded = sum(t.state == "SUCCEEDED" for t in mine)
        if task.state == "FAILED" and role.min_failed is not None and role.min_failed > 0 and failed >= role.min_failed:
            return "FAILED", task
        if task.state == "SUCCEEDED" and role.min_succeeded is not None and role.min_succeeded > 0 and succeeded >= role.min_succeeded:
            return "SUCCEEDED", task
        if all(t.finished for t in job.tasks):
            return "SUCCEEDED", None
        return None

    async def _complete_attempt(self, job: Job, result: str, trigger: Task | None) -> None:
        if job.state != "RUNNING":
            return
        job.state = "COMPLETING"
        await self._kill_tasks(job, "STOPPED", TASK_STOPPED_ON_COMPLETION[job.version])
        if trigger is not None:
            kind = "failed" if result == "FAILED" else "succeeded"
            job.trigger_message = (f"{kind.capitalize()} task count reached the role's min{'Failed' if kind == 'failed' else 'Succeeded'}"
                                   f"TaskCount ({trigger.role} task {trigger.index})")
            job.trigger_role, job.trigger_index = trigger.role, trigger.index
        else:
            job.trigger_message, job.trigger_role, job.trigger_index = "All tasks completed and no completion policy fired", None, None
        exit_code = 0 if result == "SUCCEEDED" else (trigger.exit_code if trigger and trigger.exit_code else 255)
        if self._should_retry(job, result):
            job.retries += 1
            job.attempt += 1
            job.tasks = [Task(r.name, i) for r in job.roles for i in range(r.tasks)]
            job.state = "WAITING"
            self.save(job)
            self._wake.set()
            return
        diagnostics = trigger.diagnostics if trigger is not None and result == "FAILED" else ""
        self._finish(job, result, exit_code, diagnostics)

    def _should_retry(self, job: Job, result: str) -> bool:
        """Retry policy (§5.3): -2 always restarts; -1 retries every failure; N up to N times."""
        if job.execution_type == "STOP":
            return False
        if job.retry_count == -2:
            return True
        if result == "SUCCEEDED":
            return False
        return job.retry_count == -1 or job.retries < job.retry_count

    def _finish(self, job: Job, state: str, exit_code: int, diagnostics: str) -> None:
        job.state, job.exit_code, job.completed = state, exit_code, now_ms()
        job.exit_diagnostics = diagnostics
        self.save(job)
        self._wake.set()

    async def _kill_tasks(self, job: Job, state: str, exit_code: int | None) -> None:
        """End every unfinished task of the job: SIGTERM to its process group, SIGKILL after a grace."""
        victims = []
        for task in job.tasks:
            if task.finished:
                continue
            running = self.running.pop((job.framework, task.role, task.index), None)
            task.state, task.completed = state, now_ms()
            if exit_code is not None:
                task.exit_code = exit_code
            self.gpu_free |= set(task.gpus)
            if running is not None:
                running.kill(signal.SIGTERM)
                victims.append(running)
        if victims:
            done, pending = await asyncio.wait([asyncio.ensure_future(v.process.wait()) for v in victims], timeout=STOP_GRACE_SECONDS)
            for v in victims:
                v.kill(signal.SIGKILL)
            if pending:
                await asyncio.wait(pending, timeout=5)

    async def stop(self, job: Job) -> None:
        job.execution_type = "STOP"
        if job.state in FINAL:
            self.save(job)
            return
        job.state = "STOPPING" if job.version == 2 else job.state
        await self._kill_tasks(job, "STOPPED", TASK_STOPPED_ON_COMPLETION[job.version])
        job.trigger_message = "The job was stopped by its user."
        self._finish(job, "STOPPED", STOPPED_BY_USER[job.version], "User requested to stop the job.")

    async def delete(self, job: Job) -> None:
        if job.state not in FINAL:
            await self.stop(job)
        self.jobs.pop(job.framework, None)
        if job.framework in self.order:
            self.order.remove(job.framework)
        shutil.rmtree(self.job_dir(job), ignore_errors=True)

    def log_file(self, job: Job, attempt: int, role: str, index: int, name: str) -> Path:
        return self.task_dir(job, attempt, role, index) / "logs" / name
