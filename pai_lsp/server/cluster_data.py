"""The default cluster's data for the editor's checks, as the language server last heard it: one
poller of the daemon (`cluster.facts`, whose answer carries the storages and the capacity state) that
the storage checks (cluster_checks.py) and "will it fit" (capacity_check.py) both read.

The daemon that runs is asked (never started for this: with no daemon, or no cluster that answers,
there is simply nothing known) in the background, at most every `REFRESH` seconds; the daemon keeps
the answers (daemon/facts_cache.py). Typing never waits: the checks read the last answer, and a new
answer that differs publishes the open documents again.
"""

from __future__ import annotations

import asyncio
import logging
import time

from .. import api
from ..core.capacity import ClusterState
from ..core.route_rules import ClusterFacts, StorageFact
from ..errors import PaiError
from .host import Host

logger = logging.getLogger(__name__)
REFRESH = 30.0  # seconds before the daemon is asked again


def facts_of(result: api.ClusterFactsResult) -> ClusterFacts:
    storages = None if result.storages is None else tuple(
        StorageFact(s.name, s.type, s.server, s.read_only, s.mount_path, s.default, s.share) for s in result.storages)
    return ClusterFacts(result.cluster, result.user, result.takes_v2, storages, result.stale)


class ClusterData:
    """The last answer (`facts` for the storage checks, `state` for the capacity checks; None:
    unknown) and the question in flight."""

    def __init__(self, ls: Host) -> None:
        self.ls = ls
        self.facts: ClusterFacts | None = None
        self.state: ClusterState | None = None
        self.asked = float("-inf")  # time.monotonic() of the last question
        self.fetch: asyncio.Task | None = None

    def refresh_if_due(self) -> None:
        """Ask the daemon again in the background when the last question is older than `REFRESH`."""
        if time.monotonic() - self.asked > REFRESH and (self.fetch is None or self.fetch.done()):
            self.asked = time.monotonic()
            try:
                self.fetch = asyncio.get_running_loop().create_task(self._fetch())
            except RuntimeError:  # no loop (a call outside the server's): the last answer only
                pass

    async def _fetch(self) -> None:
        from ..daemon import client

        try:
            result = await client.call(api.ClusterFacts(), start=False)
            heard = result if isinstance(result, api.ClusterFactsResult) else None
        except (PaiError, OSError) as exc:
            logger.debug("no cluster data: %s", exc)
            heard = None
        facts = facts_of(heard) if heard is not None else None
        state = _state_of(heard)
        if (facts, state) != (self.facts, self.state):
            self.facts, self.state = facts, state
            for uri in list(self.ls.documents):
                self.ls.publish(uri)

    def forget(self) -> None:
        """Settings or profiles changed: ask again at the next check."""
        self.asked = float("-inf")


def _state_of(result: api.ClusterFactsResult | None) -> ClusterState | None:
    if result is None or result.state is None:
        return None
    try:
        return ClusterState.from_json(result.state)
    except (KeyError, TypeError, ValueError) as exc:  # a daemon of another version: nothing to say
        logger.debug("unreadable capacity state: %s", exc)
        return None
