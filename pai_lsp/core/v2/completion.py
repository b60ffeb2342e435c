"""Completion in a half-typed v2 job file: where the cursor stands comes from its indentation
(core/yaml/context.py), what fits there from the schema and from what the job defines.

Keys valid at the cursor as YAML snippets (`key: value`, or `key:` with the block below it, indented
for the line); enums, booleans and defaults; whole task roles, prerequisites, deployments and runtime
plugins; the names the job defines where a name goes (a `dockerimage` prerequisite for `dockerImage`,
roles in `deployments` and `extras.hivedScheduler`, deployments for `defaults.deployment`); and in
commands, `<% $parameters.` / `$secrets.` / `$script.` members and the `$PAI_…` variables this job's
roles and ports make. Snippets carry their own indentation (the server asks the editor to insert
them as they are)."""

from __future__ import annotations

import re
from itertools import islice
from typing import Any

from ..envvars import STATIC, generated
from ..jsonc import Node, node_at
from ..messages import pick, render
from ..model import Completion, Settings
from ..schema import description, types_of
from ..schema_completion import Completions
from ..yaml.context import context_at
from ..yaml.write import column, literal
from .facts import (
    EXTRAS,
    HIVED_KEYS,
    HIVED_ROLE_KEYS,
    K8S_VARIABLES,
    PLUGIN_ITEM_KEYS,
    PLUGINS,
    PREREQUISITE_FIELDS,
    PREREQUISITE_TYPES,
    RUNTIME_PLUGIN_KEY,
    subschema,
)
from .job import Job, job_of, role_field

VARIABLE_LIMIT = 100
_TEMPLATE = re.compile(r"<%\s*(?P<expr>\$?[\w.\[\]]*)$")
_VARIABLE = re.compile(r"\$(?P<brace>\{?)(?P<name>\w*)$")
_COMMAND_LISTS = ("commands", "preCommands", "postCommands")
_EXAMPLES = {"cpu": 1, "memoryMB": 8192, "gpu": 0, "instances": 1}
_EXTRA_KINDS = {"hivedScheduler": "object", "jobStatusChangeNotification": "object", "tensorBoard": "object", "storages": "array",
                "submitFrom": "string", "dataDir": "string", "outputDir": "string", "codeDir": "string", "gpuType": "string"}


def _escape(text: str) -> str:
    """Text inside a snippet: `$`, `}` and `\\` are the snippet syntax's own."""
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def _choice(values: list[str]) -> str:
    return "${1|" + ",".join(_escape(v).replace(",", "\\,").replace("|", "\\|") for v in values) + "|}"


def complete(doc: Any, offset: int, settings: Settings) -> list[Completion]:
    text = doc.text
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    job = job_of(doc)
    in_command = _command_string(doc, offset, before)
    if in_command is not None:
        return _in_command(doc, job, in_command, offset, before, settings)
    ctx = context_at(doc, offset)
    after = text[offset:text.find("\n", offset) if "\n" in text[offset:] else len(text)]
    word_end = offset + len(re.match(r"[\w.\-]*", after).group())  # type: ignore[union-attr]
    if ctx.kind == "value":
        return _values(job, ctx.path, ctx.key or "", ctx.start, word_end, settings)
    indent = column(text, ctx.start)
    if ctx.kind == "item":
        return _items(job, ctx.path, ctx.start, offset, indent, settings)
    keyed = re.match(r"[\w.\-]*\s*:", after) is not None  # the key has its ':' already: the name alone
    typed = text[ctx.start:word_end]  # a key being typed (or retyped) is offered again
    sequence = _value_at(job.value, ctx.path)
    if isinstance(sequence, list) or ctx.path and _is_list_schema(ctx.path, job):
        # `- na|`: the first key of a new item, or a whole item
        index = _item_index(doc, ctx.path, offset, sequence)
        out = _keys(job, ctx.path + [index], ctx.start, word_end, indent, keyed, settings, typed)
        return out + _items(job, ctx.path, ctx.start, word_end, indent, settings)
    return _keys(job, ctx.path, ctx.start, word_end, indent, keyed, settings, typed)


def _value_at(value: Any, path: list) -> Any:
    for part in path:
        if isinstance(value, dict) and isinstance(part, str):
            value = value.get(part)
        elif isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
        else:
            return None
    return value


def _is_list_schema(path: list, job: Job) -> bool:
    schema = subschema(path, job.value)
    return schema is not None and "array" in types_of(schema)


