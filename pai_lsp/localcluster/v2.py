"""OpenPAI protocol v2 (YAML) for the local cluster: the server's validation (§2.2, §2.3) and
rendering (§2.4), turned into the same task roles v1 jobs use, with v2's completion defaults."""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any

import yaml

from ..core import jsyaml
from ..core.joi import js_regex
from ..core.roles import TaskRole, from_v2
from .errors import ClusterError
from .model import with_always_ports

NAME = {"type": "string", "pattern": "^[a-zA-Z0-9_-]+$", "maxLength": 255}
KEY = "^[a-zA-Z_][a-zA-Z0-9_]*$"
STRINGS = {"type": "array", "items": {"type": "string"}}
# base.json of the server's config/v2/protocol.js, merged into every prerequisite shape.
BASE = {"protocolVersion": {"enum": ["2", 2]}, "name": NAME, "version": {"type": ["string", "number"]},
        "contributor": {"type": "string"}, "description": {"type": "string"}}
PREREQUISITE = {"oneOf": [
    {"type": "object", "required": ["name", "type"], "properties": {
        **BASE, "type": {"type": "string", "enum": ["script", "output"]}, "plugin": {"type": "string"}, "require": STRINGS,
        "uri": {"type": "string"}}},
    {"type": "object", "required": ["name", "type"], "properties": {
        **BASE, "type": {"type": "string", "enum": ["data"]}, "plugin": {"type": "string"}, "require": STRINGS, "uri": STRINGS}},
    {"type": "object", "required": ["name", "type", "uri"], "additionalProperties": False, "properties": {
        **BASE, "type": {"type": "string", "enum": ["dockerimage"]}, "uri": {"type": "string"}, "auth": {
            "type": "object", "properties": {"username": {"type": "string"}, "password": {"type": "string"},
                                             "registryuri": {"type": "string"}}}}},
]}
COMMANDS = {"type": "array", "minItems": 1, "items": {"type": "string"}}
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["protocolVersion", "name", "type", "taskRoles"],
    "properties": {
        **BASE,
        "type": {"type": "string", "enum": ["job"]},
        "prerequisites": {"type": "array", "minItems": 1, "items": PREREQUISITE},
        "parameters": {"type": "object"},
        "secrets": {"type": "object"},
        "jobRetryCount": {"type": "integer", "minimum": 0},
        "taskRoles": {"type": "object", "minProperties": 1, "additionalProperties": False, "patternProperties": {KEY: {
            "type": "object", "additionalProperties": False, "required": ["dockerImage", "resourcePerInstance", "commands"],
            "properties": {
                "protocolVersion": {"enum": ["2", 2]},
                "instances": {"type": "integer", "minimum": 1},
                "completion": {"type": "object", "additionalProperties": False, "properties": {
                    "minFailedInstances": {"type": ["integer", "null"]},
                    "minSucceededInstances": {"type": ["integer", "null"]}}},
                "taskRetryCount": {"type": "integer"},
                "prerequisites": STRINGS,
                "dockerImage": {"type": "string"}, "data": {"type": "string"}, "output": {"type": "string"},
                "script": {"type": "string"},
                # The server's schema puts additionalProperties inside properties: other keys pass.
                "extraContainerOptions": {"type": "object", "properties": {"shmMB": {"type": "integer"}}},
                "resourcePerInstance": {"type": "object", "additionalProperties": False, "required": ["cpu", "memoryMB", "gpu"],
                                        "properties": {"cpu": {"type": "integer"}, "memoryMB": {"type": "integer"},
                                                       "gpu": {"type": "integer"}, "ports": {
                                                           "type": "object", "minProperties": 1, "additionalProperties": False,
                                                           "patternProperties": {KEY: {"type": "integer"}}}}},
                "commands": COMMANDS,
            }}}},
        "deployments": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["name", "taskRoles"], "properties": {
                "name": NAME,
                "taskRoles": {"type": "object", "minProperties": 1, "additionalProperties": False, "patternProperties": {
                    KEY: {"type": "object", "additionalProperties": False,
                          "properties": {"preCommands": COMMANDS, "postCommands": COMMANDS}}}}}}},
        "defaults": {"type": "object", "properties": {"deployment": {"type": "string"}}},
        "extras": {"type": "object"},
    },
}
# Numbers the runner needs as whole, finite numbers (YAML may give 2.0 or .inf, which the schema lets by).
WHOLE = (("instances",), ("resourcePerInstance", "cpu"), ("resourcePerInstance", "memoryMB"), ("resourcePerInstance", "gpu"),
         ("completion", "minFailedInstances"), ("completion", "minSucceededInstances"), ("extraContainerOptions", "shmMB"))


