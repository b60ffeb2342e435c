"""OpenPAI protocol v2 (YAML) for the local cluster, with the real server's verdict (openpai-api.md
§2.2-2.4; rest-server `middlewares/v2/protocol.js`): js-yaml's reading; the server's schema as Ajv 6
reads it (schemas/pai-job-v2.schema.json, the one the editor checks with: JavaScript's regular
expressions, Infinity an integer); its cross-reference checks in its order; its renderer
(core/v2/render.py: mustache 2.3, so an unclosed `<%` is its 500 "Unclosed tag at N"); and JavaScript's
own failures where the server has them (`taskRoles: null` passes the schema, then is a 500).

What the server accepts but no scheduler can run (`taskRoles` a list, a count of Infinity, `ports` a
list of labels, a negative count) is accepted, and FAILED at scheduling with the reason (`unrunnable`),
as the real scheduler fails it. The rest becomes the task roles v1 jobs use, with v2's completion
defaults, each role's commands rendered as the server renders them and its secrets filled in as the
runtime fills them.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import Any

import yaml

from ..core.joi import js_regex
from ..core.roles import TaskRole, from_v2
from ..core.schema import load_schema
from ..core.v2.facts import SCHEMA_FILE
from ..core.v2.render import PREREQUISITE_FIELDS, V2_DIRS, entrypoint, fill_secrets, prerequisites_by_type, secrets_masked
from ..core.v2.templates import TemplateError, fill, one_job
from ..core.yaml import jsyaml
from ..core.yaml.scalars import js_string
from .job_data import with_always_ports
from .rest_errors import ClusterError

# Numbers the scheduler needs as whole, finite counts of 0 or more (the schema lets 2.0, Infinity and -1 by).
RUNTIME_OPTIONS = "set -o errexit\nset -o nounset\nset -o pipefail\n"  # openpai-runtime's user.sh


@lru_cache(maxsize=1)
def _validator() -> Any:
    """Ajv 6's reading of the server's schema: JavaScript's regular expressions (also for the keys of
    `taskRoles` and `ports`), a number without a fraction an integer (Infinity too)."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import ValidationError

    def pattern(validator: Any, expression: str, instance: Any, schema: dict) -> Any:
        if validator.is_type(instance, "string") and not js_regex(expression).search(instance):
            yield ValidationError(f"{instance!r} does not match {expression!r}")

    def pattern_properties(validator: Any, patterns: dict, instance: Any, schema: dict) -> Any:
        if validator.is_type(instance, "object"):
            for expression, sub in patterns.items():
                valid: set[int] = set()  # values found valid here: a role reached again by an alias is not checked again
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

    def is_integer(checker: Any, value: Any) -> bool:
        return not isinstance(value, bool) and (isinstance(value, int) or isinstance(value, float) and
                                                (math.isinf(value) or value.is_integer()))

    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", is_integer)
    kind = validators.extend(Draft202012Validator, {"pattern": pattern, "patternProperties": pattern_properties,
                                                    "additionalProperties": additional_properties}, type_checker=checker)
    return kind(_inlined(load_schema(SCHEMA_FILE)))