def _item_index(doc: Any, path: list, offset: int, sequence: Any) -> int:
    node = node_at(doc.root, offset)
    while node is not None and node.parent is not None and node.parent.type != "array":
        node = node.parent
    if node is not None and node.parent is not None:
        return node.parent.children.index(node)
    return len(sequence) if isinstance(sequence, list) else 0


# -- keys -----------------------------------------------------------------------------------------

def _keys(job: Job, path: list, start: int, end: int, indent: int, keyed: bool, settings: Settings,
          typed: str = "") -> list[Completion]:
    locale = settings.locale
    present = _value_at(job.value, path)
    present = set(present) - {typed} if isinstance(present, dict) else set()
    out: list[Completion] = []

    def add(name: str, schema: dict | None, doc: str = "", value: str | None = None) -> None:
        if name in present:
            return
        schema = schema or {}
        insert = _escape(name) if keyed else _key_snippet(name, schema, indent, job, path, value)
        out.append(Completion(name, "property", insert, start, end, _detail(schema), doc or description(schema, locale)))

    if path == []:
        if not present:
            out.append(_job_snippet(job, start, end, settings))
    if path == ["taskRoles"]:
        return [_role_snippet(job, start, end, indent, settings)]
    if len(path) == 3 and path[0] == "deployments" and path[2] == "taskRoles" or path == ["extras", "hivedScheduler", "taskRoles"]:
        hived = path[0] == "extras"
        for role in job.roles:
            if role not in present:
                body = "skuType: ${1}" if hived else "preCommands:\n" + " " * (indent + 4) + "- ${1:echo start}"
                out.append(Completion(role, "property", f"{_escape(role)}:\n{' ' * (indent + 2)}{body}", start, end,
                                      render("v2.word.task-role", locale)))
        return out
    if path in (["parameters"], ["secrets"]):
        return []
    if path == ["extras"]:
        for name, (en, zh) in EXTRAS.items():
            schema = subschema(["extras", name], job.value) or {}
            kind = _EXTRA_KINDS.get(name)
            add(name, dict(schema, type=kind) if kind else schema, pick(locale, en, zh), _extra_value(name))
        return out
    if path == ["extras", "hivedScheduler"]:
        for name in HIVED_KEYS:
            add(name, {"type": "object"} if name == "taskRoles" else {"enum": ["prod", "test", "oppo"]} if name == "jobPriorityClass" else {})
        return out
    if len(path) == 4 and path[:3] == ["extras", "hivedScheduler", "taskRoles"]:
        for name in HIVED_ROLE_KEYS:
            add(name, {"type": ["string", "null"]} if name != "skuNumber" and name != "skuNum" else {"type": "integer"})
        return out
    if len(path) == 3 and path[:2] == ["extras", RUNTIME_PLUGIN_KEY]:
        for name in PLUGIN_ITEM_KEYS:
            add(name, {"enum": list(PLUGINS)} if name == "plugin" else {"type": "object"} if name == "parameters" else {"type": "string"})
        return out
    if len(path) == 4 and path[:2] == ["extras", RUNTIME_PLUGIN_KEY] and path[3] == "parameters":
        plugin = _value_at(job.value, path[:3] + ["plugin"])
        spec = PLUGINS.get(plugin.removeprefix("com.microsoft.pai.runtimeplugin.") if isinstance(plugin, str) else "", ("", "", {}))[2]
        for name, (kind, _, en, zh) in spec.items():
            add(name, {"type": kind}, pick(locale, en, zh))
        return out
    schema = subschema(path, job.value)
    if schema is None:
        return out
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict) and name != "additionalProperties":
            add(name, subschema(path + [name], job.value) or sub)
    return out


def _detail(schema: dict) -> str:
    kinds = "|".join(types_of(schema))
    if "default" in schema:
        return f"{kinds} = {literal(schema['default'])}".lstrip()
    return kinds


def _extra_value(name: str) -> str | None:
    """A value for an `extras` key beyond its schema: gang allocation is turned off, when written."""
    return "${1|false,true|}" if name == "gangAllocation" else None


