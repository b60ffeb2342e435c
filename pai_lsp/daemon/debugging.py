"""The daemon's side of Debug Job: `job.debugTargets` (where each debugged task waits, asked of the
service in a worker thread; with `wait`, asked again until one more listens or all have ended) and
`job.debugEnd`. A target of a job submitted with `via: ssh` listens on 127.0.0.1 inside its task:
`reach` is the one place its address becomes one a debugger here can connect to (an SSH tunnel,
daemon/ssh_tunnel.py, opened without probing the port: debugpy takes one client)."""

from __future__ import annotations

import asyncio
import getpass
import importlib
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .. import api
from ..clusters.profiles import LOCALS
from ..core.messages import message
from ..errors import PaiError, Unsupported
from ..service import debug as service

if TYPE_CHECKING:
    from ..core.openpai_rest import TaskStatus
    from .sessions import Sessions

POLL_SECONDS = 0.3  # how often a waiting `job.debugTargets` reads the logs again, on the local cluster
POLL_REMOTE_SECONDS = 1.0  # ... on a real cluster (a job detail and each debugged task's log, each time)
WAIT_MOST = 600.0  # seconds one `job.debugTargets` may wait


class Debugging:
    def __init__(self, sessions: Sessions):
        self.sessions = sessions
        self.watches: dict[tuple[str, str], service.DebugWatch] = {}
        self.tunnels: Any = None  # ssh_tunnel.TunnelRegistry, made with the first tunnel

    async def targets(self, p: api.DebugTargets) -> api.DebugTargetsResult:
        cluster = await self.sessions.resolve(p.cluster)
        watch = self.watches.setdefault((cluster, p.job), service.DebugWatch())
        deadline = time.monotonic() + min(max(p.wait or 0.0, 0.0), WAIT_MOST)
        while True:
            answer = await self.sessions.run(cluster, service.targets, p.job, watch, p.locale)
            listening = [t for t in answer.targets if t.state == "listening"]
            done = all(t.state == "ended" for t in answer.targets) or answer.state in ("SUCCEEDED", "FAILED", "STOPPED")
            if len(listening) > p.known or done or time.monotonic() >= deadline:
                return await self._reachable(cluster, p.job, watch, answer, p.locale)
            await asyncio.sleep(POLL_SECONDS if cluster in LOCALS else POLL_REMOTE_SECONDS)

    async def _reachable(self, cluster: str, job: str, watch: service.DebugWatch,
                         answer: api.DebugTargetsResult, locale: str | None) -> api.DebugTargetsResult:
        """The listening targets of tasks asked `via: ssh` at the local end of a tunnel."""
        out, notes = [], [answer.message] if answer.message else []
        for target in answer.targets:
            if target.state == "listening" and watch.via.get(target.task) == "ssh":
                try:
                    host, port = await self.reach(cluster, job, watch.tasks[target.task], target.port)
                except PaiError as exc:
                    notes.append(exc.render(locale))
                    target = replace(target, state="waiting")
                else:
                    target = replace(target, host=host, port=port)
            out.append(target)
        return replace(answer, targets=out, message="; ".join(notes) or None)

    async def reach(self, cluster: str, job: str, task: TaskStatus, port: int) -> tuple[str, int]:
        """The local (host, port) that leads to `port` on 127.0.0.1 inside `task`, through its sshd."""
        try:
            tunnel = importlib.import_module(f"{__package__}.ssh_tunnel")
        except ImportError:
            raise Unsupported(message("debug.no-tunnel", task=task.label)) from None
        if self.tunnels is None:
            self.tunnels = tunnel.TunnelRegistry()
        # A real cluster's tasks are logged in to as root; the local cluster's as the user who runs it.
        access = tunnel.SshAccess(user=getpass.getuser()) if cluster in LOCALS else tunnel.SshAccess()
        return await self.tunnels.reach(cluster, job, tunnel.SshTarget.of_task(task, job), port, access, probe=False)

    async def end(self, p: api.DebugEnd) -> api.DebugEndResult:
        cluster = await self.sessions.resolve(p.cluster)
        self.watches.pop((cluster, p.job), None)
        closed = await self.tunnels.release(cluster, p.job) if self.tunnels is not None else 0
        return api.DebugEndResult(job=p.job, closed=closed)
