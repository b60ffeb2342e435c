"""Whether a value has no error against a JSON Schema, answered without jsonschema.

Nearly every value an editor opens is valid, and saying so needs none of jsonschema's machinery
(loading it and its metaschemas costs more than checking a 3,000-role config). A schema is compiled
once into a check that answers True only when jsonschema, as `validate.py` configures it (JavaScript
patterns, safe integers), would report no error; False means "not proven": jsonschema is then asked
for the errors, in its own words. A schema with any keyword not understood here compiles to None
(always asked).

Understood: `type`, `required`, `properties`, `additionalProperties`, `propertyNames`, `items`,
`minItems`, `maxItems`, `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`, `$ref` to a
place in the same schema, boolean schemas; annotations (`title`, `default`, `x-…`, …) are ignored
as jsonschema ignores them.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from . import joi

Check = Callable[[Any], bool]

# What a schema may hold besides its checks: words for people and editors (and `$defs`, reached by `$ref`).
ANNOTATIONS = frozenset({"$defs", "$comment", "title", "description", "default", "examples", "deprecated"})
_ROOT_ONLY = frozenset({"$schema", "$id"})
_NON_NUMBERS = (bool, str, list, dict, type(None))


class _Unsupported(Exception):
    """A keyword (or a `$ref`) this module does not prove."""


def compile_schema(schema: Any, root: Any | None = None) -> Check | None:
    """The check of `schema` (`$ref`s resolved in `root`, by default the schema itself), or None when
    the schema uses a keyword not understood here."""
    try:
        return _Compiler(schema if root is None else root).compile(schema, top=True)
    except _Unsupported:
        return None


def _number(value: Any) -> bool | None:
    """True for a JSON number, False for any other JSON value, None for something else that
    jsonschema would count as a number (a Decimal): not proven here."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return True
    if isinstance(value, _NON_NUMBERS) or not isinstance(value, numbers.Number):
        return False
    return None


def _is_integer(value: Any) -> bool:
    return not isinstance(value, bool) and (isinstance(value, int) or isinstance(value, float) and value.is_integer())


_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": _is_integer,
    "number": lambda v: _number(v) is True,
}


