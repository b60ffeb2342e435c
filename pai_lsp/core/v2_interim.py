"""INTERIM: the v2 job file (`*.pai.yaml`) as a job-file format, only as much as submitting one needs
(its files recognised, read with the YAML reader, refused where the real server refuses them: YAML
syntax, the server's schema, its cross-reference checks, an unclosed `<%`). The editor's v2 format
(branch v2-lsp: diagnostics with positions and quick fixes, completion, hover, rename) replaces this
module when it lands; submit, the preview and `pai check` reach either through core/formats.py only.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

from . import yaml_tree
from .job_format import JobFormat
from .jsonc import Document, find
from .model import Diagnostic, Settings
from .schema import load_schema
from .v2render import V2_SCHEMA, entrypoint, prerequisites_by_type
from .validate import syntax_diagnostics

_PROTOCOL_2 = re.compile(r"""^protocolVersion[ \t]*:[ \t]*(?:2|'2'|"2")[ \t]*(?:#.*)?$""", re.M)


@cache
def _validator() -> Any:
    """jsonschema as Ajv 6 types values: a number without a fraction is an integer, Infinity too."""
    from jsonschema import Draft202012Validator, validators

    def is_integer(checker: Any, value: Any) -> bool:
        return not isinstance(value, bool) and (isinstance(value, int) or isinstance(value, float) and
                                                (math.isinf(value) or value.is_integer()))

    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", is_integer)
    return validators.extend(Draft202012Validator, type_checker=checker)(load_schema(V2_SCHEMA))


class PaiV2(JobFormat):
    name = "pai-v2"
    title = ("OpenPAI job (protocol v2)", "OpenPAI 作业（v2 协议）")
    patterns = ("*.pai.yaml", "*.pai.yml")
    syntax = "yaml"
    dialects = ("openpai",)
    name_key = "name"

    def sniff(self, text: str) -> bool:
        return _PROTOCOL_2.search(text) is not None

    def schema(self, dialect: str) -> dict:
        return load_schema(V2_SCHEMA)

    def parse(self, text: str) -> Document:
        return yaml_tree.parse(text)  # type: ignore[return-value]  # the same writer interface

    def diagnose(self, doc: Document, settings: Settings) -> list[Diagnostic]:
        out = syntax_diagnostics(doc, settings.locale)
        if doc.root is None or out:
            return out
        job = doc.root.value
        for error in _validator().iter_errors(job):
            out.append(_at(doc, list(error.absolute_path), "schema", error.message))
        if not out and isinstance(job, dict):
            out.extend(_server_checks(doc, job))
        return sorted(out, key=lambda d: d.start)


def _at(doc: Document, path: list, code: str, message: str) -> Diagnostic:
    node = find(doc.root, path) or doc.root
    assert node is not None
    return Diagnostic(node.start, node.end, f"v2.{code}", "error", message)


def _server_checks(doc: Document, job: dict) -> list[Diagnostic]:
    """protocolValidate's checks beyond the schema (openpai-api.md §2.3), and the renderer's parse."""
    out = []
    by_type = prerequisites_by_type(job)
    seen: set[tuple[str, str]] = set()
    for i, item in enumerate(job.get("prerequisites") or []):
        key = (item["type"], item["name"])
        if key in seen:
            out.append(_at(doc, ["prerequisites", i, "name"], "duplicate", f"Duplicate {key[0]} prerequisites {key[1]}."))
        seen.add(key)
    names = [d["name"] for d in job.get("deployments") or []]
    for i, name in enumerate(names):
        if name in names[:i]:
            out.append(_at(doc, ["deployments", i, "name"], "duplicate", f"Duplicate deployments {name}."))
    every = {name for by_name in by_type.values() for name in by_name}
    roles = job.get("taskRoles") if isinstance(job.get("taskRoles"), dict) else {}
    for role, spec in roles.items():
        for i, name in enumerate(spec.get("prerequisites") or []):
            if name not in every:
                out.append(_at(doc, ["taskRoles", role, "prerequisites", i], "prerequisite", f"Prerequisite {name} does not exist."))
        for field in ("script", "output", "data", "dockerImage"):
            if field in spec and str(spec[field]) not in by_type.get(field.lower(), {}):
                out.append(_at(doc, ["taskRoles", role, field], "prerequisite", f"Prerequisite {spec[field]} does not exist."))
    default = (job.get("defaults") or {}).get("deployment")
    if default is not None and default not in names:
        out.append(_at(doc, ["defaults", "deployment"], "deployment", f"Default deployment {default} does not exist."))
    if not out:
        for role in roles:
            try:
                entrypoint(job, role)
            except ValueError as exc:  # TemplateError: the server answers 500
                out.append(_at(doc, ["taskRoles", role, "commands"], "template",
                               f"{exc}: a `<%` without its `%>` (the server answers 500)"))
    return out


FORMAT = PaiV2()
