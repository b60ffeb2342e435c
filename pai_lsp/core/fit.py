"""Whether a job being written can run on its virtual cluster, judged from the cluster's last known
state: it can never run (a VC the user may not use, or none of that name; an instance larger than
the largest node; more than the VC holds; HiveD's SKU refusals — the server's own 403 and 400, said
early), it will wait (more than is free now), or it fits (nothing to say). No I/O: the editor asks
this of a cached `ClusterState` and never waits on the network.
"""

from __future__ import annotations

from dataclasses import dataclass

from .capacity import ClusterState, RoleAsk, cells_in, skus_per_task, total_ask
from .messages import Message, message
from .waiting import waiting_ahead_of_new

NEVER, WAIT = "never", "wait"


@dataclass(frozen=True)
class Verdict:
    kind: str  # NEVER or WAIT
    message: Message


def judge(asks: list[RoleAsk], vc: str, state: ClusterState, priority: str | None = None) -> Verdict | None:
    """What to say of a job asking `asks` in virtual cluster `vc`; None when it fits or nothing is known."""
    if not state.vcs or not asks or state.scales_jobs:
        return None
    if vc not in state.vcs:
        return Verdict(NEVER, message("capacity.never-unknown-vc", vc=vc, known=", ".join(sorted(state.vcs))))
    if state.permitted is not None and vc not in state.permitted:
        return Verdict(NEVER, message("capacity.never-forbidden", vc=vc, mine=", ".join(state.permitted) or "-"))
    never = _never(asks, vc, state, priority)
    if never is not None:
        return Verdict(NEVER, never)
    return _wait(asks, vc, state, priority)


def _never(asks: list[RoleAsk], vc: str, state: ClusterState, priority: str | None) -> Message | None:
    sku_refusal = _hived(asks, vc, state, priority) if state.hived else None
    if sku_refusal is not None:
        return sku_refusal
    largest = state.largest_node()
    for ask in asks:
        if largest is not None and ask.instances and ask.each.gpu > largest:
            return message("capacity.never-instance", role=ask.name, need=ask.each.gpu, most=largest)
    need, held = total_ask(asks), state.vcs[vc].guaranteed
    short = held.short_of(need)
    if short is not None:
        return message("capacity.never-total", need=getattr(need, short), res=message(f"capacity.res-{short}"), vc=vc,
                       total=getattr(held, short))
    return None


def _hived(asks: list[RoleAsk], vc: str, state: ClusterState, priority: str | None) -> Message | None:
    """HiveD's submit-time 400s: a SKU type the VC lacks, and more SKUs in all than the VC's cells."""
    in_vc = state.vc_skus.get(vc)
    if in_vc is None:
        return None  # the VC's SKU types were not asked: nothing to judge by
    oppo = priority == "oppo"
    for ask in asks:
        if ask.sku is not None and not oppo and ask.sku not in in_vc:
            return message("capacity.never-sku-type", sku=ask.sku, role=ask.name, vc=vc, known=", ".join(sorted(in_vc)) or "-")
    if oppo or len(in_vc) != 1:
        return None  # cells of several SKU types in one VC: the total alone does not tell how many
    sku = next(iter(in_vc.values()))
    counts = [skus_per_task(a.each, state.skus.get(a.sku or "", sku)) for a in asks]
    if any(c is None for c in counts):
        return None
    need = sum(a.instances * (c or 0) for a, c in zip(asks, counts, strict=True))
    cells = cells_in(state.vcs[vc].total, sku)
    return message("capacity.never-skus", need=need, vc=vc, cells=cells) if need > cells else None


def _wait(asks: list[RoleAsk], vc: str, state: ClusterState, priority: str | None) -> Verdict | None:
    info = state.vcs[vc]
    need = total_ask(asks)
    short = info.free.short_of(need)
    if short is not None:
        ahead = waiting_ahead_of_new(priority, vc, state)
        return Verdict(WAIT, message("capacity.wait-vc", need=getattr(need, short), res=message(f"capacity.res-{short}"), vc=vc,
                                     free=getattr(info.free, short), total=getattr(info.guaranteed, short), ahead=ahead))
    most = state.most_free_on_a_node()
    widest = max(asks, key=lambda a: a.each.gpu if a.instances else 0)
    if most is not None and widest.instances and widest.each.gpu > most:
        return Verdict(WAIT, message("capacity.wait-node", role=widest.name, need=widest.each.gpu, most=most))
    return None

