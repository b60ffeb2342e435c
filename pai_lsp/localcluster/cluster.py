"""The local cluster: accepts jobs, fits them to this machine's resources, runs their tasks, and
applies OpenPAI's completion, retry and stop rules (openpai-api.md §5). State is kept in the
data dir so finished jobs and their logs survive a restart.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import os
import re
import shutil
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import psutil

from ..common.atomic import write_atomic
from ..core.triage.specs import RUNTIME_TAIL
from . import memory, shapes
from .auth import Users
from .datadir import child
from .hdfs_store import HdfsException, HdfsStore
from .job_data import ACTIVE, FINAL, STOPPED_BY_USER, TASK_STOPPED_ON_COMPLETION, Job, Task, now_ms, write_json
from .layout import LOCALHOST, Layout, Res
from .memory import MEMORY_EXCEEDED
from .processes import RECORD_FILE, Tracker, leftover
from .processes import end as end_processes
from .queueing import hived_refusal, queue_key, record_event, task_need
from .rest_errors import ClusterError
from .runner import (
    RunningTask,
    allocate_ports,
    end_tasks,
    environment,
    exit_diagnostics,
    log_failure_exit,
    reported_exit,
    start,
    substitute_dir,
    task_id,
)
from .shell import find_bash, missing
from .storages import Storages
from .task_mounts import TaskMounts
from .task_sshd import requested as ssh_plugin

STOP_GRACE_SECONDS = 2.0
SCHEDULER_REFUSED = -7200  # the local cluster's code for a job the scheduler refuses after the REST server took it
BEYOND_THIS_MACHINE = -7201  # ... and for one a real cluster would take but this machine cannot run (its limits below)
# Every task is a process of this machine, started together: a job of more cannot run here, and its
# tasks are never made (the real servers take any count and leave such a job waiting forever).
MAX_TASKS = 1000
MAX_PORTS = 10_000  # ports a job's tasks hold in all (a machine has 64,511 above the privileged ones)
CODE_DIR_MAX_BYTES = 200_000_000  # the platform's container script refuses a larger codeDir (openpai-api.md §1.3)


class CodeDirError(ValueError):
    """The task's codeDir cannot be fetched: the task fails with this reason, as on the platform."""


class JobKind(Protocol):
    def prepare(self, job: Job, task: Task, workdir: Path) -> dict[str, str]:
        """Fill the task's working folder; the task's environment."""


