"""A job whose own command starts debugpy (`python -m debugpy --listen …`, the way people debug on a
cluster by hand): where each of its tasks waits, read from the command — a fixed port, or a port label
through the variables the runtime sets (`$PAI_CONTAINER_HOST_<label>_PORT_LIST`,
`$PAI_PORT_LIST_<role>_<index>_<label>`, `$PAI_<role>_<index>_<label>_PORT`). Nothing says when such a
process listens (it writes no line of ours, and connecting to find out would take debugpy's one
client), so the editor attaches when the user asks."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..job_format import JobFormat
from .rewrite import command_lines

_LISTEN = re.compile(r"-m\s+debugpy\b[^;&|]*?--listen\s+[\"']?(?:[^\s:\"']+:)?(?P<port>\d+|\$[^\s\"';&|]+)")
_LABEL = (re.compile(r"^\$\{?PAI_CONTAINER_HOST_(?P<label>\w+?)_PORT_LIST\}?$"),
          re.compile(r"^\$\{?PAI_PORT_LIST_[A-Za-z0-9]+_(?:\d+|\$\w+|\$\{\w+\})_(?P<label>\w+?)\}?$"),
          re.compile(r"^\$\{?PAI_[A-Za-z0-9]+_\d+_(?P<label>\w+)_PORT\}?$"))


@dataclass(frozen=True)
class SelfStarted:
    """Where a role's own debugpy listens: a port label of the task's, or a fixed port."""

    label: str | None = None
    port: int | None = None

    def port_of(self, ports: dict[str, str]) -> int | None:
        """The port in a task whose labelled ports are `ports` (the job detail's `containerPorts`)."""
        if self.port is not None:
            return self.port
        first = str(ports.get(self.label or "") or "").split(",")[0]
        return int(first) if first.isdigit() else None


def self_started(job_format: JobFormat, job: dict) -> dict[str, SelfStarted]:
    """The roles whose commands start debugpy themselves, and where it listens (roles whose port
    cannot be read from the command are left out)."""
    out: dict[str, SelfStarted] = {}
    for role, line in command_lines(job_format, job):
        found = _LISTEN.search(line)
        if found is None or role in out:
            continue
        token = found["port"]
        label = None if token.isdigit() else next((m["label"] for m in (p.match(token) for p in _LABEL) if m), None)
        if token.isdigit() or label is not None:
            out[role] = SelfStarted(port=int(token)) if token.isdigit() else SelfStarted(label=label)
    return out
