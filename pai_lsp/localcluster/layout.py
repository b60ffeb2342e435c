"""The local cluster's shape: its nodes, the virtual clusters that share them, who may use which, and
(HiveD's way) its SKU types — what a Kubernetes-era OpenPAI answers at `/api/v2/virtual-clusters`,
`?nodes` and `/api/v2/cluster/sku-types` (openpai-k8s.md §B), and what its scheduler places tasks on.

Without `virtual-clusters.json` the cluster is this machine: one node, `localhost`, wholly in the
virtual cluster `default`. The file shapes it otherwise (read once, at start)::

    {"nodes": {"worker1": {"gpu": 8, "cpu": 32, "memoryMB": 262144, "sku": "DT"}, ...},
     "virtualClusters": {"vc1": {"share": 0.5},                      # half of every node
                         "vc2": {"nodes": ["worker2"]},               # whole nodes
                         "vc3": {"nodes": {"worker1": {"gpu": 2, "cpu": 8, "memoryMB": 65536}}}},
     "groups": {"default": ["default"], "ml": ["vc1", "vc2"]},     # a group's acls.virtualClusters
     "skuTypes": {"DT": {"gpu": 1, "cpu": 4, "memory": 32768}},    # present: HiveD's submit-time checks
     "hived": true}

Simulated nodes only shape capacity: every task still runs on this machine. The old form of the file
(`{"<vc>": {...}}`, names only) gives each named virtual cluster the whole machine, as before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..core import capacity as core

LOCALHOST = "localhost"
PRIORITY_CLASSES = core.PRIORITY_CLASSES


class LayoutError(ValueError):
    """virtual-clusters.json cannot be used: one line that says what is wrong in it."""


Res = core.Resources  # CPUs, memory in MB, GPUs: the editor's and the local cluster's one description


@dataclass
class Layout:
    nodes: dict[str, Res]
    skus_of_nodes: dict[str, str]  # node -> its SKU type (HiveD)
    vcs: dict[str, dict[str, Res]]  # vc -> node -> its slice of that node
    groups: dict[str, list[str]]  # group -> the virtual clusters it may use
    skus: dict[str, Res]  # SKU type -> one cell (HiveD)
    hived: bool
    configured: bool  # shaped by virtual-clusters.json (faithful waiting) or this machine alone (scaled jobs)

    @classmethod
    def of_machine(cls, machine: Res, names: list[str] | None = None) -> Layout:
        whole = {LOCALHOST: machine}
        return cls(dict(whole), {}, {n: dict(whole) for n in (names or ["default"])}, {"default": ["default"]},
                   {}, False, False)

    @classmethod
    def load(cls, path: Path, machine: Res) -> Layout:
        """The layout virtual-clusters.json gives (this machine alone when there is none)."""
        if not path.exists():
            return cls.of_machine(machine)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise LayoutError(f"{path} cannot be read: {exc}") from None
        if not isinstance(data, dict):
            raise LayoutError(f"{path}: expected an object")
        if not {"nodes", "virtualClusters", "groups", "skuTypes", "hived"} & data.keys():
            return cls.of_machine(machine, sorted({*data, "default"}))  # the old form: names only
        return cls.parse(data, machine, str(path))

    @classmethod
    def parse(cls, data: dict, machine: Res, where: str = "virtual-clusters.json") -> Layout:
        skus = {name: _res(v, where, f"skuTypes.{name}", memory_key="memory") for name, v in (data.get("skuTypes") or {}).items()}
        nodes: dict[str, Res] = {}
        node_skus: dict[str, str] = {}
        for name, spec in (data.get("nodes") or {LOCALHOST: {}}).items():
            spec = spec or {}
            if name == LOCALHOST and not spec:
                nodes[name] = machine
            else:
                nodes[name] = _res(spec, where, f"nodes.{name}")
            sku = spec.get("sku") or (next(iter(skus)) if len(skus) == 1 else None)
            if sku is not None:
                if sku not in skus:
                    raise LayoutError(f"{where}: node {name} names SKU type {sku}, which skuTypes does not define")
                node_skus[name] = sku
        vcs: dict[str, dict[str, Res]] = {}
        for vc, spec in (data.get("virtualClusters") or {"default": {"share": 1}}).items():
            vcs[vc] = _slices(spec or {}, nodes, where, vc)
        vcs.setdefault("default", {})  # always present, empty when the file gives it nothing (as the server's)
        for node, total in nodes.items():
            given = sum((s.get(node, Res()) for s in vcs.values()), Res())
            if not total.holds(given):
                raise LayoutError(f"{where}: the virtual clusters take more of node {node} than it has "
                                  f"({given.gpu} GPUs, {given.cpu} CPUs, {given.memory_mb} MB of {total.gpu}, {total.cpu}, {total.memory_mb})")
        groups = {g: list(v) for g, v in (data.get("groups") or {"default": ["default"]}).items()}
        return cls(nodes, node_skus, vcs, groups, skus, bool(data.get("hived", bool(skus))), True)

    # -- who may use what ------------------------------------------------------------------
    def permitted(self, groups: set[str], admin: bool) -> list[str]:
        """The virtual clusters a user may submit to: every one for an administrator, else the union
        over their groups (everyone is in `default`)."""
        if admin:
            return sorted(self.vcs)
        names = {vc for g in groups | {"default"} for vc in self.groups.get(g, [])}
        return sorted(n for n in names if n in self.vcs)

    # -- capacity --------------------------------------------------------------------------
    def total(self, vc: str) -> Res:
        return sum(self.vcs.get(vc, {}).values(), Res())

    def vc_skus(self, vc: str) -> dict[str, Res]:
        """The SKU types that have cells in the virtual cluster."""
        return {self.skus_of_nodes[n]: self.skus[self.skus_of_nodes[n]] for n in self.vcs.get(vc, {}) if n in self.skus_of_nodes}

    def cells(self, vc: str) -> int:
        """The virtual cluster's leaf cells: how many SKUs its slices hold."""
        count = 0
        for node, part in self.vcs.get(vc, {}).items():
            sku = self.skus.get(self.skus_of_nodes.get(node, ""))
            if sku is not None:
                count += core.cells_in(core.Resources(part.cpu, part.memory_mb, part.gpu),
                                       core.Resources(sku.cpu, sku.memory_mb, sku.gpu))
        return count

    def place(self, vc: str, tasks: list[Res], used: dict[str, dict[str, Res]]) -> list[str] | None:
        """A node for each task (all of them, or none: the job's tasks are placed as a gang), each on
        the virtual cluster's slice of a node with room left; None when they do not all fit now."""
        free = {node: part - used.get(vc, {}).get(node, Res()) for node, part in self.vcs.get(vc, {}).items()}
        out = []
        for need in tasks:
            node = next((n for n, room in free.items() if room.holds(need)), None)
            if node is None:
                return None
            free[node] = free[node] - need
            out.append(node)
        return out

    def why_not(self, vc: str, need: Res, used: dict[str, dict[str, Res]]) -> str:
        """The scheduler's words for a task that fits on no node, as Kubernetes' FailedScheduling says it."""
        counts: dict[str, int] = {}
        for node in self.nodes:
            part = self.vcs.get(vc, {}).get(node)
            if part is None:
                counts["node(s) not in the virtual cluster " + vc] = counts.get("node(s) not in the virtual cluster " + vc, 0) + 1
                continue
            room = part - used.get(vc, {}).get(node, Res())
            for short, word in ((room.gpu < need.gpu, "Insufficient nvidia.com/gpu"), (room.cpu < need.cpu, "Insufficient cpu"),
                                (room.memory_mb < need.memory_mb, "Insufficient memory")):
                if short:
                    counts[word] = counts.get(word, 0) + 1
        reasons = ", ".join(f"{n} {word}" for word, n in sorted(counts.items()))
        return f"0/{len(self.nodes)} nodes are available: {reasons}."


