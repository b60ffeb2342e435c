"""What a v2 job defines and where: its prerequisites (by type and name), task roles, deployments,
parameters and secrets, each with its node, read once per parse (`job_of`). Diagnostics, completion,
hover and the navigation (definition, references, rename) all look names up here."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..envvars import ConfigNames
from ..jsonc import Node
from .facts import PREREQUISITE_FIELDS, RUNTIME_PLUGIN_KEY


@dataclass(slots=True)
class Named:
    """Something defined under a name: the name's node (a key, or the `name:` value), and its own
    node (the role, the prerequisite or deployment item, the parameter's value)."""

    name: str
    name_node: Node
    node: Node | None
    kind: str = ""  # a prerequisite's type


@dataclass
class Job:
    root: Node | None
    value: dict
    prerequisites: list[Named] = field(default_factory=list)
    by_type: dict[str, dict[str, Named]] = field(default_factory=dict)  # the first of each (type, name)
    roles: dict[str, Named] = field(default_factory=dict)
    deployments: dict[str, Named] = field(default_factory=dict)
    parameters: dict[str, Named] = field(default_factory=dict)
    secrets: dict[str, Named] = field(default_factory=dict)
    _names: ConfigNames | None = None

    def named(self, name: str) -> list[Named]:
        """The prerequisites called `name`, of any type."""
        return [p for p in self.prerequisites if p.name == name]

    @property
    def names(self) -> ConfigNames:
        """What `$PAI_…` variables may name: the roles with their instances, the port labels."""
        if self._names is None:
            roles = []
            for name, role in self.roles.items():
                value = role.node.value if role.node is not None else None
                value = value if isinstance(value, dict) else {}
                count = value.get("instances", 1)
                ports = (value.get("resourcePerInstance") or {}).get("ports") if isinstance(value.get("resourcePerInstance"), dict) else None
                labels = tuple(k for k in ports) if isinstance(ports, dict) else ()
                roles.append((name, count if isinstance(count, int) and not isinstance(count, bool) else 1, labels))
            self._names = ConfigNames.from_roles(roles, None)
        return self._names

    def role_of(self, node: Node) -> Named | None:
        """The task role `node` is inside of."""
        current: Node | None = node
        while current is not None:
            parent = current.parent
            if parent is not None and parent.type == "property" and parent.parent is not None \
                    and parent.parent.parent is not None and parent.parent.parent.parent is self.root \
                    and _key(parent.parent.parent) == "taskRoles":
                return self.roles.get(_key(parent) or "")
            current = parent
        return None


def _key(prop: Node | None) -> str | None:
    key = prop.key if prop is not None and prop.type == "property" else None
    return key.value if key is not None and isinstance(key.value, str) else None


def pairs(mapping: Node | None) -> Iterator[tuple[str, Node, Node | None]]:
    """(key, key node, value node) of each pair of a mapping."""
    if mapping is None or mapping.type != "object":
        return
    for prop in mapping.properties():
        key = prop.key
        if key is not None and isinstance(key.value, str):
            yield key.value, key, prop.value_node


def items(sequence: Node | None) -> list[Node]:
    return sequence.children if sequence is not None and sequence.type == "array" else []


def job_of(doc: Any) -> Job:
    """The job a parsed v2 file defines (remembered with the parse)."""
    job = doc.memo.get("v2-job")
    if job is None:
        job = doc.memo["v2-job"] = _read(doc.root)
    return job


def _read(root: Node | None) -> Job:
    if root is None or root.type != "object":
        return Job(root, {})
    job = Job(root, root.value)
    for item in items(root.get("prerequisites")):
        name = item.get("name") if item.type == "object" else None
        kind = item.get("type") if item.type == "object" else None
        if name is None or not isinstance(name.value, str):
            continue
        named = Named(name.value, name, item, kind.value if kind is not None and isinstance(kind.value, str) else "")
        job.prerequisites.append(named)
        job.by_type.setdefault(named.kind, {}).setdefault(named.name, named)
    for name, key, value in pairs(root.get("taskRoles")):
        job.roles.setdefault(name, Named(name, key, value))
    for item in items(root.get("deployments")):
        name = item.get("name") if item.type == "object" else None
        if name is not None and isinstance(name.value, str):
            job.deployments.setdefault(name.value, Named(name.value, name, item))
    for section, into in (("parameters", job.parameters), ("secrets", job.secrets)):
        for name, key, value in pairs(root.get(section)):
            into[name] = Named(name, key, value)
    return job


def role_field(role: Named, field_name: str) -> Node | None:
    return role.node.get(field_name) if role.node is not None and role.node.type == "object" else None


def prerequisite_uses(job: Job) -> Iterator[tuple[str, str, Node]]:
    """Every place the job names a prerequisite: (its type, or "" for any type; the name; the node)."""
    for role in job.roles.values():
        for name, kind in PREREQUISITE_FIELDS.items():
            node = role_field(role, name)
            if node is not None and isinstance(node.value, str):
                yield kind, node.value, node
        for item in items(role_field(role, "prerequisites")):
            if isinstance(item.value, str):
                yield "", item.value, item
    for item in job.prerequisites:
        for required in items(item.node.get("require") if item.node is not None and item.node.type == "object" else None):
            if isinstance(required.value, str):
                yield "", required.value, required


def command_nodes(job: Job, role: Named) -> list[Node]:
    """The strings that make up a role's command as the server renders it: its deployment's
    preCommands, its commands, the postCommands (`defaults.deployment`'s deployment)."""
    before, after = deployment_hooks(job, role.name)
    own = items(role_field(role, "commands"))
    return [n for n in before + own + after if n.type == "string"]


def deployment_hooks(job: Job, role: str) -> tuple[list[Node], list[Node]]:
    defaults = job.root.get("defaults") if job.root is not None and job.root.type == "object" else None
    chosen = defaults.get("deployment") if defaults is not None and defaults.type == "object" else None
    deployment = job.deployments.get(chosen.value) if chosen is not None and isinstance(chosen.value, str) else None
    if deployment is None or deployment.node is None or deployment.node.type != "object":
        return [], []
    roles = deployment.node.get("taskRoles")
    hooks = roles.get(role) if roles is not None and roles.type == "object" else None
    if hooks is None or hooks.type != "object":
        return [], []
    return items(hooks.get("preCommands")), items(hooks.get("postCommands"))


def all_command_nodes(job: Job) -> Iterator[tuple[Named | None, Node]]:
    """Every command string of the job with its role (None for a deployment's commands of a role
    the job does not have): roles' commands and every deployment's pre/post commands."""
    for role in job.roles.values():
        for node in items(role_field(role, "commands")):
            if node.type == "string":
                yield role, node
    for deployment in job.deployments.values():
        roles = deployment.node.get("taskRoles") if deployment.node is not None and deployment.node.type == "object" else None
        for name, _, hooks in pairs(roles):
            for hook in ("preCommands", "postCommands"):
                for node in items(hooks.get(hook) if hooks is not None and hooks.type == "object" else None):
                    if node.type == "string":
                        yield job.roles.get(name), node


def plugins(root: Node | None) -> list[Node]:
    extras = root.get("extras") if root is not None and root.type == "object" else None
    return items(extras.get(RUNTIME_PLUGIN_KEY) if extras is not None and extras.type == "object" else None)
