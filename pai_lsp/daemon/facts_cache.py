"""What the editor's checks need of each cluster (its storages, whether it reads v2 jobs, its capacity
and queue: service/editor_facts.py), kept a while: the one place the daemon keeps cluster data for editors.

The language server asks on behalf of every keystroke's checks, so an answer is kept (`FRESH` seconds)
and then given on, marked stale, while one fetch in the background asks again; a cluster that could
not be asked is not asked again for `RETRY` seconds. The local cluster is never started for this (a
poller's session: `Sessions.run(fresh=False)`), and at most `KEPT` clusters are kept.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass, replace

from ..api import ClusterFactsResult
from ..errors import PaiError
from ..service.editor_facts import cluster_facts
from .sessions import Sessions

FRESH = 60.0  # seconds an answer is given as it is
RETRY = 10.0  # seconds a failure is given again before the cluster is asked again
KEPT = 32  # clusters whose answers are kept


@dataclass
class Kept:
    at: float  # time.monotonic() of the answer (or the failure)
    result: ClusterFactsResult | None = None
    failure: PaiError | None = None


class ClusterFactsCache:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self.kept: OrderedDict[str, Kept] = OrderedDict()
        self.fetching: dict[str, asyncio.Future] = {}

    async def get(self, cluster: str | None) -> ClusterFactsResult:
        name = await self.sessions.resolve(cluster)
        kept = self.kept.get(name)
        now = time.monotonic()
        if kept is None or kept.result is None and now - kept.at > RETRY:
            kept = await self._fetch(name)
        elif kept.result is not None and now - kept.at > FRESH and name not in self.fetching:
            asyncio.ensure_future(self._fetch(name))  # given stale now, fresh next time
        if kept.result is None:
            assert kept.failure is not None
            raise kept.failure
        age = time.monotonic() - kept.at
        return replace(kept.result, age=round(age, 1), stale=age > FRESH)

    async def _fetch(self, name: str) -> Kept:
        """One fetch per cluster at a time: a caller that comes while one runs waits for it."""
        running = self.fetching.get(name)
        if running is None:
            running = self.fetching[name] = asyncio.ensure_future(self._ask(name))
            running.add_done_callback(lambda _: self.fetching.pop(name, None))
        return await asyncio.shield(running)

    async def _ask(self, name: str) -> Kept:
        try:
            kept = Kept(time.monotonic(), result=await self.sessions.run(name, cluster_facts, fresh=False))
        except PaiError as exc:
            kept = Kept(time.monotonic(), failure=exc)
        self.kept[name] = kept
        self.kept.move_to_end(name)
        while len(self.kept) > KEPT:
            self.kept.popitem(last=False)
        return kept

    def forget(self) -> None:
        """Profiles changed: what was kept may be another cluster's now."""
        self.kept.clear()
