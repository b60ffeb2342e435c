"""core/v2/to_v1.py: a v2 job for a YARN-era (v1-only) cluster. Where v1 can express it, the same job as a
v1 config the v1 checks accept (commands rendered as the v2 server would run them); where it cannot,
one refusal naming each thing it cannot express."""

from __future__ import annotations

import json

import pytest

from pai_lsp.core.formats import BY_NAME
from pai_lsp.core.model import Settings
from pai_lsp.core.v2.to_v1 import ERREXIT, NotExpressible, to_v1
from pai_lsp.core.yaml.tree import parse

from ..helpers.paths import shared
from ..helpers.v2_jobs import generated

JOB = """\
protocolVersion: 2
name: mnist
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: "openpai/pai.example.tensorflow"}
parameters: {epochs: 3}
secrets: {unused: x}
jobRetryCount: 2
taskRoles:
  train:
    instances: 2
    completion: {minFailedInstances: -1, minSucceededInstances: 1}
    dockerImage: img
    resourcePerInstance: {cpu: 2, memoryMB: 2048, gpu: 1, ports: {tensorboard: 1}}
    commands:
      - cd $PAI_JOB_NAME
      - python3 train.py --epochs <% $parameters.epochs %>
  ps:
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands: [echo ps]
defaults: {virtualCluster: vc1}
extras:
  codeDir: $PAI_DEFAULT_FS_URI/alice/mnist
  outputDir: $PAI_DEFAULT_FS_URI/alice/output/mnist
  com.microsoft.pai.runtimeplugin: [{plugin: ssh, parameters: {jobssh: true}}]
  note: kept
"""


def v2(text: str) -> dict:
    doc = parse(text)
    assert not doc.errors
    return doc.root.value


def v1_errors(config: dict) -> list[str]:
    v1 = BY_NAME["pai-v1"]
    return [d.message for d in v1.diagnose(v1.parse(json.dumps(config)), Settings()) if d.severity == "error"]


def test_a_job_v1_can_express_becomes_the_same_job_in_v1():
    config = to_v1(v2(JOB))
    assert v1_errors(config) == []
    assert config["jobName"] == "mnist" and config["image"] == "openpai/pai.example.tensorflow"
    assert config["codeDir"] == "$PAI_DEFAULT_FS_URI/alice/mnist" and config["outputDir"].endswith("/output/mnist")
    assert config["virtualCluster"] == "vc1" and config["retryCount"] == 2 and config["extras"] == {"note": "kept"}
    train, ps = config["taskRoles"]
    assert train["command"] == f"{ERREXIT}\ncd $PAI_JOB_NAME\npython3 train.py --epochs 3"
    assert (train["taskNumber"], train["cpuNumber"], train["memoryMB"], train["gpuNumber"], train["shmMB"]) == (2, 2, 2048, 1, 512)
    assert train["portList"] == [{"label": "tensorboard", "beginAt": 0, "portNumber": 1}]
    assert (train["minFailedTaskCount"], train["minSucceededTaskCount"]) == (None, 1)
    assert (ps["minFailedTaskCount"], ps["minSucceededTaskCount"], ps["taskNumber"]) == (1, None, 1)


def test_what_v1_cannot_express_is_refused_once_naming_each_thing():
    text = (JOB.replace('  - {name: img, type: dockerimage, uri: "openpai/pai.example.tensorflow"}',
                        '  - {name: img, type: dockerimage, uri: "a/b"}\n'
                        '  - {name: other, type: dockerimage, uri: "c/d", auth: {username: u, password: "<% $secrets.p %>"}}')
            .replace("    commands: [echo ps]", "    dockerImage: other\n    commands: [echo <% $secrets.unused %>]")
            .replace("    dockerImage: img\n    resourcePerInstance: {cpu: 1,", "    resourcePerInstance: {cpu: 1,")
            .replace("[{plugin: ssh, parameters: {jobssh: true}}]", "[{plugin: ssh}, {plugin: teamwise_storage}]"))
    with pytest.raises(NotExpressible) as caught:
        to_v1(v2(text))
    said = str(caught.value)
    for part in ("different Docker images (a/b, c/d)", "registry login of image other", "secrets in the commands of ps",
                 "$secrets.unused", "teamwise_storage"):
        assert part in said, said
    assert len(caught.value.reasons) == 4
    chinese = caught.value.said("yarn").render("zh-CN")  # each thing in the reader's language, one plugin said as one
    assert "任务角色使用不同的 Docker 镜像（a/b, c/d）" in chinese and "运行时插件 teamwise_storage（" in chinese, chinese
    assert "the runtime plugin teamwise_storage (" in said


def test_every_corpus_job_converts_to_a_config_v1_accepts_or_is_refused_with_reasons():
    folder = shared("corpus", "openpai-examples", "v2")
    converted = refused = 0
    for path in sorted(folder.glob("*.yaml")):
        try:
            config = to_v1(v2(path.read_text(encoding="utf-8")))
        except NotExpressible as exc:
            assert exc.reasons and all(str(reason) for reason in exc.reasons), path.name
            refused += 1
            continue
        assert v1_errors(config) == [], path.name
        converted += 1
    assert converted >= 15 and refused >= 1, (converted, refused)


@pytest.mark.parametrize(("change", "reason"), [
    (("ports: {tensorboard: 1}", "ports: [tensorboard]"), "taskRoles.train.resourcePerInstance.ports is a list"),
    (("ports: {tensorboard: 1}", "ports: {tensorboard: .inf}"), "ports.tensorboard is Infinity"),
    (("instances: 2", "instances: .inf"), "taskRoles.train.instances is Infinity"),
    (("gpu: 1", "gpu: -1"), "taskRoles.train.resourcePerInstance.gpu is -1"),
])
def test_a_job_the_server_takes_but_no_scheduler_runs_is_refused_with_the_schedulers_reason(change, reason):
    """The editor only warns of these (the server takes them): the v1 config is not made of them."""
    job = v2(JOB.replace(*change))
    v2_format = BY_NAME["pai-v2"]
    assert not [d for d in v2_format.diagnose(v2_format.parse(JOB.replace(*change)), Settings()) if d.severity == "error"]
    with pytest.raises(NotExpressible) as caught:
        to_v1(job)
    assert len(caught.value.reasons) == 1 and reason in str(caught.value.reasons[0]), caught.value.reasons


@pytest.mark.slow  # a search over many generated jobs: the full suite runs it, `-m unit` stays quick
def test_generated_jobs_the_editor_lets_through_convert_or_are_refused_never_crash():
    v2_format = BY_NAME["pai-v2"]
    outcomes = {"converted": 0, "refused": 0}
    for text in generated(400, seed=5):
        doc = v2_format.parse(text)
        if doc.root is None or any(d.severity == "error" for d in v2_format.diagnose(doc, Settings())):
            continue  # submit stops at the first error
        try:
            assert v1_errors(to_v1(doc.root.value)) == []
            outcomes["converted"] += 1
        except NotExpressible as exc:
            assert exc.reasons and all(exc.reasons)
            outcomes["refused"] += 1
    assert outcomes["converted"] > 20 and outcomes["refused"] > 20, outcomes
