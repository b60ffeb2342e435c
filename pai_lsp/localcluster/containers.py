"""Where a container task's processes are on this machine: the container's first process (its init, with
`--init`), which the engine names (`<engine> inspect`, State.Pid), and everything below it. job-exporter
reads a container's cgroup; here its processes are walked as a host task's are (`metrics_export.py`),
so both runtimes' series mean the same.

A pid the engine gives counts only where it is a process of this machine: one that started after the
task's engine client did and whose cgroup names the container's id (on Linux, where an engine's
containers are the host's processes). Docker Desktop's containers (macOS, Windows) run in a VM whose
pids are not this machine's, so they have none, and no series.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import psutil

INSPECT_TIMEOUT = 10  # seconds: an engine that does not answer leaves the task without series this time
RETRY_SECONDS = 2.0  # a container not started yet (its image being pulled) is asked about again after this


@dataclass(frozen=True)
class Wanted:
    """A container task whose processes are to be found: its engine, container name and engine client."""
    engine: str
    name: str
    client: int  # the client's pid (`docker run ...`, the task's command)


@dataclass(frozen=True)
class Found:
    pid: int
    started: float  # its create time, so a pid reused later is never taken for it


def inspect(engine: str, names: list[str]) -> dict[str, tuple[str, int]]:
    """name -> (container id, host pid of its first process; 0 when it is not running), for the names the
    engine knows (one call for them all; a name it does not know yet is left out)."""
    try:
        done = subprocess.run([engine, "inspect", "--type", "container", "--format", "{{.Name}} {{.Id}} {{.State.Pid}}",
                               *names], capture_output=True, text=True, timeout=INSPECT_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return {}
    found = {}
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].isdigit():
            found[parts[0].lstrip("/")] = (parts[1], int(parts[2]))  # docker writes the name as /NAME
    return found


def ours(pid: int, container_id: str, client_started: float) -> Found | None:
    """The engine's `pid` as a process of this machine, or None where it is not one (see the module's note)."""
    try:
        proc = psutil.Process(pid)
        started = proc.create_time()
        cgroups = Path(f"/proc/{pid}/cgroup").read_text(encoding="utf-8", errors="replace")
    except (psutil.Error, OSError):
        return None
    if started + 0.01 < client_started or container_id not in cgroups:
        return None
    return Found(pid, started)


class ContainerProcesses:
    """Each container task's first process, asked of its engine once (retried only while the container
    has not started). Blocking: call `find` in a thread."""

    def __init__(self) -> None:
        self._known: dict[Wanted, Found | None] = {}  # None: running, but not a process of this machine
        self._asked: dict[Wanted, float] = {}  # when a container not started yet was last asked about

    def find(self, wanted: Iterable[Wanted]) -> dict[Wanted, Found]:
        wanted = list(dict.fromkeys(wanted))
        self._known = {w: f for w, f in self._known.items() if w in wanted}  # a task gone is forgotten
        self._asked = {w: t for w, t in self._asked.items() if w in wanted}
        now = time.monotonic()
        ask = [w for w in wanted if w not in self._known and now - self._asked.get(w, float("-inf")) >= RETRY_SECONDS]
        for engine in {w.engine for w in ask}:
            of_engine = [w for w in ask if w.engine == engine]
            answers = inspect(engine, [w.name for w in of_engine])
            for w in of_engine:
                self._asked[w] = now
                container_id, pid = answers.get(w.name, ("", 0))
                if pid > 0:
                    self._known[w] = ours(pid, container_id, _started(w.client))
        return {w: f for w in wanted if (f := self._known.get(w)) is not None}


def _started(pid: int) -> float:
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return float("inf")  # the client is gone: nothing started after it is its container
