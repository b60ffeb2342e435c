"""Hover in a v2 job file: a key's documentation in the user's language with its default (shmMB: 512)
and limits; a task role's resources; what a prerequisite a role names is; a runtime plugin; and in a
command, what a `<% … %>` template renders to with this file's parameters (the command as the server
will run it), or what a `$PAI_…` variable holds."""

from __future__ import annotations

from typing import Any

from .. import messages as msg
from ..envvars import STATIC, find_variables, resolve
from ..jsonc import Node, node_at
from ..messages import pick
from ..model import Hover, Settings
from ..schema_hover import field_doc, variable_markdown
from .facts import DEFAULT_SHM_MB, EXTRAS, K8S_VARIABLES, PLUGINS, PREREQUISITE_FIELDS, RUNTIME_PLUGIN_KEY, defaults_of, subschema
from .job import Job, Named, job_of, role_field
from .templates import TemplateError, find_templates, render
from .text import index_at, span


def hover(doc: Any, offset: int, settings: Settings) -> Hover | None:
    root = doc.root
    if root is None or root.type != "object":
        return None
    node = node_at(root, offset, include_end=False)
    if node is None:
        return None
    job = job_of(doc)
    locale = settings.locale
    parent = node.parent
    if node.type == "string" and parent is not None and parent.type == "property" and parent.key is node:
        text = _key_doc(job, parent, node.value, locale)
        return Hover(text, node.start, node.end) if text else None
    if node.type != "string" or parent is None:
        return None
    path = node.path()
    if len(path) == 3 and path[0] == "taskRoles" and path[2] in PREREQUISITE_FIELDS:
        found = job.by_type.get(PREREQUISITE_FIELDS[path[2]], {}).get(node.value)
        return Hover(_prerequisite_doc(found, locale), node.start, node.end) if found is not None else None
    if len(path) == 4 and path[:2] == ["extras", RUNTIME_PLUGIN_KEY] and path[3] == "plugin":
        spec = PLUGINS.get(str(node.value).removeprefix("com.microsoft.pai.runtimeplugin."))
        return Hover(f"**{node.value}**\n\n{pick(locale, spec[0], spec[1])}", node.start, node.end) if spec else None
    if len(path) >= 2 and isinstance(path[-1], int) and path[-2] in ("commands", "preCommands", "postCommands"):
        return _in_command(doc, job, node, offset, locale)
    return None


def _key_doc(job: Job, prop: Node, key: str, locale: str | None) -> str:
    holder = prop.parent.path() if prop.parent is not None else []
    path = [*holder, key]
    if holder == ["taskRoles"]:
        role = job.roles.get(key)
        return role_summary(job, role, locale) if role is not None else ""
    if holder == ["extras"] and key in EXTRAS:
        schema = subschema(path, job.value)
        doc = field_doc(key, schema, locale) if schema else f"**{key}**"
        return doc if schema and schema.get("description") else f"**{key}**\n\n{pick(locale, *EXTRAS[key])}"
    if len(holder) == 4 and holder[:2] == ["extras", RUNTIME_PLUGIN_KEY] and holder[3] == "parameters":
        item = job.root.get("extras").get(RUNTIME_PLUGIN_KEY).children[holder[2]]  # the path says they are there
        plugin = item.value.get("plugin", "") if isinstance(item.value, dict) else ""
        spec = PLUGINS.get(str(plugin).removeprefix("com.microsoft.pai.runtimeplugin."), ("", "", {}))[2].get(key)
        return f"**{key}** `{spec[0]}`\n\n{pick(locale, spec[2], spec[3])}" if spec else ""
    if holder in (["parameters"], ["secrets"]):
        uses = msg.render("v2.hover.used-as", locale) + f" `<% ${holder[0]}.{key} %>`"
        value = job.value.get(holder[0], {}).get(key) if isinstance(job.value.get(holder[0]), dict) else None
        shown = "******" if holder == ["secrets"] else f"`{value}`"
        return f"**{key}** = {shown}\n\n{uses}"
    schema = subschema(path, job.value)
    return field_doc(key, schema, locale) if schema is not None and (schema.get("description") or schema.get("type")) else ""


