"""A cluster's capacity and queue as plain data, read from the answers of a Kubernetes-era OpenPAI
(openpai-k8s.md §B): virtual clusters (`/api/v2/virtual-clusters`), nodes (`?nodes`), SKU types,
the job list and a job's events. The rules that explain a waiting job (`waiting.py`) and judge a job
being written (`fit.py`) read only this, so they are tested over recorded states without a server.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

# HiveD's priority classes (openpai-k8s.md §B.6); a job without one is `test` under HiveD.
PRIORITY_CLASSES = {"crit": 120, "prod": 100, "test": 10, "oppo": -1}
SUBMISSION_GRAIN_MS = 16_000  # the pod priority counts submission time in 16-second steps
RESOURCES = ("gpu", "cpu", "memory_mb")  # in the order a shortage is named


@dataclass(frozen=True)
class Resources:
    cpu: int = 0
    memory_mb: int = 0
    gpu: int = 0

    def __add__(self, other: Resources) -> Resources:
        return Resources(self.cpu + other.cpu, self.memory_mb + other.memory_mb, self.gpu + other.gpu)

    def __sub__(self, other: Resources) -> Resources:
        return Resources(self.cpu - other.cpu, self.memory_mb - other.memory_mb, self.gpu - other.gpu)

    def minus(self, other: Resources) -> Resources:
        """What is left, never below 0."""
        return Resources(max(0, self.cpu - other.cpu), max(0, self.memory_mb - other.memory_mb), max(0, self.gpu - other.gpu))

    def times(self, n: int) -> Resources:
        return Resources(self.cpu * n, self.memory_mb * n, self.gpu * n)

    def holds(self, other: Resources) -> bool:
        return self.cpu >= other.cpu and self.memory_mb >= other.memory_mb and self.gpu >= other.gpu

    def short_of(self, need: Resources) -> str | None:
        """The first resource (GPUs, then CPUs, then memory) of `need` this does not hold; None if it holds all."""
        return next((r for r in RESOURCES if getattr(need, r) > getattr(self, r)), None)

    def wire(self) -> dict:
        """As the server's VC object writes resources (`vCores` and `GPUs` repeat `cpu` and `gpu`)."""
        return {"cpu": self.cpu, "memory": self.memory_mb, "gpu": self.gpu, "vCores": self.cpu, "GPUs": self.gpu}

    @classmethod
    def from_wire(cls, data: Any) -> Resources:
        """`{cpu, memory (MB), gpu}` as the server writes resources (the VC object, a SKU)."""
        data = data if isinstance(data, dict) else {}
        return cls(_int(data.get("cpu", data.get("vCores"))), _int(data.get("memory")), _int(data.get("gpu", data.get("GPUs"))))


@dataclass(frozen=True)
class VirtualCluster:
    name: str
    total: Resources
    guaranteed: Resources  # total less the unhealthy
    used: Resources

    @property
    def free(self) -> Resources:
        return self.guaranteed.minus(self.used)

    @classmethod
    def from_wire(cls, name: str, data: Any) -> VirtualCluster:
        data = data if isinstance(data, dict) else {}
        total = Resources.from_wire(data.get("resourcesTotal"))
        guaranteed = Resources.from_wire(data["resourcesGuaranteed"]) if isinstance(data.get("resourcesGuaranteed"), dict) else total
        return cls(name, total, guaranteed, Resources.from_wire(data.get("resourcesUsed")))


@dataclass(frozen=True)
class Node:
    name: str
    gpu_used: int
    gpu_available: int
    gpu_total: int

    @classmethod
    def from_wire(cls, name: str, data: Any) -> Node:
        data = data if isinstance(data, dict) else {}
        return cls(name, _int(data.get("gpuUsed")), _int(data.get("gpuAvailable")), _int(data.get("gpuTotal")))


@dataclass(frozen=True)
class QueuedJob:
    """A job of the list (`GET /api/v2/jobs`), what the queue rules need of it."""

    name: str  # user~job
    user: str
    vc: str
    state: str
    submitted_ms: int
    launched_ms: int | None = None
    priority: str | None = None  # the class string (crit, prod, test, oppo) or None
    retries: int = 0
    gpus: int = 0
    tasks: int = 0

    @classmethod
    def from_wire(cls, data: dict) -> QueuedJob:
        user, name = str(data.get("username") or ""), str(data.get("name") or "")
        priority = data.get("jobPriority")
        return cls(f"{user}~{name}" if user else name, user, str(data.get("virtualCluster") or "default"),
                   str(data.get("state") or "UNKNOWN"), _int(data.get("submissionTime") or data.get("createdTime")),
                   _int(data["launchedTime"]) if data.get("launchedTime") else None,
                   priority if isinstance(priority, str) and priority in PRIORITY_CLASSES else None,
                   _int(data.get("retries")), _int(data.get("totalGpuNumber")), _int(data.get("totalTaskNumber")))


