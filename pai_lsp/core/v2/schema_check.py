"""The v2 schema checked as the server's Ajv 6 checks it (`new Ajv({allErrors: true})`: no type
coercion; any number without a fraction, Infinity too, is an integer; JavaScript regular expressions),
each error said precisely at its place with a quick fix where one fits; and the schema's `x-warnings`
(what the web portal, HiveD or the scheduler refuse beyond the server) as warnings.

A 3,000-role file is checked role by role: the errors and warnings of a role are kept on its node,
which a parse after an edit elsewhere reuses (core/yaml/tree.py), so an edit costs one role."""

from __future__ import annotations

import difflib
import math
from functools import lru_cache
from typing import Any

from .. import messages as msg
from ..joi import js_regex
from ..jsonc import Node, find
from ..model import Diagnostic, Edit, Fix, Settings
from ..roles import v2_name
from ..schema_proof import compile_schema
from ..validate import (
    RoleValidator,
    SchemaError,
    _reduce,
    errors_unless_proven,
    field_name,
    key_range,
    remembered_properties,
    schema_diagnostics,
)
from ..yaml.write import literal, value_after_key
from . import facts
from .job import Job, job_of

ROLES = ("taskRoles",)
_ROLE_KEY = js_regex(facts.ROLE_NAME)
_NAMED_BY_PATTERN = {  # what a key of a pattern-keyed mapping names, by the mapping's last path part
    "taskRoles": "v2.word.task-role", "ports": "v2.word.port-label",
}


