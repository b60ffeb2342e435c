"""Diagnostics for a job config: syntax, schema and the semantic checks in `semantic.py`."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import joi, role_cache
from . import messages as msg
from .envvars import ConfigNames
from .jsonc import Document, Node, find, parse
from .model import Diagnostic, Edit, Fix, Settings
from .schema import dialect_keys, job_schema, resolve
from .schema import subschema as schema_at
from .schema_proof import compile_schema
from .semantic import config_checks, role_checks


@dataclass(frozen=True, slots=True)
class SchemaError:
    """A jsonschema error reduced to what a diagnostic needs (cacheable per task role)."""

    kind: str
    path: tuple
    limit: Any
    instance: Any
    schema: dict


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    """JSON Schema 2020-12 read as the server reads it: patterns are JavaScript regular expressions
    (as the spec says, and as Joi runs them), and an integer must be one JavaScript holds exactly."""
    from jsonschema import Draft202012Validator, validators  # imported on first use: it slows server start
    from jsonschema.exceptions import ValidationError

    base_type = Draft202012Validator.VALIDATORS["type"]

    def type_(validator: Any, types: Any, instance: Any, schema: dict) -> Any:
        yield from base_type(validator, types, instance, schema)
        kinds = types if isinstance(types, list) else [types]
        if "integer" in kinds and validator.is_type(instance, "integer") and not joi.is_safe_integer(instance):
            yield ValidationError(f"{instance!r} is not a safe integer", validator="safeInteger",
                                  validator_value=joi.MAX_SAFE_INTEGER, instance=instance, schema=schema)

    def pattern(validator: Any, expression: str, instance: Any, schema: dict) -> Any:
        if validator.is_type(instance, "string") and not joi.js_regex(expression).search(instance):
            yield ValidationError(f"{instance!r} does not match {expression!r}")

    return validators.extend(Draft202012Validator, {"type": type_, "pattern": pattern})


@lru_cache(maxsize=4)
def _schemas(dialect: str) -> tuple[dict, dict]:
    """The schemas of the top level (roles left out) and of one task role."""
    schema = job_schema(dialect)
    top = dict(schema, properties=dict(schema["properties"]))
    top["properties"]["taskRoles"] = {k: v for k, v in top["properties"]["taskRoles"].items() if k != "items"}
    role = dict(schema["$defs"]["taskRole"], **{"$defs": schema["$defs"]})
    return top, role


@lru_cache(maxsize=4)
def _proofs(dialect: str) -> tuple[Any, Any]:
    """Checks that say a top level or a task role has no schema error without loading jsonschema
    (`schema_proof.py`); jsonschema is loaded, and asked, only for a value they cannot clear."""
    top, role = _schemas(dialect)
    return compile_schema(top), compile_schema(role)


def errors_unless_proven(proof: Any, validator: Callable[[], Any], value: Any) -> tuple[SchemaError, ...]:
    """`value`'s schema errors: none where `proof` (`schema_proof.py`; None: none) clears it, else
    jsonschema's, from `validator()`, which loads it only then."""
    if proof is not None and proof(value):
        return ()
    return tuple(_reduce(validator().iter_errors(value)))


def _top_errors(dialect: str, config: Any) -> tuple[SchemaError, ...]:
    return errors_unless_proven(_proofs(dialect)[0], lambda: _validators(dialect)[0], config)


def _role_errors(dialect: str, role: Any) -> tuple[SchemaError, ...]:
    return errors_unless_proven(_proofs(dialect)[1], lambda: _validators(dialect)[1], role)


@lru_cache(maxsize=4)
def _validators(dialect: str) -> tuple[Any, Any]:
    """Validators for the top level (roles left out) and for one task role."""
    from jsonschema import validators  # imported on first use: it slows server start

    top, role = _schemas(dialect)
    joi_validator = _validator_class()
    remembering = validators.extend(joi_validator, {"properties": remembered_properties})
    return joi_validator(top), RoleValidator(remembering(role))


