"""Checks no schema expresses: rules the real server applies across fields, and `$PAI_…` references.

Each check reads the plain value first and looks up node positions only for what it reports,
so a large config costs little when it is fine. Checks of one task role (`ROLE_CHECKS`) see that
role and the names the config defines (`ConfigNames`) and nothing else, so their results can be
kept per role (see `validate.py`): an edit in one role of a 10,000-role config re-checks that
role. Checks that compare roles or read the top level are `CONFIG_CHECKS`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from . import joi
from . import messages as msg
from .envvars import DIR_FIELDS, DIR_SUBSTITUTED, ConfigNames, assigned_in, find_variables, resolve
from .jsonc import Document, Node, find, string_offset
from .model import Diagnostic, Edit, Fix, Settings
from .schema import defaults, description, job_schema


def _diag(node: Node, code: str, settings: Settings, fixes: list[Fix] | None = None, **args: Any) -> Diagnostic:
    return Diagnostic(node.start, node.end, code, msg.severity(code), msg.render(code, settings.locale, **args), fixes or [])


def _roles(config: dict) -> Iterator[tuple[int, dict]]:
    """(index, role) of each task role that is an object (one at a time: a config may have 10,000),
    as the server sees them: JSON text (of the list or of a role) is read as JSON."""
    roles = joi.from_json_text(config.get("taskRoles"), "array")
    if isinstance(roles, list):
        for i, r in enumerate(roles):
            r = joi.from_json_text(r, "object")
            if isinstance(r, dict):
                yield i, r


def _nearest(root: Node | None, path: tuple) -> Node | None:
    """The node at `path` under `root`, or the nearest one holding it (a JSON text string the server parses)."""
    for end in range(len(path), 0, -1):
        node = find(root, path[:end])
        if node is not None:
            return node
    return None


def semantic_checks(doc: Document, settings: Settings) -> list[Diagnostic]:
    """Every check, for the whole config (`validate.diagnose` runs the role checks per role instead)."""
    config = doc.root.value if doc.root is not None else None
    if not isinstance(config, dict):
        return []
    names = ConfigNames.of(config)
    out = config_checks(doc, config, names, settings)
    roles = doc.root.get("taskRoles") if doc.root is not None else None
    for role_node in roles.children if roles is not None and roles.type == "array" else []:
        out.extend(role_checks(doc, role_node, names, settings))
    return out


def config_checks(doc: Document, config: dict, names: ConfigNames, settings: Settings) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for check in CONFIG_CHECKS:
        out.extend(check(doc, config, names, settings))
    return out


def role_checks(doc: Document, role_node: Node, names: ConfigNames, settings: Settings) -> list[Diagnostic]:
    """The checks of one task role (an item of taskRoles)."""
    role = role_node.value
    if not isinstance(role, dict):
        return []
    out: list[Diagnostic] = []
    for check in ROLE_CHECKS:
        out.extend(check(doc, role_node, role, names, settings))
    return out


def duplicate_roles(doc: Document, config: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    if names.named == len(names.roles) and not isinstance(config.get("taskRoles"), str):
        return  # every name once: nothing to look for in 10,000 roles
    counts = Counter(r.get("name") for _, r in _roles(config) if isinstance(r.get("name"), str))
    seen: set[str] = set()
    for index, role in _roles(config):
        name = role.get("name")
        if isinstance(name, str) and counts[name] > 1:
            if name in seen:
                node = _nearest(doc.root, ("taskRoles", index, "name"))
                if node is not None:
                    yield _diag(node, "semantic.duplicate-role", settings, name=name)
            seen.add(name)


def _in_role(role_node: Node, path: tuple) -> Node:
    """The node at `path` in the role, or the nearest one holding it; the role itself at worst."""
    node = _nearest(role_node, path)
    return node if node is not None else role_node


def task_counts(doc: Document, role_node: Node, role: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    """The server's own check after Joi (middlewares/job.js), on Joi's converted values and defaults:
    (minFailedTaskCount || 0) > taskNumber or (minSucceededTaskCount || 0) > taskNumber is refused."""
    role_defaults = defaults("taskRole")
    tasks = joi.to_integer(role.get("taskNumber", role_defaults["taskNumber"]))
    if tasks is None or tasks < 0:
        return  # the schema's own error says it
    for field in ("minFailedTaskCount", "minSucceededTaskCount"):
        given = field in role
        value = joi.to_integer(role[field]) if given else role_defaults[field]
        if value is not None and value > tasks:
            node = _in_role(role_node, (field if given else "taskNumber",))
            shown = value if given else msg.render("semantic.the-default", settings.locale, value=value)
            yield _diag(node, "semantic.min-count-exceeds-tasks", settings, field=field, value=shown, tasks=tasks)


def shared_memory(doc: Document, role_node: Node, role: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    """Joi checks a given shmMB against memoryMB (given or its default); the default shmMB is never
    checked, so a small memoryMB without shmMB is accepted: a warning says what it means."""
    role_defaults = defaults("taskRole")
    memory = joi.to_integer(role.get("memoryMB", role_defaults["memoryMB"]))
    if memory is None:
        return
    default_note = "" if "memoryMB" in role else msg.render("semantic.default-note", settings.locale)
    if "shmMB" in role:
        shm = joi.to_integer(role["shmMB"])
        if shm is not None and shm > memory:
            yield _diag(_in_role(role_node, ("shmMB",)), "semantic.shm-exceeds-memory", settings, shm=shm, memory=memory,
                        default_note=default_note)
    elif role_defaults["shmMB"] > memory:
        yield _diag(_in_role(role_node, ("memoryMB",)), "semantic.default-shm-exceeds-memory", settings,
                    shm=role_defaults["shmMB"], memory=memory)


def duplicate_port_labels(doc: Document, role_node: Node, role: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    ports = joi.from_json_text(role.get("portList"), "array")
    if not isinstance(ports, list):
        return
    seen: set[str] = set()
    for p_index, port in enumerate(ports):
        port = joi.from_json_text(port, "object")
        label = port.get("label") if isinstance(port, dict) else None
        if not isinstance(label, str):
            continue
        if label in seen:
            yield _diag(_in_role(role_node, ("portList", p_index, "label")), "semantic.duplicate-port-label", settings, label=label)
        seen.add(label)


def roles_as_text(doc: Document, config: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    """taskRoles given as JSON text, or roles given so: the role checks, placed on the text."""
    roles = config.get("taskRoles")
    node = find(doc.root, ("taskRoles",))
    if node is None:
        return
    for index, role in _roles(config):
        if isinstance(roles, list) and not isinstance(roles[index], str):
            continue  # an object role: role_checks sees it
        holder = node if isinstance(roles, str) else (find(node, (index,)) or node)
        for check in ROLE_CHECKS:
            yield from check(doc, holder, role, names, settings)


def deprecated_fields(doc: Document, config: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    for key, schema in job_schema(settings.dialect)["properties"].items():
        if schema.get("deprecated") and key in config:
            prop = doc.root.get_property(key) if doc.root is not None else None
            if prop is not None and prop.key is not None:
                yield _diag(prop.key, "schema.deprecated", settings, field=key, doc=description(schema, settings.locale))


def role_variables(doc: Document, role_node: Node, role: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    """`$PAI_…` variables of the role's command that the task will not have."""
    command = role.get("command")
    if isinstance(command, str) and "PAI_" in command:
        own = assigned_in(command)
        for name, start, end in find_variables(command):
            if name in own:
                continue
            problem = resolve(name, names)
            if problem.problem:
                yield from _variable_diag(doc, find(role_node, ("command",)), name, start, end, problem, settings)


