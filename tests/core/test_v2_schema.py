"""schemas/pai-job-v2.schema.json: the v2 server's schema, no more and no less. Every real v2 example
passes it (no false alarm), known mistakes fail at the right path, and its verdicts are those of the
server's own Ajv 6 schema (tests/oracle/v2.js, where Node.js and the oracle's packages are); its
`x-warnings` (what the portal, HiveD or the scheduler refuse beyond the server) stay quiet on the
real examples and speak on the mistakes they are for."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator, validators

from pai_lsp.core.formats import format_for
from pai_lsp.core.model import Settings
from pai_lsp.core.yaml.tree import parse

from ..helpers.paths import ROOT, shared
from ..helpers.yaml_oracle import server_schema

SCHEMA_FILE = ROOT / "schemas" / "pai-job-v2.schema.json"

JOB = """\
protocolVersion: 2
name: demo_job
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: "ubuntu:18.04"}
  - {name: code, type: script, uri: "https://x/y.git"}
parameters: {msg: hi}
taskRoles:
  worker:
    instances: 2
    completion: {minFailedInstances: 1, minSucceededInstances: null}
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0, ports: {http: 1}}
    extraContainerOptions: {shmMB: 1024}
    commands:
      - echo <% $parameters.msg %>
deployments:
  - name: dep
    taskRoles:
      worker: {preCommands: [echo pre]}
defaults: {virtualCluster: default, deployment: dep}
extras:
  com.microsoft.pai.runtimeplugin:
    - plugin: ssh
      parameters: {jobssh: true}