@dataclass(frozen=True)
class Event:
    """One pod event of a job (`GET /api/v2/jobs/:job/events`)."""

    task: str
    role: str
    index: int
    kind: str  # Warning or Normal
    reason: str
    message: str
    count: int = 1
    last: str = ""  # ISO time of the latest occurrence

    @classmethod
    def from_wire(cls, data: Any) -> Event:
        data = data if isinstance(data, dict) else {}
        return cls(str(data.get("taskName") or ""), str(data.get("taskroleName") or ""), _int(data.get("taskIndex")),
                   str(data.get("type") or ""), str(data.get("reason") or ""), str(data.get("message") or ""),
                   _int(data.get("count")) or 1, str(data.get("lastTimestamp") or ""))


@dataclass(frozen=True)
class RoleAsk:
    """What one task role asks: instances, each with these resources (and HiveD's SKU type, if named)."""

    name: str
    instances: int
    each: Resources
    sku: str | None = None


@dataclass
class ClusterState:
    """What a cluster said about its capacity, at `fetched_ms`; what it did not say is empty."""

    vcs: dict[str, VirtualCluster] = field(default_factory=dict)
    nodes: dict[str, Node] = field(default_factory=dict)
    skus: dict[str, Resources] = field(default_factory=dict)  # the cluster's SKU types (HiveD; {} without it)
    vc_skus: dict[str, dict[str, Resources]] = field(default_factory=dict)  # each VC's SKU types, where asked
    jobs: list[QueuedJob] = field(default_factory=list)  # unfinished jobs (waiting and running), everyone's
    permitted: list[str] | None = None  # the VCs the user may submit to; None when unknown
    fetched_ms: int = 0
    scales_jobs: bool = False  # the embedded local cluster unshaped: a job larger than it runs scaled, never waits

    @property
    def hived(self) -> bool:
        """HiveD schedules the cluster: only then does it have SKU types."""
        return bool(self.skus)

    @classmethod
    def from_wire(cls, vcs: Any, nodes: Any = None, skus: Any = None, jobs: Any = None, permitted: list[str] | None = None,
                  vc_skus: dict[str, Any] | None = None, fetched_ms: int = 0) -> ClusterState:
        """From the answers as they came: the VC map, `?nodes`, sku-types, the job list."""
        return cls({n: VirtualCluster.from_wire(n, d) for n, d in (vcs or {}).items()} if isinstance(vcs, dict) else {},
                   {n: Node.from_wire(n, d) for n, d in nodes.items()} if isinstance(nodes, dict) else {},
                   _skus(skus), {vc: _skus(s) for vc, s in (vc_skus or {}).items()},
                   [QueuedJob.from_wire(j) for j in jobs if isinstance(j, dict)] if isinstance(jobs, list) else [],
                   permitted, fetched_ms)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> ClusterState:
        """The state `to_json` wrote (the daemon's cache, a recorded state in a test)."""
        res = lambda d: Resources(**d)  # noqa: E731
        return cls({n: VirtualCluster(v["name"], res(v["total"]), res(v["guaranteed"]), res(v["used"])) for n, v in data["vcs"].items()},
                   {n: Node(**v) for n, v in data["nodes"].items()}, {n: res(v) for n, v in data["skus"].items()},
                   {vc: {n: res(v) for n, v in s.items()} for vc, s in data["vc_skus"].items()},
                   [QueuedJob(**j) for j in data["jobs"]], data.get("permitted"), data.get("fetched_ms", 0),
                   bool(data.get("scales_jobs")))

    # -- what the rules ask of it (indexed once per state: the editor asks at every keystroke) --------
    def waiting_in(self, vc: str) -> list[QueuedJob]:
        return self._by_vc.get(("WAITING", vc), [])

    def running_in(self, vc: str) -> list[QueuedJob]:
        return self._by_vc.get(("RUNNING", vc), [])

    def waiting_at_or_above(self, vc: str, p: int) -> int:
        """How many jobs wait in `vc` whose priority `p` (job_priority) is at least this."""
        return sum(count for q, count in self._waiting_priorities.get(vc, {}).items() if q >= p)

    def most_free_on_a_node(self) -> int | None:
        """The most GPUs free on one node now (None when the nodes are unknown)."""
        return self._nodes[1]

    def largest_node(self) -> int | None:
        """The most GPUs any node has (None when the nodes are unknown)."""
        return self._nodes[0]

    @cached_property
    def _by_vc(self) -> dict[tuple[str, str], list[QueuedJob]]:
        out: dict[tuple[str, str], list[QueuedJob]] = {}
        for job in self.jobs:
            out.setdefault((job.state, job.vc), []).append(job)
        return out

    @cached_property
    def _waiting_priorities(self) -> dict[str, dict[int, int]]:
        out: dict[str, dict[int, int]] = {}
        for job in self.jobs:
            if job.state == "WAITING":
                per = out.setdefault(job.vc, {})
                p = job_priority(job, self.hived)
                per[p] = per.get(p, 0) + 1
        return out

    @cached_property
    def _nodes(self) -> tuple[int | None, int | None]:
        return (max((n.gpu_total for n in self.nodes.values()), default=None),
                max((n.gpu_available for n in self.nodes.values()), default=None))