def _converted_errors(root: dict, path: tuple, value: Any) -> list[str]:
    """What the server refuses in a value it converted (a number string, JSON text): Joi's own words,
    since inside JSON text Joi goes on converting (a number string in a role given as text, …)."""
    refused = joi.refusal(value, schema_at(root, path) or {}, field_name(path), root)
    return [refused] if refused else []


def warm_up(dialect: str = "openpai") -> None:
    """Build the validators ahead of the first document (the server does it while starting)."""
    _validators(dialect)


# jsonschema's `properties` keyword with each (subschema, value) outcome remembered: the roles of
# a large config repeat most values (taskNumber 2, memoryMB 8192, the same ports), and a role is
# validated as fast as it is looked up. Forgotten all at once past a number of outcomes or of
# characters in the values they are kept by: typing into a command makes a new value per keystroke.
_PROPERTY_OUTCOMES: dict[tuple, tuple] = {}
_PROPERTY_OUTCOMES_SIZE = 100_000
_PROPERTY_OUTCOMES_CHARS = 1 << 20
_property_chars = [0]  # the characters of the values kept, added up


def remembered_properties(validator: Any, properties: dict, instance: Any, schema: dict) -> Any:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    for prop, subschema in properties.items():
        if prop not in instance:
            continue
        value = instance[prop]
        if value is None or isinstance(value, (str, int, float)):
            key: tuple = (id(subschema), type(value), value)
            chars = len(value) if isinstance(value, str) else 1
        else:
            try:
                key = (id(subschema), json.dumps(value))
            except (TypeError, ValueError):  # a YAML timestamp, a cycle through aliases: checked, not remembered
                for error in _descend(validator, value, subschema, prop):
                    yield ValidationError.create_from(error)
                continue
            chars = len(key[1])
        errors = _PROPERTY_OUTCOMES.get(key)
        if errors is None:
            errors = tuple(_descend(validator, value, subschema, prop))
            if len(_PROPERTY_OUTCOMES) >= _PROPERTY_OUTCOMES_SIZE or _property_chars[0] + chars > _PROPERTY_OUTCOMES_CHARS:
                _PROPERTY_OUTCOMES.clear()
                _property_chars[0] = 0
            _PROPERTY_OUTCOMES[key] = errors
            _property_chars[0] += chars
        for error in errors:
            yield ValidationError.create_from(error)  # a copy: jsonschema extends the paths of what it gets


# What a schema may hold besides its checks: words for people and editors.
_ANNOTATIONS = frozenset({"$defs", "$comment", "title", "description", "default", "examples", "deprecated"})


class RoleValidator:
    """A task role's validator (one with `remembered_properties`), which answers the shape nearly
    every role has without jsonschema's walk over its keywords: an object with every required key
    and no key the schema does not name has no error but its properties' (each outcome remembered),
    so those are all it is checked for. Anything else goes through jsonschema. The role schemas are
    an object's `type`, `required`, `additionalProperties: false` and `properties`; a schema with
    more checks than those always goes through jsonschema."""

    def __init__(self, validator: Any):
        self.validator = validator
        schema = validator.schema
        checks = {key for key in schema if key not in _ANNOTATIONS and not key.startswith("x-")}
        self.properties: dict | None = schema.get("properties") if (
            checks <= {"type", "required", "additionalProperties", "properties"} and schema.get("type") == "object"
            and schema.get("additionalProperties") is False and isinstance(schema.get("properties"), dict)) else None
        self.required = tuple(schema.get("required", ()))

    def iter_errors(self, instance: Any) -> Any:
        known = self.properties
        if known is not None and type(instance) is dict and all(key in known for key in instance) \
                and all(key in instance for key in self.required):
            return remembered_properties(self.validator, known, instance, self.validator.schema)
        return self.validator.iter_errors(instance)


_STANDALONE: dict[int, Any] = {}  # id(subschema) -> a validator of it, for subschemas without "$ref"


