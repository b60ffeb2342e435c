"""A task's memory limit (`memoryMB`), kept as a real cluster keeps it when the local cluster is
started with --enforce-memory: YARN's NodeManager samples a container's process tree and kills it
past its physical memory (exit code -7122), Kubernetes' cgroup kills it (OOMKilled, -1200). Here the
task's processes are sampled every POLL_SECONDS and, past the limit, all of them are killed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import psutil

POLL_SECONDS = 0.2
MEMORY_EXCEEDED = {1: -7122, 2: -1200}  # the job's API version -> the exit spec's code (YARN, Kubernetes)
KILLED_STATUS = 128 + 9  # the command's status as the platforms report a memory kill (SIGKILL, 9), on every OS


@dataclass(frozen=True)
class Exceeded:
    used_mb: int
    limit_mb: int
    pid: int

    def diagnostics(self) -> str:
        """Words the platforms' own messages share (YARN: "running beyond physical memory limits"), so
        a reader of any of them recognises it."""
        return (f"The task exceeded its memory limit: its processes (pid {self.pid}) used {self.used_mb} MB, more than "
                f"the {self.limit_mb} MB its task role asks for (memoryMB); the local cluster killed it. "
                f"Container is running beyond physical memory limits. Current usage: {self.used_mb} MB of "
                f"{self.limit_mb} MB physical memory used. Killing container.")


def resident_mb(pid: int) -> int:
    """The resident memory of a process and all its descendants, in MB (0 once it is gone)."""
    try:
        leader = psutil.Process(pid)
        tree = [leader, *leader.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for proc in tree:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total >> 20


async def guard(running, limit_mb: int) -> Exceeded | None:
    """Until the task's command ends: past `limit_mb`, note it on `running` and kill the task."""
    pid = running.process.pid
    while running.process.returncode is None:
        used = await asyncio.to_thread(resident_mb, pid)
        if used > limit_mb:
            exceeded = Exceeded(used, limit_mb, pid)
            running.over_memory(exceeded)
            return exceeded
        await asyncio.sleep(POLL_SECONDS)
    return None
