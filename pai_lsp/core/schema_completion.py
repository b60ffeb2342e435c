"""Completion at an offset: keys, values, whole task roles and ports, and `$PAI_…` variables."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import islice

from . import envvars
from .jsonc import Document, Node, node_at
from .messages import pick, render
from .model import Completion, Settings
from .schema import description, job_schema, resolve, subschema, types_of

ROLE_SNIPPET = (
    '{\n\t"name": "${1:worker}",\n\t"taskNumber": ${2:1},\n\t"cpuNumber": ${3:1},\n\t"memoryMB": ${4:8192},\n'
    '\t"gpuNumber": ${5:0},\n\t"command": "${6:python train.py}"\n}'
)
PORT_SNIPPET = '{"label": "${1:jupyter}", "beginAt": ${2:0}, "portNumber": ${3:1}}'
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.~-")


def complete(doc: Document, offset: int, settings: Settings = Settings(), schema: dict | None = None) -> list[Completion]:
    """Completion from the job schema (`schema`; by default the v1 schema of `settings.dialect`): keys,
    values, whole task roles and ports, and `$PAI_…` variables in strings."""
    text = doc.text
    root_schema = schema if schema is not None else job_schema(settings.dialect)
    node = node_at(doc.root, offset)
    if node is not None and node.type == "string" and node.start < offset and (offset < node.end or _unterminated(text, node)):
        return _in_string(doc, node, offset, settings, root_schema)
    container, in_key_position = _container_at(doc, offset)
    if container is None:
        return []
    path = container.path()
    schema = subschema(root_schema, path)
    if schema is None:
        return []
    word_start = _word_start(text, offset)
    if container.type == "object" and in_key_position:
        return _keys(container, schema, settings, word_start, offset, root=root_schema)
    if container.type == "object":
        prop = _property_before(container, offset)
        if prop is None or prop.key is None:
            return []
        return _values(subschema(root_schema, path + [prop.key.value]), settings, word_start, offset, prop.key.value)
    if container.type == "array":
        item = resolve(schema.get("items"), root_schema) if isinstance(schema.get("items"), dict) else None
        return _items(item, path, settings, word_start, offset)
    return []


def _word_start(text: str, offset: int) -> int:
    """Start of the bare word being typed before `offset` (scanning back, not over the whole text)."""
    start = offset
    while start > 0 and text[start - 1] in _WORD_CHARS:
        start -= 1
    return start


def _unterminated(text: str, node: Node) -> bool:
    return node.end - node.start < 2 or text[node.end - 1] != '"'


def _container_at(doc: Document, offset: int) -> tuple[Node | None, bool]:
    """Innermost object/array around `offset`, and whether a key is expected there."""
    node = node_at(doc.root, offset, include_end=False) or (doc.root if doc.root and offset >= doc.root.end else None)
    while node is not None and node.type not in ("object", "array"):
        node = node.parent
    if node is None:
        return None, False
    if node.start == offset:  # before the opening bracket: the parent is the container
        parent = node.parent
        while parent is not None and parent.type not in ("object", "array"):
            parent = parent.parent
        node = parent if parent is not None else node
    if node.type != "object":
        return node, False
    # In an object, a key is expected unless the nearest ':' after the last ',' or '{' is before us.
    prop = _property_before(node, offset)
    if prop is None:
        return node, True
    if prop.colon >= 0 and prop.colon < offset and (prop.value_node is None or offset <= prop.value_node.end):
        between = doc.text[prop.value_node.end:offset] if prop.value_node is not None else ""
        return node, "," in between
    return node, True


def _property_before(obj: Node, offset: int) -> Node | None:
    found = None
    for prop in obj.children:
        if prop.start < offset:
            found = prop
    return found


def _keys(obj: Node, schema: dict, settings: Settings, start: int, end: int, root: dict) -> list[Completion]:
    present = {p.key.value for p in obj.properties() if p.key is not None and not (p.key.start <= end <= p.key.end)}
    out = []
    for name, prop_schema in (schema.get("properties") or {}).items():
        if name in present or name == "$schema":
            continue
        prop_schema = resolve(prop_schema, root) or {}
        value = _value_snippet(prop_schema)
        insert = f'"{name}": {value}'
        out.append(Completion(name, "property", insert, start, end, _detail(prop_schema), description(prop_schema, settings.locale)))
    return out


def _value_snippet(schema: dict) -> str:
    kinds = types_of(schema)
    default = schema.get("default")
    if "string" in kinds:
        return f'"${{1:{_escape(default) if isinstance(default, str) else ""}}}"'
    if "integer" in kinds or "number" in kinds:
        return f"${{1:{default if isinstance(default, int) else 1}}}"
    if "boolean" in kinds:
        return "${1|false,true|}"
    if "array" in kinds:
        return "[$1]"
    if "object" in kinds:
        return "{$1}"
    return "$1"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def _detail(schema: dict) -> str:
    kinds = "|".join(types_of(schema))
    if "default" in schema:
        return f"{kinds} = {json.dumps(schema['default'])}"
    return kinds


def _values(schema: dict | None, settings: Settings, start: int, end: int, key: str) -> list[Completion]:
    if schema is None:
        return []
    out = []
    kinds = types_of(schema)
    for value in schema.get("enum", []):
        out.append(Completion(json.dumps(value), "value", json.dumps(value), start, end))
    if "boolean" in kinds:
        out += [Completion(v, "value", v, start, end) for v in ("true", "false")]
    if "null" in kinds:
        out.append(Completion("null", "value", "null", start, end))
    if "default" in schema and schema["default"] not in (None, "", []) and not isinstance(schema["default"], bool):
        text = json.dumps(schema["default"])
        out.append(Completion(text, "value", text, start, end, render("completion.default", settings.locale)))
    for example in schema.get("examples", []):
        text = json.dumps(example)
        out.append(Completion(text, "value", _escape(text), start, end, render("completion.example", settings.locale)))
    if key == "taskRoles":
        out.append(Completion("task role", "snippet", "[\n\t" + ROLE_SNIPPET.replace("\n", "\n\t") + "\n]", start, end,
                              render("completion.role-list", settings.locale)))
    if key == "portList":
        out.append(Completion("port", "snippet", "[" + PORT_SNIPPET + "]", start, end,
                              render("completion.port-list", settings.locale)))
    return out


def _items(item_schema: dict | None, path: list, settings: Settings, start: int, end: int) -> list[Completion]:
    if path == ["taskRoles"]:
        return [Completion("task role", "snippet", ROLE_SNIPPET, start, end, render("completion.role", settings.locale))]
    if len(path) == 3 and path[0] == "taskRoles" and path[2] == "portList":
        return [Completion("port", "snippet", PORT_SNIPPET, start, end, render("completion.port", settings.locale))]
    return []


def _in_string(doc: Document, node: Node, offset: int, settings: Settings, root: dict) -> list[Completion]:
    parent = node.parent
    before = doc.text[node.start + 1 : offset]
    if parent is not None and parent.type == "property" and parent.key is node:
        # Typing a key: `{"taskRoles": [{"na`
        obj = parent.parent
        schema = subschema(root, obj.path()) if obj is not None else None
        if obj is None or schema is None:
            return []
        end = node.end if not _unterminated(doc.text, node) else offset
        items = _keys(obj, schema, settings, node.start, end, root=root)
        for item in items:
            item.filter = f'"{item.label}"'
            if parent.colon >= 0:  # the key already has a value: replace the name only
                item.insert = f'"{item.label}"'
        return items
    var = re.search(r"\$\{?(PAI_\w*|P?A?I?_?)\Z", before)
    if var is not None and parent is not None:
        return _variables(doc, node, var.group(1), offset - len(var.group(0)), offset, settings)
    return []


# At most this many `$PAI_…` names at once: a 10,000-role config defines millions. When there
# are more, the list holds those starting with what was typed and says it is incomplete, so the
# editor asks again as the user types on.
VARIABLE_LIMIT = 100


class Completions(list):
    """Completion items; `incomplete` when more would match than were given."""

    incomplete = False


def _variables(doc: Document, node: Node, typed: str, start: int, end: int, settings: Settings) -> Completions:
    names = envvars.names_in(doc)
    role = _role_name(node)
    found = list(islice(_variable_names(names, role, ""), VARIABLE_LIMIT + 1))
    out = Completions()
    if len(found) > VARIABLE_LIMIT:
        found = list(islice(_variable_names(names, role, typed), VARIABLE_LIMIT + 1))
        out.incomplete = True
    for name, detail, example in found[:VARIABLE_LIMIT]:
        text = pick(settings.locale, *detail) if isinstance(detail, tuple) else detail
        item = Completion(name, "variable", "$" + name, start, end, text, _example(example, settings) if example else "")
        item.filter = item.insert
        out.append(item)
    return out


def _variable_names(names: envvars.ConfigNames, role: str | None, prefix: str) -> Iterator[tuple[str, tuple[str, str] | str, str]]:
    """(name, (English, 中文) or "jobEnvs", example) in the order they are offered: the static
    names, then those of the role being edited, the `PAI_…` jobEnvs, the other roles'."""
    wanted = prefix.casefold()
    for name, (en, zh, example) in envvars.STATIC.items():
        if name.casefold().startswith(wanted):
            yield name, (en, zh), example
    own = [role] if role in names.roles else []
    for name, en, zh, example in envvars.generated(names, own, prefix):
        yield name, (en, zh), example
    for name in sorted(names.job_envs):
        if re.fullmatch(r"PAI_\w+", name) and name.casefold().startswith(wanted):
            yield name, "jobEnvs", ""
    others = (r for r in names.roles if r != role)
    for name, en, zh, example in envvars.generated(names, others, prefix, shared=False):
        yield name, (en, zh), example


def _role_name(node: Node) -> str | None:
    """The name of the task role whose string `node` is being edited, if any."""
    current = node.parent
    while current is not None and current.type != "object":
        current = current.parent
    if current is None or current.parent is None or current.parent.type != "array":
        return None
    name = current.value.get("name") if isinstance(current.value, dict) else None
    return name if isinstance(name, str) else None


def _example(example: str, settings: Settings) -> str:
    return render("completion.example-prefix", settings.locale) + f"`{example}`" if example else ""
