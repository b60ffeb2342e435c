"""Task roles in one form, translated once: from a v1 config (`*.pai.json`, schema defaults filled
in), to and from a protocol-v2 task role. The client converts v1 configs for v2 clusters with
these; the local cluster runs roles of both kinds from them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .schema import defaults

ALWAYS_PORTS = ("http", "ssh")  # every task gets these port labels (openpai-api.md §1.3)
V2_DEFAULT_SHM_MB = 512  # protocol v2's own default (extraContainerOptions.shmMB)
_V2_NAME = re.compile(r"[^A-Za-z0-9_]")


@dataclass
class TaskRole:
    name: str
    tasks: int
    cpu: int
    memory_mb: int
    gpu: int
    shm_mb: int
    command: str
    ports: dict[str, tuple[int, int]]  # label -> (beginAt, count)
    min_failed: int | None  # None: never fail because of failed tasks (v2: -1)
    min_succeeded: int | None  # None: succeed when all tasks did (v2: -1)


def roles_from_v1(config: dict) -> list[TaskRole]:
    """The roles of a checked v1 config; fields left out take the schema's defaults."""
    role_default, port_default = defaults("taskRole"), defaults("port")
    out = []
    for given in config["taskRoles"]:
        role = {**role_default, **given}
        ports = {p["label"]: (p.get("beginAt", port_default["beginAt"]), p.get("portNumber", port_default["portNumber"]))
                 for p in role["portList"]}
        out.append(TaskRole(role["name"], role["taskNumber"], role["cpuNumber"], role["memoryMB"], role["gpuNumber"],
                            role["shmMB"], role["command"], ports, role["minFailedTaskCount"], role["minSucceededTaskCount"]))
    return out


def v2_name(name: str) -> str:
    """A role key or port label as v2 accepts it (letters, digits, `_`; not starting with a digit)."""
    key = _V2_NAME.sub("_", name)
    return key if re.match(r"[A-Za-z_]", key) else f"_{key}"


def to_v2(role: TaskRole, commands: list[str], image: str = "image") -> dict:
    """A protocol-v2 task role (its key is `v2_name(role.name)`)."""
    resources: dict = {"cpu": role.cpu, "memoryMB": role.memory_mb, "gpu": role.gpu}
    if role.ports:
        resources["ports"] = {v2_name(label): count for label, (_, count) in role.ports.items()}
    return {
        "instances": role.tasks,
        # v1's null ("never" / "wait for all") is v2's -1; v2's own default would end the job early.
        "completion": {"minFailedInstances": -1 if role.min_failed is None else role.min_failed,
                       "minSucceededInstances": -1 if role.min_succeeded is None else role.min_succeeded},
        "dockerImage": image,
        "resourcePerInstance": resources,
        "extraContainerOptions": {"shmMB": role.shm_mb},
        "commands": commands,
    }


def from_v2(name: str, role: dict, command: str) -> TaskRole:
    """A role of a checked v2 job, with its commands already made into one `command`."""
    resources = role["resourcePerInstance"]
    instances = role.get("instances", 1)
    completion = role.get("completion") or {}
    ports = {label: (0, count) for label, count in (resources.get("ports") or {}).items()}
    return TaskRole(name, instances, resources["cpu"], resources["memoryMB"], resources["gpu"],
                    (role.get("extraContainerOptions") or {}).get("shmMB", V2_DEFAULT_SHM_MB), command, ports,
                    completion.get("minFailedInstances") or 1, completion.get("minSucceededInstances") or instances)