def _descend(validator: Any, value: Any, subschema: Any, prop: str) -> Any:
    """`validator.descend(value, subschema, path=prop, schema_path=prop)`, without building a new
    validator each time for the subschemas that refer to nothing (most of a role's)."""
    standalone = _STANDALONE.get(id(subschema))
    if standalone is None:
        refers = not isinstance(subschema, dict) or "$ref" in json.dumps(subschema)
        standalone = _STANDALONE[id(subschema)] = False if refers else type(validator)(subschema)
    if standalone is False:
        return validator.descend(value, subschema, path=prop, schema_path=prop)
    errors = list(standalone.iter_errors(value))
    for error in errors:
        error.path.appendleft(prop)
        error.schema_path.appendleft(prop)
    return errors


def _reduce(errors: Any, prefix: tuple = ()) -> list[SchemaError]:
    out = []
    required_seen = set()
    for e in errors:
        if e.validator == "required":
            # jsonschema reports each missing key separately; the diagnostics list them all at once.
            where = tuple(e.absolute_path)
            if where in required_seen:
                continue
            required_seen.add(where)
        out.append(SchemaError(e.validator, prefix + tuple(e.absolute_path), e.validator_value, e.instance, e.schema))
    return out


def _role_nodes(doc: Document) -> list[Node]:
    roles = doc.root.get("taskRoles") if doc.root is not None and doc.root.type == "object" else None
    return roles.children if roles is not None and roles.type == "array" else []


def validate(text: str, settings: Settings = Settings()) -> tuple[Document, list[Diagnostic]]:
    doc = parse(text)
    return doc, diagnose(doc, settings)


def diagnose(doc: Document, settings: Settings) -> list[Diagnostic]:
    """The findings of a v1 config (`*.pai.json`) in the dialect `settings.dialect`."""
    locale = settings.locale
    out, whole = opening_diagnostics(doc, locale, "config")
    if not whole:
        return out
    config = doc.root.value
    root = job_schema(settings.dialect)
    for err in _top_errors(settings.dialect, config):
        out.extend(schema_diagnostics(doc, err, settings, root))
    # Each role's findings depend on its text, its index, the settings and the names the whole
    # config defines (its `$PAI_…` variables may name other roles): found again when those are.
    nodes = _role_nodes(doc)
    entries = [role_cache.entry(doc.text, node) for node in nodes]
    names, generation = role_cache.config_names([entry.names for entry in entries], config.get("jobEnvs"))
    doc.memo["names"] = names
    context = role_cache.context(settings, generation)
    for index, node in enumerate(nodes):
        entry = entries[index]
        if entry.key is not context or entry.index != index:
            entry.diagnostics = tuple(d.moved(-node.start) for d in _role_diagnostics(doc, index, node, entry, names, settings))
            entry.key, entry.index = context, index
        if entry.diagnostics:
            out.extend(d.moved(node.start) for d in entry.diagnostics)
    out.extend(config_checks(doc, config, names, settings))
    out.sort(key=lambda d: (d.start, d.end))
    return out


def _role_diagnostics(doc: Document, index: int, node: Node, entry: role_cache.RoleEntry, names: ConfigNames,
                      settings: Settings) -> list[Diagnostic]:
    errors = entry.schema.get(settings.dialect)
    if errors is None:
        errors = entry.schema[settings.dialect] = _role_errors(settings.dialect, node.value)
    out = []
    for err in errors:
        out.extend(schema_diagnostics(doc, SchemaError(err.kind, ("taskRoles", index) + err.path, err.limit, err.instance, err.schema),
                                      settings, job_schema(settings.dialect)))
    out.extend(role_checks(doc, node, names, settings))
    return out


def syntax_diagnostics(doc: Document, locale: str | None) -> list[Diagnostic]:
    """The parser's errors, with their quick fixes: the same in every kind of job file."""
    return [Diagnostic(e.start, e.end, e.code, msg.severity(e.code), msg.render(e.code, locale, **e.args),
                       _syntax_fixes(e.code, e.start, e.end, locale)) for e in doc.errors]


