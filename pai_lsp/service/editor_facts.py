"""What the editor's checks need of a cluster, asked in one go for the daemon's cache
(daemon/facts_cache.py): its storages (the storage checks) and its capacity and queue ("will it fit")."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..api import ClusterFactsResult
from ..errors import PaiError, Unreachable, Unsupported
from .code_route import storages_of

if TYPE_CHECKING:
    from ..clusters.backend import Backend
    from ..core.capacity import ClusterState

logger = logging.getLogger(__name__)


def cluster_facts(backend: Backend) -> ClusterFactsResult:
    """The storages and the capacity state of the cluster; a cluster that cannot tell its state (or
    fails to) still gives its storages: each check says nothing where it knows nothing."""
    listed = storages_of(backend)
    state = state_for_editor(backend)
    return ClusterFactsResult(cluster=backend.profile.name, user=backend.profile.user or "",
                              takes_v2=bool(getattr(backend, "takes_v2", False)),
                              storages=listed.storages if listed is not None else None, age=0.0, stale=False,
                              state=None if state is None else state.to_json())


def state_for_editor(backend: Backend) -> ClusterState | None:
    """The cluster's state for the editor's checks; None from a cluster that cannot tell."""
    try:
        return backend.cluster_state()
    except Unsupported:
        return None
    except Unreachable:
        raise  # the whole answer fails: the session is opened again, or nothing is known
    except PaiError as exc:
        logger.debug("no capacity state of %s: %s", backend.profile.name, exc)
        return None
