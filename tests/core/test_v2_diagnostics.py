"""The v2 job protocol's diagnostics (core/v2/checks.py), in-process through the format registry: each
mistake users make (OpenPAI's issue tracker and docs) said at its exact range, an Error where the
server refuses and a Warning where the portal, HiveD, the scheduler or the runtime does, most with a
quick fix that keeps the rest of the file as it was and leaves a file without that mistake."""

from __future__ import annotations

import pytest

from pai_lsp.core.formats import format_for
from pai_lsp.core.model import Settings

from ..helpers.configs import V2_JOB as JOB
from ..helpers.core import Buffer, fixes_of


def buffer(text: str, locale: str | None = None) -> Buffer:
    return Buffer(text, "job.pai.yaml", Settings(locale=locale))


def edited(old: str, new: str, text: str = JOB) -> Buffer:
    assert text.count(old) == 1, old
    return buffer(text.replace(old, new))


def only(b: Buffer, code: str):
    found = [d for d in b.diagnostics() if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in b.diagnostics()]
    return found[0]


def fixed(b: Buffer, diagnostic, title: str) -> Buffer:
    """`b` with the fix applied; the fix keeps comments, and leaves no syntax error and no error of its kind."""
    after = b.apply(fixes_of(diagnostic)[title])
    assert "# keep me" in b.text and "# the image the roles run in" in b.text
    assert not [d for d in after if d.code.startswith("syntax.")], b.text
    assert diagnostic.code not in {d.code for d in after}, b.text
    return b


def test_a_valid_job_has_no_finding_and_is_recognised_by_name_and_content():
    assert buffer(JOB).diagnostics() == []
    assert format_for("job.pai.yml").name == format_for("x.yaml", JOB).name == "pai-v2"
    assert format_for("x.yaml", "name: x\n").name != "pai-v2"  # no protocolVersion: 2, no v2 job


def test_shm_under_resources_is_moved_to_extra_container_options():
    b = edited("      gpu: 0\n", "      gpu: 0\n      shmMB: 2048\n")
    d = only(b, "v2.shm-in-resources")
    assert d.severity == "error" and b.text[d.start:d.end] == "shmMB"
    fixed(b, d, "Move shmMB to extraContainerOptions")
    assert "    extraContainerOptions:\n      shmMB: 2048\n" in b.text
    assert b.diagnostics() == []


def test_ports_as_a_list_become_a_map():
    b = edited("      ports:\n        tb: 1\n", "      ports:\n        - tb\n        - label: ssh2\n          count: 2\n")
    d = only(b, "v2.warning")
    assert d.severity == "warning" and "mapping `label: count`" in d.message
    fixed(b, d, "Write ports as a map (label: count)")
    assert "      ports:\n        tb: 1\n        ssh2: 2\n" in b.text


@pytest.mark.parametrize(("value", "field"), [("openpai/standard:python_3.6-pytorch_1.2.0-gpu", "dockerImage"),
                                              ("ubuntu:18.04", "dockerImage")])
def test_an_image_where_a_prerequisite_name_goes_gets_its_prerequisite(value, field):
    b = edited("    dockerImage: img\n", f"    {field}: {value}\n")
    d = only(b, "v2.uri-not-prerequisite")
    assert d.severity == "error" and b.text[d.start:d.end] == value and "Prerequisite" in d.message
    (title,) = fixes_of(d)
    fixed(b, d, title)
    assert "    dockerImage: docker_image_0\n" in b.text and f"  - name: docker_image_0\n    type: dockerimage\n    uri: {value}\n" in b.text
    assert b.diagnostics() == []


