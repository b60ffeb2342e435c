"""How the real OpenPAI v1 server reads a job config: Joi 13 with its default options (convert,
abort early, no unknown keys), then the server's own cross-field check (middlewares/job.js).

Joi converts before it validates — numbers given as strings ("2", " 2 ", "1e3", even "0x10", which
JavaScript's parseFloat reads as 0), JSON text where an object or an array is expected, "TRUE" for a
boolean — and its integers are JavaScript's safe integers. Its regular expressions are JavaScript's:
`\\w` is ASCII, `$` does not match before a final newline. This module is that reading, once: the
language server's diagnostics and the local cluster's REST validation both use it, so the editor,
`pai check` and the local cluster give the server's verdict. The rules themselves come from the job
schema (`schemas/pai-job-v1.schema.json`), the same one the editor uses.
"""

from __future__ import annotations

import copy
import json
import math
import re
from functools import lru_cache
from typing import Any

from .schema import job_schema, resolve

MAX_SAFE_INTEGER = 2**53 - 1
# JavaScript's white space and line terminators (what Number() and parseFloat() skip).
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_DECIMAL = r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
_NUMBER_TEXT = re.compile(rf"{_DECIMAL}|[+-]?Infinity|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")
_FLOAT_PREFIX = re.compile(rf"[+-]?Infinity|{_DECIMAL}")
_SPACE = f"[{JS_SPACE}]*"
MIN_COUNT_MESSAGE = "minFailedTaskCount or minSucceededTaskCount should not be greater than tasks number."
ARTICLE = {"integer": "a number", "number": "a number", "string": "a string", "boolean": "a boolean",
           "array": "an array", "object": "an object"}


class Invalid(Exception):
    """The server's 400 InvalidParametersError, with Joi's message."""


# -- JavaScript's readings -------------------------------------------------------------
def js_number(text: str) -> float:
    """JavaScript's Number(text): NaN when it is not a number."""
    body = re.sub(f"^{_SPACE}|{_SPACE}$", "", text)
    if body == "":
        return 0.0
    if not _NUMBER_TEXT.fullmatch(body):
        return math.nan
    if body.endswith("Infinity"):
        return -math.inf if body.startswith("-") else math.inf
    if body[:2].lower() in ("0x", "0o", "0b"):
        return float(int(body[2:], {"x": 16, "o": 8, "b": 2}[body[1].lower()]))
    return float(body)


def js_parse_float(text: str) -> float:
    """JavaScript's parseFloat(text): the longest number at the start, NaN when there is none."""
    match = _FLOAT_PREFIX.match(re.sub(f"^{_SPACE}", "", text))
    if match is None:
        return math.nan
    found = match.group(0)
    if found.endswith("Infinity"):
        return -math.inf if found.startswith("-") else math.inf
    return float(found)


def to_number(value: Any) -> float | int | None:
    """What Joi's number() makes of a value (None: "must be a number"); infinities are returned as is
    (Joi refuses them as invalid values)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        number = js_parse_float(value)
        if math.isnan(number) or not math.isfinite(js_number(value)):
            return None
        return int(number) if number.is_integer() else number
    if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value)):
        return value
    return None


def is_safe_integer(value: float | int) -> bool:
    """JavaScript's Number.isSafeInteger, for a JSON number as JavaScript would hold it."""
    if isinstance(value, float):
        return math.isfinite(value) and value.is_integer() and abs(value) <= MAX_SAFE_INTEGER
    return abs(value) <= MAX_SAFE_INTEGER and float(value) == value


def to_integer(value: Any) -> int | None:
    """The integer Joi's number().integer() makes of a value, or None when it refuses it."""
    if type(value) is int:  # the usual case, answered at once: a safe integer is itself
        return value if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else None
    number = to_number(value)
    if number is None or not is_safe_integer(number):
        return None
    return int(number)


def to_boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def from_json_text(value: Any, kind: str) -> Any:
    """JSON text where an object or an array is expected, parsed as JSON.parse does; else the value."""
    if not isinstance(value, str):
        return value
    try:
        parsed = json.loads(value, parse_constant=_no_constant)
    except ValueError:
        return value
    if kind == "array" and isinstance(parsed, list) or kind == "object" and isinstance(parsed, dict):
        return parsed
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def converts(value: Any, kinds: list[str]) -> tuple[bool, Any]:
    """(True, converted) when Joi turns a value of the wrong JSON type into one of `kinds`."""
    for kind in kinds:
        if kind in ("integer", "number") and isinstance(value, str):
            number = to_number(value)
            if number is not None:
                return True, number
        elif kind == "boolean" and isinstance(value, str) and to_boolean(value) is not None:
            return True, to_boolean(value)
        elif kind in ("array", "object"):
            parsed = from_json_text(value, kind)
            if parsed is not value:
                return True, parsed
    return False, value


