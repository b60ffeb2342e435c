"""What the v2 server's own code does with a job its schema let through (rest-server
`middlewares/v2/protocol.js` after Ajv: `protocolValidate`'s name checks, then `protocolRender`;
openpai-api.md §2.3-2.4), read as JavaScript reads it.

The schema leaves some values untyped: `taskRoles` (and a deployment's `taskRoles`) may be null, a
string or a list, and what a list holds is not checked at all; a Docker image's `auth` may hold keys
of any type. The code then calls `Object.keys`, `in`, `for … of`, `.map` and `.trim` on them, and
JavaScript's TypeError becomes the server's 500. `refusals` lists every place the server refuses, in
its order, with its status and words: the local cluster answers the first (as the server does), the
editor says each where its own checks of names and templates do not reach. It never raises, whatever
the value: on a job the schema refuses it says what it can.

Not followed: mustache caches a parse by the template's text, so an `auth` value that is no string
but reads as a text the server parsed before (`[]` after `""`) passes a long-running server; here it
is refused, as a fresh server refuses it. And names found on an object's prototype (`dockerImage:
toString` is `in` every object) pass the server's name checks; here they are names like any other.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..yaml.scalars import js_string
from .facts import PREREQUISITE_FIELDS, PREREQUISITE_TYPES
from .templates import TemplateError, find_templates, joined_commands

REFERENCE = "reference"  # 400: a name the job does not define, or defines twice
TEMPLATE = "template"  # 500: mustache cannot parse a text the server renders
JAVASCRIPT = "javascript"  # 500: a value of a type the code cannot use (a TypeError)
_FIELDS = ("script", "output", "data", "dockerImage")  # a role's fields naming a prerequisite, in the server's order


@dataclass(frozen=True)
class Refusal:
    """One place the server refuses the job: its status and words, where (a path into the job) and
    why (`kind`; `expected`: the type the code needed there, for a JavaScript failure and for a
    string it reads letter by letter as a list of names)."""

    status: int
    message: str
    path: tuple
    kind: str
    expected: str = ""


class _Failure(Exception):
    """JavaScript's TypeError at `path`: the code stops there."""

    def __init__(self, message: str, path: tuple, expected: str):
        super().__init__(message)
        self.refusal = Refusal(500, message, path, JAVASCRIPT, expected)


# -- JavaScript's reading of values ---------------------------------------------------------------

def _falsy(value: Any) -> bool:
    return value is None or value is False or value == "" or \
        isinstance(value, (int, float)) and not isinstance(value, bool) and (value == 0 or isinstance(value, float) and math.isnan(value))


def _keys(value: Any, path: tuple) -> list[tuple[str, Any, tuple]]:
    """Object.keys(value), with each member and its path."""
    if value is None:
        raise _Failure("Cannot convert undefined or null to object", path, "object")
    if isinstance(value, dict):
        return [(js_string(k), v, path + (k,)) for k, v in value.items()]
    if isinstance(value, list):
        return [(str(i), v, path + (i,)) for i, v in enumerate(value)]
    if isinstance(value, str):
        return [(str(i), c, path) for i, c in enumerate(value)]
    return []  # a number or a boolean has no keys


def _has(value: Any, key: str, path: tuple) -> bool:
    """`key in value`, which JavaScript refuses for a value that is no object."""
    if isinstance(value, dict):
        return key in value or any(js_string(k) == key for k in value if not isinstance(k, str))
    if isinstance(value, list):
        return key == "length" or key.isdigit() and int(key) < len(value)
    raise _Failure(f"Cannot use 'in' operator to search for '{key}' in {js_string(value)}", path, "object")