def _is_integer(_checker: Any, value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or isinstance(value, float) and (math.isinf(value) or value.is_integer())


def _is_number(_checker: Any, value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    """Ajv 6's reading of a schema: JavaScript's regular expressions, for values (`pattern`) and for
    keys (`patternProperties`, and the keys `additionalProperties` counts as extra), a number
    without a fraction an integer (Infinity too)."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import ValidationError

    def pattern(validator: Any, expression: str, instance: Any, schema: dict) -> Any:
        if validator.is_type(instance, "string") and not js_regex(expression).search(instance):
            yield ValidationError(f"{instance!r} does not match {expression!r}")

    def pattern_properties(validator: Any, patterns: dict, instance: Any, schema: dict) -> Any:
        if validator.is_type(instance, "object"):
            for expression, sub in patterns.items():
                valid: set[int] = set()  # values found valid here: one reached again by an alias is not checked again
                for key, value in instance.items():
                    if id(value) in valid or not js_regex(expression).search(key):
                        continue
                    errors = list(validator.descend(value, sub, path=key, schema_path=expression))
                    if errors:
                        yield from errors
                    elif isinstance(value, (dict, list)):
                        valid.add(id(value))

    def additional_properties(validator: Any, allowed: Any, instance: Any, schema: dict) -> Any:
        if not validator.is_type(instance, "object"):
            return
        named, patterns = schema.get("properties") or {}, schema.get("patternProperties") or {}
        extra = [k for k in instance if k not in named and not any(js_regex(p).search(k) for p in patterns)]
        if validator.is_type(allowed, "object"):
            for key in extra:
                yield from validator.descend(instance[key], allowed, path=key)
        elif allowed is False and extra:
            yield ValidationError(f"Additional properties are not allowed ({', '.join(map(repr, extra))})")

    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer).redefine("number", _is_number)
    keywords = {"pattern": pattern, "patternProperties": pattern_properties, "additionalProperties": additional_properties}
    return validators.extend(Draft202012Validator, keywords, type_checker=checker)


@lru_cache(maxsize=1)
def _schemas() -> tuple[dict, dict]:
    """The schema of the job without its roles' insides, and the one of a role."""
    root = facts.schema()
    # The roles' names are checked in `errors` (one regex each), their insides role by role.
    roles = {k: v for k, v in root["properties"]["taskRoles"].items() if k not in ("patternProperties", "additionalProperties")}
    top = dict(root, properties=dict(root["properties"], taskRoles=roles))
    role = dict(root["$defs"]["taskRole"], **{"$defs": root["$defs"]})
    return top, role


@lru_cache(maxsize=1)
def _proofs() -> tuple[Any, Any]:
    """Checks that say the job's top level or a role has no schema error without loading jsonschema
    (`schema_proof.py`); jsonschema is loaded, and asked, only for a value they cannot clear."""
    top, role = _schemas()
    return compile_schema(top), compile_schema(role)


@lru_cache(maxsize=1)
def quiet_role_proof() -> Any:
    """A check that clears a role of schema errors and of `x-warnings` at once: the role's schema
    with each warning's schema added where it stands (as `allOf`). A value it clears is valid, so
    every value below it was checked against the schema `_warnings` follows to it, warnings
    included; None where the schema is not understood (`schema_proof.py`)."""
    return compile_schema(_with_warnings(_schemas()[1]))


def _with_warnings(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_with_warnings(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _with_warnings(value) for key, value in schema.items() if key != "x-warnings"}
    if schema.get("x-warnings"):
        out["allOf"] = list(out.get("allOf", [])) + [warning["schema"] for warning in schema["x-warnings"]]
    return out


@lru_cache(maxsize=1)
def _validators() -> tuple[Any, Any]:
    """The validator of the job without its roles' insides, and the one of a role."""
    from jsonschema import validators
    top, role = _schemas()
    cls = _validator_class()
    # A role's properties are checked as v1's are: each (subschema, value) outcome remembered, since
    # the roles of a large job repeat most of their values (the same image, resources, retries).
    remembering = validators.extend(cls, {"properties": remembered_properties})
    return cls(top), RoleValidator(remembering(role))


@lru_cache(maxsize=8)
def _branch_validator(kind: str) -> Any:
    root = facts.schema()
    branch = facts.shape(root["properties"]["prerequisites"]["items"], {"type": kind}, root)
    return _validator_class()(dict(branch, **{"$defs": root["$defs"]}))


def role_memory(node: Node) -> dict:
    """What the checks keep on a role's node (`Node.cache`): a parse after an edit elsewhere reuses
    the node, and with it this; an edit inside the role makes a new node."""
    if not isinstance(node.cache, dict):
        node.cache = {}
    return node.cache


def warm_up() -> None:
    _validators()


# -- finding -------------------------------------------------------------------------------------

def errors(job: Job) -> list[SchemaError]:
    """Every schema error of the job (roles from their nodes' memory), a prerequisite that matches
    none of its shapes said as the errors of the shape its type names."""
    out = []
    for err in ajv_errors(job):
        if err.kind == "oneOf" and len(err.path) == 2 and err.path[0] == "prerequisites":
            out.extend(_prerequisite_errors(err))
        else:
            out.append(err)
    return out


def server_errors(doc: Any) -> list[SchemaError]:
    """The server's schema verdict on a parsed file, its errors as Ajv names them ([]: it passes)."""
    root = doc.root
    if root is None or root.type != "object":
        return [SchemaError("type", (), "object", root.value if root is not None else None, facts.schema())]
    return ajv_errors(job_of(doc))


def ajv_errors(job: Job) -> list[SchemaError]:
    """Every schema error of the job, as Ajv's keywords find them (roles from their nodes' memory)."""
    top_proof, role_proof = _proofs()
    out = list(errors_unless_proven(top_proof, lambda: _validators()[0], job.value))
    roles = job.value.get("taskRoles")
    if isinstance(roles, dict) and not all(_ROLE_KEY.search(name) for name in roles):
        schema = facts.schema()["properties"]["taskRoles"]
        out.append(SchemaError("additionalProperties", ("taskRoles",), False, roles, schema))
    for name, role in job.roles.items():
        if role.node is None:
            continue
        memory = role_memory(role.node)
        cached = memory.get("schema")
        if cached is None:
            value = role.node.value
            quiet = quiet_role_proof()
            if quiet is not None and quiet(value):  # the usual role: no error, no warning, one pass
                cached = memory["schema"] = ((), ())
            else:
                found = errors_unless_proven(role_proof, lambda: _validators()[1], value)
                cached = memory["schema"] = (found, tuple(_warnings(facts.schema()["$defs"]["taskRole"], value, ())))
        out.extend(SchemaError(e.kind, ("taskRoles", name) + e.path, e.limit, e.instance, e.schema) for e in cached[0])
    return out


def _prerequisite_errors(err: SchemaError) -> list[SchemaError]:
    """A prerequisite matching none of the three shapes: the errors of the shape its type names."""
    item = err.instance
    kind = item.get("type") if isinstance(item, dict) else None
    if not isinstance(item, dict) or kind not in facts.PREREQUISITE_TYPES:
        if isinstance(item, dict) and "type" in item:
            return [SchemaError("enum", err.path + ("type",), list(facts.PREREQUISITE_TYPES), kind, {})]
        return [SchemaError("required", err.path, ["name", "type"], item, {"required": ["name", "type"]})] \
            if isinstance(item, dict) else [SchemaError("type", err.path, "object", item, {})]
    return [SchemaError(e.kind, err.path + e.path, e.limit, e.instance, e.schema)
            for e in _reduce(_branch_validator(kind).iter_errors(item))]


def warnings(job: Job) -> list[tuple[tuple, dict]]:
    """(path, warning) of each `x-warnings` fragment the job breaks (roles from their nodes' memory)."""
    root = facts.schema()
    top = dict(root, properties={k: v for k, v in root["properties"].items() if k != "taskRoles"})
    out = list(_warnings(top, job.value, ()))
    roles_schema = root["properties"]["taskRoles"]
    out.extend(_fragments(roles_schema, job.value.get("taskRoles"), ("taskRoles",)) if "taskRoles" in job.value else [])
    for name, role in job.roles.items():
        cached = role_memory(role.node).get("schema") if role.node is not None else None
        if cached is not None:
            out.extend((("taskRoles", name) + path, warning) for path, warning in cached[1])
    return out


def _fragments(schema: dict, value: Any, path: tuple) -> list[tuple[tuple, dict]]:
    out = []
    for warning in schema.get("x-warnings", []):
        names = warning["schema"].get("propertyNames")
        if len(warning["schema"]) == 1 and isinstance(names, dict) and list(names) == ["pattern"]:
            # a pattern every key must match (role names on the web portal): one regex per key
            if isinstance(value, dict) and not all(js_regex(names["pattern"]).search(str(key)) for key in value):
                out.append((path, warning))
            continue
        proof = _fragment_proof(id(warning), warning)[1]
        if proof is not None and proof(value):
            continue
        for error in _fragment_validator(id(warning), warning)[1].iter_errors(value):
            out.append((path + tuple(error.absolute_path), warning))
            break
    return out


_FRAGMENTS: dict[int, tuple[dict, Any]] = {}
_FRAGMENT_PROOFS: dict[int, tuple[dict, Any]] = {}


def _fragment_validator(key: int, warning: dict) -> tuple[dict, Any]:
    found = _FRAGMENTS.get(key)
    if found is None:
        found = _FRAGMENTS[key] = (warning, _validator_class()(warning["schema"]))
    return found


def _fragment_proof(key: int, warning: dict) -> tuple[dict, Any]:
    """A warning's schema as a check that clears a value without jsonschema (None: always asked)."""
    found = _FRAGMENT_PROOFS.get(key)
    if found is None:
        found = _FRAGMENT_PROOFS[key] = (warning, compile_schema(warning["schema"]))
    return found


def _warnings(schema: dict, value: Any, path: tuple) -> list[tuple[tuple, dict]]:
    """The `x-warnings` of `schema` broken by `value`, and those of the schemas below, followed as
    the value goes (properties, pattern properties, items, a prerequisite's shape)."""
    root = facts.schema()
    out = []
    stack = [(schema, value, path)]
    while stack:
        sub, item, where = stack.pop()
        sub = facts.shape(facts.resolve(sub, root) or {}, item, root)
        if "x-warnings" in sub:
            out.extend(_fragments(sub, item, where))
        if isinstance(item, dict):
            for key, child in item.items():
                found = facts.child(sub, key, item, root)
                if found is not None and len(where) < 12:
                    stack.append((found, child, where + (key,)))
        elif isinstance(item, list) and isinstance(sub.get("items"), dict):
            for i, child in enumerate(item[:10_000]):
                stack.append((sub["items"], child, where + (i,)))
    out.sort(key=lambda found: [str(p) for p in found[0]])
    return out


# -- saying --------------------------------------------------------------------------------------

def _diag(start: int, end: int, code: str, locale: str | None, fixes: list[Fix] | None = None, **args: Any) -> Diagnostic:
    return Diagnostic(start, end, code, msg.severity(code), msg.render(code, locale, **args), fixes or [])


def diagnostics(doc: Any, job: Job, err: SchemaError, locale: str | None) -> list[Diagnostic]:
    """The diagnostics of one schema error, in YAML's words, with quick fixes written in YAML."""
    node = find(doc.root, err.path)
    if node is None:
        return []
    field = field_name(err.path)
    kind = err.kind
    text = doc.text
    if kind == "required":
        return _required(doc, job, node, err, locale)
    if kind == "type":
        expected = err.limit if isinstance(err.limit, list) else [err.limit]
        words = " / ".join(msg.type_name(t, locale) for t in expected)
        return [_diag(node.start, max(node.end, node.start + 1), "schema.type", locale, _type_fixes(doc, node, expected, locale),
                      field=field, expected=words, actual=msg.type_name(msg.json_type(err.instance), locale))]
    if kind == "enum" or kind == "const":
        allowed = err.limit if isinstance(err.limit, list) else [err.limit]
        shown = " / ".join(literal(a) for a in allowed)
        by_text = {}
        for value in reversed(allowed):  # the first allowed value of each text; numbers over strings
            if str(value) not in by_text or not isinstance(value, str):
                by_text[str(value)] = value
        close = difflib.get_close_matches(str(err.instance), list(by_text), n=1, cutoff=0.5)
        choice = by_text[close[0]] if close else next(iter(by_text.values())) if len(by_text) == 1 else None
        fixes = [Fix(msg.render("fix.write", locale, value=literal(choice)), (Edit(node.start, node.end, literal(choice)),))] \
            if choice is not None else []
        return [_diag(node.start, max(node.end, node.start + 1), "v2.enum", locale, fixes, field=field, allowed=shown,
                      value=text[node.start:node.end] or "null")]
    if kind == "minProperties":
        start, end = key_range(doc, err.path)
        return [_diag(start, end, "v2.min-properties", locale, field=field)]
    if kind == "maxLength":
        return [_diag(node.start, node.end, "v2.max-length", locale, field=field, length=len(str(err.instance)), limit=err.limit)]
    if kind in ("false", None):  # a `false` schema: jsonschema names no keyword
        prop = node.parent
        key = prop.key if prop is not None and prop.type == "property" else None
        where = key if key is not None else node
        return [_diag(where.start, where.end, "v2.not-allowed-key", locale)]
    if kind == "additionalProperties":
        return _unknown_keys(doc, job, node, err, locale)
    return schema_diagnostics(doc, err, Settings(locale=locale), facts.schema())  # the shared wording (minimum, pattern …)


def _type_fixes(doc: Any, node: Node, expected: list[str], locale: str | None) -> list[Fix]:
    value = node.value
    if isinstance(value, str) and ("integer" in expected or "number" in expected):
        try:
            number = float(value.strip())
        except ValueError:
            return []
        if math.isfinite(number) and ("number" in expected or number.is_integer()):
            written = literal(int(number) if number.is_integer() else number)
            return [Fix(msg.render("fix.write", locale, value=written), (Edit(node.start, node.end, written),))]
    prop = node.parent
    if isinstance(value, str) and "array" in expected and prop is not None and prop.type == "property":
        # `commands: echo hi`: a list of one command
        return [Fix(msg.render("fix.make-list", locale), (value_after_key(doc.text, prop, [value]),))]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and expected == ["string"]:
        quoted = f'"{doc.text[node.start:node.end]}"'
        return [Fix(msg.render("fix.write", locale, value=quoted), (Edit(node.start, node.end, quoted),))]
    return []


def _unknown_keys(doc: Any, job: Job, node: Node, err: SchemaError, locale: str | None) -> list[Diagnostic]:
    schema = err.schema
    patterns = list((schema.get("patternProperties") or {}).keys())
    known = set((schema.get("properties") or {}).keys())
    out = []
    if patterns:
        what = _NAMED_BY_PATTERN.get(str(err.path[-1]) if err.path else "", "v2.word.key")
        if len(err.path) == 4 and err.path[0] == "deployments":
            what = "v2.word.task-role"
        for prop in node.properties():
            key = prop.key
            if key is None or key.value in known or any(js_regex(p).search(key.value) for p in patterns):
                continue
            fixed = v2_name(key.value) if key.value else "_"
            fixes = [Fix(msg.render("fix.rename", locale, name=fixed), tuple(_renames(doc, job, err.path, key, fixed)))]
            out.append(_diag(key.start, max(key.end, key.start + 1), "v2.bad-name", locale, fixes, key=key.value,
                             what=msg.render(what, locale)))
        return out
    if err.path[-1:] == ("resourcePerInstance",) and node.get_property("shmMB") is not None:
        prop = node.get_property("shmMB")
        fixes = [_move_shm(doc, node, prop, locale)]
        out.append(_diag(prop.key.start, prop.key.end, "v2.shm-in-resources", locale, [f for f in fixes if f is not None]))
        rest = [p for p in node.properties() if p is not prop and p.key is not None and p.key.value not in known]
        if not rest:
            return out
    found = schema_diagnostics(doc, err, Settings(locale=locale), facts.schema())
    return out + [d for d in found if not (out and doc.text[d.start:d.end] == "shmMB")]


def _renames(doc: Any, job: Job, path: tuple, key: Node, new: str) -> list[Edit]:
    """Renaming a key a pattern refuses: a role also everywhere the job names it."""
    if path == ROLES:
        from .navigate import role_rename_edits

        return role_rename_edits(doc, job, key.value, new)
    return [Edit(key.start, key.end, literal(new))]


def _move_shm(doc: Any, resources: Node, prop: Node, locale: str | None) -> Fix | None:
    """Move `shmMB` from resourcePerInstance into extraContainerOptions (made when missing)."""
    from ..yaml.write import append_member, remove_member, set_member

    value = prop.value_node.value if prop.value_node is not None else None
    role = resources.parent.parent if resources.parent is not None else None
    if role is None or role.type != "object":
        return None
    options = role.get("extraContainerOptions")
    remove = remove_member(doc.text, prop)
    if options is not None and options.type == "object":
        add = set_member(doc.text, options, "shmMB", value)
    elif options is None:
        add = append_member(doc.text, role, "extraContainerOptions", {"shmMB": value})
    else:
        return None
    return Fix(msg.render("fix.move-shm", locale), tuple(sorted((remove, add), key=lambda e: e.start)))


def _required(doc: Any, job: Job, node: Node, err: SchemaError, locale: str | None) -> list[Diagnostic]:
    missing = [k for k in err.limit if isinstance(err.instance, dict) and k not in err.instance]
    if node.type == "object" and node.children:
        start, end = key_range(doc, err.path)
        if (start, end) == (node.start, node.start + 1) or err.path and isinstance(err.path[-1], int):
            start, end = node.start, node.children[0].end if node.children[0].type == "property" and node.children[0].key is None \
                else node.children[0].key.end if node.children[0].key is not None else node.start + 1
    else:
        start, end = node.start, max(node.end, node.start + 1)
    out = []
    for name in missing:
        value = placeholder(job, err.path, name)
        fixes = [Fix(msg.render("fix.add", locale, name=name), (doc.insert_member(node, name, value),))] \
            if node.type == "object" and node.children else []
        out.append(_diag(start, end, "schema.required", locale, fixes, missing=name))
    return out


def placeholder(job: Job, path: tuple, name: str) -> Any:
    """A value for a field the schema needs and the job lacks, that the job can run with."""
    if name == "dockerImage":
        images = list(job.by_type.get("dockerimage", {}))
        return images[0] if images else "docker_image_0"
    special = {"protocolVersion": 2, "type": "job", "name": "job", "commands": ["echo hello"], "uri": "ubuntu:18.04",
               "resourcePerInstance": {"cpu": 1, "memoryMB": 1024, "gpu": 0}, "cpu": 1, "memoryMB": 1024, "gpu": 0,
               "taskRoles": {"taskrole": {"dockerImage": placeholder(job, path, "dockerImage"),
                                          "resourcePerInstance": {"cpu": 1, "memoryMB": 1024, "gpu": 0},
                                          "commands": ["echo hello"]}}}
    if len(path) == 2 and path[0] == "deployments" and name == "taskRoles":
        return {next(iter(job.roles), "taskrole"): {"preCommands": ["echo start"]}}
    if name in special:
        return special[name]
    schema = facts.subschema(path + (name,), job.value) or {}
    kinds = schema.get("type")
    kind = kinds[0] if isinstance(kinds, list) else kinds
    return schema.get("default", {"string": "", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}.get(kind or ""))


def warning_diagnostics(doc: Any, path: tuple, warning: dict, locale: str | None) -> list[Diagnostic]:
    """The diagnostic of a broken `x-warnings` fragment: its message at the value (at the key, for
    a key the fragment refuses), with a fix for the usual ones."""
    node = find(doc.root, path)
    if node is None:
        return []
    message = msg.pick(locale, warning["en"], warning["zh"])
    where: Node = node
    keyed = warning["schema"].get("propertyNames")
    if keyed and node.type == "object":  # the first key the fragment refuses
        validator = _fragment_validator(id(warning), warning)[1]
        for prop in node.properties():
            if prop.key is not None and not validator.is_valid({prop.key.value: None}):
                where = prop.key
                break
    return [_diag(where.start, max(where.end, where.start + 1), "v2.warning", locale, _warning_fixes(doc, path, node, locale), message=message)]


def _warning_fixes(doc: Any, path: tuple, node: Node, locale: str | None) -> list[Fix]:
    last = path[-1] if path else None
    if last == "minFailedInstances" and node.value == 0:
        return [Fix(msg.render("fix.write", locale, value="1"), (Edit(node.start, node.end, "1"),))]
    if last == "minSucceededInstances" and node.value == 0:
        return [Fix(msg.render("fix.write", locale, value="null"), (Edit(node.start, node.end, "null"),))]
    if last == "ports" and node.type == "array":
        fix = ports_to_map(doc, node, locale)
        return [fix] if fix is not None else []
    return []


def ports_to_map(doc: Any, node: Node, locale: str | None = None) -> Fix | None:
    """`ports: [http, {label: tb, count: 2}]` (or v1's portList items) as the map the scheduler reads."""
    ports: dict[str, int] = {}
    for item in node.children:
        value = item.value
        if isinstance(value, str):
            ports[v2_name(value)] = ports.get(v2_name(value), 0) + 1
        elif isinstance(value, dict):
            label = value.get("label") or value.get("name")
            count = value.get("portNumber", value.get("count", 1))
            if len(value) == 1 and not isinstance(label, str):
                (label, count), = value.items()
            if not isinstance(label, str) or not isinstance(count, int) or isinstance(count, bool):
                return None
            ports[v2_name(label)] = count
        else:
            return None
    prop = node.parent
    if prop is None or prop.type != "property":
        return None
    if not ports:  # `ports: []`: no ports; the key goes
        from ..yaml.write import remove_member

        return Fix(msg.render("fix.remove-empty-ports", locale), (remove_member(doc.text, prop),))
    return Fix(msg.render("fix.ports-map", locale), (value_after_key(doc.text, prop, ports),))