def dir_variables(doc: Document, config: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    """`$PAI_…` variables of authFile / dataDir / outputDir / codeDir that the server does not replace."""
    for field in DIR_FIELDS:
        value = config.get(field)
        if not isinstance(value, str) or "PAI_" not in value:
            continue
        for name, start, end in find_variables(value):
            if name in DIR_SUBSTITUTED:
                continue
            found = resolve(name, names)
            problem = replace(found, problem=found.problem or "semantic.not-substituted", args=dict(found.args or {}, field=field))
            yield from _variable_diag(doc, find(doc.root, (field,)), name, start, end, problem, settings)


def _variable_diag(doc: Document, node: Node | None, name: str, start: int, end: int, problem: Any, settings: Settings) -> Iterator[Diagnostic]:
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
            fixes = [Fix(msg.render("fix.replace", settings.locale, value="$" + suggestion), (Edit(a, b, raw.replace(name, suggestion)),))]
    code = problem.problem
    yield Diagnostic(a, b, code, msg.severity(code), msg.render(code, settings.locale, **args), fixes)


ROLE_CHECKS: tuple[Callable[[Document, Node, dict, ConfigNames, Settings], Iterator[Diagnostic]], ...] = (
    task_counts, shared_memory, duplicate_port_labels, role_variables)
CONFIG_CHECKS: tuple[Callable[[Document, dict, ConfigNames, Settings], Iterator[Diagnostic]], ...] = (
    duplicate_roles, roles_as_text, deprecated_fields, dir_variables)
