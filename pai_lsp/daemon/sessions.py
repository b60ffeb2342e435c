"""One logged-in session per cluster for the daemon's whole life; its blocking calls (HTTP, HDFS,
uploads) run in threads so one slow cluster never stalls other clients."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from ..clusters.profiles import LOCAL, Profiles
from ..errors import Unreachable
from ..service import jobs as service

T = TypeVar("T")


class Sessions:
    def __init__(self) -> None:
        self.connections: dict[str, service.Connection] = {}

    @staticmethod
    def resolve(cluster: str | None) -> str:
        """The profile a request means (absent: the default one, else `local`)."""
        return Profiles().resolve(cluster)

    async def run(self, cluster: str | None, fn: Callable[..., T], *args: Any) -> T:
        """`fn(connection, *args)` in a thread. A kept session that cannot reach its cluster is
        dropped; for the local cluster (which may have restarted on another port, or stopped) a new
        one is opened, starting the cluster as `pai run` does, and `fn` runs again."""
        name = self.resolve(cluster)

        def call() -> T:
            conn = self.connections.get(name)
            kept = conn is not None
            if conn is None:
                conn = self.connections[name] = service.connect(name)
            try:
                return fn(conn, *args)
            except Unreachable:
                self.connections.pop(name, None)
                conn.close()
                if not kept or name != LOCAL:
                    raise
            conn = self.connections[name] = service.connect(name)
            return fn(conn, *args)

        return await asyncio.to_thread(call)

    def close(self) -> None:
        for conn in self.connections.values():
            conn.close()
        self.connections.clear()
