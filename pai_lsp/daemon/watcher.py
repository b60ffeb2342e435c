"""Job states for the daemon, each fetched once however many ask.

A followed job has one poller (its detailed status, tasks included) shared by all its followers;
the other watched jobs are learnt from one job-list request per cluster. Every change of a watched
job goes to the subscribers as `job.status`. What is watched is saved, so a restarted daemon goes
on watching.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from ..core.openpai import FINAL, JobDetail
from ..errors import PaiError, ServerError
from ..files import write_atomic
from .protocol import JobStatus
from .sessions import Sessions

WATCH_INTERVAL = 2.0  # seconds between two job-list requests for watched jobs nobody follows
FOLLOW_INTERVAL = 0.2  # seconds between two looks at a followed job

Notify = Callable[[JobStatus], Awaitable[None]]


class Feed:
    """The latest detailed status of one job, published by its poller to every follower."""

    def __init__(self) -> None:
        self.status: JobDetail | None = None
        self.error: PaiError | None = None
        self.version = 0
        self.followers = 0
        self.poller: asyncio.Task | None = None
        self._changed = asyncio.Event()

    def publish(self, status: JobDetail | None, error: PaiError | None = None) -> None:
        self.status, self.error = status, error
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def next(self, seen: int, timeout: float | None) -> tuple[int, JobDetail]:
        """(version, status) newer than version `seen`, or the current one once `timeout` passed."""
        if self.version == seen:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout if self.version else None)
        if self.error is not None:
            raise self.error
        assert self.status is not None
        return self.version, self.status


class Watcher:
    def __init__(self, sessions: Sessions, path: Path):
        self.sessions = sessions
        self.path = path
        self.watched: dict[str, dict] = json.loads(path.read_text()) if path.exists() else {}
        self.subscribers: set[Notify] = set()
        self.feeds: dict[tuple[str, str], Feed] = {}

    # -- what is watched -------------------------------------------------------------
    def watch(self, cluster: str, job: str) -> None:
        self.watched[f"{cluster}/{job}"] = {"cluster": cluster, "job": job, "state": None}
        self._save()

    def _save(self) -> None:
        write_atomic(self.path, json.dumps(self.watched))

    async def _record(self, event: JobStatus) -> None:
        """A state seen for a job: kept and sent to subscribers when it is a watched job's change."""
        entry = self.watched.get(f"{event.cluster}/{event.job}")
        if entry is None or entry.get("state") == event.state:
            return
        entry["state"] = event.state
        self._save()
        for notify in list(self.subscribers):
            try:
                await notify(event)
            except (ConnectionError, OSError):
                self.subscribers.discard(notify)

    # -- followed jobs ---------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def follow(self, cluster: str, job: str) -> AsyncIterator[Feed]:
        """The job's feed for as long as the caller follows it (its poller stops with the last one)."""
        key = (cluster, job)
        feed = self.feeds.get(key)
        if feed is None:
            feed = self.feeds[key] = Feed()
            feed.poller = asyncio.ensure_future(self._poll(cluster, job, feed))
        feed.followers += 1
        try:
            yield feed
        finally:
            feed.followers -= 1
            if feed.followers == 0:
                self.feeds.pop(key, None)
                if feed.poller is not None:
                    feed.poller.cancel()

    async def _poll(self, cluster: str, job: str, feed: Feed) -> None:
        while True:
            try:
                status = await self.sessions.run(cluster, lambda backend: backend.job(job))
            except PaiError as exc:
                feed.publish(None, exc)
                return
            except Exception as exc:  # noqa: BLE001 - its followers must hear of it, not wait forever
                feed.publish(None, ServerError(f"{type(exc).__name__}: {exc}"))
                return
            feed.publish(status)
            await self._record(status_event(cluster, status))
            if status.state in FINAL:
                return
            await asyncio.sleep(FOLLOW_INTERVAL)

    # -- the others ------------------------------------------------------------------
    async def run(self) -> None:
        """Forever: one job-list request per cluster with unfinished watched jobs nobody follows."""
        while True:
            await asyncio.sleep(WATCH_INTERVAL)
            waiting = [w for w in self.watched.values()
                       if w.get("state") not in FINAL and (w["cluster"], w["job"]) not in self.feeds]
            for cluster in {w["cluster"] for w in waiting}:
                try:
                    listed = await self.sessions.run(cluster, lambda backend: backend.jobs())
                except PaiError:
                    continue
                states = {j.name: j for j in listed}
                for w in waiting:
                    found = states.get(w["job"]) if w["cluster"] == cluster else None
                    if found is not None:
                        await self._record(JobStatus(job=w["job"], cluster=cluster, state=found.state,
                                                     exit_code=found.exit_code))


def status_event(cluster: str, status: JobDetail) -> JobStatus:
    return JobStatus(job=status.name, cluster=cluster, state=status.state, exit_code=status.exit_code,
                     diagnostics=status.diagnostics, user_exit_code=status.user_exit_code, exit_reason=status.exit_reason)
