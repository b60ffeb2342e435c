"""One logged-in session per cluster for the daemon's whole life; its blocking calls (HTTP, HDFS,
uploads) run in threads so one slow cluster never stalls other clients."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from ..clusters.backend import Backend
from ..clusters.connect import connect
from ..clusters.profiles import LOCALS, Profiles
from ..errors import Unreachable

T = TypeVar("T")


class Sessions:
    def __init__(self, connect: Callable[[str], Backend] = connect) -> None:
        """`connect`: opens a session with a profile (tests pass one that opens a cluster in memory)."""
        self.connect = connect
        self.backends: dict[str, Backend] = {}

    @staticmethod
    def resolve(cluster: str | None) -> str:
        """The profile a request means (absent: the default one, else `local`)."""
        return Profiles().resolve(cluster)

    async def run(self, cluster: str | None, fn: Callable[..., T], *args: Any) -> T:
        """`fn(backend, *args)` in a thread. A kept session that cannot reach its cluster is
        dropped; for the local cluster (which may have restarted on another port, or stopped) a new
        one is opened, starting the cluster as `pai run` does, and `fn` runs again."""
        name = self.resolve(cluster)

        def call() -> T:
            backend = self.backends.get(name)
            kept = backend is not None
            if backend is None:
                backend = self.backends[name] = self.connect(name)
            try:
                return fn(backend, *args)
            except Unreachable:
                self.backends.pop(name, None)
                backend.close()
                if not kept or name not in LOCALS:
                    raise
            backend = self.backends[name] = self.connect(name)
            return fn(backend, *args)

        return await asyncio.to_thread(call)

    def forget(self) -> None:
        """Drop the kept sessions (not closed: a request may still be using one)."""
        self.backends = {}

    def close(self) -> None:
        for backend in self.backends.values():
            backend.close()
        self.backends.clear()
