"""Why a WAITING job waits, in words: the blocking reason (from its events and its virtual cluster's
state), an estimate of the jobs ahead of it (from the server's pod-priority rule), what is free now,
and which running jobs hold what it needs. The real server gives none of these (openpai-k8s.md §B.9):
they are computed here, from a recorded `ClusterState`, with no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from .capacity import ClusterState, Event, QueuedJob, Resources, RoleAsk, job_priority, pod_priority, total_ask
from .messages import Message, message, render

IMAGE_PULL_FAILURES = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull")
MAX_HOLDERS = 5


@dataclass(frozen=True)
class Holder:
    """A running job of the same virtual cluster that holds what the waiting one needs."""

    job: str
    user: str
    gpus: int
    since_ms: int | None


@dataclass
class Explanation:
    reason: Message
    ahead: int
    vc: str
    free: Resources | None  # the VC's, None when the cluster did not say
    most_free_on_a_node: int | None
    holders: list[Holder] = field(default_factory=list)
    retries: int = 0

    def lines(self, locale: str | None) -> list[str]:
        """The explanation as a user reads it, one fact a line."""
        out = [render("capacity.waiting", locale, reason=self.reason.render(locale))]
        if self.retries and self.reason.code != "capacity.retried":
            out.append(message("capacity.retried", retries=self.retries).render(locale))
        rule = render("capacity.ahead-rule", locale, vc=self.vc)
        out.append(render("capacity.ahead", locale, count=self.ahead, rule=rule))
        if self.free is not None:
            free = render("capacity.free", locale, vc=self.vc, gpu=self.free.gpu, cpu=self.free.cpu, memory=self.free.memory_mb)
            if self.most_free_on_a_node is not None:
                free += render("capacity.free-node", locale, most=self.most_free_on_a_node)
            out.append(free)
        if self.holders:
            out.append(render("capacity.held-by", locale))
            out += ["  " + render("capacity.holder", locale, job=h.job, user=h.user, gpus=h.gpus, since=_when(h.since_ms))
                    for h in self.holders]
        return out

    def to_json(self) -> dict:
        return {"reason": self.reason.to_json(), "ahead": self.ahead, "vc": self.vc,
                "free": None if self.free is None else {"cpu": self.free.cpu, "memory_mb": self.free.memory_mb, "gpu": self.free.gpu},
                "mostFreeOnANode": self.most_free_on_a_node, "retries": self.retries,
                "holders": [{"job": h.job, "user": h.user, "gpus": h.gpus, "since": h.since_ms} for h in self.holders]}

    @classmethod
    def from_json(cls, data: dict) -> Explanation | None:
        reason = Message.from_json(data.get("reason"))
        if reason is None:
            return None
        free = data.get("free")
        return cls(reason, int(data.get("ahead") or 0), str(data.get("vc") or ""), Resources(**free) if isinstance(free, dict) else None,
                   data.get("mostFreeOnANode"), [Holder(h["job"], h["user"], h["gpus"], h.get("since")) for h in data.get("holders") or []],
                   int(data.get("retries") or 0))


def explain(job: QueuedJob, asks: list[RoleAsk] | None, events: list[Event], state: ClusterState) -> Explanation | None:
    """Why `job` waits (None when it does not wait). `asks` are its roles as its config gives them
    (None when unknown: the list's GPU and task totals stand in); `events` its pod events."""
    if job.state != "WAITING":
        return None
    asks = asks if asks else _asks_from_totals(job)
    need, instance = total_ask(asks), max((a.each.gpu for a in asks), default=0)
    vc = state.vcs.get(job.vc)
    short = vc.free.short_of(need) if vc is not None else None
    reason = (_from_events(events, sum(a.instances for a in asks) or job.tasks)
              or _from_capacity(job, need, instance, state, short)
              or _scheduler_words(events)
              or (message("capacity.retried", retries=job.retries) if job.retries else message("capacity.not-placed-yet")))
    return Explanation(reason, len(jobs_ahead(job, state)), job.vc, vc.free if vc is not None else None,
                       state.most_free_on_a_node(), holders(job, state, short or ("gpu" if need.gpu else None)), job.retries)


def jobs_ahead(job: QueuedJob, state: ClusterState) -> list[QueuedJob]:
    """An estimate of the waiting jobs that go before `job`: those of its virtual cluster whose pod
    priority is higher (a higher class, or the same class submitted in an earlier 16-second step), or
    equal and submitted earlier. HiveD has no head-of-line blocking, so it is an estimate, not a place."""
    mine = pod_priority(job, state.hived)
    return [other for other in state.waiting_in(job.vc) if other.name != job.name and
            ((theirs := pod_priority(other, state.hived)) > mine or theirs == mine and other.submitted_ms < job.submitted_ms)]


def waiting_ahead_of_new(priority: str | None, vc: str, state: ClusterState) -> int:
    """How many waiting jobs a job submitted now, of this class, would have ahead of it."""
    new = QueuedJob("", "", vc, "WAITING", 2**62, priority=priority)
    return state.waiting_at_or_above(vc, job_priority(new, state.hived))


def holders(job: QueuedJob, state: ClusterState, short: str | None) -> list[Holder]:
    """The running jobs of the same virtual cluster that hold the resource it is short of, the
    largest first (for GPUs; the longest running first otherwise)."""
    running = state.running_in(job.vc)
    if short == "gpu":
        running = sorted((j for j in running if j.gpus), key=lambda j: (-j.gpus, j.launched_ms or 0))
    else:
        running = sorted(running, key=lambda j: j.launched_ms or 0)
    return [Holder(j.name, j.user, j.gpus, j.launched_ms) for j in running[:MAX_HOLDERS]]


def _from_events(events: list[Event], instances: int) -> Message | None:
    """A reason the job's pods tell: an image being pulled or failing to, or a gang partly placed."""
    newest = sorted(events, key=lambda e: e.last, reverse=True)
    latest_per_task: dict[str, Event] = {}
    for event in newest:
        latest_per_task.setdefault(event.task, event)
    for event in latest_per_task.values():
        if event.reason in IMAGE_PULL_FAILURES or event.reason == "Failed" and "image" in event.message.lower():
            return message("capacity.image-failing", message=event.message)
    for event in latest_per_task.values():
        if event.reason == "Pulling":
            return message("capacity.image-pulling", message=event.message)
    scheduler = _latest_scheduler_events(newest)
    placed = sum(e.reason == "Scheduled" for e in scheduler.values())
    if placed and (placed < instances or any(e.reason == "FailedScheduling" for e in scheduler.values())):
        return message("capacity.gang", placed=placed, total=max(instances, len(scheduler)))
    return None


def _latest_scheduler_events(newest: list[Event]) -> dict[str, Event]:
    out: dict[str, Event] = {}
    for event in newest:
        if event.reason in ("Scheduled", "FailedScheduling"):
            out.setdefault(event.task, event)
    return out


def _from_capacity(job: QueuedJob, need: Resources, instance: int, state: ClusterState, short: str | None) -> Message | None:
    """A reason the cluster's numbers give: more than the VC ever has, an instance larger than any
    node, more than the VC has free, or no node with room for one instance."""
    vc = state.vcs.get(job.vc)
    if vc is None:
        return None
    never = vc.guaranteed.short_of(need)
    if never is not None:
        return message("capacity.never-vc", need=getattr(need, never), res=message(f"capacity.res-{never}"), vc=job.vc,
                       total=getattr(vc.guaranteed, never))
    largest = state.largest_node()
    if largest is not None and instance > largest:
        return message("capacity.never-node", need=instance, most=largest)
    if short is not None:
        return message("capacity.vc-short", res=message(f"capacity.res-{short}"), vc=job.vc, need=getattr(need, short),
                       free=getattr(vc.free, short), total=getattr(vc.guaranteed, short))
    most = state.most_free_on_a_node()
    if most is not None and instance > most:
        return message("capacity.no-node", need=instance, most=most)
    return None


def _scheduler_words(events: list[Event]) -> Message | None:
    failed = [e for e in events if e.reason == "FailedScheduling"]
    if not failed:
        return None
    return message("capacity.scheduler-says", message=max(failed, key=lambda e: e.last).message)


def _asks_from_totals(job: QueuedJob) -> list[RoleAsk]:
    """The job's ask when only the list's totals are known: its tasks, sharing its GPUs evenly."""
    tasks = max(job.tasks, 1)
    return [RoleAsk("", tasks, Resources(gpu=job.gpus // tasks))] if job.gpus % tasks == 0 else [RoleAsk("", 1, Resources(gpu=job.gpus))]


def _when(ms: int | None) -> str:
    if ms is None:
        return "?"
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