def _key_snippet(name: str, schema: dict, indent: int, job: Job, path: list, value: str | None) -> str:
    """`name: value` with a placeholder that fits the schema, or `name:` and the block it opens."""
    key = _escape(literal(name))
    below = "\n" + " " * (indent + 2)
    if value is not None:
        return f"{key}: {value}"
    if name in PREREQUISITE_FIELDS and len(path) == 2 and path[0] == "taskRoles":
        names = list(job.by_type.get(PREREQUISITE_FIELDS[name], {}))
        return f"{key}: {_choice(names)}" if names else f"{key}: ${{1}}"
    if name == RUNTIME_PLUGIN_KEY:
        return f"{key}:{below}- plugin: ${{1|{','.join(PLUGINS)}|}}"
    kinds = types_of(schema)
    if "enum" in schema:  # numbers before strings: `protocolVersion: 2`, not '2'
        return f"{key}: {_choice([literal(v) for v in sorted(schema['enum'], key=lambda v: isinstance(v, str))])}"
    default = schema.get("default")
    example = (schema.get("examples") or [None])[0]
    if "boolean" in kinds:
        return f"{key}: {_choice(['true', 'false'] if default is not False else ['false', 'true'])}"
    if "integer" in kinds or "number" in kinds:
        shown = default if isinstance(default, (int, float)) and not isinstance(default, bool) else \
            example if isinstance(example, (int, float)) else _EXAMPLES.get(name, 1)
        return f"{key}: ${{1:{shown}}}"
    if "string" in kinds:
        shown = default if isinstance(default, str) else example if isinstance(example, str) else ""
        return f"{key}: ${{1:{_escape(shown)}}}"
    if "array" in kinds:
        return f"{key}:{below}- $1"
    if "object" in kinds or "patternProperties" in schema or schema.get("properties"):
        if name == "resourcePerInstance":
            return f"{key}:{below}cpu: ${{1:1}}{below}memoryMB: ${{2:8192}}{below}gpu: ${{3:0}}"
        if name == "ports":
            return f"{key}:{below}${{1:tensorboard}}: ${{2:1}}"
        return f"{key}:{below}$1"
    if default is not None and not isinstance(default, (dict, list)):
        return f"{key}: ${{1:{_escape(literal(default))}}}"
    return f"{key}: $1"


def _role_snippet(job: Job, start: int, end: int, indent: int, settings: Settings) -> Completion:
    images = list(job.by_type.get("dockerimage", {}))
    pad = "\n" + " " * (indent + 2)
    name = next(n for n in ("taskrole", "worker", *(f"taskrole{i}" for i in range(1, 1000))) if n not in job.roles)
    image = _choice(images).replace("${1|", "${3|") if images else "${3:docker_image_0}"
    body = (f"${{1:{name}}}:{pad}instances: ${{2:1}}{pad}dockerImage: {image}{pad}resourcePerInstance:"
            f"{pad}  cpu: ${{4:1}}{pad}  memoryMB: ${{5:8192}}{pad}  gpu: ${{6:0}}{pad}commands:{pad}  - ${{7:python train.py}}")
    return Completion(render("v2.word.task-role", settings.locale), "snippet", body, start, end,
                      render("completion.role", settings.locale), filter=name)


def _job_snippet(job: Job, start: int, end: int, settings: Settings) -> Completion:
    body = ("protocolVersion: 2\nname: ${1:my_job}\ntype: job\nprerequisites:\n  - name: docker_image_0\n    type: dockerimage\n"
            "    uri: ${2:openpai/standard:python_3.6-pytorch_1.2.0-gpu}\ntaskRoles:\n  taskrole:\n    instances: 1\n"
            "    dockerImage: docker_image_0\n    resourcePerInstance:\n      cpu: ${3:4}\n      memoryMB: ${4:8192}\n"
            "      gpu: ${5:1}\n    commands:\n      - ${6:python train.py}\ndefaults:\n  virtualCluster: ${7:default}\n")
    return Completion(render("v2.completion.job", settings.locale), "snippet", body, start, end,
                      render("v2.completion.job-detail", settings.locale), filter="protocolVersion")


# -- values ---------------------------------------------------------------------------------------

def _values(job: Job, path: list, key: str, start: int, end: int, settings: Settings) -> list[Completion]:
    locale = settings.locale
    out: list[Completion] = []

    def value(text: str, detail: str = "", doc: str = "") -> None:
        out.append(Completion(text, "value", _escape(text), start, end, detail, doc))

    if len(path) == 2 and path[0] == "taskRoles" and key in PREREQUISITE_FIELDS:
        kind = PREREQUISITE_FIELDS[key]
        for name, item in job.by_type.get(kind, {}).items():
            uri = item.node.get("uri") if item.node is not None and item.node.type == "object" else None
            value(name, f"{kind} · {uri.value}" if uri is not None and isinstance(uri.value, str) else kind)
        return out
    if path == ["defaults"] and key == "deployment":
        for name in job.deployments:
            value(name, render("v2.word.deployment", locale))
        return out
    if len(path) == 3 and path[:2] == ["extras", RUNTIME_PLUGIN_KEY] and key == "plugin":
        for name, (en, zh, _) in PLUGINS.items():
            value(name, render("v2.word.runtime-plugin", locale), pick(locale, en, zh))
        return out
    if path == ["extras", "hivedScheduler"] and key == "jobPriorityClass":
        for name in ("prod", "test", "oppo"):
            value(name)
        return out
    schema = subschema(path + [key], job.value)
    if schema is None:
        return out
    kinds = types_of(schema)
    for choice in schema.get("enum", []):
        value(literal(choice))
    if "boolean" in kinds or key in ("gangAllocation", "infiniband"):
        value("true")
        value("false")
    if "null" in kinds:
        value("null")
    default = schema.get("default")
    if default is not None and not isinstance(default, (bool, dict, list)) and literal(default) not in {c.label for c in out}:
        value(literal(default), render("completion.default", locale))
    for example in schema.get("examples", []):
        if not isinstance(example, (dict, list)) and literal(example) not in {c.label for c in out}:
            value(literal(example), render("completion.example", locale))
    return out


