"""Diagnostics of the pure core, in-process: exact ranges, recovery, severities, locale and dialect, for
each job-file format (the language server only maps them to LSP: tests/test_lsp_diagnostics.py)."""

from __future__ import annotations

import json

from pai_lsp.core.model import Settings

from ..helpers.configs import PADDLE_JOB, VALID
from ..helpers.core import Buffer


def test_a_valid_config_has_no_findings():
    assert Buffer(VALID).diagnostics() == []


def test_one_missing_comma_is_one_error_and_the_rest_is_still_checked():
    buffer = Buffer(VALID.replace('"mnist",', '"mnist"').replace('"taskNumber": 2', '"taskNumber": -1'))
    diagnostics = buffer.diagnostics()
    syntax = [d for d in diagnostics if d.code.startswith("syntax.")]
    assert [d.code for d in syntax] == ["syntax.missing-comma"]
    assert syntax[0].start == buffer.offset('"mnist"', len('"mnist"'))  # right after the value that lacks it
    (minimum,) = [d for d in diagnostics if d.code == "schema.minimum"]  # recovery: the schema still runs
    assert buffer.text[minimum.start:minimum.end] == "-1" and "taskNumber" in minimum.message
    assert [f.title for f in syntax[0].fixes] == ["Insert ','"]


def test_a_quick_fix_is_titled_in_the_readers_language():
    """A fix's title is a catalogue text, as its diagnostic's message is (v1 JSON, a v2 job and its secrets)."""
    text = VALID.replace('"memoryMB"', '"memroyMB"')
    titles = {d.code: [f.title for f in d.fixes] for d in Buffer(text, settings=Settings(locale="zh-CN")).diagnostics()}
    assert titles["schema.unknown-key"] == ['替换为 "memoryMB"']
    assert {d.code: [f.title for f in d.fixes] for d in Buffer(text).diagnostics()}["schema.unknown-key"] == ['Replace with "memoryMB"']
    v2 = ("protocolVersion: 2\nname: j\ntype: job\nprerequisites:\n  - {name: img, type: dockerimage, uri: ubuntu,"
          " auth: {username: u, password: hunter2}}\ntaskRoles:\n  train:\n    instances: 1\n    dockerImage: img\n"
          "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n    commands: [echo hi]\n")
    fixes = {d.code: [f.title for f in d.fixes] for d in Buffer(v2, "job.pai.yaml", Settings(locale="zh-CN")).diagnostics()}
    assert fixes["v2.plain-secret"] == ["移到 secrets 中，名为 img_password"], fixes


def test_errors_sit_on_the_offending_key_or_value():
    buffer = Buffer(VALID.replace('"memoryMB"', '"memroyMB"').replace('"name": "worker"', '"name": "ps-0"'))
    diagnostics = {d.code: d for d in buffer.diagnostics()}
    unknown = diagnostics["schema.unknown-key"]
    assert buffer.text[unknown.start:unknown.end] == '"memroyMB"' and 'Did you mean "memoryMB"?' in unknown.message
    pattern = diagnostics["schema.pattern"]
    assert buffer.text[pattern.start:pattern.end] == '"ps-0"' and "no '-'" in pattern.message
    # The role was renamed, so the variable that named it now points nowhere.
    assert diagnostics["semantic.undefined-role"].severity == "warning"


def test_a_missing_required_field_is_named_on_the_objects_key_or_brace():
    buffer = Buffer(VALID.replace('      "command": "python train.py --hosts $PAI_TASK_ROLE_worker_HOST_LIST"\n', '      "gpuNumber": 0\n'))
    (required,) = [d for d in buffer.diagnostics() if d.code == "schema.required"]
    assert '"command"' in required.message
    assert buffer.text[required.start:required.end] == "{"  # a role has no key of its own


def test_comments_and_trailing_commas_are_warnings():
    text = VALID.replace('"mnist",', '"mnist", // the name\n').replace('"memoryMB": 8192,', '"memoryMB": 8192,\n      "gpuNumber": 1,')
    buffer = Buffer(text.replace('HOST_LIST"\n', 'HOST_LIST",\n'))
    diagnostics = buffer.diagnostics()
    assert sorted(d.code for d in diagnostics) == ["syntax.comment", "syntax.trailing-comma"]
    assert {d.severity for d in diagnostics} == {"warning"}
    assert buffer.found()["syntax.comment"] == ["// the name"]


