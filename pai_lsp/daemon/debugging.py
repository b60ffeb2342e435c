"""The daemon's side of Debug Job: `job.debugTargets` (where each debugged task waits, asked of the
service in a worker thread; with `wait`, asked again until one more listens or all have ended) and
`job.debugEnd`. A target of a job submitted with `via: ssh` listens on 127.0.0.1 inside its task:
`reach` is the one place its address becomes one a debugger here can connect to (an SSH tunnel of the
daemon's registry, daemon/ssh_tunnel.py, which never connects to the port to see whether it listens:
debugpy takes one client)."""

from __future__ import annotations

import asyncio
import getpass
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from .. import api
from ..clusters.profiles import LOCALS
from ..errors import PaiError
from ..service import debug as service
from .ssh_tunnel import SshAccess, TunnelRegistry

if TYPE_CHECKING:
    from ..core.openpai_rest import TaskStatus
    from .sessions import Sessions

POLL_SECONDS = 0.3  # how often a waiting `job.debugTargets` reads the logs again, on the local cluster
POLL_REMOTE_SECONDS = 1.0  # ... on a real cluster (a job detail and each debugged task's log, each time)
WAIT_MOST = 600.0  # seconds one `job.debugTargets` may wait


class Debugging:
    def __init__(self, sessions: Sessions, tunnels: TunnelRegistry | None = None):
        self.sessions = sessions
        self.watches: dict[tuple[str, str], service.DebugWatch] = {}
        # The daemon's tunnels: a job's are closed by `end`, by the job's end (the watcher) and at the daemon's stop.
        self.tunnels = tunnels if tunnels is not None else TunnelRegistry()

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
        # A real cluster's tasks are logged in to as root; the local cluster's as the user who runs it. The key:
        # the one kept for the job's debug session, else the user's own (~/.ssh, the agent).
        kept = self.tunnels.kept_key(cluster, job)
        access = SshAccess(user=getpass.getuser() if cluster in LOCALS else "root", keys=(kept,) if kept is not None else None)
        # The launcher's line said the port listens: no socket-table check (it would start the task's login shell).
        return await self.tunnels.reach_task(cluster, job, task, port, access, check=False)

    async def end(self, p: api.DebugEnd) -> api.DebugEndResult:
        cluster = await self.sessions.resolve(p.cluster)
        self.watches.pop((cluster, p.job), None)
        closed = await self.tunnels.release(cluster, p.job)
        return api.DebugEndResult(job=p.job, closed=closed)
