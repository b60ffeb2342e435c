"""OpenPAI protocol v2 (YAML) for the local cluster, with the real server's verdict (openpai-api.md
§2.2-2.4; rest-server `middlewares/v2/protocol.js`), given by the editor's own reader and checker, so
that the two cannot disagree: the file read as js-yaml reads it (core/yaml/tree.py), the server's
schema as Ajv 6 reads it (core/v2/schema_check.py), then what its own code refuses, in its order and
words (core/v2/server_code.py: its name checks, the templates it cannot parse, the values of a type
its JavaScript cannot use, such as `taskRoles: null`, a 500).

What the server accepts but no scheduler can run (`taskRoles` a list, a count of Infinity, `ports` a
list of labels, a negative count) is accepted, and FAILED at scheduling with the reason (`unrunnable`),
as the real scheduler fails it. The rest becomes the task roles v1 jobs use, with v2's completion
defaults, each role's commands rendered as the server renders them and its secrets filled in as the
runtime fills them.
"""

from __future__ import annotations

import json

import yaml

from ..core import messages as msg
from ..core.roles import TaskRole, from_v2
from ..core.v2 import schema_check, server_code
from ..core.v2.render import V2_DIRS, entrypoint, fill_secrets, secrets_masked
from ..core.v2.templates import TemplateError, fill, one_job
from ..core.validate import SchemaError
from ..core.yaml.tree import parse as read_yaml
from .job_data import with_always_ports
from .rest_errors import ClusterError

RUNTIME_OPTIONS = "set -o errexit\nset -o nounset\nset -o pipefail\n"  # openpai-runtime's user.sh


def _invalid(message: str) -> ClusterError:
    return ClusterError(400, "InvalidProtocolError", message)


def parse(text: str) -> dict:
    """The job, as the server takes it; ClusterError with the server's status and words where it refuses."""
    doc = read_yaml(text)
    problems = [e for e in doc.errors if e.code != "syntax.yaml-empty"]  # an empty file: the schema's "should be object"
    if problems:
        # The real server lets js-yaml's exception become a 500; a 400 says the same more usefully.
        first = problems[0]
        line = text.count("\n", 0, first.start) + 1
        said = msg.render(first.code, "en", **first.args)
        raise _invalid(f"The job protocol is not valid YAML: {said[:1].lower()}{said[1:]} (at line {line})")
    errors = schema_check.server_errors(doc)
    if errors:
        raise _invalid(json.dumps([_ajv_error(e) for e in sorted(errors, key=lambda e: list(map(str, e.path)))]))
    job = doc.root.value
    refusal = next(server_code.refusals(job), None)
    if refusal is not None:
        raise ClusterError(refusal.status, "InvalidProtocolError" if refusal.status == 400 else "UnknownError", refusal.message)
    _render_bounded(job)
    return job


def _render_bounded(job: dict) -> None:
    """What the job's templates fill in to (a Docker image's auth, each role's commands with its
    secrets, as `roles` fills them), within one bound (core/v2/templates.py `one_job`), as for the
    client: a job that fills in hugely is refused here, before anything runs."""
    secrets = {"$secrets": job.get("secrets")}
    listed = job["taskRoles"]
    named = listed.items() if isinstance(listed, dict) else enumerate(listed) if isinstance(listed, list) else ()
    try:
        with one_job():
            for image in job.get("prerequisites") or []:
                for value in (image.get("auth") or {}).values() if image.get("type") == "dockerimage" else ():
                    if isinstance(value, str):
                        fill(value, secrets)
            for name, role in named:  # a list's roles by index, as the server's Object.keys gives them
                fill_secrets(entrypoint({**job, "taskRoles": {str(name): role}}, str(name)), secrets)
    except TemplateError as exc:
        raise ClusterError(500, "UnknownError", str(exc)) from None


def _ajv_error(error: SchemaError) -> dict:
    """One error as Ajv lists it."""
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.path)
    return {"keyword": error.kind or "false", "dataPath": path, "params": {}, "message": _ajv_message(error)}


def _ajv_message(error: SchemaError) -> str:
    if error.kind == "required":
        missing = [k for k in error.limit if not isinstance(error.instance, dict) or k not in error.instance]
        return f"should have required property '{(missing or error.limit)[0]}'"
    if error.kind == "additionalProperties":
        return "should NOT have additional properties"
    if error.kind == "enum":
        return "should be equal to one of the allowed values"
    if error.kind == "type":
        return f"should be {','.join(error.limit) if isinstance(error.limit, list) else error.limit}"
    if error.kind == "pattern":
        return f'should match pattern "{error.limit}"'
    if error.kind == "oneOf":
        return "should match exactly one schema in oneOf"
    return f"should pass the schema's {error.kind} ({json.dumps(error.limit, default=str)})"


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
