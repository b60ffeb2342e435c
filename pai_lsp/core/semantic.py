"""Checks no schema expresses: rules the real server applies across fields, and `$PAI_…` references.

Each check reads the plain value first and looks up node positions only for what it reports,
so a large config costs little when it is fine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from . import joi
from . import messages as msg
from .envvars import DIR_FIELDS, DIR_SUBSTITUTED, ConfigNames, assigned_in, find_variables, resolve
from .jsonc import Document, Node, find, string_offset
from .model import Diagnostic, Edit, Fix, Settings
from .schema import defaults, description, job_schema


def _diag(node: Node, code: str, settings: Settings, fixes: list[Fix] | None = None, **args: Any) -> Diagnostic:
    return Diagnostic(node.start, node.end, code, msg.severity(code), msg.render(code, settings.locale, **args), fixes or [])


def _roles(config: dict) -> list[tuple[int, dict]]:
    """The task roles as the server sees them: JSON text (of the list or of a role) is read as JSON."""
    roles = joi.from_json_text(config.get("taskRoles"), "array")
    if not isinstance(roles, list):
        return []
    roles = [joi.from_json_text(r, "object") for r in roles]
    return [(i, r) for i, r in enumerate(roles) if isinstance(r, dict)]


def _at(doc: Document, path: tuple) -> Node | None:
    """The node at `path`, or the nearest one holding it (a JSON text string the server parses)."""
    for end in range(len(path), 0, -1):
        node = find(doc.root, path[:end])
        if node is not None:
            return node
    return None


def semantic_checks(doc: Document, settings: Settings) -> list[Diagnostic]:
    config = doc.root.value if doc.root is not None else None
    if not isinstance(config, dict):
        return []
    out: list[Diagnostic] = []
    for check in (duplicate_roles, task_counts, shared_memory, duplicate_port_labels, deprecated_fields, variables):
        out.extend(check(doc, config, settings))
    return out


def duplicate_roles(doc: Document, config: dict, settings: Settings) -> Iterator[Diagnostic]:
    names = Counter(r.get("name") for _, r in _roles(config) if isinstance(r.get("name"), str))
    seen: set[str] = set()
    for index, role in _roles(config):
        name = role.get("name")
        if isinstance(name, str) and names[name] > 1:
            if name in seen:
                node = _at(doc, ("taskRoles", index, "name"))
                if node is not None:
                    yield _diag(node, "semantic.duplicate-role", settings, name=name)
            seen.add(name)


def task_counts(doc: Document, config: dict, settings: Settings) -> Iterator[Diagnostic]:
    """The server's own check after Joi (middlewares/job.js), on Joi's converted values and defaults:
    (minFailedTaskCount || 0) > taskNumber or (minSucceededTaskCount || 0) > taskNumber is refused."""
    role_defaults = defaults("taskRole")
    for index, role in _roles(config):
        tasks = joi.to_integer(role.get("taskNumber", role_defaults["taskNumber"]))
        if tasks is None or tasks < 0:
            continue  # the schema's own error says it
        for field in ("minFailedTaskCount", "minSucceededTaskCount"):
            given = field in role
            value = joi.to_integer(role[field]) if given else role_defaults[field]
            if value is not None and value > tasks:
                node = _at(doc, ("taskRoles", index, field if given else "taskNumber"))
                if node is not None:
                    shown = value if given else msg.pick(settings.locale, f"{value} (the default)", f"{value}（默认值）")
                    yield _diag(node, "semantic.min-count-exceeds-tasks", settings, field=field, value=shown, tasks=tasks)


def shared_memory(doc: Document, config: dict, settings: Settings) -> Iterator[Diagnostic]:
    """Joi checks a given shmMB against memoryMB (given or its default); the default shmMB is never
    checked, so a small memoryMB without shmMB is accepted: a warning says what it means."""
    role_defaults = defaults("taskRole")
    for index, role in _roles(config):
        memory = joi.to_integer(role.get("memoryMB", role_defaults["memoryMB"]))
        if memory is None:
            continue
        default_note = "" if "memoryMB" in role else msg.pick(settings.locale, ", the default", "，默认值")
        if "shmMB" in role:
            shm = joi.to_integer(role["shmMB"])
            if shm is not None and shm > memory:
                node = _at(doc, ("taskRoles", index, "shmMB"))
                if node is not None:
                    yield _diag(node, "semantic.shm-exceeds-memory", settings, shm=shm, memory=memory, default_note=default_note)
        elif role_defaults["shmMB"] > memory:
            node = _at(doc, ("taskRoles", index, "memoryMB"))
            if node is not None:
                yield _diag(node, "semantic.default-shm-exceeds-memory", settings, shm=role_defaults["shmMB"], memory=memory)


def duplicate_port_labels(doc: Document, config: dict, settings: Settings) -> Iterator[Diagnostic]:
    for index, role in _roles(config):
        ports = joi.from_json_text(role.get("portList"), "array")
        if not isinstance(ports, list):
            continue
        ports = [joi.from_json_text(p, "object") for p in ports]
        seen: set[str] = set()
        for p_index, port in enumerate(ports):
            label = port.get("label") if isinstance(port, dict) else None
            if not isinstance(label, str):
                continue
            if label in seen:
                node = _at(doc, ("taskRoles", index, "portList", p_index, "label"))
                if node is not None:
                    yield _diag(node, "semantic.duplicate-port-label", settings, label=label)
            seen.add(label)


def deprecated_fields(doc: Document, config: dict, settings: Settings) -> Iterator[Diagnostic]:
    for key, schema in job_schema(settings.dialect)["properties"].items():
        if schema.get("deprecated") and key in config:
            prop = doc.root.get_property(key) if doc.root is not None else None
            if prop is not None and prop.key is not None:
                yield _diag(prop.key, "schema.deprecated", settings, field=key, doc=description(schema, settings.locale))


def variables(doc: Document, config: dict, settings: Settings) -> Iterator[Diagnostic]:
    names = ConfigNames.of(config)
    for index, role in _roles(config):
        command = role.get("command")
        if isinstance(command, str) and "PAI_" in command:
            own = assigned_in(command)
            for name, start, end in find_variables(command):
                if name in own:
                    continue
                problem = resolve(name, names)
                if problem.problem:
                    yield from _variable_diag(doc, ("taskRoles", index, "command"), name, start, end, problem, settings)
    for field in DIR_FIELDS:
        value = config.get(field)
        if not isinstance(value, str) or "PAI_" not in value:
            continue
        for name, start, end in find_variables(value):
            if name in DIR_SUBSTITUTED:
                continue
            problem = resolve(name, names)
            code = problem.problem or "semantic.not-substituted"
            problem.problem = code
            problem.args = dict(problem.args or {}, field=field)
            yield from _variable_diag(doc, (field,), name, start, end, problem, settings)


def _variable_diag(doc: Document, path: tuple, name: str, start: int, end: int, problem: Any, settings: Settings) -> Iterator[Diagnostic]:
    node = find(doc.root, path)
    if node is None or node.type != "string":
        return
    a, b = string_offset(node, doc.text, start), string_offset(node, doc.text, end)
    args = dict(problem.args or {}, name=name)
    fixes: list[Fix] = []
    if problem.problem == "semantic.unknown-variable":
        suggestion = args.pop("suggestion", "")
        args["hint"] = msg.render("schema.did-you-mean", settings.locale, suggestion="$" + suggestion) if suggestion else ""
        if suggestion:
            raw = doc.text[a:b]
            fixes = [Fix(f"Replace with ${suggestion}", (Edit(a, b, raw.replace(name, suggestion)),))]
    code = problem.problem
    yield Diagnostic(a, b, code, msg.severity(code), msg.render(code, settings.locale, **args), fixes)
