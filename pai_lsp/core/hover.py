"""Hover text (Markdown): field docs, `$PAI_…` variables, task-role resource summaries."""

from __future__ import annotations

import json

from . import envvars
from .jsonc import Document, Node, node_at
from .messages import pick
from .model import Hover, Settings
from .schema import defaults, description, job_schema, subschema, types_of


def hover(doc: Document, offset: int, settings: Settings = Settings(), schema: dict | None = None) -> Hover | None:
    """Hover from the job schema (`schema`; by default the v1 schema of `settings.dialect`): a key's
    documentation, a `$PAI_…` variable's value, a task role's resources."""
    node = node_at(doc.root, offset, include_end=False)
    if node is None:
        return None
    locale = settings.locale
    parent = node.parent
    if node.type == "string" and parent is not None and parent.type == "property" and parent.key is node:
        root = schema if schema is not None else job_schema(settings.dialect)
        found = subschema(root, parent.parent.path() + [node.value]) if parent.parent else None
        if found is None:
            return None
        return Hover(field_doc(node.value, found, locale), node.start, node.end)
    if node.type == "string":
        variable = _variable_at(doc, node, offset, settings)
        if variable is not None:
            return variable
    role = _role_of(node)
    if role is not None and (node is role or node.parent is not None and node.parent.parent is role
                             and node.parent.key is not None and node.parent.key.value == "name" and node.parent.value_node is node):
        summary = role_summary(role.value, locale)
        if summary:
            return Hover(summary, node.start, node.end)
    return None


def field_doc(name: str, schema: dict, locale: str | None) -> str:
    lines = [f"**{name}** `{' | '.join(types_of(schema)) or 'any'}`", "", description(schema, locale)]
    facts = []
    if "default" in schema:
        facts.append(pick(locale, "Default", "默认值") + f": `{json.dumps(schema['default'], ensure_ascii=False)}`")
    if "enum" in schema:
        facts.append(pick(locale, "Allowed", "可选值") + ": " + ", ".join(f"`{json.dumps(v)}`" for v in schema["enum"]))
    if "minimum" in schema:
        facts.append(pick(locale, "Minimum", "最小值") + f": `{schema['minimum']}`")
    if "maximum" in schema:
        facts.append(pick(locale, "Maximum", "最大值") + f": `{schema['maximum']}`")
    if "pattern" in schema:
        facts.append(pick(locale, "Pattern", "格式") + f": `{schema['pattern']}`")
    if "examples" in schema:
        facts.append(pick(locale, "Example", "示例") + ": " + ", ".join(f"`{v}`" for v in schema["examples"]))
    if facts:
        lines += [""] + [f"- {fact}" for fact in facts]
    return "\n".join(lines)


def _variable_at(doc: Document, node: Node, offset: int, settings: Settings) -> Hover | None:
    from .jsonc import string_offset

    for name, start, end in envvars.find_variables(node.value):
        a, b = string_offset(node, doc.text, start), string_offset(node, doc.text, end)
        if a <= offset < b:
            res = envvars.resolve(name, envvars.names_in(doc))
            if res.problem:
                text = variable_markdown(name, "Not set by PAI in this config.", "在此配置中 PAI 不会设置它。", "", settings.locale)
            else:
                text = variable_markdown(name, res.en, res.zh, res.example, settings.locale)
            return Hover(text, a, b)
    return None


def variable_markdown(name: str, en: str, zh: str, example: str, locale: str | None) -> str:
    """A `$NAME`'s hover, in every kind of job file: what it holds, and an example value."""
    text = f"**${name}**\n\n{pick(locale, en, zh)}"
    return text + ("\n\n" + pick(locale, "Example", "示例") + f": `{example}`" if example else "")


def _role_of(node: Node) -> Node | None:
    """The task-role object `node` is, or is the name of."""
    current: Node | None = node
    while current is not None:
        path = current.path() if current.type == "object" else None
        if path is not None and len(path) == 2 and path[0] == "taskRoles":
            return current
        current = current.parent
    return None


def role_summary(role: object, locale: str | None) -> str:
    if not isinstance(role, dict):
        return ""

    def num(key: str) -> int:
        default = defaults("taskRole")[key]
        value = role.get(key, default)
        return value if isinstance(value, int) and not isinstance(value, bool) else default

    tasks, cpu, mem, gpu = num("taskNumber"), num("cpuNumber"), num("memoryMB"), num("gpuNumber")
    name = role.get("name", "?")
    each = pick(locale, f"{cpu} CPU, {_mb(mem)}, {gpu} GPU", f"{cpu} 个 CPU，{_mb(mem)}，{gpu} 个 GPU")
    total = pick(locale, f"{tasks * cpu} CPU, {_mb(tasks * mem)}, {tasks * gpu} GPU", f"{tasks * cpu} 个 CPU，{_mb(tasks * mem)}，{tasks * gpu} 个 GPU")
    tasks_word = pick(locale, f"{tasks} task{'s' if tasks != 1 else ''}", f"{tasks} 个任务")
    return f"**{name}**: {tasks_word} × ({each}) = {total}"


def _mb(mb: int) -> str:
    return f"{mb / 1024:g} GB" if mb >= 1024 else f"{mb} MB"