def test_a_missing_or_mistyped_prerequisite_is_said_with_the_servers_words():
    b = edited("    dockerImage: img\n", "    dockerImage: imgg\n")
    d = only(b, "v2.missing-prerequisite")
    assert "Prerequisite imgg does not exist" in d.message and 'Did you mean "img"?' in d.message
    fixed(b, d, 'Replace with "img"')
    b = edited("    dockerImage: img\n", "    dockerImage: img\n    data: img\n")
    d = only(b, "v2.prerequisite-wrong-type")
    assert '"img" is a dockerimage prerequisite: data names one of type data' in d.message
    b = edited("    instances: 2\n", "    instances: 2\n    script: code\n")
    d = only(b, "v2.missing-prerequisite")
    fixed(b, d, 'Define script prerequisite "code"')
    assert "  - name: code\n    type: script\n" in b.text


def test_duplicates_and_the_default_deployment_are_checked_as_the_server_does():
    b = edited("    uri: ubuntu:18.04\n", "    uri: ubuntu:18.04\n  - {name: img, type: dockerimage, uri: x}\n")
    assert "Duplicate dockerimage prerequisites img" in only(b, "v2.duplicate-prerequisite").message
    b = edited("  virtualCluster: default\n", "  virtualCluster: default\n  deployment: prod\n"
               "deployments:\n  - name: prd\n    taskRoles:\n      worker: {preCommands: [echo a]}\n")
    d = only(b, "v2.unknown-deployment")
    assert d.severity == "error" and "Default deployment prod does not exist" in d.message
    fixed(b, d, 'Replace with "prd"')


def test_task_retries_under_gang_allocation_are_ignored():
    b = edited("    instances: 2\n", "    instances: 2\n    taskRetryCount: 3\n")
    d = only(b, "v2.retry-ignored")
    assert d.severity == "warning" and b.text[d.start:d.end] == "taskRetryCount: 3"
    fixed(b, d, "Turn gang allocation off (extras.gangAllocation: false)")
    assert b.text.endswith("extras:\n  gangAllocation: false\n")
    assert edited("    instances: 2\n", "    instances: 2\n    taskRetryCount: 0\n").diagnostics() == []


def test_min_failed_instances_zero_is_one():
    b = edited("    instances: 2\n", "    instances: 2\n    completion:\n      minFailedInstances: 0\n")
    d = only(b, "v2.warning")
    assert "0 means 1 here" in d.message
    fixed(b, d, "Write 1")


HIVED = """\
extras:
  hivedScheduler:
    jobPriorityClass: prod
    taskRoles:
      worker: {skuType: K80, pinnedCellId: cell1, affinityGroupName: g}
      wroker: {skuType: P100, affinityGroupName: g}
      ps: {skutype: K80}
"""


def test_hived_scheduler_mistakes():
    b = buffer(JOB + HIVED)
    found = b.found()
    assert found["v2.hived-sku-and-cell"] == ["worker"]
    assert found["v2.hived-unknown-role"] == ["wroker", "ps"]
    assert found["v2.hived-affinity"] == ["g"]
    assert found["v2.hived-unknown-key"] == ["skutype"]
    assert all(d.severity == "warning" for d in b.diagnostics())
    assert 'Did you mean "worker"?' in next(d.message for d in b.diagnostics() if d.code == "v2.hived-unknown-role")


PLUGINS = """\
extras:
  gangAlocation: false
  com.microsoft.pai.runtimeplugin:
    - plugin: ssh
      parameters:
        jobsh: true
    - plugin: tensorbord
    - plugin: teamwise_storage
      parameters:
        storageConfigNames: []
    - plugin: cmd
      parameters:
        callbacks: [{event: taskStarts, commands: [echo hi]}]
"""


def test_runtime_plugins_and_extras_typos():
    b = buffer(JOB + PLUGINS)
    found = b.found()
    assert found["v2.unknown-extra"] == ["gangAlocation"]
    assert found["v2.plugin-parameter-unknown"] == ["jobsh"]
    assert found["v2.plugin-parameter-missing"] == ["parameters"]
    assert found["v2.unknown-plugin"] == ["tensorbord"]
    assert found["v2.plugin-parameter-type"] == ["[]"]
    assert all(d.severity == "warning" for d in b.diagnostics())
    d = only(b, "v2.unknown-extra")
    assert "the server checks nothing in extras" in d.message
    fixed(b, d, 'Replace with "gangAllocation"')


