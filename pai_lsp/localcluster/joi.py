"""Server-side v1 job validation as the real rest-server does it (Joi 13 with default options):
first error only, types converted, unknown keys refused, defaults applied, Joi's wording.

The rules come from the same schema the editor uses, so the two never disagree.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.schema import job_schema, resolve


class InvalidParameters(Exception):
    """400 InvalidParametersError with Joi's message."""


class _Fail(Exception):
    def __init__(self, message: str):
        self.message = message


def validate_v1(body: Any, dialect: str = "openpai") -> dict:
    """The body with defaults applied, or InvalidParameters."""
    root = job_schema(dialect)
    try:
        value = _check(body, root, root, "value")
    except _Fail as fail:
        raise InvalidParameters(fail.message) from None
    _check_min_counts(value)
    return value


def _check_min_counts(config: dict) -> None:
    for i, role in enumerate(config["taskRoles"]):
        if role.get("shmMB", 0) > role.get("memoryMB", 0):  # Joi: shmMB.max(Joi.ref('memoryMB'))
            raise InvalidParameters(
                f'child "taskRoles" fails because ["taskRoles" at position {i} fails because [child "shmMB" fails '
                f'because ["shmMB" must be less than or equal to {role["memoryMB"]}]]]')
    for role in config["taskRoles"]:
        tasks = role.get("taskNumber", 1)
        if (role.get("minFailedTaskCount") or 0) > tasks or (role.get("minSucceededTaskCount") or 0) > tasks:
            raise InvalidParameters("minFailedTaskCount or minSucceededTaskCount should not be greater than tasks number.")


def _types(schema: dict) -> list[str]:
    kind = schema.get("type", [])
    return kind if isinstance(kind, list) else [kind]


def _check(value: Any, schema: dict, root: dict, label: str) -> Any:
    schema = resolve(schema, root) or {}
    kinds = _types(schema)
    if value is None:
        if "null" in kinds or not kinds:
            return None
        raise _Fail(f'"{label}" must be {_article(kinds[0])}')
    if "integer" in kinds or "number" in kinds:
        value = _number(value, label, integer="integer" in kinds)
        if "minimum" in schema and value < schema["minimum"]:
            raise _Fail(f'"{label}" must be larger than or equal to {schema["minimum"]}')
        if "maximum" in schema and value > schema["maximum"]:
            raise _Fail(f'"{label}" must be less than or equal to {schema["maximum"]}')
        return value
    if "boolean" in kinds:
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, bool):
            raise _Fail(f'"{label}" must be a boolean')
        return value
    if "string" in kinds:
        if not isinstance(value, str):
            raise _Fail(f'"{label}" must be a string')
        if value == "" and schema.get("minLength", 0) > 0:
            raise _Fail(f'"{label}" is not allowed to be empty')
        if "pattern" in schema and not re.search(schema["pattern"], value):
            raise _Fail(f'"{label}" with value "{value}" fails to match the required pattern: /{schema["pattern"]}/')
        return value
    if "array" in kinds:
        if not isinstance(value, list):
            raise _Fail(f'"{label}" must be an array')
        if len(value) < schema.get("minItems", 0):
            raise _Fail(f'"{label}" must contain at least {schema["minItems"]} items')
        out = []
        for i, item in enumerate(value):
            try:
                out.append(_check(item, schema.get("items", {}), root, label))
            except _Fail as fail:
                raise _Fail(f'"{label}" at position {i} fails because [{fail.message}]') from None
        return out
    if "object" in kinds:
        return _object(value, schema, root, label)
    return value


def _object(value: Any, schema: dict, root: dict, label: str) -> dict:
    if not isinstance(value, dict):
        raise _Fail(f'"{label}" must be an object')
    props = {k: v for k, v in (schema.get("properties") or {}).items() if not k.startswith("$")}
    required = set(schema.get("required", []))
    out: dict = {}
    for key, sub in props.items():
        try:
            if key in value:
                out[key] = _check(value[key], sub, root, key)
            elif key in required:
                raise _Fail(f'"{key}" is required')
            elif "default" in (resolve(sub, root) or {}):
                out[key] = resolve(sub, root)["default"]
        except _Fail as fail:
            raise _Fail(f'child "{key}" fails because [{fail.message}]') from None
    names = schema.get("propertyNames", {}).get("pattern")
    for key, item in value.items():
        if key in props:
            continue
        if schema.get("additionalProperties") is False:
            raise _Fail(f'"{key}" is not allowed')
        if names and not re.search(names, key):
            raise _Fail(f'"{key}" is not allowed')
        out[key] = item
    return out


def _number(value: Any, label: str, integer: bool) -> int | float:
    if isinstance(value, bool):
        raise _Fail(f'"{label}" must be a number')
    if isinstance(value, str):
        try:
            value = float(value.strip()) if value.strip() else None
        except ValueError:
            value = None
        if value is None:
            raise _Fail(f'"{label}" must be a number')
    if not isinstance(value, (int, float)):
        raise _Fail(f'"{label}" must be a number')
    if integer:
        if value != int(value):
            raise _Fail(f'"{label}" must be an integer')
        return int(value)
    return value


def _article(kind: str) -> str:
    return {"integer": "a number", "number": "a number", "string": "a string", "boolean": "a boolean",
            "array": "an array", "object": "an object"}.get(kind, kind)
