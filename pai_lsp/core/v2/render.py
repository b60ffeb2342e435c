"""A v2 job (`*.pai.yaml`) as the server will see it: what `pai submit --dry-run` prints and the
editor's rendered preview shows.

The real server (rest-server `middlewares/v2/protocol.js`, `protocolRender`; openpai-api.md §2.4)
parses each template with mustache 2.3 and custom tags `<%` `%>`, keeps only text and plain variable
tags (sections, comments, partials and unescaped tags are dropped), rewrites `a[0]` to `a.0`, and
writes a name it cannot resolve back as `<% name %>`. Each role's commands are the default
deployment's `preCommands`, its own `commands` and the deployment's `postCommands`, each line trimmed,
joined by newlines and rendered with `$parameters` and the role's `$script` / `$output` / `$data`
prerequisites; `$secrets` are filled in later, inside the container (and in a Docker image's `auth`).
The rendered job here does all of that, applies the schema's defaults (what the scheduler assumes for
a field left out) and masks secrets (`******`, as the server stores them) unless they are asked for.

The templates are core/v2/templates.py's (mustache 2.3's parser, its exact errors: an unclosed `<%` is
the server's 500 "Unclosed tag at N", N counting characters of the joined commands).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import yaml

from ..messages import Message, message
from ..schema import load_schema
from ..yaml.scalars import js_string, resolve_plain
from .facts import SCHEMA_FILE
from .templates import RenderTooLarge, TemplateError, fill, joined_commands, one_job

MASK = "******"  # what the server stores instead of the secrets (utils/protocolSecret.js)
PREREQUISITE_FIELDS = ("script", "output", "data")  # the role fields a template may read as `$<field>`
# v1's directories, which v2 lacks: pai keeps them in `extras` (core/v1/to_v2.py writes them there), uploads
# the code to `extras.codeDir`, downloads outputs from `extras.outputDir`, and a YARN-era cluster gets them back as v1's.
V2_DIRS = ("codeDir", "dataDir", "outputDir")
# What a scheduler counts per role: a whole number of 0 or more (the server's Ajv lets Infinity and negatives through).
COUNTS = (("instances",), ("resourcePerInstance", "cpu"), ("resourcePerInstance", "memoryMB"), ("resourcePerInstance", "gpu"),
          ("extraContainerOptions", "shmMB"))


def masked(secrets: Any) -> Any:
    """`secrets` with every value replaced by the mask (keys kept, so templates still resolve)."""
    if isinstance(secrets, dict):
        return {k: masked(v) for k, v in secrets.items()}
    if isinstance(secrets, list):
        return [masked(v) for v in secrets]
    return MASK


def secrets_masked(config: dict) -> dict:
    """`config` with its `secrets` block as the server stores and shows it ("******"): what others may read."""
    return {**config, "secrets": MASK} if "secrets" in config else config


# -- the job ---------------------------------------------------------------------------
@dataclass
class Rendered:
    """The job as the server will see it (`job`), the deployment merged into its commands (if any)."""

    job: dict
    deployment: str | None

    def text(self) -> str:
        """As YAML that js-yaml reads back to the same values, with a header saying what was done."""
        head = "# The job as the server will see it: templates filled in, defaults applied"
        if self.deployment is not None:
            head += f",\n# deployment {self.deployment!r} merged into the commands"
        return head + ".\n" + dump(self.job)


def prerequisites_by_type(job: dict) -> dict[str, dict[str, dict]]:
    """The server's prerequisites dict: type -> name -> the prerequisite."""
    out: dict[str, dict[str, dict]] = {t: {} for t in ("script", "output", "data", "dockerimage")}
    for item in job.get("prerequisites") or []:
        if isinstance(item, dict) and isinstance(item.get("type"), str):
            out.setdefault(item["type"], {}).setdefault(str(item.get("name")), item)
    return out


def role_commands(job: dict, role_name: str) -> list[str]:
    """A role's lines before the server joins them: the default deployment's preCommands, the role's
    commands, its postCommands."""
    role = job["taskRoles"][role_name]
    commands = list(role.get("commands") or [])
    deployment = default_deployment(job)
    hooks_of = deployment.get("taskRoles") if deployment else None  # the schema lets a list through
    hooks = hooks_of.get(role_name) if isinstance(hooks_of, dict) else None
    if isinstance(hooks, dict):
        commands = list(hooks.get("preCommands") or []) + commands + list(hooks.get("postCommands") or [])
    return [str(c) for c in commands]


def default_deployment(job: dict) -> dict | None:
    name = (job.get("defaults") or {}).get("deployment") if isinstance(job.get("defaults"), dict) else None
    return next((d for d in job.get("deployments") or [] if isinstance(d, dict) and d.get("name") == name), None) \
        if name is not None else None


def entrypoint(job: dict, role_name: str) -> str:
    """The role's rendered commands as the server stores them (`entrypoint`), secrets not filled in.
    TemplateError (with the role's name in front) where the server's parser fails."""
    role = job["taskRoles"][role_name]
    by_type = prerequisites_by_type(job)
    context = {"$parameters": job.get("parameters")}
    for field in PREREQUISITE_FIELDS:
        context[f"${field}"] = by_type[field].get(str(role.get(field))) if field in role else None
    return fill(joined_commands(role_commands(job, role_name)), context)


