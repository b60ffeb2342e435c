"""Where a Debug Job's tasks wait for a debugger: the job's config says which tasks are debugged and
how (core/debug `debugged`: the wrapped commands name it), the job detail where each task runs, and
each task's log whether its process listens yet — the launcher's line, written once debugpy's port
accepts connections. Nothing connects to the port to find out: debugpy's adapter takes one client,
and a probe would be that client. The submission record gives the workspace and the files sent, from
which the path mappings come (core/debug/targets.py).

A `DebugWatch` keeps, per job, how far each task's log was read, so a caller that asks again (the
daemon's `job.debugTargets` with `wait`) reads only what is new.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..api import DebugTarget, DebugTargetsResult, PathMapping
from ..core.debug import debugged, listening_lines, path_mappings
from ..core.debug.self_started import self_started
from ..core.debug.targets import gave_up
from ..core.formats import of_job
from ..core.messages import message, render
from ..core.openpai_rest import FINAL
from ..errors import InvalidInput, PaiError
from .jobs import TaskLogs

if TYPE_CHECKING:
    from ..clusters.backend import Backend
    from ..core.openpai_rest import JobDetail, TaskStatus

READ_MOST = 1 << 20  # bytes of one task's log read per ask
MARK = "[pai debug]"


@dataclass
class DebugWatch:
    """What a job's debugged tasks have said so far: their launcher lines, by task."""

    logs: dict[str, TaskLogs] = field(default_factory=dict)
    said: dict[str, str] = field(default_factory=dict)  # task -> its `[pai debug]` lines
    partial: dict[str, bytes] = field(default_factory=dict)  # task -> the start of a line not yet ended
    record: tuple[str, list[str]] | None = None  # (workspace, files sent), once found
    record_missing: bool = False
    via: dict[str, str] = field(default_factory=dict)  # task -> how a debugger reaches it: "direct" or "ssh"
    tasks: dict[str, TaskStatus] = field(default_factory=dict)  # task -> its status as last read (where its sshd is)
    chosen: dict | None = None  # what the job's config says is debugged (read once: a job's config does not change)

    def read(self, backend: Backend, job: JobDetail, task: TaskStatus) -> str:
        logs = self.logs.setdefault(task.label, TaskLogs(task.label, "all"))
        for _, _, data in logs.read(backend, job, READ_MOST):
            text = self.partial.pop(task.label, b"") + data
            whole, _, rest = text.rpartition(b"\n")
            if rest:
                self.partial[task.label] = rest
            lines = [line[line.index(MARK):] for line in whole.decode("utf-8", "replace").splitlines() if MARK in line]
            if lines:
                self.said[task.label] = self.said.get(task.label, "") + "\n".join(lines) + "\n"
        return self.said.get(task.label, "")


def _same_role(config_role: str, detail_role: str) -> bool:
    """A Kubernetes-era server names task roles as the framework does: lower-cased, only [a-z0-9] kept."""
    return detail_role in (config_role, "".join(ch for ch in config_role.lower() if ch.isalnum()))


def _record(backend: Backend, job: str, watch: DebugWatch) -> tuple[str, list[str]] | None:
    if watch.record is None and not watch.record_missing:
        from . import records

        try:
            found = records.find(backend, job).record
        except PaiError:
            watch.record_missing = True
        else:
            watch.record = (found.workspace, list(found.files))
    return watch.record


def _self_started(backend: Backend, job: str, watch: DebugWatch, locale: str | None) -> DebugTargetsResult:
    """A job not submitted with Debug Job whose own command starts debugpy: each task of those roles at
    the port its command names. Whether it listens yet nothing says, so a running task is offered as
    listening and the message says so; the paths map the workspace to the process's working folder."""
    config = backend.config(job)
    roles = self_started(of_job(config), config)
    if not roles:
        raise InvalidInput(message("debug.not-debugged", job=job))
    detail = backend.job(job)
    record = _record(backend, job, watch)
    out: list[DebugTarget] = []
    for task in detail.tasks:
        where = next((w for r, w in roles.items() if _same_role(r, task.role)), None)
        if where is None:
            continue
        port = where.port_of(task.ports) or 0
        ended = task.state in FINAL or detail.state in FINAL
        state = "ended" if ended else "listening" if task.state == "RUNNING" and task.ip and port else "waiting"
        # debugpy reads a relative remote root from the process's working folder, the code's as a rule
        mappings = [PathMapping(local_root=record[0], remote_root=".")] if record is not None else []
        out.append(DebugTarget(job=job, task=task.label, host=task.ip or "", port=port, path_mappings=mappings, state=state))
    return DebugTargetsResult(job=job, cluster=backend.profile.name, targets=out, state=detail.state,
                              message=render("debug.self-started", locale, job=job))


def targets(backend: Backend, job: str, watch: DebugWatch, locale: str | None = None) -> DebugTargetsResult:
    """Each debugged task's processes, and whether they wait for a debugger; the message says why none
    does yet or ever will (the job ended first, a task gave up, no record to map the paths from)."""
    if watch.chosen is None:
        config = backend.config(job)
        watch.chosen = debugged(of_job(config), config)
    chosen = watch.chosen
    if not chosen:
        return _self_started(backend, job, watch, locale)
    detail = backend.job(job)
    record = _record(backend, job, watch)
    out: list[DebugTarget] = []
    notes: list[str] = []
    heard_any = False
    for task in detail.tasks:
        role = next((r for r in chosen if _same_role(r, task.role)), None)
        if role is None or (chosen[role][0] is not None and task.index not in chosen[role][0]):
            continue
        watch.via[task.label], watch.tasks[task.label] = chosen[role][1].via, task
        said = watch.read(backend, detail, task) if task.ip or task.state in FINAL else ""
        ended = task.state in FINAL or detail.state in FINAL or gave_up(said)
        if gave_up(said) and task.state not in FINAL:
            notes.append(render("debug.gave-up", locale, task=task.label))
        heard = {line.port: line for line in listening_lines(said)}  # the last line of each process (port)
        heard_any = heard_any or bool(heard)
        if not heard:
            port = str(task.ports.get("debug") or "").split(",")[0]
            out.append(DebugTarget(job=job, task=task.label, host=task.ip or "", port=int(port) if port.isdigit() else 0,
                                   path_mappings=[], state="ended" if ended else "waiting"))
            continue
        for line in heard.values():
            host = task.ip if line.host in ("0.0.0.0", "::", "") and task.ip else line.host
            mappings = path_mappings(line.script, record[0], record[1]) if record is not None else []
            out.append(DebugTarget(job=job, task=task.label, host=host, port=line.port,
                                   path_mappings=[PathMapping(local_root=m["localRoot"], remote_root=m["remoteRoot"])
                                                  for m in mappings],
                                   state="ended" if ended else "listening", post_mortem=line.failed, worker=line.worker))
    if record is None:
        notes.append(render("debug.no-record", locale, job=job))
    if detail.state in FINAL and not heard_any:
        notes.append(render("debug.job-ended", locale, job=job, state=detail.state))
    return DebugTargetsResult(job=job, cluster=backend.profile.name, targets=out, state=detail.state,
                              message="; ".join(notes) or None)