def _res(spec: object, where: str, what: str, memory_key: str = "memoryMB") -> Res:
    if not isinstance(spec, dict):
        raise LayoutError(f"{where}: {what} must be an object of gpu, cpu and {memory_key}")
    values = []
    for key in ("cpu", memory_key, "gpu"):
        value = spec.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise LayoutError(f"{where}: {what}.{key} must be a whole number, 0 or more (not {value!r})")
        values.append(value)
    return Res(*values)


def _slices(spec: dict, nodes: dict[str, Res], where: str, vc: str) -> dict[str, Res]:
    """A virtual cluster's part of each node: a share of every node, whole nodes, or amounts per node."""
    if "share" in spec:
        share = spec["share"]
        if not isinstance(share, (int, float)) or not 0 <= share <= 1:
            raise LayoutError(f"{where}: virtualClusters.{vc}.share must be a number from 0 to 1")
        return {n: Res(int(r.cpu * share), int(r.memory_mb * share), int(r.gpu * share)) for n, r in nodes.items()}
    given = spec.get("nodes") or {}
    if isinstance(given, list):
        given = {n: None for n in given}
    out = {}
    for node, amounts in given.items():
        if node not in nodes:
            raise LayoutError(f"{where}: virtualClusters.{vc} names node {node}, which nodes does not define")
        out[node] = nodes[node] if amounts is None else _res(amounts, where, f"virtualClusters.{vc}.nodes.{node}")
    return out