def opening_diagnostics(doc: Any, locale: str | None, field: str) -> tuple[list[Diagnostic], bool]:
    """What every kind of job file starts with: the parser's errors, and whether the document is an object
    to check further (when it is something else, the one error that says so is among the findings)."""
    out = syntax_diagnostics(doc, locale)
    root = doc.root
    if root is None:
        return out, False
    if root.type != "object":
        out.append(_diag(root.start, root.end, "schema.type", locale, field=field, expected=msg.type_name("object", locale),
                         actual=msg.type_name(msg.json_type(root.value), locale)))
        return out, False
    return out, True


def _syntax_fixes(code: str, start: int, end: int, locale: str | None) -> list[Fix]:
    if code == "syntax.missing-comma":
        return [Fix(msg.render("fix.insert-comma", locale), (Edit(start, start, ","),))]
    if code == "syntax.trailing-comma":
        return [Fix(msg.render("fix.remove-trailing-comma", locale), (Edit(start, end, ""),))]
    return []


def _diag(start: int, end: int, code: str, locale: str | None, fixes: list[Fix] | None = None, **args: Any) -> Diagnostic:
    return Diagnostic(start, end, code, msg.severity(code), msg.render(code, locale, **args), fixes or [])


def field_name(path: tuple | list) -> str:
    """How a path reads in a message: `memoryMB`, `taskRoles[0]`."""
    for i in range(len(path) - 1, -1, -1):
        if isinstance(path[i], str):
            tail = "".join(f"[{p}]" for p in path[i + 1 :])
            return f"{path[i]}{tail}"
    return "config"


def key_range(doc: Document, path: tuple | list) -> tuple[int, int]:
    """Range of the key that holds the value at `path`, or of the value's opening bracket."""
    node = find(doc.root, path)
    if node is None:
        return (0, 0)
    parent = node.parent
    if parent is not None and parent.type == "property" and parent.key is not None:
        return (parent.key.start, parent.key.end)
    return (node.start, node.start + 1)


def schema_diagnostics(doc: Document, err: SchemaError, settings: Settings, root: dict) -> list[Diagnostic]:
    """The diagnostics of one schema error (`root`: the whole schema it comes from), with their quick
    fixes written in the document's own syntax: the same for every format checked by a JSON Schema."""
    locale = settings.locale
    node = find(doc.root, err.path)
    if node is None:
        return []
    field = field_name(err.path)
    kind = err.kind
    if kind == "required":
        missing = [k for k in err.limit if isinstance(err.instance, dict) and k not in err.instance]
        start, end = key_range(doc, err.path)
        return [
            _diag(start, end, "schema.required", locale, [_insert_field_fix(doc, node, name, err.schema, root, locale)], missing=name)
            for name in missing
        ]
    if kind == "additionalProperties":
        return _unknown_keys(doc, node, err, settings)
    if kind == "type":
        expected = err.limit if isinstance(err.limit, list) else [err.limit]
        words = " / ".join(msg.type_name(t, locale) for t in expected)
        if err.schema.get("x-joi") == "any":  # the server takes any value here (and ignores what is not true)
            return [_diag(node.start, node.end, "schema.not-enforced", locale, field=field, expected=words,
                          value=doc.text[node.start:node.end])]
        converted, value = joi.converts(err.instance, expected)
        if converted:
            literal = doc.literal(value)
            out = [_diag(node.start, node.end, "schema.type-coerced", locale,
                         [Fix(msg.render("fix.write", locale, value=literal), (Edit(node.start, node.end, literal),))] if len(literal) < 200 else [],
                         field=field, expected=words, value=doc.text[node.start:node.end])]
            out.extend(_diag(node.start, node.end, "schema.converted-invalid", locale, field=field, value=_short(literal),
                             detail=detail) for detail in _converted_errors(root, err.path, value))
            return out
        return [_diag(node.start, node.end, "schema.type", locale, field=field, expected=words,
                      actual=msg.type_name(msg.json_type(err.instance), locale))]
    if kind == "safeInteger":
        return [_diag(node.start, node.end, "schema.unsafe-integer", locale, field=field, value=doc.text[node.start:node.end])]
    if kind in ("minimum", "maximum"):
        return [_diag(node.start, node.end, f"schema.{kind}", locale, field=field, limit=err.limit, value=err.instance)]
    if kind == "minLength":
        return [_diag(node.start, node.end, "schema.min-length", locale, field=field)]
    if kind == "minItems":
        return [_diag(node.start, node.end, "schema.min-items", locale, field=field, limit=err.limit)]
    if kind == "pattern" and node.type == "object":
        # jsonschema reports a `propertyNames` failure at the object, with the key as instance.
        prop = next((p for p in node.properties() if p.key is not None and p.key.value == err.instance), None)
        if prop is None or prop.key is None:
            return []
        return [_diag(prop.key.start, prop.key.end, "schema.key-pattern", locale, key=err.instance)]
    if kind == "pattern":
        explanation = err.schema.get("x-pattern-message") or {}
        fallback = msg.render("schema.pattern-fallback", locale, pattern=err.limit)
        text = explanation.get("zh" if msg.is_chinese(locale) else "en") or fallback
        fixed = _rewrite_to_pattern(str(err.instance), err.limit)
        fixes = [Fix(msg.render("fix.rename", locale, name=fixed), (Edit(node.start, node.end, doc.literal(fixed)),))] if fixed else []
        return [_diag(node.start, node.end, "schema.pattern", locale, fixes, value=err.instance, field=field, explanation=text)]
    return [_diag(node.start, node.end, "schema.other", locale, detail=f"{field}: {kind} {err.limit}")]