@dataclass
class Capacity:
    cpu: int
    memory_mb: int
    gpu: int

    @classmethod
    def of_machine(cls, gpus: int | None) -> Capacity:
        if gpus is None:
            gpus = _nvidia_gpus()
        return cls(os.cpu_count() or 1, psutil.virtual_memory().total // 2**20, gpus)


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
                 engine: str | None = None, task_umask: int = 0o022, strict_resources: bool = False,
                 enforce_memory: bool = False, added_storages: dict | None = None):
        """`default_user` is the OS user the cluster runs as: HDFS's superuser. Tasks create their
        files with `task_umask` (the user's own), while the cluster's files are private."""
        self.data_dir = data_dir
        self.jobs_dir = data_dir / "jobs"
        self.jobs_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.capacity = capacity
        self.runtime = runtime
        self.engine = engine if runtime == "container" else None
        self.task_umask = task_umask
        self.strict_resources = strict_resources
        self.enforce_memory = enforce_memory  # kill a task past its role's memoryMB (memory.py)
        self.store = HdfsStore(data_dir / "hdfs", superuser=default_user, groups_of=lambda name: self.users.groups(name))
        self.users = Users(data_dir, on_new_user=self.store.ensure_home)  # each user gets an HDFS home
        self.storages = Storages(data_dir, added_storages)  # what v2 jobs mount (extras.storages), and who may use which
        self.mounts = TaskMounts(data_dir, self.storages)
        self.fs_uri = "hdfs://127.0.0.1:0"
        self.jobs: dict[str, Job] = {}
        self.order: list[str] = []  # submission order, for scheduling
        self.running: dict[tuple[str, str, int], RunningTask] = {}
        self._wake = asyncio.Event()
        self._scheduler: asyncio.Task | None = None
        self._watchers: set[asyncio.Task] = set()
        self._background: set[asyncio.Task] = set()
        self.groups: dict[int, RunningTask] = {}  # every task started and not yet gone, by its command's pid
        self.tracker = Tracker()  # notes what each running task starts, wherever it goes
        self._unsaved: set[str] = set()  # jobs whose last save failed (a full disk), warned about once
        self._closing = False
        self._freed = 0  # counts the changes that may have freed resources (a task or job ended)
        self._unplaced: dict[tuple[str, int], int] = {}  # (job, attempt) -> `_freed` when it last did not fit
        self.layout = Layout.load(data_dir / "virtual-clusters.json", Res(capacity.cpu, capacity.memory_mb, capacity.gpu))
        self.kinds: dict[str, JobKind] = {}  # jobs of another API than OpenPAI's: how their tasks are set up
        self.shell = find_bash() if self.engine is None else None  # what runs job commands on the host
        self._load_jobs()

    # -- persistence -----------------------------------------------------------------
    @property
    def virtual_clusters(self) -> dict[str, dict[str, Res]]:
        """Each virtual cluster's part of each node."""
        return self.layout.vcs

    def _load_jobs(self) -> None:
        leftovers = []  # what tasks of jobs that were running when a cluster was killed may have left
        for status in sorted(self.jobs_dir.glob("*/status.json"), key=lambda p: p.stat().st_mtime):
            try:
                job = Job.from_json(json.loads(status.read_text(encoding="utf-8")))
            except (ValueError, TypeError, KeyError):
                continue
            if job.state not in FINAL:
                for task in job.tasks:
                    record = self.task_dir(job, job.attempt, task.role, task.index) / RECORD_FILE
                    if task.pid or record.exists():
                        leftovers.append(leftover(record, task_id(job, task)))
                    if not task.finished:
                        task.state, task.completed = "FAILED", now_ms()
                self._finish(job, "FAILED", -1, "The local cluster stopped while this job was running; it was not restarted.")
            self.jobs[job.framework] = job
            self.order.append(job.framework)
        if leftovers:
            end_processes(leftovers)  # one look at every process for them all

    def save(self, job: Job) -> None:
        """Keep the job's state in the data dir. A write that fails (a full disk) loses only this copy:
        the state in memory is right and the next save writes it, so stopping and the rest go on."""
        folder = self.job_dir(job)
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomic(folder / "status.json", job.saved_text(), private=True)
        except OSError as exc:
            if job.framework not in self._unsaved:
                print(f"warning: the state of job {job.framework} could not be saved: {exc.strerror or exc}", file=sys.stderr)
                self._unsaved.add(job.framework)
            return
        self._unsaved.discard(job.framework)

    def job_dir(self, job: Job) -> Path:
        """The job's folder: its framework name, shortened with a digest where the file system could not
        hold it (v2 names may be 255 characters, and the user's name comes in front)."""
        name = job.framework
        if len(name.encode()) > 200:
            name = name[:100] + "-" + hashlib.sha256(name.encode()).hexdigest()[:16]
        return child(self.jobs_dir, name, "job name")

    def task_dir(self, job: Job, attempt: int, role: str, index: int) -> Path:
        return child(self.job_dir(job) / f"attempt-{attempt}", f"{role}-{index}", "task role name")

    # -- lifecycle -------------------------------------------------------------------
    def start_background(self) -> None:
        self._scheduler = asyncio.ensure_future(self._schedule_forever())
        if self.trash.is_dir():  # folders an earlier run set aside and did not finish deleting
            self._spawn(asyncio.to_thread(shutil.rmtree, self.trash, ignore_errors=True))

    async def close(self) -> None:
        """Stop every task (Ctrl-C): jobs still running are marked FAILED, as after a crash, and every
        process group the cluster started is killed, whatever state its task was in."""
        self._closing = True
        if self._scheduler is not None:
            self._scheduler.cancel()
        for background in list(self._background):
            background.cancel()
        for job in list(self.jobs.values()):
            if job.state not in FINAL:
                try:
                    await self._kill_tasks(job, "FAILED", None)
                    self._finish(job, "FAILED", -1, "The local cluster was stopped while this job was running.")
                except Exception as exc:  # noqa: BLE001 - one job's trouble never keeps the others running
                    _report(job, "could not be ended cleanly", exc)
        await self._kill_groups(list(self.groups.values()))
        self.tracker.close()
        for watcher in list(self._watchers):
            watcher.cancel()

    def _spawn(self, coroutine) -> asyncio.Task:
        """Run in the background, referenced until done (and cancelled by close)."""
        background = asyncio.ensure_future(coroutine)
        self._background.add(background)
        background.add_done_callback(self._background.discard)
        return background

    def submit(self, job: Job, original: object, raw_text: str | None = None) -> None:
        """Take the job: checked (names first, before any file is touched), saved, and queued — or
        FAILED at once with the scheduler's reason when it can never run here."""
        folder = self.job_dir(job)
        if job.framework in self.jobs:
            raise ClusterError(409, "ConflictJobError", f"Job name {job.name} already exists" if job.version == 1
                               else f"Job {job.framework} already exists.")
        if job.virtual_cluster not in self.virtual_clusters:
            raise ClusterError(404, "NoVirtualClusterError", f"Virtual cluster {job.virtual_cluster} is not found.")
        refused = hived_refusal(job, self.layout)
        if refused is not None:
            raise refused
        self._check_fits(job)
        if folder.exists():
            self._discard(folder)  # left over from a deleted job of the same name
        folder.mkdir(mode=0o700, parents=True)
        if raw_text is not None:
            write_atomic(folder / "JobConfig.yaml", raw_text, private=True)
        write_json(folder / "JobConfig.json", original)
        job.runtime = self.runtime
        self.jobs[job.framework] = job
        self.order.append(job.framework)
        refused = unschedulable(job) or self._no_shell()
        if refused:  # the server accepts it; the scheduler cannot place it (nothing is made per task)
            self._finish(job, "FAILED", *refused)
            return
        job.tasks = [Task(r.name, i) for r in job.roles for i in range(r.tasks)]
        self.save(job)
        self._wake.set()

    def _no_shell(self) -> tuple[int, str] | None:
        """Why no job command can run on the host (no bash: Windows without Git for Windows or MSYS2),
        looked for again at each job until found (installed meanwhile); None in a container or with bash."""
        if self.engine is None and self.shell is None:
            self.shell = find_bash()
            if self.shell is None:
                return BEYOND_THIS_MACHINE, missing()
        return None

    @property
    def trash(self) -> Path:
        """Where folders go to be deleted: in the data folder (a rename), beside the jobs, never among them."""
        return self.data_dir / "discarded"

    def _discard(self, folder: Path) -> None:
        """Take a folder out of the way at once (a rename) and delete it in a thread."""
        self.trash.mkdir(mode=0o700, exist_ok=True)
        gone = self.trash / uuid.uuid4().hex
        os.replace(folder, gone)
        self._spawn(asyncio.to_thread(shutil.rmtree, gone, ignore_errors=True))

    def _check_fits(self, job: Job) -> None:
        """What the job is accounted for on this machine. A job larger than the machine is refused with
        --strict-resources (as a real cluster's quota would), else it runs scaled to what exists: its
        share is the whole machine, and `job.note` says what it gets instead of what it asked for. On a
        cluster shaped by virtual-clusters.json a job is what it asks for, and waits until that fits."""
        need = job.need()
        if self.placed_on_nodes(job):
            job.accounted = dict(need)
            return
        have = {"cpu": self.capacity.cpu, "memory_mb": self.capacity.memory_mb, "gpu": self.capacity.gpu}
        words = {"cpu": "CPU", "memory_mb": "memory (MB)", "gpu": "GPU"}
        over = [r for r in need if need[r] > have[r]]
        if over and self.strict_resources:
            r = over[0]
            raise ClusterError(400, "NoEnoughQuotaError",
                               f"Job {job.name} needs {need[r]} {words[r]} in total but this local cluster has "
                               f"{have[r]}: it can never run here. Lower the role's resources or taskNumber.")
        job.accounted = {r: min(need[r], have[r]) for r in need}
        job.note = scaled_note(need, have, over)

    def _used(self) -> tuple[int, int]:
        cpu = mem = 0
        for job in self.jobs.values():
            if job.state in ACTIVE:
                cpu += job.share()["cpu"]
                mem += job.share()["memory_mb"]
        return cpu, mem

    @property
    def gpu_free(self) -> set[int]:
        """GPUs no unfinished task of a running job holds (tasks of a scaled job may share one)."""
        held = {g for job in self.jobs.values() if job.state in ACTIVE for t in job.tasks if not t.finished for g in t.gpus}
        return set(range(self.capacity.gpu)) - held

    async def _schedule_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            used = self.usage() if self.layout.configured else {}
            for job in self._waiting_in_priority_order():
                if self.placed_on_nodes(job):
                    if self._try_place(job, used):
                        used = self.usage()
                    continue
                cpu, mem = self._used()
                share = job.share()
                if cpu + share["cpu"] <= self.capacity.cpu and mem + share["memory_mb"] <= self.capacity.memory_mb \
                        and share["gpu"] <= len(self.gpu_free):
                    try:
                        self._reserve(job)
                    except Exception as exc:  # noqa: BLE001 - one job's failure never stops the scheduler
                        self._fail(job, f"The scheduler could not place the job: {_words(exc)}")
                        continue
                    self._spawn(self._isolated(job, self._start_tasks(job, job.attempt)))

    def _waiting_in_priority_order(self) -> list[Job]:
        """The jobs waiting to start, in the order the server's pod priority gives them: higher class
        first, then earlier submission. A job that does not fit never holds up the ones behind it."""
        waiting = [(queue_key(job, self.layout.hived, i), job) for i, framework in enumerate(self.order)
                   if (job := self.jobs.get(framework)) is not None and job.state == "WAITING" and job.execution_type != "STOP"]
        return [job for _, job in sorted(waiting, key=lambda pair: pair[0])]

    def placed_on_nodes(self, job: Job) -> bool:
        """Whether the job is placed on its virtual cluster's nodes (an OpenPAI job on a cluster shaped by
        virtual-clusters.json), or fitted to this machine (PaddlePaddle Cloud's jobs, which know no VCs)."""
        return self.layout.configured and job.kind == "openpai"

    def usage(self) -> dict[str, dict[str, Res]]:
        """What the unfinished tasks of running jobs hold: virtual cluster -> node -> resources. A job
        scaled to this machine holds what it was accounted for, on this machine."""
        used: dict[str, dict[str, Res]] = {}
        for job in self.jobs.values():
            if job.state not in ACTIVE:
                continue
            per_node = used.setdefault(job.virtual_cluster, {})
            if not self.placed_on_nodes(job) and job.accounted and job.accounted != job.need():
                lump = Res(job.accounted["cpu"], job.accounted["memory_mb"], job.accounted["gpu"])
                per_node[LOCALHOST] = per_node.get(LOCALHOST, Res()) + lump
                continue
            for task in job.tasks:
                if not task.finished:
                    node = task.node or LOCALHOST
                    per_node[node] = per_node.get(node, Res()) + task_need(job, task)
        return used

    def _try_place(self, job: Job, used: dict[str, dict[str, Res]]) -> bool:
        """Start the job when all its tasks find room on its virtual cluster's nodes (True); else note,
        as the scheduler's FailedScheduling event of the first task that found none, why it waits. A
        job that did not fit is tried again only once something was freed: a queue of thousands costs
        one look per job per change, not one per wake."""
        key = (job.framework, job.attempt)
        if self._unplaced.get(key) == self._freed:
            return False
        needs = [task_need(job, t) for t in job.tasks]
        nodes = self.layout.place(job.virtual_cluster, needs, used)
        if nodes is None:
            self._unplaced[key] = self._freed
            blocked = self._first_unplaced(job, needs, used)
            record_event(job, job.tasks[blocked], "Warning", "FailedScheduling",
                         self.layout.why_not(job.virtual_cluster, needs[blocked], used))
            return False
        self._unplaced.pop(key, None)
        try:
            self._reserve(job, nodes)
        except Exception as exc:  # noqa: BLE001 - one job's failure never stops the scheduler
            self._fail(job, f"The scheduler could not place the job: {_words(exc)}")
            return True
        self._spawn(self._isolated(job, self._start_tasks(job, job.attempt)))
        return True

    def _first_unplaced(self, job: Job, needs: list[Res], used: dict[str, dict[str, Res]]) -> int:
        """The index of the first task that finds no room once the ones before it are placed."""
        for count in range(1, len(needs) + 1):
            if self.layout.place(job.virtual_cluster, needs[:count], used) is None:
                return count - 1
        return 0

    async def _isolated(self, job: Job, work) -> None:
        """Run one job's work; what it raises fails that job (with the reason), never the cluster."""
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            try:
                await self._kill_tasks(job, "FAILED", None)
            except Exception as again:  # noqa: BLE001
                _report(job, "could not stop its tasks", again)
            self._fail(job, f"The local cluster failed running the job: {_words(exc)}")

    def _fail(self, job: Job, reason: str) -> None:
        """FAILED with `reason`, in memory whatever happens, on disk when it can be written."""
        for task in job.tasks:
            if not task.finished:
                task.state, task.completed = "FAILED", now_ms()
        try:
            self._finish(job, "FAILED", SCHEDULER_REFUSED, reason)
        except Exception as exc:  # noqa: BLE001 - the state stays FAILED in memory; the scheduler goes on
            job.state, job.exit_code, job.exit_diagnostics, job.completed = "FAILED", SCHEDULER_REFUSED, reason, now_ms()
            _report(job, "could not be saved", exc)
            self._wake.set()

    def _reserve(self, job: Job, nodes: list[str] | None = None) -> None:
        """Mark the job running and give its tasks nodes, GPUs and ports, in one step with the fit check.
        Only tasks on this machine get its GPUs; a simulated node's have none to give."""
        for task, node in zip(job.tasks, nodes or [LOCALHOST] * len(job.tasks), strict=True):
            task.node = node
        here = [t for t in job.tasks if t.node == LOCALHOST]
        wanted_here = job.share()["gpu"] if nodes is None else sum(job.role(t.role).gpu for t in here)
        granted = sorted(self.gpu_free)[:wanted_here]
        job.state = "RUNNING"
        job.launched = job.launched or now_ms()
        allocate_ports(job)
        # Each task takes its GPUs in turn; a scaled job's tasks share the ones it was granted.
        turn = itertools.cycle(granted) if granted else None
        for task in job.tasks:
            wanted = min(job.role(task.role).gpu, len(granted))
            task.gpus = sorted({next(turn) for _ in range(wanted)}) if turn and task.node == LOCALHOST else []
            record_event(job, task, "Normal", "Scheduled", f"Successfully assigned default/{job.framework} task "
                         f"{task.role}-{task.index} to {task.node}", host=task.node)
        self.save(job)

    async def _start_tasks(self, job: Job, attempt: int) -> None:
        """Copy each task's code (in a thread: never in the event loop) and start it. A task that was
        stopped meanwhile (STOP, the job completing, a retry) is not started, or is killed the moment its
        process exists: checking and registering happen with no await in between."""
        if not job.tasks:  # every role has taskNumber 0: nothing to run, nothing that can fail
            job.trigger_message = "The job has no task to run (every role has taskNumber 0)."
            self._finish(job, "SUCCEEDED", 0, "")
            return
        kind = self.kinds.get(job.kind)  # jobs of another API (paddle) set their tasks up their own way
        for task in list(job.tasks):
            if self._gone(job, attempt, task):
                continue
            folder = self.task_dir(job, attempt, task.role, task.index)
            workdir = folder / "work"
            try:
                workdir.mkdir(mode=0o700, parents=True, exist_ok=True)
                mounts = self.mounts.specs(job.user, job.storages)
                if kind is None:
                    env = environment(job, task, self.fs_uri, job.virtual_cluster)
                    await asyncio.to_thread(self._copy_code, job, workdir)
                    await asyncio.to_thread(self.mounts.prepare, mounts)
                else:
                    env = await asyncio.to_thread(kind.prepare, job, task, workdir)
                if self._gone(job, attempt, task):
                    continue
                ssh = ssh_plugin(job.config, task.role) if kind is None and job.version == 2 else None
                running = await start(job, task, workdir, folder / "logs", env, self.shell, self.engine,
                                      self.task_umask, self.capacity.cpu, mounts, ssh)
            except Exception as exc:  # noqa: BLE001 - whatever it is, this task failed to start, and says why
                if not self._gone(job, attempt, task):
                    task.state, task.completed, task.diagnostics = "FAILED", now_ms(), f"Task could not start: {_words(exc)}"
                    task.exit_code = 254
                    self._task_done(job, task)
                continue
            self.groups[running.process.pid] = running
            self.tracker.add(running.processes)
            if self._gone(job, attempt, task):
                await self._kill_groups([running])
                continue
            task.state, task.pid, task.launched = "RUNNING", running.process.pid, now_ms()
            self.running[(job.framework, task.role, task.index)] = running
            watcher = asyncio.ensure_future(self._watch(job, attempt, task, running))
            self._watchers.add(watcher)
            watcher.add_done_callback(self._watchers.discard)
            self.save(job)

    def _gone(self, job: Job, attempt: int, task: Task) -> bool:
        """Whether a task about to start must not: stopped, finished, superseded, or the cluster closing."""
        return self._closing or job.attempt != attempt or task.finished or job.state != "RUNNING"

    async def _kill_groups(self, victims: list[RunningTask]) -> None:
        """Every process of these tasks asked to stop (SIGTERM), what is left after the grace period
        killed (SIGKILL; on Windows, which has no such request, TerminateProcess at once)."""
        if not victims:
            return
        await end_tasks(victims, force=False)
        await asyncio.wait([asyncio.ensure_future(v.process.wait()) for v in victims], timeout=STOP_GRACE_SECONDS)
        await end_tasks(victims, force=True)
        for v in victims:
            self.groups.pop(v.process.pid, None)
            self.tracker.discard(v.processes)

    def _copy_code(self, job: Job, workdir: Path) -> None:
        """codeDir on this cluster's HDFS is copied to ./<last path component> (OpenPAI's HDFS guide `cd`s there),
        as the platform's container script fetches it: as the job's user, with HDFS's permission
        checks, and refused over CODE_DIR_MAX_BYTES. A codeDir that is no folder copies nothing."""
        code_dir = substitute_dir(job.config.get("codeDir") or "", job, self.fs_uri)
        match = re.match(r"^(?:hdfs|webhdfs)://[^/]*(/.*)$", code_dir) or re.match(r"^(/.*)$", code_dir)
        if not match:
            return
        try:
            tree = self.store.readable_tree(job.user, match.group(1), CODE_DIR_MAX_BYTES)
        except HdfsException as exc:
            raise CodeDirError(f"Can not get code from HDFS ({code_dir}): {exc.message}") from None
        if tree is None:
            return
        entries, size = tree
        if size > CODE_DIR_MAX_BYTES:
            raise CodeDirError(f"{code_dir} is larger than 200MB (the platform's limit for codeDir is {CODE_DIR_MAX_BYTES} bytes), exit.")
        source = self.store.local(match.group(1))
        name = source.name or "code"
        copy_files(source, workdir / name, entries)
        if job.framework != name and name == job.name and not (workdir / job.framework).exists():
            # $PAI_JOB_NAME is <user>~<job>: make `cd $PAI_JOB_NAME` find the code too.
            try:
                (workdir / job.framework).symlink_to(name, target_is_directory=True)
            except OSError:  # Windows lets only administrators (or developer mode) make links: a second copy
                copy_files(source, workdir / job.framework, entries)

    async def _watch(self, job: Job, attempt: int, task: Task, running: RunningTask) -> None:
        guard = None
        if self.enforce_memory and self.engine is None:  # a container engine keeps the limit itself (--memory)
            guard = asyncio.ensure_future(memory.guard(running, job.role(task.role).memory_mb))
        code = await running.wait()
        if guard is not None:
            guard.cancel()
        self.tracker.discard(running.processes)
        self.groups.pop(running.process.pid, None)
        self.running.pop((job.framework, task.role, task.index), None)
        if job.attempt != attempt or task.finished:
            return  # stopped or superseded meanwhile
        if running.log_failure is not None:  # ended by the cluster: its log could not be written
            (task.exit_code, task.diagnostics), task.original_exit_code = log_failure_exit(running.log_failure), None
            task.state, task.completed = "FAILED", now_ms()
        elif running.memory_exceeded is not None:  # killed past its memoryMB: the platform's memory kill
            task.exit_code, task.original_exit_code = MEMORY_EXCEEDED[job.version], memory.KILLED_STATUS
            task.diagnostics, task.state, task.completed = running.memory_exceeded.diagnostics(), "FAILED", now_ms()
        else:
            era = shapes.era(job)
            tail = await asyncio.to_thread(self._log_tail, job, attempt, task) if code != 0 and era == "k8s" else ""
            task.exit_code, task.original_exit_code = reported_exit(code, era, tail)
            task.state, task.completed = ("SUCCEEDED" if code == 0 else "FAILED"), now_ms()
            if code != 0:
                task.diagnostics = exit_diagnostics(code)
        self._task_done(job, task)

    def _log_tail(self, job: Job, attempt: int, task: Task) -> str:
        """The end of the task's log, which the runtime's exit patterns are matched against."""
        try:
            with open(self.log_file(job, attempt, task.role, task.index, "all"), "rb") as f:
                f.seek(max(0, f.seek(0, os.SEEK_END) - RUNTIME_TAIL))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def _task_done(self, job: Job, task: Task) -> None:
        self._freed += 1
        outcome = self._completion(job, task)
        self.save(job)
        if outcome is not None:
            self._spawn(self._isolated(job, self._complete_attempt(job, *outcome)))

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
        self._freed += 1
        self._unplaced.pop((job.framework, job.attempt), None)
        job.state, job.exit_code, job.completed = state, exit_code, now_ms()
        job.exit_diagnostics = diagnostics
        self.save(job)
        self._wake.set()

    async def _kill_tasks(self, job: Job, state: str, exit_code: int | None) -> None:
        """End every unfinished task of the job: marked first (so none still starting will run), then
        asked to stop, killed after a grace (`_kill_groups`)."""
        victims = []
        self._freed += 1
        for task in job.tasks:
            if task.finished:
                continue
            running = self.running.pop((job.framework, task.role, task.index), None)
            task.state, task.completed = state, now_ms()
            if exit_code is not None:
                task.exit_code = exit_code
            if running is not None:
                victims.append(running)
        await self._kill_groups(victims)

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


