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
from typing import Any

from . import messages as msg
from .envvars import DIR_FIELDS, DIR_SUBSTITUTED, ConfigNames, assigned_in, find_variables, resolve
from .jsonc import Document, Node, find, string_offset
from .model import Diagnostic, Edit, Fix, Settings
from .schema import defaults, description, job_schema


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _diag(node: Node, code: str, settings: Settings, fixes: list[Fix] | None = None, **args: Any) -> Diagnostic:
    return Diagnostic(node.start, node.end, code, msg.severity(code), msg.render(code, settings.locale, **args), fixes or [])


def _roles(config: dict) -> Iterator[tuple[int, dict]]:
    """(index, role) of each task role that is an object (one at a time: a config may have 10,000)."""
    roles = config.get("taskRoles")
    if isinstance(roles, list):
        for i, r in enumerate(roles):
            if isinstance(r, dict):
                yield i, r


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
    if names.named == len(names.roles):
        return  # every name once: nothing to look for in 10,000 roles
    counts = Counter(r.get("name") for _, r in _roles(config) if isinstance(r.get("name"), str))
    seen: set[str] = set()
    for index, role in _roles(config):
        name = role.get("name")
        if isinstance(name, str) and counts[name] > 1:
            if name in seen:
                node = find(doc.root, ("taskRoles", index, "name"))
                if node is not None:
                    yield _diag(node, "semantic.duplicate-role", settings, name=name)
            seen.add(name)


def task_counts(doc: Document, role_node: Node, role: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    tasks = _int(role.get("taskNumber", 1))
    if tasks is None:
        return
    for field in ("minFailedTaskCount", "minSucceededTaskCount"):
        value = _int(role.get(field))
        if value is not None and value > tasks:
            node = find(role_node, (field,))
            if node is not None:
                yield _diag(node, "semantic.min-count-exceeds-tasks", settings, field=field, value=value, tasks=tasks)


def shared_memory(doc: Document, role_node: Node, role: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    memory = _int(role.get("memoryMB", defaults("taskRole")["memoryMB"]))
    if memory is None:
        return
    default_note = "" if "memoryMB" in role else msg.pick(settings.locale, ", the default", "，默认值")
    # Without shmMB the server applies its default first, then checks it against memoryMB.
    shm = _int(role["shmMB"]) if "shmMB" in role else defaults("taskRole")["shmMB"]
    if shm is None or shm <= memory:
        return
    node = find(role_node, ("shmMB" if "shmMB" in role else "memoryMB",))
    if node is not None:
        yield _diag(node, "semantic.shm-exceeds-memory", settings, shm=shm, memory=memory, default_note=default_note)


def duplicate_port_labels(doc: Document, role_node: Node, role: dict, names: ConfigNames, settings: Settings) -> Iterator[Diagnostic]:
    ports = role.get("portList")
    if not isinstance(ports, list):
        return
    seen: set[str] = set()
    for p_index, port in enumerate(ports):
        label = port.get("label") if isinstance(port, dict) else None
        if not isinstance(label, str):
            continue
        if label in seen:
            node = find(role_node, ("portList", p_index, "label"))
            if node is not None:
                yield _diag(node, "semantic.duplicate-port-label", settings, label=label)
        seen.add(label)


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
            problem = resolve(name, names)
            code = problem.problem or "semantic.not-substituted"
            problem.problem = code
            problem.args = dict(problem.args or {}, field=field)
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
            fixes = [Fix(f"Replace with ${suggestion}", (Edit(a, b, raw.replace(name, suggestion)),))]
    code = problem.problem
    yield Diagnostic(a, b, code, msg.severity(code), msg.render(code, settings.locale, **args), fixes)


ROLE_CHECKS: tuple[Callable[[Document, Node, dict, ConfigNames, Settings], Iterator[Diagnostic]], ...] = (
    task_counts, shared_memory, duplicate_port_labels, role_variables)
CONFIG_CHECKS: tuple[Callable[[Document, dict, ConfigNames, Settings], Iterator[Diagnostic]], ...] = (
    duplicate_roles, deprecated_fields, dir_variables)