# -- items ----------------------------------------------------------------------------------------

def _items(job: Job, path: list, start: int, end: int, indent: int, settings: Settings) -> list[Completion]:
    """Items of the sequence at `path` typed after `- ` (`indent`: the column the item's text starts at)."""
    locale = settings.locale
    pad = "\n" + " " * indent
    out: list[Completion] = []
    if path == ["prerequisites"]:
        taken = {p.name for p in job.prerequisites}
        for kind in PREREQUISITE_TYPES:
            stem = "docker_image" if kind == "dockerimage" else kind
            name = next(f"{stem}_{i}" for i in range(len(taken) + 1) if f"{stem}_{i}" not in taken)
            uri = {"dockerimage": "${2:openpai/standard:python_3.6-pytorch_1.2.0-gpu}", "data": f"{pad}  - ${{2:hdfs://}}"}.get(kind, "${2}")
            body = f"name: ${{1:{name}}}{pad}type: {kind}{pad}uri:{'' if kind == 'data' else ' '}{uri}"
            out.append(Completion(render("v2.completion.prerequisite", locale, kind=kind), "snippet", body, start, end,
                                  render("v2.completion.prerequisite-detail", locale), filter=f"{kind} prerequisite"))
        return out
    if path == ["deployments"]:
        roles = list(job.roles) or ["taskrole"]
        body = f"name: ${{1:prod}}{pad}taskRoles:" + "".join(
            f"{pad}  {_escape(role)}:{pad}    preCommands:{pad}      - ${{{i + 2}:echo start}}" for i, role in enumerate(roles))
        return [Completion(render("v2.word.deployment", locale), "snippet", body, start, end,
                           render("v2.completion.deployment-detail", locale), filter="deployment")]
    if path == ["extras", RUNTIME_PLUGIN_KEY]:
        for name, (en, zh, spec) in PLUGINS.items():
            required = [(p, k) for p, (k, needed, _, _) in spec.items() if needed] or \
                ([("storageConfigNames", "array")] if name == "teamwise_storage" else [])
            params = "".join(f"{pad}  {p}:" + (" true" if k == "boolean" else " ${2:6006}" if k == "number" else
                                                f"{pad}    - ${{3}}" if k == "array" else " {}" if k == "object" else "")
                             for p, k in required)
            body = f"plugin: {name}" + (f"{pad}parameters:{params}" if params else "")
            out.append(Completion(name, "snippet", body, start, end, render("v2.word.runtime-plugin", locale), pick(locale, en, zh)))
        return out
    if len(path) == 3 and path[0] == "taskRoles" and path[2] == "prerequisites" or len(path) == 3 and path[0] == "prerequisites" \
            and path[2] == "require":
        listed = _value_at(job.value, path)
        listed = set(listed) if isinstance(listed, list) else set()
        for item in job.prerequisites:
            if item.name not in listed:
                out.append(Completion(item.name, "value", _escape(item.name), start, end, item.kind))
        return out
    return out


# -- inside commands: templates and variables ---------------------------------------------------------

def _command_string(doc: Any, offset: int, before: str) -> Node | None:
    """The command string the cursor is typing in (a role's `commands`, a deployment's pre/post
    commands, a Docker image's `auth` value), when a template or a variable is being typed."""
    if "<%" not in before and "$" not in before:
        return None
    node = node_at(doc.root, offset)
    if node is None or node.type != "string" or node.start >= offset:
        return None
    parent = node.parent
    if parent is not None and parent.type == "property" and parent.key is node:
        return None
    path = node.path()
    in_list = len(path) >= 2 and isinstance(path[-1], int) and path[-2] in _COMMAND_LISTS
    in_auth = len(path) == 4 and path[0] == "prerequisites" and path[2] == "auth"
    return node if in_list or in_auth else None


