"""Every process a task starts, found again however it left the task: its process group (`sleep &`),
a new session (`setsid`), even a cleared environment (`env -i`) — and ended on stop, when its command
ends, at shutdown, and by the next cluster after a crash.

A task is known by three things, kept in a small file in its folder so a restarted cluster finds
them: the marker in its environment (`PAI_LOCAL_TASK_ID`, inherited by whatever it starts, and unique
to this start of this task), its command's pid, and the descendants of that command noted every
TRACK_SECONDS while it runs (pid and start time, so a reused pid is never mistaken for one). psutil
does the looking, on every platform it supports.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable
from pathlib import Path

import psutil

from ..files import write_atomic

TASK_MARKER = "PAI_LOCAL_TASK_ID"
RECORD_FILE = "processes.json"
TRACK_SECONDS = 1.0
KILL_ROUNDS = 50  # SIGKILL sweeps before giving up on a task that keeps forking


class TaskProcesses:
    """What identifies one started task's processes; `record` is the file that keeps it."""

    def __init__(self, record: Path, marker: str, leader: int | None = None, seen: dict[int, float] | None = None):
        self.record = record
        self.marker = marker
        self.leader = leader
        self.seen: dict[int, float] = dict(seen or {})  # pid -> create time, of every descendant ever noted

    @classmethod
    def load(cls, record: Path) -> TaskProcesses | None:
        try:
            data = json.loads(record.read_text())
            return cls(record, str(data["marker"]), data.get("leader"), {int(p): float(t) for p, t in data.get("seen", [])})
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def save(self) -> None:
        """Keep what identifies the task. A failure (a full disk) is not the task's: it runs on, less tracked."""
        data = {"marker": self.marker, "leader": self.leader, "seen": sorted(dict(self.seen).items())}
        try:
            write_atomic(self.record, json.dumps(data), private=True)
        except OSError:
            pass

    def note(self, children: dict[int, list[psutil.Process]]) -> None:
        """Add the command's descendants now running (from one scan of every process) to those seen."""
        if self.leader is None:
            return
        before = len(self.seen)
        stack = list(children.get(self.leader, []))
        while stack:
            proc = stack.pop()
            if proc.info["create_time"] is not None:  # None: not ours to read (psutil's AccessDenied)
                self.seen.setdefault(proc.pid, proc.info["create_time"])
            stack.extend(children.get(proc.pid, []))
        if len(self.seen) != before:
            self.save()


def _scan() -> tuple[list[psutil.Process], dict[int, list[psutil.Process]]]:
    """Every live process, and each one's children."""
    procs, children = [], {}
    for proc in psutil.process_iter(["ppid", "create_time", "status"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        procs.append(proc)
        children.setdefault(proc.info["ppid"], []).append(proc)
    return procs, children


def _marker_of(proc: psutil.Process) -> str | None:
    try:
        return proc.environ().get(TASK_MARKER)
    except (psutil.Error, OSError):  # another user's process, or gone
        return None


def find(tasks: Iterable[TaskProcesses]) -> list[psutil.Process]:
    """The live processes of these tasks: those carrying a task's marker, those noted as its
    command's descendants, the command itself, and everything below any of them."""
    tasks = list(tasks)
    markers = {t.marker for t in tasks}
    seen = {pid: created for t in tasks for pid, created in dict(t.seen).items()}  # a copy: the tracker adds in its thread
    leaders = {t.leader for t in tasks if t.leader}
    procs, children = _scan()
    found: dict[int, psutil.Process] = {}
    for proc in procs:
        pid = proc.pid
        noted = pid in seen and proc.info["create_time"] is not None and abs(seen[pid] - proc.info["create_time"]) < 0.01
        if pid in leaders or noted or _marker_of(proc) in markers:
            found[pid] = proc
    stack = list(found.values())
    while stack:
        for child in children.get(stack.pop().pid, []):
            if child.pid not in found:
                found[child.pid] = child
                stack.append(child)
    return list(found.values())


def end(tasks: Iterable[TaskProcesses], force: bool = True) -> int:
    """End every process of these tasks: `force` kills them (SIGKILL; TerminateProcess on Windows) and
    sweeps again until none is left (what forked meanwhile included), else asks them to stop (SIGTERM).
    Blocking: call it in a thread from the event loop. How many were signalled."""
    tasks = list(tasks)
    signalled: set[int] = set()
    for _ in range(KILL_ROUNDS):
        victims = find(tasks)
        for proc in victims:
            try:
                proc.kill() if force else proc.terminate()
                signalled.add(proc.pid)
            except psutil.Error:
                pass
        if not force or not victims:
            break
        time.sleep(0.02)
    return len(signalled)


def leftover(record: Path, legacy_marker: str) -> TaskProcesses:
    """What identifies a task an earlier run of the cluster started: its record, or for a task started
    by an older version, the marker it had then. Not its command's pid, which may be another's by now."""
    task = TaskProcesses.load(record) or TaskProcesses(record, legacy_marker)
    task.leader = None
    return task


class Tracker:
    """Notes the descendants of every running task's command, every TRACK_SECONDS, in one scan."""

    def __init__(self) -> None:
        self.tasks: set[TaskProcesses] = set()
        self._loop: asyncio.Task | None = None

    def add(self, task: TaskProcesses) -> None:
        self.tasks.add(task)
        if self._loop is None or self._loop.done():
            self._loop = asyncio.ensure_future(self._run())

    def discard(self, task: TaskProcesses) -> None:
        self.tasks.discard(task)

    async def _run(self) -> None:
        while self.tasks:
            await asyncio.to_thread(self.note, list(self.tasks))
            await asyncio.sleep(TRACK_SECONDS)

    @staticmethod
    def note(tasks: list[TaskProcesses]) -> None:
        try:
            _, children = _scan()
        except (psutil.Error, OSError):  # a look that failed: the next one notes them
            return
        for task in tasks:
            task.note(children)

    def close(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