def copy_files(source: Path, target: Path, entries: list[str]) -> None:
    """Copy these folders and files (paths relative to `source`, parents first) into `target`, and
    nothing else. `tar` does the work where it exists: a Python copy in a thread would wait for the
    GIL at every file while the API keeps the event loop busy (50,000 files took minutes that way)."""
    target.mkdir(mode=0o700, parents=True, exist_ok=True)
    tar = shutil.which("tar")
    if tar is None:
        for relative in entries:
            if (source / relative).is_dir():
                (target / relative).mkdir(mode=0o700, exist_ok=True)
            else:
                shutil.copyfile(source / relative, target / relative)
        return
    import subprocess
    import tempfile

    with tempfile.TemporaryFile() as listing, tempfile.TemporaryFile() as errors:
        listing.write(b"\0".join(os.fsencode(e) for e in entries))
        listing.seek(0)
        pack = subprocess.Popen([tar, "-C", str(source), "--null", "--no-recursion", "-T", "-", "-cf", "-"],
                                stdin=listing, stdout=subprocess.PIPE, stderr=errors)
        unpack = subprocess.Popen([tar, "-C", str(target), "-xf", "-"], stdin=pack.stdout, stderr=errors)
        pack.stdout.close()  # the unpacking tar alone reads the archive
        if unpack.wait() != 0 or pack.wait() != 0:
            errors.seek(0)
            raise OSError(f"copying the code failed: {errors.read().decode(errors='replace').strip()}")


