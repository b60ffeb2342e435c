"""Who goes first and what is refused at once: the rest-server's pod priority (higher class first,
then earlier submission), HiveD's submit-time checks, and the job events a waiting job's "why" is
read from (openpai-k8s.md §B.6, §B.7, §B.9)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from ..core.capacity import Resources, skus_per_task
from .job_data import Job, Task, now_ms
from .layout import PRIORITY_CLASSES, Layout, Res
from .rest_errors import ClusterError

SUBMISSION_GRAIN_MS = 16_000  # the pod priority counts submission time in 16-second steps
MAX_EVENTS = 200  # a job keeps its latest events; older ones are dropped


def priority_class(job: Job) -> str | None:
    """`extras.hivedScheduler.jobPriorityClass` of a v2 job (None when not set)."""
    extras = job.config.get("extras") if isinstance(job.config.get("extras"), dict) else {}
    hived = extras.get("hivedScheduler") if isinstance(extras.get("hivedScheduler"), dict) else {}
    value = hived.get("jobPriorityClass")
    return value if isinstance(value, str) else None


def priority(job: Job, hived: bool) -> int:
    """HiveD's priority of the job's class (test when unset); 0 without HiveD."""
    if not hived:
        return 0
    return PRIORITY_CLASSES.get(priority_class(job) or "test", PRIORITY_CLASSES["test"])


def queue_key(job: Job, hived: bool, order: int) -> tuple[int, int, int]:
    """The order waiting jobs are tried in: the pod priority's, then submission order."""
    return (-priority(job, hived), job.created // SUBMISSION_GRAIN_MS, order)


def task_need(job: Job, task: Task) -> Res:
    role = job.role(task.role)
    return Res(role.cpu, role.memory_mb, role.gpu)


def hived_refusal(job: Job, layout: Layout) -> ClusterError | None:
    """HiveD's submit-time 400s for a v2 job: an unknown SKU type or one the virtual cluster lacks, a
    task asking for a resource its SKU has none of, and more SKUs in all than the VC holds."""
    if not layout.hived or job.version != 2:
        return None
    extras = job.config.get("extras") if isinstance(job.config.get("extras"), dict) else {}
    hived = extras.get("hivedScheduler") if isinstance(extras.get("hivedScheduler"), dict) else {}
    roles_spec = hived.get("taskRoles") if isinstance(hived.get("taskRoles"), dict) else {}
    oppo = priority_class(job) == "oppo"
    in_vc = layout.skus if oppo else layout.vc_skus(job.virtual_cluster)
    smallest = Res(min((s.cpu for s in in_vc.values()), default=0), min((s.memory_mb for s in in_vc.values()), default=0),
                   min((s.gpu for s in in_vc.values()), default=0))
    total = 0
    for role in job.roles:
        spec = roles_spec.get(role.name) if isinstance(roles_spec.get(role.name), dict) else {}
        sku_name = spec.get("skuType")
        if sku_name is not None and spec.get("pinnedCellId") is not None:
            return _invalid(f"Task role {role.name} sets both skuType and pinnedCellId.")
        if sku_name is not None and sku_name not in layout.skus:
            return _invalid(f"Unknown skuType {sku_name} of task role {role.name}.")
        if sku_name is not None and not oppo and sku_name not in in_vc:
            return _invalid(f"skuType {sku_name} of task role {role.name} is not in VC {job.virtual_cluster}.")
        sku = layout.skus[sku_name] if sku_name is not None else smallest
        count = skus_per_task(Resources(role.cpu, role.memory_mb, role.gpu), Resources(sku.cpu, sku.memory_mb, sku.gpu))
        if count is None:
            return _invalid(f"Task role {role.name} requests a resource its SKU type has none of.")
        total += role.tasks * count
    cells = layout.cells(job.virtual_cluster)
    if not oppo and total > cells:
        return _invalid(f"Job requests {total} SKUs, exceeds maximum {cells} SKUs in VC {job.virtual_cluster}.")
    return None


def _invalid(message: str) -> ClusterError:
    return ClusterError(400, "InvalidProtocolError", message)


# -- events ----------------------------------------------------------------------------------
def pod_name(job: Job, task: Task) -> str:
    """`<md5 of the framework>-<task role>-<index>`: the names the database-controller keeps events of."""
    return f"{framework_hash(job)}-{task.role}-{task.index}"


def framework_hash(job: Job) -> str:
    return hashlib.md5(job.framework.encode()).hexdigest()


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def record_event(job: Job, task: Task, kind: str, reason: str, message: str, component: str = "default-scheduler",
                 host: str | None = None) -> None:
    """One Kubernetes pod event of the task; the same reason and message again counts up (as the
    event recorder coalesces them) instead of adding another."""
    now = iso(now_ms())
    name = pod_name(job, task)
    for event in reversed(job.events):
        if event["taskName"] == name:
            if (event["reason"], event["message"]) == (reason, message):
                event["count"] += 1
                event["lastTimestamp"] = now
                return
            break
    job.events.append({"uid": hashlib.md5(f"{name}/{len(job.events)}/{now}".encode()).hexdigest(),
                       "frameworkName": framework_hash(job), "podUid": hashlib.md5(f"{name}/{job.attempt}".encode()).hexdigest(),
                       "taskroleName": task.role, "taskName": name, "taskIndex": task.index, "type": kind, "reason": reason,
                       "message": message, "firstTimestamp": now, "lastTimestamp": now, "count": 1,
                       "sourceComponent": component, "sourceHost": host})
    del job.events[:-MAX_EVENTS]


def events_answer(job: Job, kind: str | None) -> dict:
    """`GET /api/v2/jobs/:job/events`: newest first, filtered by type, no paging."""
    data = [e for e in job.events if kind is None or e["type"] == kind]
    data.sort(key=lambda e: e["lastTimestamp"], reverse=True)
    return {"totalCount": len(data), "data": data}
