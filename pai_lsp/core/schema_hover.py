"""Hover text (Markdown): field docs, `$PAI_…` variables, task-role resource summaries."""

from __future__ import annotations

import json

from . import envvars
from .jsonc import Document, Node, node_at
from .messages import pick, render
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
        facts.append(render("hover.default", locale) + f": `{json.dumps(schema['default'], ensure_ascii=False)}`")
    if "enum" in schema:
        facts.append(render("hover.allowed", locale) + ": " + ", ".join(f"`{json.dumps(v)}`" for v in schema["enum"]))
    if "minimum" in schema:
        facts.append(render("hover.minimum", locale) + f": `{schema['minimum']}`")
    if "maximum" in schema:
        facts.append(render("hover.maximum", locale) + f": `{schema['maximum']}`")
    if "pattern" in schema:
        facts.append(render("hover.pattern", locale) + f": `{schema['pattern']}`")
    if "examples" in schema:
        facts.append(render("hover.example", locale) + ": " + ", ".join(f"`{v}`" for v in schema["examples"]))
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
                text = variable_markdown(name, render("hover.variable-not-set", settings.locale), "", settings.locale)
            else:
                text = variable_markdown(name, pick(settings.locale, res.en, res.zh), res.example, settings.locale)
            return Hover(text, a, b)
    return None


def variable_markdown(name: str, doc: str, example: str, locale: str | None) -> str:
    """A `$NAME`'s hover, in every kind of job file: what it holds, and an example value."""
    text = f"**${name}**\n\n{doc}"
    return text + ("\n\n" + render("hover.example", locale) + f": `{example}`" if example else "")


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
    each = render("hover.role-each", locale, cpu=cpu, memory=_mb(mem), gpu=gpu)
    total = render("hover.role-each", locale, cpu=tasks * cpu, memory=_mb(tasks * mem), gpu=tasks * gpu)
    tasks_word = render("hover.role-tasks", locale, tasks=tasks)
    return f"**{name}**: {tasks_word} × ({each}) = {total}"


def _mb(mb: int) -> str:
    return f"{mb / 1024:g} GB" if mb >= 1024 else f"{mb} MB"