def unschedulable(job: Job) -> tuple[int, str] | None:
    """Why the scheduler can never place this job (exit code, reason), or None: judged from its roles
    alone, before anything is made per task, so a job of 2,147,483,648 instances costs what one does."""
    if job.unrunnable:
        return SCHEDULER_REFUSED, job.unrunnable
    names = [r.name for r in job.roles]
    twice = sorted({n for n in names if names.count(n) > 1}) if len(set(names)) < len(names) else []
    if twice:  # the v1 server accepts it; the scheduler, keying roles by name, cannot place the job
        return SCHEDULER_REFUSED, (f"Task role name {', '.join(twice)} is used by more than one task role: the scheduler "
                                   "keys roles by name and cannot run this job.")
    if job.total_tasks > MAX_TASKS:
        return BEYOND_THIS_MACHINE, (f"The job has {job.total_tasks:,} tasks; the local cluster runs each task as a process "
                                     f"of this machine, at most {MAX_TASKS:,} for a job. Lower its instances (taskNumber).")
    ports = sum(r.tasks * count for r in job.roles for _, count in r.ports.values())
    if ports > MAX_PORTS:
        return BEYOND_THIS_MACHINE, (f"The job's tasks ask for {ports:,} ports in all; the local cluster gives a job at most "
                                     f"{MAX_PORTS:,} of this machine's ports.")
    for r in job.roles:
        for label, (begin, count) in r.ports.items():
            last = begin + r.tasks * count - 1 if begin else 0
            if begin < 0 or last > 65535:
                return BEYOND_THIS_MACHINE, (f"Port {label} of task role {r.name} asks for ports {begin} to {last}: ports "
                                             "are 1 to 65535 (beginAt 0 takes free ones).")
    return None


def _words(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _report(job: Job, what: str, exc: BaseException) -> None:
    """A line on the cluster's stderr for what only its operator can act on."""
    print(f"pai local-cluster: job {job.framework} {what}: {_words(exc)}", file=sys.stderr, flush=True)


def scaled_note(need: dict[str, int], have: dict[str, int], over: list[str]) -> str:
    """One line on what a job larger than this machine gets instead of what it asked for ("" if it fits)."""
    parts = []
    if "gpu" in over:
        parts.append("this machine has no GPU: tasks run without one; CUDA_VISIBLE_DEVICES is empty" if have["gpu"] == 0 else
                     f"the job asks for {need['gpu']} GPUs, this machine has {have['gpu']}: its tasks share them")
    if "cpu" in over:
        parts.append(f"the job asks for {need['cpu']} CPUs, this machine has {have['cpu']}: its tasks share them")
    if "memory_mb" in over:
        parts.append(f"the job asks for {need['memory_mb']} MB of memory, this machine has {have['memory_mb']} MB")
    if not parts:
        return ""
    return "Run scaled to this machine (pai local-cluster --strict-resources refuses instead): " + "; ".join(parts) + "."
