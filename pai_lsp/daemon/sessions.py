"""One logged-in session per cluster for as long as its profile and secrets stay the same; its
blocking calls (HTTP, HDFS, uploads) run in threads so one slow cluster never stalls other clients.

Profiles and secrets are read afresh for every request, so a running daemon follows `pai cluster
add/remove/login` at once. (Pollers reuse the session they have without that check.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..clusters.backend import Backend
from ..clusters.connect import connect, identity
from ..clusters.profiles import LOCALS, resolve
from ..errors import Unreachable

T = TypeVar("T")
CALLS = 16  # users' requests at once (an upload holds one for its length)
POLLS = 8  # pollers' calls at once: each is short, and a thread costs ~1 MB, so few serve many


class Sessions:
    def __init__(self, connect: Callable[[str, bool], Backend] = connect) -> None:
        """`connect(name, start)`: opens a session with a profile, starting the local cluster when
        `start` (tests pass one that opens a cluster in memory)."""
        self.connect = connect
        self.backends: dict[str, tuple[Hashable, Backend]] = {}
        # Two pools: a burst of users' requests (or long uploads) never starves the pollers, nor they it.
        self.calls = ThreadPoolExecutor(CALLS, thread_name_prefix="pai-call")
        self.polls = ThreadPoolExecutor(POLLS, thread_name_prefix="pai-poll")

    async def resolve(self, cluster: str | None) -> str:
        """The profile a request means (absent: the default one, else `local`)."""
        return await self.thread(resolve, cluster)

    async def thread(self, fn: Callable[..., T], *args: Any, poll: bool = False) -> T:
        """`fn(*args)` in a thread of the users' pool (or, with `poll`, of the pollers')."""
        return await asyncio.get_running_loop().run_in_executor(self.polls if poll else self.calls, fn, *args)

    async def run(self, cluster: str | None, fn: Callable[..., T], *args: Any, fresh: bool = True) -> T:
        """`fn(backend, *args)` in a thread. With `fresh` (a user's request), a session whose
        profile or token changed since it was opened is replaced first, and a local cluster that is
        not running is started as `pai run` does; without it (a poller) the kept session is used and
        a stopped local cluster stays stopped. A kept session that cannot reach its cluster is
        dropped; for the local cluster (which may have restarted on another port) a new one is
        opened and `fn` runs again."""

        def call() -> T:
            # A poller names a session it has: reading the profiles again (every log read) would only cost time.
            name = cluster if not fresh and cluster in self.backends else resolve(cluster)
            now = identity(name) if fresh or name not in self.backends else self.backends[name][0]
            kept = self.backends.get(name)
            if kept is not None and kept[0] != now:
                self.backends.pop(name, None)  # not closed: another request may still use it
                kept = None
            was_kept = kept is not None
            if kept is None:
                kept = self.backends[name] = (now, self.connect(name, fresh))
            try:
                return fn(kept[1], *args)
            except Unreachable:
                if self.backends.get(name) is kept:
                    self.backends.pop(name, None)
                kept[1].close()
                if not was_kept or name not in LOCALS:
                    raise
            kept = self.backends[name] = (None, self.connect(name, fresh))
            return fn(kept[1], *args)

        return await self.thread(call, poll=not fresh)

    def forget(self) -> None:
        """Drop the kept sessions (not closed: a request may still be using one)."""
        self.backends = {}

    def close(self) -> None:
        for _, backend in self.backends.values():
            backend.close()
        self.backends.clear()
        for pool in (self.calls, self.polls):
            pool.shutdown(wait=False, cancel_futures=True)
