"""Jobs and tasks of the local cluster, as plain data that is saved to the data dir."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from ..common.atomic import write_atomic
from ..core.openpai_rest import FINAL
from ..core.roles import ALWAYS_PORTS, TaskRole

# Exit codes from the OpenPAI exit specs (openpai-api.md §5.4, §5.6).
STOPPED_BY_USER = {1: -7351, 2: -210}
TASK_STOPPED_ON_COMPLETION = {1: -7400, 2: -220}
ACTIVE = ("RUNNING", "COMPLETING", "STOPPING")  # states in which a job holds its resources


def now_ms() -> int:
    return int(time.time() * 1000)


def with_always_ports(roles: list[TaskRole]) -> list[TaskRole]:
    """Roles as the cluster runs them: each also gets the ports every task has."""
    for role in roles:
        for label in ALWAYS_PORTS:
            role.ports.setdefault(label, (0, 1))
    return roles


@dataclass
class Task:
    role: str
    index: int
    state: str = "WAITING"
    pid: int | None = None
    exit_code: int | None = None
    original_exit_code: int | None = None
    ports: dict[str, list[int]] = field(default_factory=dict)
    gpus: list[int] = field(default_factory=list)
    node: str = ""  # the node the scheduler placed it on (a simulated node runs it on this machine too)
    created: int = field(default_factory=now_ms)
    launched: int | None = None
    completed: int | None = None
    diagnostics: str = ""

    @property
    def finished(self) -> bool:
        return self.state in FINAL


@dataclass
class Job:
    user: str
    name: str
    version: int  # 1 or 2: which API and rules it was submitted with
    legacy: bool
    config: dict  # validated, defaults applied
    virtual_cluster: str
    roles: list[TaskRole]
    retry_count: int
    debug: bool = False
    state: str = "WAITING"
    execution_type: str = "START"
    created: int = field(default_factory=now_ms)
    launched: int | None = None
    completed: int | None = None
    attempt: int = 0
    retries: int = 0
    exit_code: int | None = None
    exit_diagnostics: str = ""
    trigger_message: str = ""
    trigger_role: str | None = None
    trigger_index: int | None = None
    runtime: str = "host"
    tasks: list[Task] = field(default_factory=list)
    kind: str = "openpai"  # which API it came through: "openpai", or "paddle" (localcluster/paddle)
    accounted: dict[str, int] | None = None  # what the job holds on this machine: cpu, memory_mb, gpu
    note: str = ""  # what the local cluster changed, e.g. a job scaled to this machine
    unrunnable: str = ""  # why no scheduler can run a job the REST server took (a v2 job's taskRoles as a list)
    storages: list[dict] = field(default_factory=list)  # what its tasks mount: {name, mountPath, share, readOnly} (v2 extras.storages)
    events: list[dict] = field(default_factory=list)  # its pods' Kubernetes events (GET /api/v2/jobs/:job/events)

    def need(self) -> dict[str, int]:
        """What the job asks for in total."""
        return {"cpu": sum(r.tasks * r.cpu for r in self.roles), "memory_mb": sum(r.tasks * r.memory_mb for r in self.roles),
                "gpu": self.total_gpus}

    def share(self) -> dict[str, int]:
        """What the job is accounted for (its need, or the machine when it was scaled down)."""
        return self.accounted or self.need()

    @property
    def framework(self) -> str:
        return self.name if self.legacy else f"{self.user}~{self.name}"

    @property
    def total_tasks(self) -> int:
        return sum(r.tasks for r in self.roles)

    @property
    def total_gpus(self) -> int:
        return sum(r.tasks * r.gpu for r in self.roles)

    def role(self, name: str) -> TaskRole:
        return next(r for r in self.roles if r.name == name)

    def saved_text(self) -> str:
        """The job as status.json keeps it (what `from_json` reads). It is saved at every change of a
        task, so what never changes after submit (config and roles, as large as a body may make them)
        is serialized once, and the rest without indentation (the C encoder)."""
        changing = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _FIXED}
        changing["tasks"] = [asdict(t) for t in self.tasks]
        text = json.dumps(changing, ensure_ascii=False)
        return f"{text[:-1]}, {self._fixed_text}}}"

    def freeze(self) -> Job:
        """Serialize what never changes after submit now (the submit routes do it off the event loop)."""
        _ = self._fixed_text
        return self

    @cached_property
    def _fixed_text(self) -> str:
        return ", ".join(f"{json.dumps(name)}: {json.dumps(value, ensure_ascii=False)}" for name, value in
                         (("config", self.config), ("roles", [asdict(r) for r in self.roles])))

    @classmethod
    def from_json(cls, data: dict) -> Job:
        data = dict(data)
        data["roles"] = [TaskRole(**{**r, "ports": {k: tuple(v) for k, v in r["ports"].items()}}) for r in data["roles"]]
        data["tasks"] = [Task(**t) for t in data["tasks"]]
        return cls(**data)


_FIXED = ("config", "roles", "tasks")


def write_json(path: Path, value: Any) -> None:
    write_atomic(path, json.dumps(value, indent=1, ensure_ascii=False), private=True)