def job_priority(job: QueuedJob, hived: bool) -> int:
    """The `p` of the pod priority: the HiveD class's value (test when unset), 0 without HiveD."""
    if not hived:
        return 0
    return PRIORITY_CLASSES[job.priority or "test"]


def pod_priority(job: QueuedJob, hived: bool) -> int:
    """The rest-server's pod priority: higher for a higher class, then for earlier submission."""
    p = job_priority(job, hived)
    return -(((126 - p) << 24) + ((job.submitted_ms // SUBMISSION_GRAIN_MS) & 0xFFFFFF))


def total_ask(roles: list[RoleAsk]) -> Resources:
    return sum((r.each.times(r.instances) for r in roles), Resources())


def skus_per_task(need: Resources, sku: Resources) -> int | None:
    """HiveD's SKU count of one task: the most of ceil(gpu / sku.gpu), ceil(cpu / sku.cpu) and
    ceil(memory / sku.memory); None when the task asks for a resource the SKU has none of."""
    counts = []
    for asked, one in ((need.gpu, sku.gpu), (need.cpu, sku.cpu), (need.memory_mb, sku.memory_mb)):
        if asked > 0 and one <= 0:
            return None
        if one > 0:
            counts.append(-(-asked // one))
    return max(counts, default=0)


def cells_in(part: Resources, sku: Resources) -> int:
    """How many cells of `sku` resources hold (by the scarcest resource the SKU has)."""
    fits = [have // one for have, one in ((part.gpu, sku.gpu), (part.cpu, sku.cpu), (part.memory_mb, sku.memory_mb)) if one > 0]
    return min(fits) if fits else 0


def asks_from_config(config: Any) -> list[RoleAsk]:
    """What a job's config asks, role by role: a v2 protocol's `taskRoles` mapping (instances,
    resourcePerInstance, HiveD's skuType) or a v1 config's `taskRoles` list (taskNumber, cpuNumber,
    memoryMB, gpuNumber). Values that are not whole numbers count as 0; [] for anything else."""
    if not isinstance(config, dict):
        return []
    roles = config.get("taskRoles")
    if isinstance(roles, dict):
        extras = config.get("extras") if isinstance(config.get("extras"), dict) else {}
        hived = extras.get("hivedScheduler") if isinstance(extras.get("hivedScheduler"), dict) else {}
        skus = hived.get("taskRoles") if isinstance(hived.get("taskRoles"), dict) else {}
        out = []
        for name, role in roles.items():
            if not isinstance(role, dict):
                continue
            each = role.get("resourcePerInstance") if isinstance(role.get("resourcePerInstance"), dict) else {}
            sku = (skus.get(name) or {}).get("skuType") if isinstance(skus.get(name), dict) else None
            out.append(RoleAsk(str(name), _whole(role.get("instances", 1)),
                               Resources(_whole(each.get("cpu")), _whole(each.get("memoryMB")), _whole(each.get("gpu"))),
                               sku if isinstance(sku, str) else None))
        return out
    if isinstance(roles, list):
        return [RoleAsk(str(r.get("name") or ""), _whole(r.get("taskNumber", 1)),
                        Resources(_whole(r.get("cpuNumber")), _whole(r.get("memoryMB")), _whole(r.get("gpuNumber"))))
                for r in roles if isinstance(r, dict)]
    return []


def _whole(value: Any) -> int:
    """A count as the job gives it: a whole number (2 or 2.0), 0 for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
        return 0
    return int(value) if value == int(value) and value >= 0 else 0


def _skus(data: Any) -> dict[str, Resources]:
    return {n: Resources.from_wire(d) for n, d in data.items()} if isinstance(data, dict) else {}


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return 0