def render(job: dict, show_secrets: bool = False) -> Rendered:
    """The job (a checked v2 job: its values as js-yaml reads them) as the server will see it: each
    role's `commands` are the lines it runs (deployment merged, templates filled, `$secrets` too:
    masked unless `show_secrets`), `deployments` and `defaults.deployment` dropped (applied), the
    secrets block masked, the schema's defaults filled in. TemplateError where the server fails, or
    past what one job may render (`RenderTooLarge`)."""
    with one_job():
        return _render(job, show_secrets)


def _render(job: dict, show_secrets: bool) -> Rendered:
    secrets = job.get("secrets") if isinstance(job.get("secrets"), dict) else {}
    shown = {"$secrets": secrets if show_secrets else masked(secrets)}
    out = copy.deepcopy(job)
    deployment = default_deployment(job)
    roles = out.get("taskRoles") if isinstance(out.get("taskRoles"), dict) else {}
    for name, role in roles.items():
        if isinstance(role, dict) and isinstance(role.get("commands"), list):
            role["commands"] = fill_secrets(entrypoint(job, name), shown).split("\n")
    for item in out.get("prerequisites") or []:
        if isinstance(item, dict) and item.get("type") == "dockerimage" and isinstance(item.get("auth"), dict):
            item["auth"] = {k: fill(v, shown) if isinstance(v, str) else v for k, v in item["auth"].items()}
    out.pop("deployments", None)
    if isinstance(out.get("defaults"), dict):
        out["defaults"].pop("deployment", None)
    if "secrets" in out and not show_secrets:
        out["secrets"] = MASK
    with_defaults(out)
    return Rendered(out, deployment.get("name") if deployment else None)


def fill_secrets(text: str, shown: dict) -> str:
    """`<% $secrets.x %>` left in an entrypoint, filled in as the container does (`shown`:
    {"$secrets": …}; text the parser cannot read, say a parameter's value holding `<%`, stays as it is)."""
    try:
        return fill(text, shown)
    except RenderTooLarge:
        raise
    except TemplateError:
        return text


def with_defaults(job: dict) -> dict:
    """The schema's defaults filled in where a field is left out (the top level, `defaults`,
    `extras`, each task role and its `completion` / `extraContainerOptions`)."""
    schema = load_schema(SCHEMA_FILE)
    _defaults(job, schema["properties"], schema)
    role_schema = schema["$defs"]["taskRole"]["properties"]
    for role in (job.get("taskRoles") or {}).values() if isinstance(job.get("taskRoles"), dict) else ():
        if isinstance(role, dict):
            _defaults(role, role_schema, schema)
    return job


def _defaults(data: dict, properties: dict, root: dict) -> None:
    for key, sub in properties.items():
        if key == "taskRoles" or not isinstance(sub, dict):
            continue
        if "default" in sub and key not in data:
            data[key] = copy.deepcopy(sub["default"])
        elif isinstance(sub.get("properties"), dict) and _has_defaults(sub["properties"]):
            if key not in data:
                data[key] = {}
            if isinstance(data[key], dict):
                _defaults(data[key], sub["properties"], root)


def _has_defaults(properties: dict) -> bool:
    return any(isinstance(s, dict) and ("default" in s or _has_defaults(s.get("properties") or {}))
               for s in properties.values())


# -- what a scheduler can run -----------------------------------------------------------
def unrunnable(doc: dict) -> Message | None:
    """Why no scheduler can run a job the server took (None when it can run): the local cluster fails
    such a job at scheduling with this (its English), and a YARN-era cluster is not sent its v1 config."""
    roles = doc["taskRoles"]
    if not isinstance(roles, dict) or not roles:
        if roles == []:
            return message("v1-only.roles-empty")
        return message("v1-only.roles-type", type=type(roles).__name__.replace("str", "string"))
    for name, role in roles.items():
        for path in COUNTS:
            value = _at(role, path)
            if isinstance(value, float) and not math.isfinite(value) or isinstance(value, (int, float)) and value < 0:
                return message("v1-only.bad-count", role=name, field=".".join(path), value=js_string(value))
        ports = role["resourcePerInstance"].get("ports")
        if isinstance(ports, list) and ports:
            return message("v1-only.ports-list", role=name)
        for label, count in (ports or {}).items() if isinstance(ports, dict) else ():
            if isinstance(count, float) and not math.isfinite(count) or count < 0:
                return message("v1-only.bad-port-count", role=name, label=label, value=js_string(count))
    return None


def _at(role: dict, path: tuple[str, ...]) -> Any:
    value: Any = role
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


# -- writing ---------------------------------------------------------------------------
class _Dumper(yaml.SafeDumper):
    """PyYAML's writer, quoting every string js-yaml would read as something else (`1e3`, `0x1F`)."""

    def represent_str(self, data: str) -> yaml.ScalarNode:
        if "\n" in data:
            return self.represent_scalar("tag:yaml.org,2002:str", data, style="|")
        if data and resolve_plain(data)[0] != "string":
            return self.represent_scalar("tag:yaml.org,2002:str", data, style="'")
        return super().represent_str(data)

    def ignore_aliases(self, data: Any) -> bool:
        return True  # a value reached twice (an anchor) is written twice: the reader needs no anchors


_Dumper.add_representer(str, _Dumper.represent_str)


def dump(value: Any) -> str:
    """YAML text of a job, keys in their order."""
    return yaml.dump(value, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=120)