def role_summary(job: Job, role: Named, locale: str | None) -> str:
    """A role's instances and resources, each and in all; its image; its shared memory."""
    value = role.node.value if role.node is not None and isinstance(role.node.value, dict) else {}
    resources = value.get("resourcePerInstance") if isinstance(value.get("resourcePerInstance"), dict) else {}

    def number(holder: dict, key: str, default: Any) -> Any:
        found = holder.get(key, default)
        return found if isinstance(found, (int, float)) and not isinstance(found, bool) else default

    instances = number(value, "instances", defaults_of("taskRole").get("instances", 1))
    cpu, memory, gpu = number(resources, "cpu", 0), number(resources, "memoryMB", 0), number(resources, "gpu", 0)
    options = value.get("extraContainerOptions") if isinstance(value.get("extraContainerOptions"), dict) else {}
    shm = number(options, "shmMB", 0) or DEFAULT_SHM_MB
    each = msg.render("hover.role-each", locale, cpu=cpu, memory=_mb(memory), gpu=gpu)
    total = msg.render("hover.role-each", locale, cpu=instances * cpu, memory=_mb(instances * memory), gpu=instances * gpu)
    count = msg.render("v2.hover.instances", locale, instances=instances)
    lines = [f"**{role.name}**: {count} × ({each}) = {total}", "",
             msg.render("v2.hover.shm", locale, shm=shm)]
    image = value.get("dockerImage")
    found = job.by_type.get("dockerimage", {}).get(image) if isinstance(image, str) else None
    uri = found.node.value.get("uri") if found is not None and found.node is not None and isinstance(found.node.value, dict) else None
    if isinstance(uri, str):
        lines.append(msg.render("v2.hover.image", locale, uri=uri))
    return "\n".join(lines)


def _mb(mb: float) -> str:
    return f"{mb / 1024:g} GB" if mb >= 1024 else f"{mb:g} MB"


def _prerequisite_doc(item: Named, locale: str | None) -> str:
    value = item.node.value if item.node is not None and isinstance(item.node.value, dict) else {}
    lines = [f"**{item.name}** ({item.kind})"]
    uri = value.get("uri")
    if isinstance(uri, list):
        lines += [""] + [f"- `{u}`" for u in uri]
    elif uri is not None:
        lines += ["", f"`{uri}`"]
    if isinstance(value.get("description"), str):
        lines += ["", value["description"]]
    if item.kind == "dockerimage" and isinstance(value.get("auth"), dict):
        lines += ["", msg.render("v2.hover.auth", locale)]
    return "\n".join(lines)


def _in_command(doc: Any, job: Job, node: Node, offset: int, locale: str | None) -> Hover | None:
    text = doc.text
    value = node.value
    index = index_at(text, node, offset)
    if index is None:
        return None
    role = job.role_of(node)
    context = _context(job, role)
    if "<%" in value:
        try:
            tags = find_templates(value)
        except TemplateError as e:
            return Hover(msg.render("v2.hover.cannot-render", locale, message=e.message),
                         node.start, node.end)
        for tag in tags:
            if tag.start <= index < tag.end:
                a, b = span(text, node, tag.start, tag.end)
                filled = render(value[tag.start:tag.end], **context)
                head = f"`{value[tag.start:tag.end]}` → `{filled}`" if tag.filled else \
                    msg.render("v2.hover.dropped-tag", locale)
                return Hover(head + "\n\n" + _rendered(value, context, locale), a, b)
    for name, start, end in find_variables(value):
        if start <= index < end:
            a, b = span(text, node, start, end)
            return Hover(_variable_doc(job, name, locale), a, b)
    return None


def _context(job: Job, role: Named | None) -> dict[str, Any]:
    parameters = job.value.get("parameters")
    context: dict[str, Any] = {"parameters": parameters if isinstance(parameters, dict) else {}, "secrets": None}
    for field in ("script", "output", "data"):
        node = role_field(role, field) if role is not None else None
        found = job.by_type.get(field, {}).get(node.value) if node is not None and isinstance(node.value, str) else None
        if found is not None and found.node is not None and isinstance(found.node.value, dict):
            context[field] = found.node.value
    return context


def _rendered(value: str, context: dict[str, Any], locale: str | None) -> str:
    """The whole command as the server renders it (secrets are filled in later, in the container)."""
    try:
        filled = render(value, **context)
    except TemplateError:
        return ""
    fence = "```" if "```" not in filled else "````"
    return msg.render("v2.hover.runs", locale) + f"\n{fence}sh\n{filled}\n{fence}"


def _variable_doc(job: Job, name: str, locale: str | None) -> str:
    if name in STATIC and name not in K8S_VARIABLES:
        return variable_markdown(name, msg.render("v2.hover.yarn-only", locale), "", locale)
    found = resolve(name, job.names)
    if found.problem:
        return variable_markdown(name, msg.render("v2.hover.not-set", locale), "", locale)
    return variable_markdown(name, pick(locale, found.en, found.zh), found.example, locale)