def _get(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return value[key] if key in value else \
            next((v for k, v in value.items() if not isinstance(k, str) and js_string(k) == key), None)
    if isinstance(value, list) and key.isdigit() and int(key) < len(value):
        return value[int(key)]
    return None


def _path_key(value: Any, key: str) -> Any:
    """How a path names `value`'s member `key`: a list's index as a number, a mapping's key as written."""
    if isinstance(value, list):
        return int(key)
    return next((k for k in value if js_string(k) == key), key) if isinstance(value, dict) else key


def _member(value: Any, key: str, path: tuple) -> Any:
    """value.key (null and undefined have no members)."""
    if value is None:
        raise _Failure(f"Cannot read properties of null (reading '{key}')", path, "object")
    return _get(value, key)


def _iterate(value: Any, what: str, path: tuple) -> list[tuple[Any, tuple]]:
    """`for (const x of value)`, each with its path."""
    if isinstance(value, list):
        return [(v, path + (i,)) for i, v in enumerate(value)]
    if isinstance(value, str):
        return [(c, path) for c in value]
    raise _Failure(f"{what} is not iterable", path, "array")


def _concat(first: Any, second: Any, what: str, path: tuple) -> Any:
    """first.concat(second): an array's or a string's, nothing else's."""
    if isinstance(first, list):
        return first + (second if isinstance(second, list) else [second])
    if isinstance(first, str):
        return first + js_string(second)
    raise _Failure(f"{what}.concat is not a function" if first is not None else
                   "Cannot read properties of null (reading 'concat')", path, "array")


# -- the server's steps -----------------------------------------------------------------------------

def refusals(job: Any, mapped_roles: bool = True) -> Iterator[Refusal]:
    """Every refusal of the server's code, in its order (the server stops at the first).
    `mapped_roles=False` leaves out what it does with each role of a mapping: the schema types all
    of a role there, and the editor's own checks say its names and templates (kept per role); what
    stays is whether the default deployment's `taskRoles` can be searched for a role at all."""
    if not isinstance(job, dict):
        return
    by_type: dict[str, dict[str, dict]] = {t: {} for t in PREREQUISITE_TYPES}
    for i, item in enumerate(_list(job.get("prerequisites"))):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str) or item["type"] not in by_type \
                or not isinstance(item.get("name"), str):
            continue  # the schema refuses it
        if item["name"] in by_type[item["type"]]:
            yield Refusal(400, f"Duplicate {item['type']} prerequisites {item['name']}.", ("prerequisites", i, "name"), REFERENCE)
        else:
            by_type[item["type"]][item["name"]] = item
    deployments: dict[str, Any] = {}
    for i, item in enumerate(_list(job.get("deployments"))):
        name = item.get("name") if isinstance(item, dict) else None
        if isinstance(name, str):
            if name in deployments:
                yield Refusal(400, f"Duplicate deployments {name}.", ("deployments", i, "name"), REFERENCE)
            else:
                deployments[name] = item
    try:
        roles = _keys(job.get("taskRoles"), ("taskRoles",)) if "taskRoles" in job else []
    except _Failure as failure:
        yield failure.refusal
        return
    defaults = job.get("defaults")
    chosen = isinstance(defaults, dict) and "deployment" in defaults
    deployment = deployments.get(js_string(defaults["deployment"])) if chosen else None
    if not mapped_roles and isinstance(job.get("taskRoles"), dict):
        if deployment is not None and roles:
            try:
                _has(deployment.get("taskRoles") if isinstance(deployment, dict) else None, roles[0][0], _hooks_path(job, deployment))
            except _Failure as failure:
                yield failure.refusal
        yield from _auth(by_type["dockerimage"], job.get("prerequisites"))
        return
    every = {name for named in by_type.values() for name in named}
    broken: set[str] = set()  # the roles the code stops at: it goes no further with them
    for key, role, path in roles:
        try:
            names = _member(role, "prerequisites", path)
            for name, where in _iterate(names, "prerequisites", path + ("prerequisites",)) if not _falsy(names) else ():
                if not isinstance(name, str) or name not in every:  # a string is read letter by letter
                    yield Refusal(400, f"Prerequisite {js_string(name)} does not exist.", where, REFERENCE,
                                  "array" if isinstance(names, str) else "")
        except _Failure as failure:
            broken.add(key)
            yield failure.refusal
    for key, role, path in roles:
        if key in broken:
            continue
        try:
            for field_name in _FIELDS:
                if _has(role, field_name, path):
                    value = _get(role, field_name)
                    if js_string(value) not in by_type[PREREQUISITE_FIELDS[field_name]]:
                        yield Refusal(400, f"Prerequisite {js_string(value)} does not exist.", path + (field_name,), REFERENCE)
        except _Failure as failure:
            broken.add(key)
            yield failure.refusal
    if chosen and js_string(defaults["deployment"]) not in deployments:
        yield Refusal(400, f"Default deployment {js_string(defaults['deployment'])} does not exist.", ("defaults", "deployment"), REFERENCE)
    yield from _auth(by_type["dockerimage"], job.get("prerequisites"))
    for key, role, path in roles:
        if key not in broken:
            yield from _commands(job, key, role, path, deployment)


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _auth(images: dict[str, dict], items: Any) -> Iterator[Refusal]:
    """A Docker image's `auth` values, each parsed as a template with mustache (which takes a falsy
    value as an empty template, and fails on any other that is no string)."""
    where = {id(item): i for i, item in enumerate(_list(items))}
    for image in images.values():
        auth = image.get("auth")
        if not isinstance(auth, dict):
            continue  # the schema refuses it
        for key, value in auth.items():
            path = ("prerequisites", where.get(id(image), 0), "auth", key)
            if isinstance(value, str):
                yield from _template(value, path)
            elif not _falsy(value):
                yield Refusal(500, "this.tail.search is not a function", path, JAVASCRIPT, "string")


