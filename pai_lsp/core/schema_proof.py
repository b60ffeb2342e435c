"""Whether a value has no error against a JSON Schema, answered without jsonschema.

Nearly every value an editor opens is valid, and saying so needs none of jsonschema's machinery
(loading it and its metaschemas costs more than checking a 3,000-role config). A schema is compiled
once into a check that answers True only when jsonschema, as `validate.py` configures it (JavaScript
patterns, safe integers), would report no error; False means "not proven": jsonschema is then asked
for the errors, in its own words. A schema with any keyword not understood here compiles to None
(always asked).

Understood: `type`, `required`, `properties`, `additionalProperties`, `propertyNames`, `items`,
`minItems`, `maxItems`, `minProperties`, `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`,
`allOf`, `const` and `enum` of plain values (strings, numbers, booleans, null), `not` of such a `const` or
`enum`, `patternProperties` (its patterns read as JavaScript's, as v2's checker reads them; the v1
schemas have none), `oneOf` whose branches each require one property with disjoint sets of string
values (the branch a value names is its only possible match), `$ref` to a place in the same schema,
boolean schemas; annotations (`title`, `default`, `x-…`, …) are ignored as jsonschema ignores them.
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


_PLAIN = (str, int, float, bool, type(None))


def _same(value: Any, plain: Any) -> bool:
    """True when `value` is JSON-equal to the plain value `plain` (1 and 1.0 equal, true and 1 not);
    False for anything else, a container included (not proven equal)."""
    if type(value) not in _PLAIN or type(plain) not in _PLAIN:
        return False
    if isinstance(value, bool) or isinstance(plain, bool):
        return type(value) is type(plain) and value == plain
    if isinstance(value, str) or isinstance(plain, str):
        return type(value) is type(plain) and value == plain
    return value == plain  # numbers with numbers, null with null (a number never equals None)


def _differs(value: Any, plain: Any) -> bool:
    """True when `value` is certainly not JSON-equal to the plain value `plain`."""
    if type(plain) not in _PLAIN:
        return False
    if type(value) in _PLAIN:
        return not _same(value, plain)
    return type(value) in (dict, list)  # a container never equals a plain value; anything else: not proven


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
        if cell is not None:  # compiled (its check itself), or being compiled (a `$ref` back into it: asked later)
            return cell[1] if len(cell) > 1 else lambda v: cell[0](v)
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
        cell.append(check)
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
        if len(tests) == 1 and not safe:
            return tests[0]

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
        known = frozenset(schema.get("properties") or ())
        if value is True:
            return None
        patterns = schema.get("patternProperties") or {}
        if not isinstance(patterns, dict):
            raise _Unsupported(patterns)
        searches = tuple(joi.js_regex(p).search for p in patterns)
        if value is False and not searches:
            return lambda v: not isinstance(v, dict) or known.issuperset(v)
        extra = (lambda v: False) if value is False else self.compile(value)

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for key, item in v.items():
                if key in known:
                    continue
                if not isinstance(key, str):
                    return False
                if not any(search(key) for search in searches) and not extra(item):
                    return False
            return True
        return check

    def _patternProperties(self, value: Any, schema: dict) -> Check:
        if not isinstance(value, dict):
            raise _Unsupported(value)
        pairs = tuple((joi.js_regex(p).search, self.compile(sub)) for p, sub in value.items())

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for key, item in v.items():
                if not isinstance(key, str):
                    return False
                for search, one in pairs:
                    if search(key) and not one(item):
                        return False
            return True
        return check

    def _const(self, value: Any, schema: dict) -> Check:
        if type(value) not in _PLAIN:
            raise _Unsupported(value)
        return lambda v: _same(v, value)

    def _enum(self, value: Any, schema: dict) -> Check:
        if not isinstance(value, list) or not all(type(a) in _PLAIN for a in value):
            raise _Unsupported(value)
        allowed = tuple(value)
        return lambda v: any(_same(v, a) for a in allowed)

    def _not(self, value: Any, schema: dict) -> Check:
        """Only `not` of a `const` or an `enum` of plain values: proven where the value certainly
        differs from each (a `not` of anything else would need a proof of an error)."""
        keys = {k for k in value if k not in ANNOTATIONS and not k.startswith("x-")} if isinstance(value, dict) else None
        if keys == {"const"}:
            banned = (value["const"],)
        elif keys == {"enum"} and isinstance(value["enum"], list):
            banned = tuple(value["enum"])
        else:
            raise _Unsupported(value)
        if not all(type(b) in _PLAIN for b in banned):
            raise _Unsupported(value)
        return lambda v: all(_differs(v, b) for b in banned)

    def _oneOf(self, value: Any, schema: dict) -> Check:
        """Branches told apart by one required property of string values, disjoint between them: a
        value whose property names a branch fails every other (their `enum` lacks it), so it matches
        one of them exactly when it matches that branch."""
        if not isinstance(value, list) or not value:
            raise _Unsupported(value)
        branches = [self._target(b) for b in value]
        for prop in branches[0].get("required") or ():
            sets = [self._names(b, prop) for b in branches]
            if all(s is not None for s in sets) and sum(map(len, sets)) == len(set().union(*sets)):  # type: ignore[arg-type]
                chosen = {name: self.compile(b) for b, s in zip(value, sets, strict=True) for name in s}  # type: ignore[union-attr]

                def check(v: Any, prop: str = prop, chosen: dict = chosen) -> bool:
                    if not isinstance(v, dict):
                        return False
                    name = v.get(prop)
                    one = chosen.get(name) if type(name) is str else None
                    return one is not None and one(v)
                return check
        raise _Unsupported(value)

    def _target(self, schema: Any) -> dict:
        """`schema`, a schema of only a `$ref` (and annotations) followed to where it points."""
        for _ in range(16):
            if not isinstance(schema, dict):
                raise _Unsupported(schema)
            keys = {k for k in schema if k not in ANNOTATIONS and not k.startswith("x-")}
            if keys != {"$ref"}:
                return schema
            schema = self._place(schema["$ref"])
        raise _Unsupported(schema)

    def _names(self, branch: dict, prop: str) -> frozenset[str] | None:
        """The string values a branch allows for `prop`, where it requires `prop` and limits it to them."""
        if prop not in (branch.get("required") or ()):
            return None
        sub = self._target((branch.get("properties") or {}).get(prop, True))
        allowed = sub.get("enum", [sub["const"]] if "const" in sub else None)
        if not isinstance(allowed, list) or not allowed or not all(type(a) is str for a in allowed):
            return None
        return frozenset(allowed)

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

    def _allOf(self, value: Any, schema: dict) -> Check:
        if not isinstance(value, list):
            raise _Unsupported(value)
        checks = tuple(self.compile(sub) for sub in value)
        return lambda v: all(one(v) for one in checks)

    def _minProperties(self, value: Any, schema: dict) -> Check:
        return lambda v: not isinstance(v, dict) or not len(v) < value

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
        return self.compile(self._place(value))

    def _place(self, value: Any) -> Any:
        if not isinstance(value, str) or not value.startswith("#"):
            raise _Unsupported(value)
        target: Any = self.root
        for part in filter(None, value[1:].split("/")):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            else:
                raise _Unsupported(value)
        return target


_KEYWORDS: dict[str, Callable[[_Compiler, Any, dict], Check | None]] = {
    "type": _Compiler._type, "required": _Compiler._required, "properties": _Compiler._properties,
    "additionalProperties": _Compiler._additionalProperties, "propertyNames": _Compiler._propertyNames,
    "items": _Compiler._items, "minItems": _Compiler._minItems, "maxItems": _Compiler._maxItems,
    "minLength": _Compiler._minLength, "maxLength": _Compiler._maxLength, "pattern": _Compiler._pattern,
    "minimum": _Compiler._minimum, "maximum": _Compiler._maximum, "$ref": _Compiler._ref,
    "minProperties": _Compiler._minProperties, "patternProperties": _Compiler._patternProperties,
    "const": _Compiler._const, "enum": _Compiler._enum, "not": _Compiler._not, "oneOf": _Compiler._oneOf,
    "allOf": _Compiler._allOf,
}
