"""Every process a task starts, found again however it left the task: its process group (`sleep &`),
a new session (`setsid`), even a cleared environment (`env -i`) — and ended on stop, when its command
ends, at shutdown, and by the next cluster after a crash.

A task is known by three things, kept in a small file in its folder so a restarted cluster finds
them: the marker in its environment (`PAI_LOCAL_TASK_ID`, inherited by whatever it starts, and unique
to this start of this task), its command's pid, and the descendants of that command noted every
TRACK_SECONDS while it runs (pid and start time, so a reused pid is never mistaken for one). psutil
does the looking, on every platform it supports.

How they are started and ended is chosen by what the OS offers: where it has POSIX sessions (Linux,
macOS), each task runs in its own, signalled as a whole at once and then swept by psutil; where it
has none (Windows: its own process group, no console) psutil's sweep alone ends the tree. Windows
keeps no parent for an orphan (its parent pid goes stale, and may be reused), so the marker and the
descendants noted while it ran are what find it; a Job object would also hold them, but through
ctypes code no test here could run, while this path runs on Linux too: PAI_LSP_PORTABLE_PROCESSES=1
forces it, and CI runs the local cluster's process tests a second time so.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import psutil

from ..common import portable
from ..common.atomic import write_atomic

TASK_MARKER = "PAI_LOCAL_TASK_ID"
RECORD_FILE = "processes.json"
TRACK_SECONDS = 1.0
KILL_ROUNDS = 50  # SIGKILL sweeps before giving up on a task that keeps forking


def posix_processes() -> bool:
    """Whether the OS's POSIX process control is used (Linux, macOS): tasks in sessions of their own,
    signalled as a group, and a signal to ask the cluster to stop. Else (Windows; anywhere with
    PAI_LSP_PORTABLE_PROCESSES=1, `portable.py`) psutil alone finds and ends a task's processes, and a
    stop request in the data folder asks the cluster (`datadir.request_stop`)."""
    return hasattr(os, "setsid") and hasattr(os, "killpg") and not portable.forced()


def spawn_options(posix: bool) -> dict[str, Any]:
    """How a task's command (or the cluster, from its launcher) is started: `subprocess` keywords."""
    if posix:
        return {"start_new_session": True}  # its own session: STOP reaches at once what it starts there
    if sys.platform == "win32":  # its own process group (a console's Ctrl-C is not for it) and no window
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW}
    return {}


def signal_group(pgid: int, force: bool) -> None:
    """SIGKILL (`force`) or SIGTERM to a task's process group, where the OS has them."""
    if sys.platform == "win32":
        return
    try:
        os.killpg(pgid, signal.SIGKILL if force else signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


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
            data = json.loads(record.read_text(encoding="utf-8"))
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

    def note(self, procs: dict[int, psutil.Process], children: dict[int, list[psutil.Process]]) -> None:
        """Add the command's descendants now running (from one scan of every process) to those seen."""
        leader = procs.get(self.leader) if self.leader is not None else None
        if leader is None:
            return
        before = len(self.seen)
        for proc in descendants([leader], children):
            self.seen.setdefault(proc.pid, proc.info["create_time"])
        if len(self.seen) != before:
            self.save()


def scan(*more: str) -> tuple[dict[int, psutil.Process], dict[int, list[psutil.Process]]]:
    """Every live process by pid, and each one's children; `more`: other psutil attributes read in the
    same pass (`proc.info`)."""
    procs: dict[int, psutil.Process] = {}
    children: dict[int, list[psutil.Process]] = {}
    for proc in psutil.process_iter(["ppid", "create_time", "status", *more]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        procs[proc.pid] = proc
        children.setdefault(proc.info["ppid"], []).append(proc)
    return procs, children


def descendants(roots: list[psutil.Process], children: dict[int, list[psutil.Process]]) -> list[psutil.Process]:
    """Everything below `roots`. A child is one that names the parent and started after it, with a
    start time we may read (None: psutil's AccessDenied, not ours): on Windows an orphan keeps its dead
    parent's pid, which a new process may be given since (psutil's `children()` has the same rule)."""
    found: dict[int, psutil.Process] = {}
    stack = list(roots)
    while stack:
        parent = stack.pop()
        born = parent.info["create_time"]
        for child in children.get(parent.pid, []):
            started = child.info["create_time"]
            if child.pid not in found and started is not None and (born is None or started >= born):
                found[child.pid] = child
                stack.append(child)
    return list(found.values())


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
    procs, children = scan()
    found: dict[int, psutil.Process] = {}
    for pid, proc in procs.items():
        noted = pid in seen and proc.info["create_time"] is not None and abs(seen[pid] - proc.info["create_time"]) < 0.01
        if pid in leaders or noted or _marker_of(proc) in markers:
            found[pid] = proc
    found.update((proc.pid, proc) for proc in descendants(list(found.values()), children))
    return list(found.values())


def end(tasks: Iterable[TaskProcesses], force: bool = True) -> int:
    """End every process of these tasks: `force` kills them (SIGKILL; TerminateProcess on Windows) and
    sweeps again until none is left (what forked meanwhile included), else asks them to stop (SIGTERM;
    Windows has no such request: TerminateProcess there too).
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
            procs, children = scan()
        except (psutil.Error, OSError):  # a look that failed: the next one notes them
            return
        for task in tasks:
            task.note(procs, children)

    def close(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