def _template(text: str, path: tuple) -> Iterator[Refusal]:
    try:
        find_templates(text)
    except TemplateError as exc:
        yield Refusal(500, str(exc), path, TEMPLATE)


def _hooks_path(job: dict, deployment: Any) -> tuple:
    index = next((i for i, item in enumerate(_list(job.get("deployments"))) if item is deployment), 0)
    return ("deployments", index, "taskRoles")


def _commands(job: dict, key: str, role: Any, path: tuple, deployment: Any) -> Iterator[Refusal]:
    """A role's commands as protocolRender joins them: the default deployment's hooks around them,
    each line trimmed, then parsed as a template."""
    where = path + ("commands",)
    try:
        commands = _member(role, "commands", path)
        before = 0  # how many lines the deployment puts before the role's own
        if deployment is not None:
            hooks_path = _hooks_path(job, deployment)
            hooks_of = deployment.get("taskRoles") if isinstance(deployment, dict) else None
            if _has(hooks_of, key, hooks_path):
                hooks = _get(hooks_of, key)
                hooks_path += (_path_key(hooks_of, key),)
                if _has(hooks, "preCommands", hooks_path):
                    pre = _get(hooks, "preCommands")
                    commands = _concat(pre, commands, "preCommands", hooks_path + ("preCommands",))
                    before = len(pre) if isinstance(pre, list) else 0
                if _has(hooks, "postCommands", hooks_path):
                    commands = _concat(commands, _get(hooks, "postCommands"), "commands", where)
        if not isinstance(commands, list):
            message = "Cannot read properties of undefined (reading 'map')" if commands is None else "commands.map is not a function"
            raise _Failure(message, where, "array")
        own = _get(role, "commands")
        for i, line in enumerate(commands):
            if not isinstance(line, str):
                at = where + (i - before,) if isinstance(own, list) and 0 <= i - before < len(own) else where
                raise _Failure("command.trim is not a function" if line is not None else
                               "Cannot read properties of null (reading 'trim')", at, "string")
    except _Failure as failure:
        yield failure.refusal
        return
    yield from _template(joined_commands(commands), where)