class _Compiler:
    def __init__(self, root: Any):
        self.root = root
        self.compiled: dict[int, list[Check]] = {}  # id(schema) -> a cell holding its check (a `$ref` may come first)

    def compile(self, schema: Any, top: bool = False) -> Check:
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise _Unsupported(schema)
        cell = self.compiled.get(id(schema))
        if cell is not None:
            return lambda v: cell[0](v)
        cell = self.compiled[id(schema)] = [lambda v: False]
        checks = [self._keyword(key, value, schema) for key, value in schema.items()
                  if key not in ANNOTATIONS and not key.startswith("x-") and not (top and key in _ROOT_ONLY)]
        checks = [c for c in checks if c is not None]
        if not checks:
            check: Check = lambda v: True  # noqa: E731
        elif len(checks) == 1:
            check = checks[0]
        else:
            def check(v: Any, checks: tuple[Check, ...] = tuple(checks)) -> bool:
                for one in checks:
                    if not one(v):
                        return False
                return True
        check = self._fast(schema, check) or check
        cell[0] = check
        return check

    def _fast(self, schema: dict, general: Check) -> Check | None:
        """The same check with the common case first: a schema of one JSON type (with its usual
        limits) answers a value of exactly that type directly; any other value goes to `general`."""
        keys = {key for key in schema if key not in ANNOTATIONS and not key.startswith("x-") and key not in _ROOT_ONLY}
        kind = schema.get("type")
        kinds = tuple(kind) if isinstance(kind, list) else (kind,)
        if kinds in (("integer",), ("integer", "null")) and keys <= {"type", "minimum", "maximum"}:
            low, high = schema.get("minimum", -joi.MAX_SAFE_INTEGER), schema.get("maximum", joi.MAX_SAFE_INTEGER)
            if _number(low) is not True or _number(high) is not True:
                return None
            low, high = max(low, -joi.MAX_SAFE_INTEGER), min(high, joi.MAX_SAFE_INTEGER)

            def integer(v: Any) -> bool:
                return low <= v <= high if type(v) is int else general(v)  # |v| <= 2**53 - 1: a safe integer
            return integer
        if kinds == ("string",) and keys <= {"type", "minLength", "pattern"}:
            shortest = schema.get("minLength", 0)
            search = joi.js_regex(schema["pattern"]).search if "pattern" in schema else None
            if not isinstance(shortest, int):
                return None

            def string(v: Any) -> bool:
                if type(v) is not str:
                    return general(v)
                return len(v) >= shortest and (search is None or search(v) is not None)
            return string
        if kinds == ("object",) and keys <= {"type", "required", "properties", "additionalProperties"} \
                and schema.get("additionalProperties") is False and isinstance(schema.get("properties"), dict):
            checks = {key: self.compile(sub) for key, sub in schema["properties"].items()}
            required = tuple(schema.get("required", ()))

            def closed_object(v: Any) -> bool:
                if type(v) is not dict:
                    return general(v)
                for key in required:
                    if key not in v:
                        return False
                for key, item in v.items():
                    one = checks.get(key)
                    if one is None or not one(item):
                        return False
                return True
            return closed_object
        if kinds == ("array",) and keys <= {"type", "items", "minItems"}:
            item = self.compile(schema.get("items", True))
            fewest = schema.get("minItems", 0)
            if not isinstance(fewest, int):
                return None

            def array(v: Any) -> bool:
                if type(v) is not list:
                    return general(v)
                if len(v) < fewest:
                    return False
                for each in v:
                    if not item(each):
                        return False
                return True
            return array
        return None

    def _keyword(self, key: str, value: Any, schema: dict) -> Check | None:
        maker = _KEYWORDS.get(key)
        if maker is None:
            raise _Unsupported(key)
        return maker(self, value, schema)

    # -- keywords: each a check of one keyword, or None where it asks nothing ----------------
    def _type(self, value: Any, schema: dict) -> Check:
        kinds = value if isinstance(value, list) else [value]
        if not all(isinstance(k, str) and k in _TYPES for k in kinds):
            raise _Unsupported(value)
        tests = tuple(_TYPES[k] for k in kinds)
        safe = "integer" in kinds  # the server's numbers are JavaScript's: an integer must be one it holds exactly

        def check(v: Any) -> bool:
            if not any(test(v) for test in tests):
                return False
            return not safe or not _is_integer(v) or joi.is_safe_integer(v)
        return check

    def _required(self, value: Any, schema: dict) -> Check:
        keys = tuple(value)
        return lambda v: not isinstance(v, dict) or all(k in v for k in keys)

    def _properties(self, value: Any, schema: dict) -> Check:
        if not isinstance(value, dict):
            raise _Unsupported(value)
        checks = {key: self.compile(sub) for key, sub in value.items()}

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for key, item in v.items():
                one = checks.get(key)
                if one is not None and not one(item):
                    return False
            return True
        return check

    def _additionalProperties(self, value: Any, schema: dict) -> Check | None:
        if "patternProperties" in schema:
            raise _Unsupported("patternProperties")
        known = frozenset(schema.get("properties") or ())
        if value is True:
            return None
        if value is False:
            return lambda v: not isinstance(v, dict) or known.issuperset(v)
        extra = self.compile(value)
        return lambda v: not isinstance(v, dict) or all(extra(item) for key, item in v.items() if key not in known)

    def _propertyNames(self, value: Any, schema: dict) -> Check:
        names = self.compile(value)
        return lambda v: not isinstance(v, dict) or all(names(key) for key in v)

    def _items(self, value: Any, schema: dict) -> Check:
        if "prefixItems" in schema:
            raise _Unsupported("prefixItems")
        item = self.compile(value)
        return lambda v: not isinstance(v, list) or all(item(each) for each in v)

    def _minItems(self, value: Any, schema: dict) -> Check:
        return lambda v: not isinstance(v, list) or not len(v) < value

    def _maxItems(self, value: Any, schema: dict) -> Check:
        return lambda v: not isinstance(v, list) or not len(v) > value

    def _minLength(self, value: Any, schema: dict) -> Check:
        return lambda v: not isinstance(v, str) or not len(v) < value

    def _maxLength(self, value: Any, schema: dict) -> Check:
        return lambda v: not isinstance(v, str) or not len(v) > value

    def _pattern(self, value: Any, schema: dict) -> Check:
        search = joi.js_regex(value).search
        return lambda v: not isinstance(v, str) or search(v) is not None

    def _minimum(self, value: Any, schema: dict) -> Check:
        def check(v: Any) -> bool:
            number = _number(v)
            return number is False or number is True and not v < value
        return check

    def _maximum(self, value: Any, schema: dict) -> Check:
        def check(v: Any) -> bool:
            number = _number(v)
            return number is False or number is True and not v > value
        return check

    def _ref(self, value: Any, schema: dict) -> Check:
        if not isinstance(value, str) or not value.startswith("#"):
            raise _Unsupported(value)
        target: Any = self.root
        for part in filter(None, value[1:].split("/")):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            else:
                raise _Unsupported(value)
        return self.compile(target)


_KEYWORDS: dict[str, Callable[[_Compiler, Any, dict], Check | None]] = {
    "type": _Compiler._type, "required": _Compiler._required, "properties": _Compiler._properties,
    "additionalProperties": _Compiler._additionalProperties, "propertyNames": _Compiler._propertyNames,
    "items": _Compiler._items, "minItems": _Compiler._minItems, "maxItems": _Compiler._maxItems,
    "minLength": _Compiler._minLength, "maxLength": _Compiler._maxLength, "pattern": _Compiler._pattern,
    "minimum": _Compiler._minimum, "maximum": _Compiler._maximum, "$ref": _Compiler._ref,
}
