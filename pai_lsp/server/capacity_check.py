"""The editor's "will it fit": a job file's `virtualCluster` completes with the VCs the user may use,
each with what is free; hovering on it shows the same; and a diagnostic says when the job can never
run there or will wait (`core.fit`). All from the default cluster's state as the language server's
one poller of the daemon last heard it (cluster_data.py): a keystroke never waits on the network, and
with no daemon running or no cluster reachable there is simply nothing to say.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from ..core.capacity import ClusterState, RoleAsk, asks_from_config
from ..core.fit import NEVER, judge
from ..core.messages import message, render
from ..core.model import Completion, Diagnostic, Hover
from .host import Host

if TYPE_CHECKING:
    from ..core.jsonc import Document, Node
    from .cluster_data import ClusterData


class Analysed(Protocol):
    """An analysis of a document (language_server.Analysis): its parse."""

    doc: Document

STALE_SECONDS = 300  # state older than this is said to be so


class CapacityChecks:
    """What a job file's text makes of the cluster's state (`data`, last heard from the daemon)."""

    def __init__(self, ls: Host, data: ClusterData):
        self.ls = ls
        self.data = data

    @property
    def state(self) -> ClusterState | None:
        return self.data.state

    # -- what a job file asks ----------------------------------------------------------------
    def diagnostics(self, uri: str, result: Analysed) -> list[Diagnostic]:
        self.data.refresh_if_due()
        state = self.state
        if state is None:
            return []
        target = job_target(result.doc)
        if target is None:
            return []
        asks, vc, priority, node = target
        verdict = judge(asks, vc, state, priority)
        if verdict is None:
            return []
        locale = self.ls.settings_for(uri).locale
        text = verdict.message.render(locale) + self._age(state, locale)
        start, end = (node.start, node.end) if node is not None else (0, 0)
        return [Diagnostic(start, end, verdict.message.code, "error" if verdict.kind == NEVER else "warning", text)]

    def completions(self, doc: Document, offset: int, locale: str | None) -> list[Completion]:
        """The VCs the user may use, each with what is free and in all, at a `virtualCluster` value."""
        self.data.refresh_if_due()
        place = _vc_value_place(doc, offset)
        if place is None or self.state is None:
            return []
        start, end, quoted = place
        names = self.state.permitted if self.state.permitted is not None else sorted(self.state.vcs)
        out = []
        for name in names:
            if name in self.state.vcs:
                insert = f'"{name}"' if quoted else name
                out.append(Completion(name, "value", insert, start, end, detail=self._free_words(name, locale), filter=insert))
        return out

    def hover(self, doc: Document, offset: int, locale: str | None) -> Hover | None:
        place = _vc_value_place(doc, offset)
        state = self.state
        if place is None or state is None:
            return None
        vc = _vc_node(doc)
        name = vc.value if vc is not None else None
        if not isinstance(name, str) or name not in state.vcs:
            return None
        start, end, _ = place
        return Hover(f"**{name}**: {self._free_words(name, locale)}{self._age(state, locale)}", start, end)

    def _free_words(self, name: str, locale: str | None) -> str:
        assert self.state is not None
        vc = self.state.vcs[name]
        waiting = len(self.state.waiting_in(name))
        return render("capacity.vc-summary", locale, gpu=vc.free.gpu, gpus=vc.guaranteed.gpu, cpu=vc.free.cpu, cpus=vc.guaranteed.cpu,
                      memory=vc.free.memory_mb, memories=vc.guaranteed.memory_mb, waiting=waiting)

    @staticmethod
    def _age(state: ClusterState, locale: str | None) -> str:
        age = int(time.time() - state.fetched_ms / 1000)
        return message("capacity.stale", age=age).render(locale) if age > STALE_SECONDS else ""


def job_target(doc: Document) -> tuple[list[RoleAsk], str, str | None, Node | None] | None:
    """What a v1 config or v2 job asks (its roles), of which VC, in which priority class, and the node
    a diagnostic points at (its `virtualCluster` value, else its `taskRoles` key); None when it asks nothing."""
    root = doc.root
    if root is None or root.type != "object":
        return None
    value: Any = root.value
    asks = asks_from_config(value)
    if not asks:
        return None
    vc_node = _vc_node(doc)
    vc = vc_node.value if vc_node is not None and isinstance(vc_node.value, str) else "default"
    extras = value.get("extras") if isinstance(value.get("extras"), dict) else {}
    hived = extras.get("hivedScheduler") if isinstance(extras.get("hivedScheduler"), dict) else {}
    priority = hived.get("jobPriorityClass") if isinstance(hived.get("jobPriorityClass"), str) else None
    roles = root.get_property("taskRoles")
    anchor = vc_node if vc_node is not None else (roles.key if roles is not None else None)
    return asks, vc, priority, anchor


def _vc_node(doc: Document) -> Node | None:
    prop = _vc_property(doc)
    return prop.value_node if prop is not None else None


def _vc_property(doc: Document) -> Node | None:
    """The `virtualCluster` property: v2's under `defaults`, v1's at the top."""
    root = doc.root
    if root is None or root.type != "object":
        return None
    defaults = root.get("defaults")
    if defaults is not None and defaults.type == "object":
        return defaults.get_property("virtualCluster")
    return root.get_property("virtualCluster")


def _vc_value_place(doc: Document, offset: int) -> tuple[int, int, bool] | None:
    """Where a VC name goes when `offset` is at the `virtualCluster` value: (start, end, quoted)."""
    prop = _vc_property(doc)
    if prop is None or prop.key is None or offset <= prop.key.end:
        return None
    value = prop.value_node
    if value is None:
        line_end = doc.text.find("\n", prop.key.end)
        if line_end != -1 and offset > line_end:
            return None
        return offset, offset, doc.text[prop.key.start] == '"'
    if offset > value.end or offset < value.start and "\n" in doc.text[prop.key.end:offset]:
        return None
    return value.start, value.end, doc.text[value.start] == '"'