def test_semantic_checks():
    config = json.loads(VALID)
    role = config["taskRoles"][0]
    role["shmMB"] = 9000
    role["portList"] = [{"label": "tb"}, {"label": "tb"}]
    role["command"] = ("echo $PAI_HOST_IP_worker_5 $PAI_CONTAINER_HOST_jupyter_PORT_LIST $PAI_JOB_NAM $PAI_HOST_IP_worker_1 "
                       "$PAI_PORT_LIST_worker_0_jupyter")
    config["taskRoles"].append(dict(role, command="echo"))
    config["codeDir"] = "$PAI_DEFAULT_FS_URI/$PAI_TASK_INDEX"
    found = Buffer(json.dumps(config, indent=2)).found()
    assert found["semantic.shm-exceeds-memory"] == ["9000", "9000"]
    assert found["semantic.duplicate-port-label"] == ['"tb"', '"tb"']
    assert found["semantic.duplicate-role"] == ['"worker"']
    assert found["semantic.undefined-task-index"] == ["$PAI_HOST_IP_worker_5"]
    # A task that exists with a label that does not: the label is what is wrong, not the index.
    assert found["semantic.undefined-port-label"] == ["$PAI_CONTAINER_HOST_jupyter_PORT_LIST", "$PAI_PORT_LIST_worker_0_jupyter"]
    assert found["semantic.unknown-variable"] == ["$PAI_JOB_NAM"]
    assert found["semantic.not-substituted"] == ["$PAI_TASK_INDEX"]


def test_messages_in_chinese():
    buffer = Buffer(VALID.replace('"image": "openpai/pai.example.tensorflow",\n', ""), settings=Settings(locale="zh-CN"))
    assert [d.message for d in buffer.diagnostics()] == ['缺少必填字段 "image"。']
    minimum = Buffer(VALID.replace('"taskNumber": 2', '"taskNumber": -1'), settings=Settings(locale="zh-CN"))
    assert [d.message for d in minimum.diagnostics()] == ['"taskNumber" 不能小于 0，当前为 -1。']


def test_scm_keys_depend_on_the_dialect():
    config = json.loads(VALID)
    config["taskRoles"][0]["storageGB"] = 5
    config["tmp"] = {"vgInfo": {"名称": "test"}}
    text = json.dumps(config, ensure_ascii=False, indent=2)
    assert sorted(Buffer(text).found()) == ["schema.scm-only"] and len(Buffer(text).found()["schema.scm-only"]) == 2
    assert Buffer(text, settings=Settings(dialect="scm")).diagnostics() == []



def test_a_paddle_job_file_gets_its_own_checks_whatever_the_workspaces_dialect():
    for dialect in ("openpai", "scm"):
        buffer = Buffer(PADDLE_JOB, "fit.paddle.json", Settings(dialect=dialect))
        diagnostics = {d.code: d for d in buffer.diagnostics()}
        name = diagnostics["paddle.name"]
        assert buffer.text[name.start:name.end] == '"Fit_A.Line"' and name.severity == "error" and "'_' or '.'" in name.message
        assert buffer.found()["paddle.quantity"] == ['"1GB"']
        registry = diagnostics["paddle.registry-prefix"]
        assert buffer.text[registry.start:registry.end] == '"mine"' and registry.severity == "warning"
        assert "schema.unknown-key" not in diagnostics and "paddle.no-entry" not in diagnostics
    zh = Buffer(PADDLE_JOB, "zh.paddle.json", Settings(locale="zh-CN"))
    assert "作业名" in next(d for d in zh.diagnostics() if d.code == "paddle.name").message
    assert "paddle.no-entry" in Buffer(PADDLE_JOB.replace('"entry": "python train.py --id $PADDLE_INIT_TRAINER_ID",', ""),
                                       "fit.paddle.json").found()
