"""The virtual-cluster answers as a Kubernetes-era rest-server writes them (openpai-k8s.md §B.2-B.4):
each VC's used / guaranteed / total resources with the GPU-share percentages, per-node GPUs for
`?nodes`, and the SKU map. The YARN-era routes (`/api/v1/...`) add that era's job counts."""

from __future__ import annotations

from .job_data import Job
from .layout import Layout, Res


def table(layout: Layout, used: dict[str, dict[str, Res]], yarn_jobs: list[Job] | None = None) -> dict[str, dict]:
    """Every virtual cluster's info object; with `yarn_jobs`, also the YARN era's counts and status."""
    totals = {vc: layout.total(vc) for vc in layout.vcs}
    gpu_total = sum(t.gpu for t in totals.values())
    out = {}
    for vc, total in totals.items():
        in_use = sum(used.get(vc, {}).values(), Res())
        info: dict = {"capacity": 0, "usedCapacity": 0, "dedicated": False, "resourcesUsed": in_use.wire(),
                      "resourcesGuaranteed": total.wire(), "resourcesTotal": total.wire()}
        if gpu_total:  # a CPU-only cluster leaves the percentages 0 and maxCapacity out
            share = round(100 * total.gpu / gpu_total, 2)
            info.update(capacity=share, maxCapacity=share, usedCapacity=round(100 * in_use.gpu / gpu_total, 2))
        if yarn_jobs is not None:
            mine = [j for j in yarn_jobs if j.virtual_cluster == vc]
            info.update(numActiveJobs=sum(j.state == "RUNNING" for j in mine), numJobs=len(mine),
                        numPendingJobs=sum(j.state == "WAITING" for j in mine), status="RUNNING",
                        maxCapacity=info.get("maxCapacity", 100), defaultLabel="", nodeList=sorted(layout.vcs[vc]))
        out[vc] = info
    return out


def nodes(layout: Layout, used: dict[str, dict[str, Res]]) -> dict[str, dict]:
    """`?nodes`: each node's GPUs, used and available, whichever virtual clusters hold them."""
    out = {}
    for node, total in layout.nodes.items():
        gpu_used = sum(per_node.get(node, Res()).gpu for per_node in used.values())
        out[node] = {"gpuUsed": gpu_used, "gpuAvailable": max(0, total.gpu - gpu_used), "gpuTotal": total.gpu}
    return out


def skus(table_of: dict[str, Res]) -> dict[str, dict]:
    """The SKU map: name -> {cpu, memory (MB), gpu}."""
    return {name: {"cpu": r.cpu, "memory": r.memory_mb, "gpu": r.gpu} for name, r in table_of.items()}
