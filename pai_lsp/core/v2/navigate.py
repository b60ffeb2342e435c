"""Go to definition, find references and rename in a v2 job: the names one part of the job gives
another. A prerequisite (`dockerImage: x`, a role's `prerequisites`, `require`), a task role (its key,
and where `deployments`, `extras.hivedScheduler` and `$PAI_…_<role>` variables name it), a deployment
(`defaults.deployment`), a parameter or secret (`<% $parameters.x %>`), a YAML alias's anchor."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..envvars import TEMPLATES, find_variables
from ..job_format import RenameError
from ..jsonc import Node, node_at
from ..messages import message
from ..model import Edit
from ..yaml.write import literal
from .facts import PREREQUISITE_FIELDS, ROLE_NAME
from .job import Job, all_command_nodes, items, job_of, pairs, prerequisite_uses
from .templates import TemplateError, find_templates
from .text import index_at, span

_PREREQUISITE_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_ROLE = re.compile(ROLE_NAME)


@dataclass(frozen=True, slots=True)
class Symbol:
    kind: str  # "prerequisite" | "role" | "deployment" | "parameter" | "secret" | "anchor"
    name: str
    type: str = ""  # a prerequisite's type ("" when the place names one of any type)


@dataclass(frozen=True, slots=True)
class Place:
    start: int
    end: int
    definition: bool = False


def symbol_at(doc: Any, offset: int) -> tuple[Symbol, Place] | None:
    """The name under the cursor, and the range of that name."""
    for name, start, end, _target in getattr(doc, "aliases", []):
        if start <= offset <= end:
            return Symbol("anchor", name), Place(start, end)
    root = doc.root
    if root is None or root.type != "object":
        return None
    job = job_of(doc)
    node = node_at(root, offset)
    if node is None or node.type != "string":
        return None
    prop = node.parent
    path = _path(node)
    if prop is not None and prop.type == "property" and prop.key is node:  # a key
        holder = path[:-1]
        if holder in (["taskRoles"], ["extras", "hivedScheduler", "taskRoles"]) or \
                len(holder) == 3 and holder[0] == "deployments" and holder[2] == "taskRoles":
            return Symbol("role", node.value), Place(node.start, node.end, holder == ["taskRoles"])
        if holder in (["parameters"], ["secrets"]):
            return Symbol("parameter" if holder == ["parameters"] else "secret", node.value), Place(node.start, node.end, True)
        return None
    if not isinstance(node.value, str):
        return None
    if len(path) == 3 and path[0] == "prerequisites" and path[2] == "name":
        item = node.parent.parent
        kind = item.get("type") if item is not None and item.type == "object" else None
        return Symbol("prerequisite", node.value, kind.value if kind is not None and isinstance(kind.value, str) else ""), \
            Place(node.start, node.end, True)
    if len(path) == 3 and path[0] == "taskRoles" and path[2] in PREREQUISITE_FIELDS:
        return Symbol("prerequisite", node.value, PREREQUISITE_FIELDS[path[2]]), Place(node.start, node.end)
    if len(path) == 4 and path[0] == "taskRoles" and path[2] == "prerequisites" or \
            len(path) == 4 and path[0] == "prerequisites" and path[2] == "require":
        return Symbol("prerequisite", node.value), Place(node.start, node.end)
    if len(path) == 3 and path[0] == "deployments" and path[2] == "name":
        return Symbol("deployment", node.value), Place(node.start, node.end, True)
    if path == ["defaults", "deployment"]:
        return Symbol("deployment", node.value), Place(node.start, node.end)
    return _in_string(doc, job, node, offset)


def _path(node: Node) -> list:
    """The path of a value, or of the mapping a key is in followed by the key."""
    prop = node.parent
    if prop is not None and prop.type == "property" and prop.key is node:
        holder = prop.parent.path() if prop.parent is not None else []
        return [*holder, node.value]
    return node.path()


def _in_string(doc: Any, job: Job, node: Node, offset: int) -> tuple[Symbol, Place] | None:
    """A template's parameter or secret, or a `$PAI_…` variable's role, under the cursor in a string."""
    index = index_at(doc.text, node, offset)
    if index is None:
        return None
    for kind, name, a, b in _template_names(node.value):
        if a <= index <= b:
            start, end = span(doc.text, node, a, b)
            return Symbol(kind, name), Place(start, end)
    for role, a, b in _variable_roles(node.value, job.roles):
        if a <= index <= b:
            start, end = span(doc.text, node, a, b)
            return Symbol("role", role), Place(start, end)
    return None


def _template_names(value: str) -> Iterator[tuple[str, str, int, int]]:
    """("parameter" | "secret", name, start, end) of each `$parameters.name` / `$secrets.name` in the
    string's templates (the name's range in the value)."""
    if "<%" not in value:
        return
    try:
        tags = find_templates(value)
    except TemplateError:
        return
    for tag in tags:
        parts = tag.parts
        if len(parts) < 2 or parts[0] not in ("$parameters", "$secrets"):
            continue
        at = value.find(parts[0] + "." + parts[1], tag.start, tag.end)
        if at >= 0:
            start = at + len(parts[0]) + 1
            yield ("parameter" if parts[0] == "$parameters" else "secret"), parts[1], start, start + len(parts[1])


def _variable_roles(value: str, roles: Any) -> Iterator[tuple[str, int, int]]:
    """(role, start, end) of the role part of each `$PAI_…_<role>…` variable naming one of `roles`."""
    if "PAI_" not in value:
        return
    for name, start, _end in find_variables(value):
        found = _role_in(name, roles)
        if found is not None:
            role, at = found
            begin = start + value[start:].find(name) + at
            yield role, begin, begin + len(role)


def _role_in(variable: str, roles: Any) -> tuple[str, int] | None:
    for template in TEMPLATES:
        if "role" not in template.parts:
            continue
        head = template.parts[0]
        if not variable.startswith(head):
            continue
        for role in roles:
            pattern = "".join(f"(?P<role>{re.escape(role)})" if p == "role" else r"\d+" if p == "index" else r"\w+" if p == "label"
                              else re.escape(p) for p in template.parts)
            matched = re.fullmatch(pattern, variable)
            if matched is not None:
                return role, matched.start("role")
    return None


def places(doc: Any, symbol: Symbol) -> list[Place]:
    """Every place the job names `symbol`, its definitions first."""
    job = job_of(doc)
    text = doc.text
    out: list[Place] = []
    if symbol.kind == "anchor":
        for node in getattr(doc, "anchors", []):
            if node.anchor == symbol.name:
                at = text.rfind("&" + symbol.name, 0, node.start + 1)
                out.append(Place(at + 1, at + 1 + len(symbol.name), True) if at >= 0 else Place(node.start, node.start, True))
        out.extend(Place(start + 1, end) for name, start, end, _ in doc.aliases if name == symbol.name)
        return out
    if symbol.kind == "prerequisite":
        for item in job.prerequisites:
            if item.name == symbol.name and (not symbol.type or item.kind == symbol.type):
                out.append(Place(item.name_node.start, item.name_node.end, True))
        kinds = {p.kind for p in job.named(symbol.name)} if not symbol.type else {symbol.type}
        for kind, name, node in prerequisite_uses(job):
            if name == symbol.name and (not kind or kind in kinds or not kinds):
                out.append(Place(node.start, node.end))
        return out
    if symbol.kind == "role":
        role = job.roles.get(symbol.name)
        if role is not None:
            out.append(Place(role.name_node.start, role.name_node.end, True))
        for key in _role_keys(job):
            if key.value == symbol.name:
                out.append(Place(key.start, key.end))
        for _role, node in all_command_nodes(job):
            for _name, a, b in _variable_roles(node.value, [symbol.name]):
                start, end = span(text, node, a, b)
                out.append(Place(start, end))
        return out
    if symbol.kind == "deployment":
        found = job.deployments.get(symbol.name)
        if found is not None:
            out.append(Place(found.name_node.start, found.name_node.end, True))
        defaults = job.root.get("defaults")
        chosen = defaults.get("deployment") if defaults is not None and defaults.type == "object" else None
        if chosen is not None and chosen.value == symbol.name:
            out.append(Place(chosen.start, chosen.end))
        return out
    defined = job.parameters if symbol.kind == "parameter" else job.secrets
    if symbol.name in defined:
        key = defined[symbol.name].name_node
        out.append(Place(key.start, key.end, True))
    for node in _template_strings(job):
        for kind, name, a, b in _template_names(node.value):
            if kind == symbol.kind and name == symbol.name:
                start, end = span(text, node, a, b)
                out.append(Place(start, end))
    return out


def _role_keys(job: Job) -> Iterator[Node]:
    """The keys that name task roles outside `taskRoles`: in deployments and extras.hivedScheduler."""
    for item in items(job.root.get("deployments")):
        for _, key, _ in pairs(item.get("taskRoles") if item.type == "object" else None):
            yield key
    extras = job.root.get("extras")
    hived = extras.get("hivedScheduler") if extras is not None and extras.type == "object" else None
    for _, key, _ in pairs(hived.get("taskRoles") if hived is not None and hived.type == "object" else None):
        yield key


def _template_strings(job: Job) -> Iterator[Node]:
    for _role, node in all_command_nodes(job):
        yield node
    for item in job.prerequisites:
        auth = item.node.get("auth") if item.node is not None and item.node.type == "object" else None
        for _, _, value in pairs(auth):
            if value is not None and value.type == "string":
                yield value


def definition(doc: Any, offset: int) -> list[tuple[int, int]]:
    found = symbol_at(doc, offset)
    if found is None:
        return []
    symbol, place = found
    if symbol.kind == "anchor":  # the anchor defined last before the alias
        anchors = [p for p in places(doc, symbol) if p.definition and p.start < place.start]
        return [(anchors[-1].start, anchors[-1].end)] if anchors else []
    return [(p.start, p.end) for p in places(doc, symbol) if p.definition]


def references(doc: Any, offset: int, include_declaration: bool = True) -> list[tuple[int, int]]:
    found = symbol_at(doc, offset)
    if found is None:
        return []
    return [(p.start, p.end) for p in places(doc, found[0]) if include_declaration or not p.definition]


def prepare_rename(doc: Any, offset: int) -> tuple[int, int] | None:
    """The range of the name a rename at `offset` would change (None: nothing to rename there)."""
    found = symbol_at(doc, offset)
    if found is None:
        return None
    symbol, place = found
    if symbol.kind == "role" and symbol.name not in job_of(doc).roles:
        return None
    return place.start, place.end


def rename(doc: Any, offset: int, new: str) -> list[Edit]:
    """The edits renaming the name at `offset` everywhere the job names it. Raises RenameError for a
    name the server would refuse."""
    found = symbol_at(doc, offset)
    if found is None:
        return []
    symbol, _ = found
    if symbol.kind == "role":
        if not _ROLE.match(new):
            raise RenameError(message("v2.rename.role", new=new))
        return role_rename_edits(doc, job_of(doc), symbol.name, new)
    if symbol.kind in ("prerequisite", "deployment") and not _PREREQUISITE_NAME.match(new):
        raise RenameError(message("v2.rename.name", new=new))
    if symbol.kind in ("parameter", "secret", "anchor") and not re.fullmatch(r"[A-Za-z_][\w-]*", new):
        raise RenameError(message("v2.rename.template", new=new))
    return [_edit(doc, p, new) for p in places(doc, symbol)]


def _edit(doc: Any, place: Place, new: str) -> Edit:
    old = doc.text[place.start:place.end]
    is_scalar = not old.startswith(("'", '"'))
    return Edit(place.start, place.end, new if is_scalar and _PREREQUISITE_NAME.match(new) else literal(new))


def role_rename_edits(doc: Any, job: Job, old: str, new: str) -> list[Edit]:
    """Renaming task role `old`: its key, the keys naming it in deployments and hivedScheduler, and
    the role part of every `$PAI_…_<old>…` variable in the commands."""
    return [Edit(p.start, p.end, new) for p in places(doc, Symbol("role", old))]