"""

ROLES = JOB[JOB.index("taskRoles:\n  worker:"):JOB.index("deployments:")]

# (what to replace in JOB, with what, the schema keyword that fails, at which path)
BAD = [
    ("type: job\n", "", "required", []),
    ("name: demo_job", "name: demo.job", "pattern", ["name"]),
    ("name: demo_job", "name: " + "n" * 256, "maxLength", ["name"]),
    ("name: demo_job", "name: 12", "type", ["name"]),
    ("protocolVersion: 2", "protocolVersion: 1", "enum", ["protocolVersion"]),
    ("type: job", "type: jobs", "enum", ["type"]),
    ("parameters: {msg: hi}", "parameters: {msg: hi}\njobName: x", "additionalProperties", []),
    ("parameters: {msg: hi}", "parameters: [hi]", "type", ["parameters"]),
    ("parameters: {msg: hi}", "parameters: {msg: hi}\njobRetryCount: -1", "minimum", ["jobRetryCount"]),
    ("parameters: {msg: hi}", "parameters: {msg: hi}\nversion: true", "type", ["version"]),
    ("  worker:\n    instances", "  ps-0:\n    instances", "additionalProperties", ["taskRoles"]),
    (ROLES, "taskRoles: {}\n", "minProperties", ["taskRoles"]),
    ("instances: 2", "instances: 0", "minimum", ["taskRoles", "worker", "instances"]),
    ("instances: 2", "instances: 2.5", "type", ["taskRoles", "worker", "instances"]),
    ("minFailedInstances: 1,", "minFailedInstances: '1',", "type", ["taskRoles", "worker", "completion", "minFailedInstances"]),
    ("minFailedInstances: 1,", "minFailed: 1,", "additionalProperties", ["taskRoles", "worker", "completion"]),
    ("gpu: 0, ports", "ports", "required", ["taskRoles", "worker", "resourcePerInstance"]),
    ("gpu: 0, ports", "gpu: 0, shmMB: 512, ports", "additionalProperties", ["taskRoles", "worker", "resourcePerInstance"]),
    ("ports: {http: 1}", "ports: {http: one}", "type", ["taskRoles", "worker", "resourcePerInstance", "ports", "http"]),
    ("ports: {http: 1}", "ports: {}", "minProperties", ["taskRoles", "worker", "resourcePerInstance", "ports"]),
    ("ports: {http: 1}", "ports: {web-ui: 1}", "additionalProperties", ["taskRoles", "worker", "resourcePerInstance", "ports"]),
    ("{shmMB: 1024}", "{shmMB: 1g}", "type", ["taskRoles", "worker", "extraContainerOptions", "shmMB"]),
    # The server's schema bug, kept: a key named additionalProperties (and only that one) is refused.
    ("{shmMB: 1024}", "{additionalProperties: 1}", "false", ["taskRoles", "worker", "extraContainerOptions"]),
    ("    commands:\n      - echo <% $parameters.msg %>\n", "    commands: []\n", "minItems", ["taskRoles", "worker", "commands"]),
    ("    dockerImage: img\n", "", "required", ["taskRoles", "worker"]),
    ("dockerImage: img", "dockerImage: [img]", "type", ["taskRoles", "worker", "dockerImage"]),
    ("  - {name: img, type: dockerimage, uri: \"ubuntu:18.04\"}", "  - {name: img, type: dockerimage}", "oneOf", ["prerequisites", 0]),
    ("uri: \"ubuntu:18.04\"}", "uri: \"ubuntu:18.04\", tag: x}", "oneOf", ["prerequisites", 0]),
    ("type: dockerimage", "type: docker", "oneOf", ["prerequisites", 0]),
    ("{name: code, type: script, uri: \"https://x/y.git\"}", "{name: code, type: data, uri: \"https://x/y.git\"}", "oneOf",
     ["prerequisites", 1]),
    ("prerequisites:\n  - {name: img, type: dockerimage, uri: \"ubuntu:18.04\"}\n  - {name: code, type: script, uri: \"https://x/y.git\"}\n",
     "prerequisites: []\n", "minItems", ["prerequisites"]),
    ("      worker: {preCommands: [echo pre]}", "      worker: {preCommands: []}", "minItems", ["deployments", 0, "taskRoles", "worker", "preCommands"]),
    ("    taskRoles:\n      worker: {preCommands: [echo pre]}\n", "", "required", ["deployments", 0]),
    ("deployment: dep}", "deployment: 1}", "type", ["defaults", "deployment"]),
    ("extras:\n", "extras: []\nx:\n", "type", ["extras"]),
]

# What the server's schema lets through although it cannot run or the portal refuses: no error here,
# a warning (x-warnings) instead.
WARNED = [
    (ROLES, "taskRoles: []\n", ["taskRoles"], "type"),
    (ROLES, "taskRoles:\n", ["taskRoles"], "type"),
    ("ports: {http: 1}", "ports: [http]", ["taskRoles", "worker", "resourcePerInstance", "ports"], "type"),
    ("minFailedInstances: 1,", "minFailedInstances: 0,", ["taskRoles", "worker", "completion", "minFailedInstances"], "not"),
    ("{shmMB: 1024}", "{shmMB: 1024, infiniband: yes}", ["taskRoles", "worker", "extraContainerOptions", "infiniband"], "type"),
    ("{shmMB: 1024}", "{shmMB: 1024, memoryMB: 1}", ["taskRoles", "worker", "extraContainerOptions"], "enum"),
    ("  worker:\n    instances", "  Worker:\n    instances", ["taskRoles"], "pattern"),
    ("parameters: {jobssh: true}", "parameters: {}", ["extras", "com.microsoft.pai.runtimeplugin", 0, "parameters"], "required"),
    ("extras:\n", "extras:\n  hivedScheduler: {jobPriorityClass: crit}\n", ["extras", "hivedScheduler", "jobPriorityClass"], "enum"),
]


def ajv_like() -> type:
    """jsonschema as Ajv 6 types values: any number without a fraction is an integer, Infinity too."""
    def is_integer(checker, value) -> bool:  # noqa: ARG001
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or isinstance(value, float) and (math.isinf(value) or value.is_integer())

    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", is_integer)
    return validators.extend(Draft202012Validator, type_checker=checker)


@cache
def schema() -> dict:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def errors(text: str) -> list:
    doc = parse(text)
    assert doc.errors == [], doc.errors
    return sorted(ajv_like()(schema()).iter_errors(doc.root.value), key=lambda e: list(e.absolute_path))


def warnings(text: str) -> list[tuple[list, str]]:
    """(path, keyword) of each `x-warnings` fragment the value breaks, following the schema down."""
    out: list[tuple[list, str]] = []
    root = schema()

    def walk(sub: dict, value, path: list) -> None:
        while "$ref" in sub:
            target = root
            for part in sub["$ref"].lstrip("#/").split("/"):
                target = target[part]
            sub = {**target, **{k: v for k, v in sub.items() if k != "$ref"}}
        for warning in sub.get("x-warnings", []):
            for error in Draft202012Validator(warning["schema"]).iter_errors(value):
                out.append((path + list(error.absolute_path), error.validator))
        if isinstance(value, dict):
            for key, item in value.items():
                child = (sub.get("properties") or {}).get(key)
                if child is None:
                    child = next((s for p, s in (sub.get("patternProperties") or {}).items() if re.search(p, key)), None)
                if isinstance(child, dict):
                    walk(child, item, path + [key])
        elif isinstance(value, list) and isinstance(sub.get("items"), dict):
            for i, item in enumerate(value):
                walk(sub["items"], item, path + [i])

    walk(root, parse(text).root.value, [])
    return out


def corpus() -> list[Path]:
    files = sorted(shared("corpus", "openpai-examples", "v2").glob("*.yaml"))
    assert len(files) >= 30
    return files


def mutated(old: str, new: str) -> str:
    assert JOB.count(old) == 1, old
    return JOB.replace(old, new)


# -- the schema itself ----------------------------------------------------------------------------

def walk_schema(node) -> Iterator[dict]:
    if isinstance(node, dict):
        yield node
        for key, value in node.items():
            if key != "x-warnings":
                yield from walk_schema(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk_schema(value)


def test_the_schema_is_json_schema_2020_12_documented_in_english_and_chinese():
    Draft202012Validator.check_schema(schema())
    assert schema()["$id"].endswith("/pai-job-v2.schema.json")
    described = [s for s in walk_schema(schema()) if isinstance(s.get("description"), str)]
    assert len(described) > 50
    assert all(s.get("x-description-zh") for s in described)
    warned = [w for s in walk_schema(schema()) for w in s.get("x-warnings", [])]
    assert len(warned) >= 15
    for warning in warned:
        Draft202012Validator.check_schema(warning["schema"])
        assert warning["en"] and warning["zh"] and warning["source"]


def test_the_defaults_are_the_servers():
    role = schema()["$defs"]["taskRole"]["properties"]
    assert role["extraContainerOptions"]["properties"]["shmMB"]["default"] == 512
    assert role["instances"]["default"] == 1
    assert role["completion"]["properties"]["minFailedInstances"]["default"] == 1
    assert schema()["properties"]["defaults"]["properties"]["virtualCluster"]["default"] == "default"
    assert "type" not in schema()["properties"]["taskRoles"]  # as on the server: a list passes it
    assert "type" not in role["resourcePerInstance"]["properties"]["ports"]


# -- verdicts ---------------------------------------------------------------------------------

def test_every_real_v2_example_passes_with_no_warning():
    for path in corpus():
        text = path.read_text(encoding="utf-8")
        assert [e.message for e in errors(text)] == [], path.name
        assert warnings(text) == [], path.name


def test_the_example_job_passes():
    assert errors(JOB) == [] and warnings(JOB) == []


@pytest.mark.parametrize("old, new, keyword, path", BAD)
def test_a_known_mistake_fails_at_its_path(old, new, keyword, path):
    found = [(e.validator or "false", list(e.absolute_path)) for e in errors(mutated(old, new))]  # None: a `false` schema
    assert (keyword, path) in found, found


@pytest.mark.parametrize("old, new, path, keyword", WARNED)
def test_what_the_server_lets_through_is_a_warning_not_an_error(old, new, path, keyword):
    text = mutated(old, new)
    assert errors(text) == []
    assert (path, keyword) in warnings(text), warnings(text)


def test_verdicts_are_the_servers_own():
    """Ajv 6.12.3 with the server's schema (tests/oracle/v2.js) agrees on every example and mistake."""
    texts = [JOB] + [mutated(old, new) for old, new, _, _ in BAD] + [mutated(old, new) for old, new, _, _ in WARNED]
    texts += [p.read_text(encoding="utf-8") for p in corpus()]
    texts += ["protocolVersion: 2\nname: a\ntype: job\ntaskRoles: null\n", "protocolVersion: '2'\nname: a\ntype: job\ntaskRoles: {}\n",
              JOB.replace("gpu: 0", "gpu: .inf"), JOB.replace("gpu: 0", "gpu: 1.0"), JOB.replace("gpu: 0", "gpu: .nan")]
    for text, theirs in zip(texts, server_schema(texts), strict=True):
        assert "yaml" not in theirs, theirs
        assert theirs["ok"] == (errors(text) == []), (text, theirs["errors"])


def test_the_editors_errors_are_the_servers_refusals():
    """Each mutation of the example the server's Ajv refuses has an Error of the schema here; what it
    accepts (the warned ones) has none. (The server's name checks come after its schema: their
    Errors are checked in test_v2_diagnostics.py.)"""
    cases = [JOB.replace(old, new) for old, new, _, _ in BAD] + [JOB.replace(old, new) for old, new, _, _ in WARNED]
    verdicts = server_schema(cases)
    v2 = format_for("job.pai.yaml")
    names = ("v2.missing-prerequisite", "v2.prerequisite-wrong-type", "v2.unknown-prerequisite", "v2.uri-not-prerequisite",
             "v2.unknown-deployment", "v2.duplicate-prerequisite", "v2.duplicate-deployment")
    for text, verdict in zip(cases, verdicts, strict=True):
        errors = [d for d in v2.diagnose(v2.parse(text), Settings()) if d.severity == "error" and d.code not in names]
        assert bool(errors) == (not verdict["ok"]), (text, verdict, [(d.code, d.message) for d in errors])