def test_templates_name_defined_keys_and_are_closed():
    b = edited("<% $parameters.epochs %>", "<% $parameters.epoch %>")
    d = only(b, "v2.undefined-parameter")
    assert b.text[d.start:d.end] == "<% $parameters.epoch %>" and d.severity == "warning"
    fixed(b, d, "Replace with epochs")
    b = edited("<% $parameters.epochs %>", "<% $secrets.token %>")
    d = only(b, "v2.undefined-secret")
    fixed(b, d, 'Define "token" in secrets')
    assert "secrets:\n  token: \"\"" in b.text
    b = edited("<% $parameters.epochs %>", "<% $parameters.epochs")
    d = only(b, "v2.template-error")
    assert d.severity == "error" and b.text[d.start:d.end] == "<%" and "Unclosed tag at" in d.message and "500" in d.message
    b = edited("<% $parameters.epochs %>", "<% parameters.epochs %>")
    d = only(b, "v2.unknown-template")
    fixed(b, d, "Write $parameters.epochs")


def test_variables_name_this_jobs_roles_and_ports():
    b = edited("$PAI_PORT_LIST_worker_0_tb", "$PAI_PORT_LIST_worker_0_http $PAI_PORT_LIST_worker_0_tensorboard "
               "$PAI_TASK_ROLE_ps_HOST_LIST $PAI_HOST_IP_worker_5 $PAI_DATA_DIR")
    found = b.found()
    assert found["v2.undefined-port-label"] == ["$PAI_PORT_LIST_worker_0_tensorboard"]
    assert found["semantic.undefined-role"] == ["$PAI_TASK_ROLE_ps_HOST_LIST"]
    assert found["semantic.undefined-task-index"] == ["$PAI_HOST_IP_worker_5"]
    assert found["v2.yarn-variable"] == ["$PAI_DATA_DIR"]
    assert "resourcePerInstance.ports" in only(b, "v2.undefined-port-label").message


def test_secrets_written_in_plain_text():
    b = edited("    uri: ubuntu:18.04\n", "    uri: ubuntu:18.04\n    auth:\n      username: me\n      password: hunter22\n")
    d = only(b, "v2.plain-secret")
    assert b.text[d.start:d.end] == "hunter22" and d.severity == "warning"
    fixed(b, d, "Move it to secrets as img_password")
    assert "password: <% $secrets.img_password %>\n" in b.text and "secrets:\n  img_password: hunter22\n" in b.text
    assert b.diagnostics() == []
    b = edited("python train.py", "python train.py --token ghp_abcdef123")
    d = only(b, "v2.plain-secret")
    fixed(b, d, "Move it to secrets as token")
    assert "--token <% $secrets.token %>" in b.text


def test_multi_document_files_and_the_chinese_messages():
    b = buffer(JOB + "---\nname: other\n")
    d = only(b, "syntax.yaml-multi-document")
    assert d.severity == "error" and b.text[d.start:d.end] == "---"
    zh = buffer(JOB.replace("    dockerImage: img\n", "    dockerImage: imgg\n"), "zh-CN")
    assert "前置条件 imgg 不存在" in only(zh, "v2.missing-prerequisite").message


def test_a_timestamp_in_a_roles_list_is_said_like_any_wrong_type():
    """A role's values are checked once per value seen (remembered by their JSON text); a YAML
    timestamp has none, and is checked all the same, in every role that has it."""
    b = edited("    commands:\n", "    commands:\n      - 2020-01-01\n")
    found = [d for d in b.diagnostics() if d.code == "schema.type"]
    assert found and all(b.text[d.start:d.end] == "2020-01-01" for d in found), [(d.code, d.message) for d in b.diagnostics()]
