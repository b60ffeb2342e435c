"""What a cluster holds and why a job waits, on a `Backend`: `pai vc` and the daemon's `vc.list`,
and `job.waiting` (`pai why` / `pai status` for a WAITING job). The rules are the core's
(`core.waiting`); this asks the cluster for what they read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import api
from ..core.capacity import ClusterState, QueuedJob, Resources, asks_from_config
from ..core.waiting import explain
from ..errors import PaiError

if TYPE_CHECKING:
    from ..clusters.backend import Backend


def virtual_clusters(backend: Backend) -> api.VirtualClustersResult:
    state = backend.cluster_state()
    return table(backend.profile.name, state)


def table(cluster: str, state: ClusterState) -> api.VirtualClustersResult:
    """The rows `pai vc` shows: each VC's total, used and free, and its waiting and running jobs."""
    rows = []
    for name, vc in sorted(state.vcs.items()):
        rows.append(api.VirtualClusterRow(name=name, total=_amounts(vc.guaranteed), used=_amounts(vc.used), free=_amounts(vc.free),
                                          waiting=len(state.waiting_in(name)), running=len(state.running_in(name)),
                                          permitted=None if state.permitted is None else name in state.permitted))
    nodes = [api.NodeRow(name=n.name, gpu_used=n.gpu_used, gpu_available=n.gpu_available, gpu_total=n.gpu_total)
             for n in sorted(state.nodes.values(), key=lambda n: n.name)]
    return api.VirtualClustersResult(cluster=cluster, vcs=rows, nodes=nodes, sku_types={k: _amounts(v) for k, v in state.skus.items()},
                                     fetched=state.fetched_ms)


def waiting(backend: Backend, job: str) -> api.WaitingResult:
    """Why the user's job waits (no explanation when it does not): its state first, then — only for a
    WAITING job — the cluster's state, the job's events and its config."""
    detail = backend.job(job)
    cluster = backend.profile.name
    if detail.state != "WAITING":
        return api.WaitingResult(cluster=cluster, job=job, state=detail.state)
    state = backend.cluster_state()
    framework = f"{backend.profile.user}~{job}"
    queued = next((j for j in state.jobs if j.name in (framework, job)), None)
    if queued is None:  # not in the list (a server that cannot filter it): what the detail says
        queued = QueuedJob(framework, backend.profile.user, _vc_of(backend, job), "WAITING", detail.created or 0)
    try:
        asks = asks_from_config(backend.config(job))
    except PaiError:
        asks = []
    explanation = explain(queued, asks or None, backend.job_events(job), state)
    return api.WaitingResult(cluster=cluster, job=job, state=detail.state,
                             explanation=None if explanation is None else explanation.to_json())


def _vc_of(backend: Backend, job: str) -> str:
    try:
        config = backend.config(job)
    except PaiError:
        return "default"
    defaults = config.get("defaults") if isinstance(config, dict) and isinstance(config.get("defaults"), dict) else {}
    vc = defaults.get("virtualCluster") or (config.get("virtualCluster") if isinstance(config, dict) else None)
    return str(vc or "default")


def _amounts(r: Resources) -> api.Amounts:
    return api.Amounts(cpu=r.cpu, memory=r.memory_mb, gpu=r.gpu)