def _inlined(schema: Any, root: dict | None = None) -> Any:
    """The schema with each `$ref` to its `$defs` replaced by what it names (none refers to itself): a
    job of thousands of roles then costs no reference lookups."""
    root = schema if root is None else root
    if isinstance(schema, list):
        return [_inlined(item, root) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/$defs/"):
        named = root["$defs"][schema["$ref"].removeprefix("#/$defs/")]
        return _inlined({**named, **{k: v for k, v in schema.items() if k != "$ref"}}, root)
    return {k: v if k in ("$defs", "enum", "const", "default", "examples") else _inlined(v, root) for k, v in schema.items()}


def _invalid(message: str) -> ClusterError:
    return ClusterError(400, "InvalidProtocolError", message)


def _failed(message: str) -> ClusterError:
    """An exception the server does not catch: its error handler's 500."""
    return ClusterError(500, "UnknownError", message)


def parse(text: str) -> dict:
    """The job, as the server takes it; ClusterError with the server's status and words where it refuses."""
    try:
        doc = jsyaml.load(text)
    except jsyaml.LimitError as exc:  # js-yaml has no such bound; a job config never comes near it
        raise _invalid(f"The job protocol is beyond what the local cluster reads: {' '.join(str(exc).split())}") from None
    except yaml.YAMLError as exc:
        # The real server lets js-yaml's exception become a 500; a 400 says the same more usefully.
        raise _invalid(f"The job protocol is not valid YAML: {' '.join(str(exc).split())}") from None
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise _invalid(json.dumps([{
            "keyword": e.validator,
            "dataPath": "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path),
            "schemaPath": "#/" + "/".join(map(str, e.absolute_schema_path)),
            "params": {}, "message": _ajv_message(e),
        } for e in errors]))
    _check(doc)
    with one_job():  # what its templates fill in to is bounded, as for the client (core/v2/templates.py)
        _render(doc)
    return doc


def _ajv_message(error: Any) -> str:
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"should have required property '{missing}'"
    if error.validator == "additionalProperties":
        return "should NOT have additional properties"
    if error.validator == "enum":
        return "should be equal to one of the allowed values"
    if error.validator == "type":
        return f"should be {error.validator_value}"
    if error.validator == "pattern":
        return f'should match pattern "{error.validator_value}"'
    return error.message


# -- what JavaScript does with the values the schema lets through ---------------------------
def _keys(value: Any) -> list[str]:
    """Object.keys(value)."""
    if value is None:
        raise _failed("Cannot convert undefined or null to object")
    if isinstance(value, dict):
        return [js_string(k) for k in value]
    if isinstance(value, (list, str)):
        return [str(i) for i in range(len(value))]
    return []


def _get(value: Any, key: str) -> Any:
    """value[key] for a key Object.keys gave."""
    if isinstance(value, dict):
        return next(v for k, v in value.items() if js_string(k) == key)
    return value[int(key)] if isinstance(value, (list, str)) else None


def _has(value: Any, key: str) -> bool:
    """`key in value`, which JavaScript refuses for a value that is no object."""
    if isinstance(value, dict):
        return key in value or any(js_string(k) == key for k in value if not isinstance(k, str))
    if isinstance(value, list):
        return key == "length" or key.isdigit() and int(key) < len(value)
    raise _failed(f"Cannot use 'in' operator to search for '{key}' in {js_string(value)}")


def _items(value: Any, what: str) -> list:
    """`for (const x of value)`."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return list(value)
    raise _failed(f"{what} is not iterable")


def _roles(doc: dict) -> list[tuple[str, Any]]:
    roles = doc["taskRoles"]
    if isinstance(roles, dict):  # the schema's own shape (keys are strings): no search
        return list(roles.items())
    return [(key, _get(roles, key)) for key in _keys(roles)]


def _check(doc: dict) -> None:
    """protocolValidate's checks beyond the schema, in its order and words (§2.3)."""
    by_type: dict[str, dict[str, dict]] = {t: {} for t in ("script", "output", "data", "dockerimage")}
    for item in doc.get("prerequisites") or []:
        if item["name"] in by_type[item["type"]]:
            raise _invalid(f"Duplicate {item['type']} prerequisites {item['name']}.")
        by_type[item["type"]][item["name"]] = item
    names = [d["name"] for d in doc.get("deployments") or []]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise _invalid(f"Duplicate deployments {name}.")
    every = {name for by_name in by_type.values() for name in by_name}
    roles = _roles(doc)
    for _, role in roles:
        if _has(role, "prerequisites"):
            for name in _items(_get(role, "prerequisites"), "prerequisites"):
                if not isinstance(name, str) or name not in every:
                    raise _invalid(f"Prerequisite {js_string(name)} does not exist.")
    for _, role in roles:
        for field in (*PREREQUISITE_FIELDS, "dockerImage"):
            if _has(role, field) and js_string(_get(role, field)) not in by_type[field.lower()]:
                raise _invalid(f"Prerequisite {js_string(_get(role, field))} does not exist.")
    default = (doc.get("defaults") or {}).get("deployment")
    if "deployment" in (doc.get("defaults") or {}) and default not in names:
        raise _invalid(f"Default deployment {default} does not exist.")


def _render(doc: dict) -> None:
    """protocolRender's failures (§2.4): a Docker image's auth, then each role's commands, as the
    server's mustache parses them."""
    secrets = {"$secrets": doc.get("secrets")}
    for image in prerequisites_by_type(doc)["dockerimage"].values():
        for value in (image.get("auth") or {}).values():
            if isinstance(value, str) and value:
                _filled(value, secrets)
            elif value not in (None, False, 0, ""):
                raise _failed("this.tail.search is not a function")  # mustache's scanner on a template that is no string
    for name, role in _roles(doc):
        if not isinstance(role, dict) or not isinstance(role.get("commands"), list):
            raise _failed(f"Cannot read property 'map' of {js_string(role.get('commands')) if isinstance(role, dict) else 'undefined'}")
        if any(not isinstance(c, str) for c in role["commands"]):
            raise _failed("command.trim is not a function")
        try:
            # taskRoles may be a list: its items by index; the secrets as the runtime fills them in (`roles`)
            fill_secrets(entrypoint({**doc, "taskRoles": {name: role}}, name), secrets)
        except TemplateError as exc:
            raise _failed(str(exc)) from None


def _filled(template: str, context: dict) -> str:
    try:
        return fill(template, context)
    except TemplateError as exc:
        raise _failed(str(exc)) from None


def roles(doc: dict) -> list[TaskRole]:
    """The task roles of a job that can run: each role's command the lines the server renders (the
    default deployment merged), its secrets filled in, under the runtime's shell options."""
    secrets = {"$secrets": doc.get("secrets") if isinstance(doc.get("secrets"), dict) else {}}
    out = []
    for name, role in doc["taskRoles"].items():
        whole = {**role, "instances": int(role.get("instances", 1)), "resourcePerInstance": {
            **role["resourcePerInstance"], **{k: int(role["resourcePerInstance"][k]) for k in ("cpu", "memoryMB", "gpu")},
            "ports": {label: int(count) for label, count in (role["resourcePerInstance"].get("ports") or {}).items()}}}
        if isinstance((role.get("extraContainerOptions") or {}).get("shmMB"), float):
            whole["extraContainerOptions"] = {**role["extraContainerOptions"], "shmMB": int(role["extraContainerOptions"]["shmMB"])}
        out.append(from_v2(name, whole, RUNTIME_OPTIONS + fill_secrets(entrypoint(doc, name), secrets)))
    return with_always_ports(out)


def config(doc: dict) -> dict:
    """The job's config as the runner reads it: v1's directories, which pai keeps in `extras` (`codeDir`
    is fetched into the task's folder, `$PAI_CODE_DIR` & co. set from them)."""
    extras = doc.get("extras") if isinstance(doc.get("extras"), dict) else {}
    lifted = {**doc, **{field: extras[field] for field in V2_DIRS if isinstance(extras.get(field), str)}}
    return json.loads(json.dumps(lifted, default=str))  # as status.json keeps it (a date is its text there)


def masked(doc: dict) -> str:
    """The stored config: the parsed job (`parse`) with its `secrets:` block replaced by "******" (§2.4)."""
    return yaml.safe_dump(secrets_masked(doc), sort_keys=False, allow_unicode=True)