def _in_command(doc: Any, job: Job, node: Node, offset: int, before: str, settings: Settings) -> list[Completion]:
    template = _TEMPLATE.search(before)
    if template is not None:
        return _template_members(doc, job, node, offset, template.group("expr"), settings)
    variable = _VARIABLE.search(before)
    if variable is not None:
        return _variables(job, node, offset, variable, settings)
    return []


def _template_members(doc: Any, job: Job, node: Node, offset: int, expr: str, settings: Settings) -> list[Completion]:
    locale = settings.locale
    text = doc.text
    rest = text[offset:text.find("\n", offset) if "\n" in text[offset:] else len(text)]
    close = "" if "%>" in rest else " %>"
    out: list[Completion] = []
    role = job.role_of(node)
    head, dot, member = expr.rpartition(".")
    if not dot:  # `<% $par|`: the roots, each with what it holds
        start = offset - len(expr)
        roots = [("$parameters", job.value.get("parameters")), ("$secrets", job.value.get("secrets"))]
        for field in ("script", "output", "data"):
            prerequisite = _prerequisite_of(job, role, field)
            if prerequisite is not None:
                roots.append((f"${field}", prerequisite))
        for root, holder in roots:
            members = list(holder) if isinstance(holder, dict) else []
            for name in members:
                label = f"{root}.{name}"
                out.append(Completion(label, "variable", _escape(label) + close, start, offset, _template_detail(root, holder.get(name), locale)))
            if not members:
                out.append(Completion(root + ".", "variable", _escape(root) + ".", start, offset, _root_doc(root, locale)))
        return out
    holder: Any = {"$parameters": job.value.get("parameters"), "$secrets": job.value.get("secrets")}.get(head.split(".")[0])
    if head.split(".")[0] in ("$script", "$output", "$data"):
        holder = _prerequisite_of(job, role, head.split(".")[0][1:])
    for part in head.split(".")[1:]:
        holder = holder.get(part) if isinstance(holder, dict) else None
    if not isinstance(holder, dict):
        return out
    start = offset - len(member)
    for name, value in holder.items():
        out.append(Completion(str(name), "variable", _escape(str(name)) + close, start, offset,
                              _template_detail(head.split(".")[0], value, locale)))
    return out


def _prerequisite_of(job: Job, role: Any, field: str) -> dict | None:
    if role is None:
        return None
    node = role_field(role, field)
    found = job.by_type.get(field, {}).get(node.value) if node is not None and isinstance(node.value, str) else None
    value = found.node.value if found is not None and found.node is not None else None
    return value if isinstance(value, dict) else None


def _template_detail(root: str, value: Any, locale: str | None) -> str:
    if root == "$secrets":
        return render("v2.completion.secret", locale)
    return f"= {literal(value)}" if not isinstance(value, (dict, list)) else ""


def _root_doc(root: str, locale: str | None) -> str:
    return {"$parameters": render("v2.completion.parameters", locale), "$secrets": render("v2.completion.secrets", locale)}.get(
        root, render("v2.completion.role-prerequisite", locale, field=root[1:]))


def _variables(job: Job, node: Node, offset: int, found: re.Match[str], settings: Settings) -> Completions:
    """`$PAI_…` names this job's containers have: the static ones of Kubernetes-era clusters, then
    those of the role being edited, then the other roles'."""
    typed = found.group("name")
    brace = bool(found.group("brace"))
    start = offset - len(found.group(0))
    role = job.role_of(node)
    names = job.names
    own = [role.name] if role is not None and role.name in names.roles else []

    def candidates(prefix: str) -> Any:
        wanted = prefix.casefold()
        for name, (en, zh, example) in STATIC.items():
            if name in K8S_VARIABLES and name.casefold().startswith(wanted):
                yield name, (en, zh), example
        for name, en, zh, example in generated(names, own, prefix):
            yield name, (en, zh), example
        for name, en, zh, example in generated(names, [r for r in names.roles if r not in own], prefix, shared=False):
            yield name, (en, zh), example

    out = Completions()
    items = list(islice(candidates(""), VARIABLE_LIMIT + 1))
    if len(items) > VARIABLE_LIMIT:
        items = list(islice(candidates(typed), VARIABLE_LIMIT + 1))
        out.incomplete = True
    for name, (en, zh), example in items[:VARIABLE_LIMIT]:
        insert = "${" + name + "}" if brace else "$" + name
        item = Completion(name, "variable", _escape(insert), start, offset, pick(settings.locale, en, zh),
                          render("completion.example-prefix", settings.locale) + f"`{example}`" if example else "")
        item.filter = insert
        out.append(item)
    return out
