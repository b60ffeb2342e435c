"""The job schemas (`schemas/`): the v1 schema per cluster dialect, any other by its file name, and
navigation inside a schema for completion and hover."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .messages import pick

DIALECTS = ("openpai", "scm")  # of the v1 job config: `pai.cluster.kind`, and a cluster's kind
SCHEMA_FILE = "pai-job-v1.schema.json"


def dialect_of(kind: object) -> str:
    """The v1 dialect `pai.cluster.kind` names (the default one for any other value)."""
    return kind if isinstance(kind, str) and kind in DIALECTS else DIALECTS[0]


def schema_path(name: str = SCHEMA_FILE) -> Path:
    """Where a schema of `schemas/` lives: inside an installed wheel, or at the root of a checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "schemas" / name, here.parent / "schemas" / name):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(name)


@cache
def load_schema(name: str) -> dict:
    """A schema of `schemas/` by its file name, read once."""
    return json.loads(schema_path(name).read_text(encoding="utf-8"))


def raw_schema() -> dict:
    """The v1 job schema with every dialect's keys."""
    return load_schema(SCHEMA_FILE)


@lru_cache(maxsize=len(DIALECTS))
def job_schema(dialect: str = "openpai") -> dict:
    """The v1 schema for one dialect: keys of other dialects are removed, so they are unknown keys."""
    if dialect not in DIALECTS:  # another format's dialect: its format names its schema (core/formats.py)
        raise ValueError(f"{dialect!r} is no dialect of the v1 job config ({', '.join(DIALECTS)})")
    schema = copy.deepcopy(raw_schema())

    def prune(node: Any) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                for key in [k for k, v in props.items() if v.get("x-dialect", dialect) != dialect]:
                    del props[key]
            for value in node.values():
                prune(value)
        elif isinstance(node, list):
            for value in node:
                prune(value)

    prune(schema)
    return schema


def dialect_keys(dialect: str) -> dict[str, str]:
    """Keys that exist only in some other dialect: name -> that dialect."""
    out: dict[str, str] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, sub in (node.get("properties") or {}).items():
                if sub.get("x-dialect", dialect) != dialect:
                    out[key] = sub["x-dialect"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(raw_schema())
    return out


def resolve(schema: dict | None, root: dict) -> dict | None:
    while schema is not None and "$ref" in schema:
        ref = schema["$ref"]
        target: Any = root
        for part in ref.lstrip("#/").split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        schema = target
    return schema


def subschema(root: dict, path: list[str | int] | tuple) -> dict | None:
    """Schema of the value at a JSON path (None where the schema says nothing)."""
    node: dict | None = resolve(root, root)
    for part in path:
        if node is None:
            return None
        if isinstance(part, int):
            node = resolve(node.get("items"), root)
        else:
            node = resolve((node.get("properties") or {}).get(part), root)
    return node


def description(schema: dict, locale: str | None) -> str:
    return pick(locale, schema.get("description", ""), schema.get("x-description-zh") or schema.get("description", ""))


def types_of(schema: dict) -> list[str]:
    kind = schema.get("type")
    if kind is None:
        return []
    return kind if isinstance(kind, list) else [kind]


@cache
@cache
def defaults(definition: str) -> Mapping[str, Any]:
    """The schema's defaults for the fields of one of its `$defs` ("taskRole", "port"): what the
    real server fills in for a field left out. Read here, never written down twice (and read
    once: every role's checks ask)."""
    props = raw_schema()["$defs"][definition]["properties"]
    return MappingProxyType({key: sub["default"] for key, sub in props.items() if "default" in sub})