@lru_cache(maxsize=64)
def js_regex(pattern: str) -> re.Pattern[str]:
    """A JavaScript regular expression (no flags) as a Python one with the same meaning: ASCII `\\w`,
    `\\d` and `\\b`; JavaScript's `\\s`; `$` only at the very end; `.` not matching any line end."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt == "s":
                out.append(JS_SPACE if in_class else f"[{JS_SPACE}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{JS_SPACE}]")
            else:
                out.append(ch + nxt)
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
        elif ch == "$":
            out.append(r"\Z")
        elif ch == ".":
            out.append("[^\n\r\u2028\u2029]")
        else:
            out.append(ch)
        i += 1
    return re.compile("".join(out), re.ASCII)


# -- the server's validation -----------------------------------------------------------
class _Fail(Exception):
    def __init__(self, message: str):
        self.message = message


def validate_v1(body: Any, dialect: str = "openpai") -> dict:
    """The config as the server keeps it (converted, defaults applied), or Invalid with the
    message the server answers (Joi's first error, or its min-count check)."""
    root = job_schema(dialect)
    try:
        value = _check(body, root, root, "value", present=True)
    except _Fail as fail:
        raise Invalid(fail.message) from None
    for role in value["taskRoles"]:
        tasks = role.get("taskNumber", 1)
        if (role.get("minFailedTaskCount") or 0) > tasks or (role.get("minSucceededTaskCount") or 0) > tasks:
            raise Invalid(MIN_COUNT_MESSAGE)
    return value


def refusal(value: Any, schema: dict, label: str, root: dict) -> str | None:
    """Joi's message refusing `value` against one part (`schema`) of a job schema (`root`, where its
    references lead), or None when it passes."""
    try:
        _check(value, schema, root, label)
    except _Fail as fail:
        return fail.message
    return None


def _types(schema: dict) -> list[str]:
    kind = schema.get("type", [])
    return kind if isinstance(kind, list) else [kind]


def _check(value: Any, schema: dict, root: dict, label: str, present: bool = True, parent: dict | None = None) -> Any:
    """Joi's any._validate for one value: presence, allowed values, conversion and type, then rules."""
    schema = resolve(schema, root) or {}
    kinds = _types(schema)
    if not present:
        if "default" in schema:
            return copy.deepcopy(schema["default"])
        return _ABSENT
    if schema.get("x-joi") == "any":  # a key the server takes with any value (jobEnvs.isDebug)
        return value
    if value is None and "null" in kinds:  # .allow(null)
        return None
    if "string" in kinds and value == "" and schema.get("minLength", 0) == 0:  # .allow('')
        return value
    if not kinds:  # Joi.required() / any
        return value
    kind = kinds[0]
    if kind in ("integer", "number"):
        if isinstance(value, float) and math.isinf(value):
            raise _Fail(f'"{label}" contains an invalid value')  # Joi's number() refuses Infinity
        number = to_number(value)
        if number is None or isinstance(number, float) and math.isinf(number):
            raise _Fail(f'"{label}" must be a number')
        if kind == "integer" and not is_safe_integer(number):
            raise _Fail(f'"{label}" must be an integer')
        if "minimum" in schema and number < schema["minimum"]:
            raise _Fail(f'"{label}" must be larger than or equal to {schema["minimum"]}')
        if "maximum" in schema and number > schema["maximum"]:
            raise _Fail(f'"{label}" must be less than or equal to {schema["maximum"]}')
        reference = schema.get("x-joi-max-ref")  # shmMB: .max(Joi.ref('memoryMB')), after that key's default
        if reference and parent is not None and isinstance(parent.get(reference), (int, float)) and number > parent[reference]:
            raise _Fail(f'"{label}" must be less than or equal to {parent[reference]}')
        return int(number) if kind == "integer" else number
    if kind == "boolean":
        converted = to_boolean(value)
        if converted is None:
            raise _Fail(f'"{label}" must be a boolean')
        return converted
    if kind == "string":
        if not isinstance(value, str):
            raise _Fail(f'"{label}" must be a string')
        if value == "":
            raise _Fail(f'"{label}" is not allowed to be empty')
        if "pattern" in schema and not js_regex(schema["pattern"]).search(value):
            raise _Fail(f'"{label}" with value "{value}" fails to match the required pattern: /{schema["pattern"]}/')
        return value
    if kind == "array":
        return _array(from_json_text(value, "array"), schema, root, label)
    if kind == "object":
        return _object(from_json_text(value, "object"), schema, root, label)
    return value


_ABSENT = object()


def _array(value: Any, schema: dict, root: dict, label: str) -> list:
    if not isinstance(value, list):
        raise _Fail(f'"{label}" must be an array')
    out = []
    for i, item in enumerate(value):
        try:
            out.append(_check(item, schema.get("items", {}), root, str(i)))
        except _Fail as fail:
            raise _Fail(f'"{label}" at position {i} fails because [{fail.message}]') from None
    if len(out) < schema.get("minItems", 0):
        raise _Fail(f'"{label}" must contain at least {schema["minItems"]} items')
    return out


def _object(value: Any, schema: dict, root: dict, label: str) -> dict:
    if not isinstance(value, dict):
        raise _Fail(f'"{label}" must be an object')
    props = {k: v for k, v in (schema.get("properties") or {}).items() if not k.startswith("$")}
    required = set(schema.get("required", []))
    names = (schema.get("propertyNames") or {}).get("pattern")
    out: dict = {}
    for key, sub in props.items():
        if names is not None and key not in value:
            continue  # an object of .pattern() keys (jobEnvs, extras): the keys the schema names are documentation
        try:
            if key not in value and key in required:
                raise _Fail(f'"{key}" is required')
            checked = _check(value.get(key), sub, root, key, present=key in value, parent=out)
        except _Fail as fail:
            raise _Fail(f'child "{key}" fails because [{fail.message}]') from None
        if checked is not _ABSENT:
            out[key] = checked
    for key, item in value.items():
        if key in props:
            continue
        if names is not None and js_regex(names).search(key):
            out[key] = item  # a .pattern() key: any value
            continue
        if schema.get("additionalProperties") is False or names is not None:
            raise _Fail(f'"{key}" is not allowed')
        out[key] = item
    return out


def article(kind: str) -> str:
    return ARTICLE.get(kind, kind)