def _key_names(node: Node) -> set[str]:
    return {p.key.value for p in node.properties() if p.key is not None}


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rewrite_to_pattern(value: str, pattern: str) -> str | None:
    """For `^[class]+$` patterns: replace every character outside the class with '_'."""
    m = re.fullmatch(r"\^(\[[^\]]+\])\+\$", pattern)
    if m is None:
        return None
    allowed = re.compile(m.group(1))
    fixed = "".join(ch if allowed.fullmatch(ch) else "_" for ch in value) or "job"
    return fixed if fixed != value else None


def _unknown_keys(doc: Document, node: Node, err: SchemaError, settings: Settings) -> list[Diagnostic]:
    locale = settings.locale
    known = list((err.schema.get("properties") or {}).keys())
    other_dialect = dialect_keys(settings.dialect)
    present = _key_names(node)
    out = []
    for prop in node.properties():
        key = prop.key
        if key is None or key.value in known:
            continue
        if key.value in other_dialect:
            out.append(_diag(key.start, key.end, "schema.scm-only", locale, key=key.value))
            continue
        candidates = [k for k in known if k not in present and not k.startswith("$")] or known
        suggestion = difflib.get_close_matches(key.value, candidates, n=1, cutoff=0.6)
        if not suggestion:
            lowered = {k.lower(): k for k in candidates}
            suggestion = [lowered[key.value.lower()]] if key.value.lower() in lowered else []
        hint = msg.render("schema.did-you-mean", locale, suggestion=suggestion[0]) if suggestion else ""
        fixes = [Fix(msg.render("fix.replace", locale, value=f'"{suggestion[0]}"'), (Edit(key.start, key.end, doc.key_text(suggestion[0])),))] \
            if suggestion else []
        out.append(_diag(key.start, key.end, "schema.unknown-key", locale, fixes, key=key.value, hint=hint))
    return out


def placeholder(schema: dict | None) -> Any:
    """A new value of this schema: its default, or an empty value of its type."""
    schema = schema or {}
    if "default" in schema and schema["default"] not in ("", [], None):
        return schema["default"]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    return {"string": "", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}.get(kind)


def _insert_field_fix(doc: Document, obj: Node, name: str, obj_schema: dict, root: dict, locale: str | None) -> Fix:
    """Add `name` with a placeholder value as the first member of `obj`."""
    value = placeholder(resolve((obj_schema.get("properties") or {}).get(name), root))
    if name == "taskRoles":
        value = [{"name": "main", "command": ""}]
    return Fix(msg.render("fix.add", locale, name=name), (doc.insert_member(obj, name, value),))
