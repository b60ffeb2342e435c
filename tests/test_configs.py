"""The repository's own job configs (tests/configs: every field, JSONC, several roles, ports, SCM
keys, non-ASCII text) through everything that reads a config: the editor's checks, the value the
parser keeps, the real server's rules as the local cluster applies them, and the v1 → v2 conversion
for Kubernetes-era clusters, which the local cluster's v2 route must accept role for role."""

from __future__ import annotations

import json

import pytest

from pai_lsp.core.joi import validate_v1
from pai_lsp.core.jsonc import parse
from pai_lsp.core.model import Settings
from pai_lsp.core.roles import roles_from_v1, v2_name
from pai_lsp.core.v1.to_v2 import to_v2_yaml
from pai_lsp.core.validate import validate
from pai_lsp.localcluster import v2

from .helpers.paths import dialect_of_config, own_configs

CONFIGS = own_configs()


def test_the_configs_cover_what_real_ones_have():
    texts = {p.name: p.read_text(encoding="utf-8") for p in CONFIGS}
    values = [parse(t).root.value for t in texts.values()]
    fields = {key for v in values for key in v}
    role_fields = {key for v in values for role in v["taskRoles"] for key in role}
    assert {"jobName", "image", "authFile", "dataDir", "outputDir", "codeDir", "virtualCluster", "gpuType", "retryCount",
            "jobEnvs", "extras", "tmp", "taskRoles"} <= fields
    assert {"name", "taskNumber", "cpuNumber", "memoryMB", "shmMB", "gpuNumber", "storageGB", "portList", "command",
            "minFailedTaskCount", "minSucceededTaskCount"} <= role_fields
    assert any(parse(t).comments for t in texts.values())  # JSONC
    assert any(len(v["taskRoles"]) > 2 for v in values) and any(not t.isascii() for t in texts.values())


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_has_no_error(path):
    text = path.read_text(encoding="utf-8")
    doc, diagnostics = validate(text, Settings(dialect=dialect_of_config(path)))
    assert [(d.code, d.message) for d in diagnostics if d.severity == "error"] == []
    assert {d.code for d in diagnostics} <= {"syntax.comment"}  # what the server would refuse: comments, stripped on submit
    if not doc.comments:
        assert doc.root.value == json.loads(text)


def test_scm_keys_are_flagged_for_plain_openpai():
    (scm,) = [p for p in CONFIGS if dialect_of_config(p) == "scm"]
    _, diagnostics = validate(scm.read_text(encoding="utf-8"), Settings(dialect="openpai"))
    assert {d.code for d in diagnostics if d.severity == "error"} == {"schema.scm-only"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_the_server_rules_accept_the_config_and_v2_keeps_its_roles(path):
    config = {k: v for k, v in parse(path.read_text(encoding="utf-8")).root.value.items() if k != "$schema"}
    checked = validate_v1(config, dialect_of_config(path))  # raises with the server's message when refused
    roles = roles_from_v1(checked)
    assert [(r.name, r.tasks, r.memory_mb) for r in roles] == [
        (r["name"], r.get("taskNumber", 1), r.get("memoryMB", 100)) for r in config["taskRoles"]]
    if config.get("authFile") or dialect_of_config(path) == "scm":
        return  # no v2 equivalent (authFile), or a YARN-era dialect
    converted = v2.roles(v2.parse(to_v2_yaml(config)))
    assert [(r.name, r.tasks, r.cpu, r.memory_mb, r.gpu, r.shm_mb, r.min_failed, r.min_succeeded) for r in converted] == [
        (v2_name(r.name), r.tasks, r.cpu, r.memory_mb, r.gpu, r.shm_mb, -1 if r.min_failed is None else r.min_failed,
         -1 if r.min_succeeded is None else r.min_succeeded) for r in roles]
    for mine, theirs in zip(roles, converted, strict=True):
        assert {v2_name(label): count for label, (_, count) in mine.ports.items()}.items() <= \
            {label: count for label, (_, count) in theirs.ports.items()}.items()