@lru_cache(maxsize=1)
def _validator() -> Any:
    """Ajv 6's reading of the schema: JavaScript regular expressions, integers of any size."""
    from jsonschema import Draft7Validator, validators
    from jsonschema.exceptions import ValidationError

    def pattern(validator: Any, expression: str, instance: Any, schema: dict) -> Any:
        if validator.is_type(instance, "string") and not js_regex(expression).search(instance):
            yield ValidationError(f"{instance!r} does not match {expression!r}")

    return validators.extend(Draft7Validator, {"pattern": pattern})(SCHEMA)


def _invalid(message: str) -> ClusterError:
    return ClusterError(400, "InvalidProtocolError", message)


def parse(text: str) -> dict:
    try:
        doc = jsyaml.load(text)
    except jsyaml.LimitError as exc:  # js-yaml has no such bound; a job config never comes near it
        raise _invalid(f"The job protocol is beyond what the local cluster reads: {' '.join(str(exc).split())}") from None
    except yaml.YAMLError as exc:
        # The real server lets js-yaml's exception become a 500; a 400 says the same more usefully.
        raise _invalid(f"The job protocol is not valid YAML: {' '.join(str(exc).split())}") from None
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        raise _invalid(json.dumps([{
            "keyword": e.validator,
            "dataPath": "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path),
            "schemaPath": "#/" + "/".join(map(str, e.absolute_schema_path)),
            "params": {}, "message": _ajv_message(e),
        } for e in errors]))
    prerequisites: dict[str, dict[str, dict]] = {}
    for item in doc.get("prerequisites") or []:
        by_type = prerequisites.setdefault(item["type"], {})
        if item["name"] in by_type:
            raise _invalid(f"Duplicate {item['type']} prerequisites {item['name']}.")
        by_type[item["name"]] = item
    deployments = {}
    for item in doc.get("deployments") or []:
        if item.get("name") in deployments:
            raise _invalid(f"Duplicate deployments {item.get('name')}.")
        deployments[item.get("name")] = item
    every = {name for by_type in prerequisites.values() for name in by_type}
    for role in doc["taskRoles"].values():
        for name in role.get("prerequisites") or []:
            if name not in every:
                raise _invalid(f"Prerequisite {name} does not exist.")
        for field in ("script", "output", "data", "dockerImage"):
            if field in role and role[field] not in prerequisites.get(field.lower(), {}):
                raise _invalid(f"Prerequisite {role[field]} does not exist.")
    default = (doc.get("defaults") or {}).get("deployment")
    if default is not None and default not in deployments:
        raise _invalid(f"Default deployment {default} does not exist.")
    for name, role in doc["taskRoles"].items():
        for path in WHOLE:
            holder = role
            for part in path[:-1]:
                holder = holder.get(part) if isinstance(holder, dict) else None
            value = holder.get(path[-1]) if isinstance(holder, dict) else None
            if isinstance(value, float):
                if not math.isfinite(value):
                    raise _invalid(f"taskRoles.{name}.{'.'.join(path)} is {value}: the scheduler needs a finite number.")
                holder[path[-1]] = int(value)
    doc["_deployments"] = deployments
    doc["_prerequisites"] = prerequisites
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


def render(template: str, context: dict) -> str:
    """`<% $parameters.x %>` tags; unknown names stay as written (HEAD behaviour)."""

    def lookup(match: re.Match[str]) -> str:
        expr = match.group(1).strip().replace("[", ".").replace("]", "")
        value: Any = context
        for part in expr.split("."):
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                return match.group(0)
        return value if isinstance(value, str) else json.dumps(value)

    return re.sub(r"<%\s*(.*?)\s*%>", lookup, template)


def roles(doc: dict) -> list[TaskRole]:
    deployment = doc["_deployments"].get((doc.get("defaults") or {}).get("deployment"), {})
    out = []
    for name, role in doc["taskRoles"].items():
        lines = list(role["commands"])
        hooks = (deployment.get("taskRoles") or {}).get(name) or {}
        lines = list(hooks.get("preCommands") or []) + lines + list(hooks.get("postCommands") or [])
        context = {"$parameters": doc.get("parameters") or {}}
        for field in ("script", "output", "data"):
            if field in role:
                context[f"${field}"] = doc["_prerequisites"][field][role[field]]
        secrets = doc.get("secrets") or {}
        body = "\n".join(render(line.strip(), context) for line in lines)
        body = render(body, {"$secrets": secrets})
        command = "set -o errexit\nset -o nounset\nset -o pipefail\n" + body
        out.append(from_v2(name, role, command))
    return with_always_ports(out)


def masked(doc: dict) -> str:
    """The stored config: the parsed job (`parse`) with its `secrets:` block replaced by "******" (§2.4)."""
    stored = {k: v for k, v in doc.items() if not k.startswith("_")}
    if "secrets" in stored:
        stored["secrets"] = "******"
    return yaml.safe_dump(stored, sort_keys=False, allow_unicode=True)
