"""Job states and logs for the daemon, each fetched once however many ask, at a cost that grows
with what changes, not with the history.

One board per cluster learns the states of the jobs the daemon watches or follows: each round, one
filtered list of the user's unfinished jobs where the cluster can filter (the same cost with 20,000
finished jobs as with none), else a look at each of those jobs. A followed job has one feed shared
by all its followers: its detail, fetched when the board sees its state change (or while its tasks
still start), and its tasks' logs, read in bounded chunks once per round and kept in a bounded
window from which each follower takes what it lacks (a follower behind the window reads on its
own). Nothing here blocks the event loop: cluster calls run in the sessions' threads.

Every change of a watched job goes to the subscribers as `job.status`. What is watched is saved,
so a restarted daemon goes on watching.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from pai_lsp.api import JobStatus, said_as_json

from ..clusters.profiles import LOCALS
from ..common.atomic import write_atomic
from ..core.openpai_rest import FINAL, JobDetail, JobSummary
from ..errors import NotFound, PaiError, ServerError
from .sessions import Sessions

WATCH_INTERVAL = 2.0  # seconds between two rounds of a board whose jobs nobody follows
# ... on the embedded local cluster, where a look costs nothing: a job's end (and its explanation) is seen within it
LOCAL_WATCH_INTERVAL = 0.5
FOLLOW_INTERVAL = 0.5  # ... when some are followed: a state change reaches followers within this
TASKS_INTERVAL = 1.0  # seconds between two looks at a running job whose tasks have not all got a log yet
LOG_INTERVAL = 0.1  # seconds between two reads of a followed log, at the least
LOG_READS = 200  # reads per second of all followed logs together: beyond 20 logs, each is read less often
LIST_BEYOND = 20  # watched jobs on a cluster that cannot filter: more than this, one whole list is cheaper
CHUNK = 1 << 20  # bytes per log read, and per `job.log` event
WINDOW = 4 << 20  # bytes of a log kept for followers that are behind the newest
LAG = 1.0  # seconds a feed waits for a follower in its window before it reads on without it

Notify = Callable[[JobStatus], Awaitable[None]]


@dataclass(eq=False)
class Follower:
    """What one follower wants (`task` "role:index" or all, `which` log) and how far it got (bytes per task)."""

    task: str | None
    which: str
    offsets: dict[str, int] = field(default_factory=dict)
    tail: int | None = None  # a log it has no offset of: its last `tail` bytes first (None: from its start)

    def wants(self, label: str, which: str) -> bool:
        return which == self.which and (self.task is None or self.task == label)


@dataclass(eq=False)
class Tail:
    """The newest bytes of one log: `buf` holds bytes `start` .. `end` of it."""

    uri: str
    start: int = 0
    buf: bytearray = field(default_factory=bytearray)

    @property
    def end(self) -> int:
        return self.start + len(self.buf)

    def slice(self, offset: int, size: int) -> bytes | None:
        """Up to `size` bytes from `offset`, when the window holds them."""
        if not self.start <= offset < self.end:
            return None
        return bytes(self.buf[offset - self.start : offset - self.start + size])

    def drop_before(self, offset: int) -> None:
        cut = min(max(0, offset - self.start), len(self.buf))
        if cut:
            del self.buf[:cut]
            self.start += cut


class Feed:
    """One followed job: its latest detail and its logs, published to every follower."""

    def __init__(self, watcher: Watcher, cluster: str, job: str):
        self.watcher, self.cluster, self.job = watcher, cluster, job
        self.status: JobDetail | None = None
        self.error: PaiError | None = None
        self.done = False  # a final state seen and every log read to its end
        self.version = 0
        self.tails: dict[tuple[str, str], Tail] = {}
        self.followers: set[Follower] = set()
        self.board_state: str | None = None  # the state the board saw; None: not among the unfinished jobs
        self.board_detail: JobDetail | None = None  # a detail the board fetched for us
        self.looked = 0.0
        self._changed = asyncio.Event()
        self._kick = asyncio.Event()
        self._progress = asyncio.Event()
        self.poller: asyncio.Task | None = None

    # -- for followers ------------------------------------------------------------------
    def publish(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def changed(self, seen: int) -> None:
        """Return once the version is past `seen`."""
        if self.version == seen:
            await self._changed.wait()

    def kick(self) -> None:
        """Wake the poller now (a state change, a new follower)."""
        self._kick.set()

    def progressed(self) -> None:
        """A follower took a piece: there may be room in the window again."""
        self._progress.set()

    def matching(self, follower: Follower) -> list[tuple[str, Tail]]:
        return [(label, tail) for (label, which), tail in list(self.tails.items()) if follower.wants(label, which)]

    # -- the poller ---------------------------------------------------------------------
    async def run(self) -> None:
        try:
            await self._look()
            while True:
                more = await self._read_round()
                state = self.status.state if self.status else None
                if state in FINAL:
                    if not more:
                        self.done = True
                        self.publish()
                        return
                    continue  # ended: read on until every log is read to its end
                if self.board_detail is not None:
                    self._take(self.board_detail)
                    continue
                if self._stale():
                    await self._look()
                    continue
                if more == "full":
                    continue  # a log has more waiting: read on (the window holds the pace of the followers)
                self._kick.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._kick.wait(), self.watcher.log_interval())
        except PaiError as exc:
            self.error = exc
            self.publish()
        except Exception as exc:  # noqa: BLE001 - its followers must hear of it, not wait forever
            self.error = ServerError(f"{type(exc).__name__}: {exc}")
            self.publish()

    def _stale(self) -> bool:
        """Whether the detail must be fetched again: the board saw another state, or tasks are still starting."""
        state = self.status.state if self.status else None
        if state in FINAL:
            return False
        if self.board_state is None and self.watcher.board_knows(self.cluster):
            return True  # no longer among the unfinished jobs: it ended
        if self.board_state is not None and self.board_state != state:
            return True
        starting = any(t.log is None or t.ip is None for t in self.status.tasks) if self.status else True
        return starting and time.monotonic() - self.looked > TASKS_INTERVAL

    async def _look(self) -> None:
        self._take(await self.watcher.sessions.run(self.cluster, lambda backend: backend.job(self.job), fresh=False))

    def _take(self, status: JobDetail) -> None:
        self.board_detail = None
        self.looked = time.monotonic()
        if self.status is None or (status.state, status.exit_code) != (self.status.state, self.status.exit_code) or \
                [(t.label, t.log) for t in status.tasks] != [(t.label, t.log) for t in self.status.tasks]:
            self.status = status
            self.publish()
        else:
            self.status = status
        self.watcher.record(status_event(self.cluster, status))

    async def _read_round(self) -> str | bool:
        """Read once what each wanted log gained: "full" when a read filled a whole chunk (more is
        waiting), True when something arrived, False when nothing did."""
        assert self.status is not None
        got: str | bool = False
        if not self.status.numbered and self.status.state not in FINAL:
            return got  # a label may yet pass to another task: what is read now could be shown as another's
        for task in self.status.tasks:
            for which in {f.which for f in self.followers if f.task in (None, task.label)}:
                key = (task.label, which)
                tail = self.tails.get(key)
                if tail is None:
                    uri = await self.watcher.sessions.run(self.cluster, lambda b, t=task, w=which: b.log_location(t, w),
                                                          fresh=False)
                    if uri is None:
                        continue
                    tail = self.tails[key] = await self._opened(key, uri)
                    if tail.buf and not got:
                        got = True  # its followers have its end to take
                await self._room(key, tail)
                data = await self.watcher.sessions.run(self.cluster, lambda b, t=tail: b.read_log(t.uri, t.end, CHUNK),
                                                       fresh=False)
                if data:
                    tail.buf += data
                    self._trim(key, tail)
                    got = "full" if len(data) >= CHUNK or got == "full" else True
        if got:
            self.publish()
        return got

    async def _opened(self, key: tuple[str, str], uri: str) -> Tail:
        """A log's window, opened at its end when every follower of it asks for its tail (a 1 GB log is
        not read from its start); at its start otherwise."""
        label, which = key
        wanting = [f for f in self.followers if f.wants(label, which) and label not in f.offsets]
        if not wanting or any(f.tail is None for f in wanting):
            return Tail(uri)
        size = max(f.tail or 0 for f in wanting)
        start, data = await self.watcher.sessions.run(self.cluster, lambda b: b.log_end(uri, size), fresh=False)
        for follower in wanting:  # inside the window from now on: what they need of it is kept
            follower.offsets[label] = max(start, start + len(data) - (follower.tail or 0))
        return Tail(uri, start, bytearray(data))

    def _behind(self, key: tuple[str, str], tail: Tail) -> list[int]:
        """Offsets of the followers of this log that are inside its window."""
        label, which = key
        return [f.offsets.get(label, 0) for f in self.followers
                if f.wants(label, which) and tail.start <= f.offsets.get(label, 0) < tail.end]

    async def _room(self, key: tuple[str, str], tail: Tail) -> None:
        """Wait (up to LAG) until the followers inside the window leave room for one more chunk."""
        deadline = time.monotonic() + LAG
        while (behind := self._behind(key, tail)) and tail.end - min(behind) + CHUNK > WINDOW:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._progress.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._progress.wait(), left)
        self._trim(key, tail)

    def _trim(self, key: tuple[str, str], tail: Tail) -> None:
        """Keep what followers inside the window still need, at most WINDOW bytes."""
        behind = self._behind(key, tail)
        tail.drop_before(max(min(behind) if behind else tail.end, tail.end - WINDOW))


class Watcher:
    def __init__(self, sessions: Sessions, path: Path):
        self.sessions = sessions
        self.path = path
        self.watched: dict[str, dict] = _load(path)
        self.subscribers: set[Notify] = set()
        self.ends: set[Callable[[JobStatus, str], Awaitable[None]]] = set()  # told of each end: (its last status, how it ended)
        self.feeds: dict[tuple[str, str], Feed] = {}
        self.boards: dict[str, asyncio.Task] = {}
        self._wake: dict[str, asyncio.Event] = {}
        self._filtered: set[str] = set()  # clusters whose board lists unfinished jobs in one request

    def log_interval(self) -> float:
        """Seconds between two reads of one followed log: all of them together stay within LOG_READS per second."""
        logs = sum(len(feed.tails) or 1 for feed in self.feeds.values())
        return max(LOG_INTERVAL, logs / LOG_READS)

    def board_knows(self, cluster: str) -> bool:
        """Whether the cluster's board has the whole set of unfinished jobs (so a job missing from it ended)."""
        return cluster in self._filtered

    # -- what is watched -----------------------------------------------------------------
    def watch(self, cluster: str, job: str) -> None:
        self.watched[f"{cluster}/{job}"] = {"cluster": cluster, "job": job, "state": None}
        self._save()
        self._board(cluster)

    def _save(self) -> None:
        write_atomic(self.path, json.dumps(self.watched))

    def record(self, event: JobStatus) -> None:
        """A state seen for a job: kept, and sent to subscribers when it is a watched job's change; an
        end (a final state reached, or a retry: the count went up) also to `ends`' listeners, once."""
        entry = self.watched.get(f"{event.cluster}/{event.job}")
        if entry is None:
            return
        before, tried = entry.get("state"), entry.get("retries")
        retried = event.retries is not None and tried is not None and event.retries > tried
        if before == event.state and not retried and (event.retries is None or tried is not None):
            return
        entry["state"] = event.state
        if event.retries is not None:
            entry["retries"] = event.retries
        self._save()
        if before != event.state:
            for notify in list(self.subscribers):
                asyncio.ensure_future(self._send(notify, event))
        end = event.state if event.state in FINAL and before not in FINAL else "RETRIED" if retried else None
        if end is not None:
            for listener in list(self.ends):
                asyncio.ensure_future(listener(event, end))

    async def _send(self, notify: Notify, event: JobStatus) -> None:
        try:
            await notify(event)
        except (ConnectionError, OSError):
            self.subscribers.discard(notify)

    # -- followed jobs -------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def follow(self, cluster: str, job: str, follower: Follower) -> AsyncIterator[Feed]:
        """The job's feed for as long as the caller follows it (its poller stops with the last follower)."""
        key = (cluster, job)
        feed = self.feeds.get(key)
        if feed is None or feed.error is not None or feed.done:  # a finished feed has only the logs its followers wanted
            feed = self.feeds[key] = Feed(self, cluster, job)
            feed.poller = asyncio.ensure_future(feed.run())
        feed.followers.add(follower)
        feed.kick()
        self._board(cluster)
        try:
            yield feed
        finally:
            feed.followers.discard(follower)
            if not feed.followers:
                if self.feeds.get(key) is feed:
                    del self.feeds[key]
                if feed.poller is not None:
                    feed.poller.cancel()

    # -- boards ----------------------------------------------------------------------------
    async def run(self) -> None:
        """Start the boards of the clusters with unfinished watched jobs (after a restart)."""
        for w in list(self.watched.values()):
            if w.get("state") not in FINAL:
                self._board(w["cluster"])

    def _board(self, cluster: str) -> None:
        wake = self._wake.setdefault(cluster, asyncio.Event())
        wake.set()
        if cluster not in self.boards or self.boards[cluster].done():
            self.boards[cluster] = asyncio.ensure_future(self._run_board(cluster, wake))

    async def _run_board(self, cluster: str, wake: asyncio.Event) -> None:
        while True:
            followed = {job: feed for (c, job), feed in self.feeds.items() if c == cluster and not feed.done}
            watched = {w["job"] for w in self.watched.values()
                       if w["cluster"] == cluster and w.get("state") not in FINAL and w["job"] not in followed}
            if not followed and not watched:
                return
            wake.clear()
            try:
                await self._round(cluster, followed, watched)
            except PaiError:
                pass  # unreachable now: the next round tries again
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(wake.wait(), FOLLOW_INTERVAL if followed else
                                       LOCAL_WATCH_INTERVAL if cluster in LOCALS else WATCH_INTERVAL)

    async def _round(self, cluster: str, followed: dict[str, Feed], watched: set[str]) -> None:
        """One look at the states of a cluster's jobs of interest."""
        run = self.sessions.run
        active = await run(cluster, lambda backend: backend.active_jobs(), fresh=False)
        if active is not None:
            self._filtered.add(cluster)
            states = {job.name: job for job in active}
            for job, feed in followed.items():
                found = states.get(job)
                feed.board_state = found.state if found is not None else None
                if feed.status is None or feed.board_state != feed.status.state:
                    feed.kick()  # only a change wakes it: its logs are read at their own pace
            for job in watched:
                found = states.get(job)
                if found is not None:
                    self.record(summary_event(cluster, found))
                else:  # ended since the last round: its detail says how
                    await self._look(cluster, job)
            return
        self._filtered.discard(cluster)
        for job, feed in followed.items():
            feed.board_detail = await run(cluster, lambda backend, j=job: backend.job(j), fresh=False)
            feed.board_state = feed.board_detail.state
            feed.kick()
        if len(watched) > LIST_BEYOND:
            listed = {job.name: job for job in await run(cluster, lambda backend: backend.jobs(), fresh=False)}
            for job in watched:
                if (found := listed.get(job)) is not None:
                    self.record(summary_event(cluster, found))
        else:
            for job in watched:
                await self._look(cluster, job)

    async def _look(self, cluster: str, job: str) -> None:
        """A watched job's detail, recorded; one the cluster no longer knows is watched no more."""
        try:
            status = await self.sessions.run(cluster, lambda backend: backend.job(job), fresh=False)
        except NotFound:
            self.watched.pop(f"{cluster}/{job}", None)
            self._save()
            return
        self.record(status_event(cluster, status))


def _load(path: Path) -> dict[str, dict]:
    """The watched jobs saved by an earlier daemon (none when the file is missing or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict) and "cluster" in v and "job" in v} \
        if isinstance(data, dict) else {}


def summary_event(cluster: str, found: JobSummary) -> JobStatus:
    """A job's state as the job list has it."""
    return JobStatus(job=found.name, cluster=cluster, state=found.state, exit_code=found.exit_code, retries=found.retries)


def status_event(cluster: str, status: JobDetail) -> JobStatus:
    return JobStatus(job=status.name, cluster=cluster, state=status.state, exit_code=status.exit_code,
                     diagnostics=str(status.diagnostics), diagnostics_said=said_as_json(status.diagnostics),
                     user_exit_code=status.user_exit_code, exit_reason=status.exit_reason, retries=status.retries)
