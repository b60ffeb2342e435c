"""Diagnostics as the editor sees them: exact ranges, recovery, revalidation on change, locale, dialect."""

from __future__ import annotations

import json

from lsprotocol import types

from .helpers.configs import VALID
from .helpers.lsp import Editor, text_at


async def test_valid_config_has_no_diagnostics(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    assert await editor.open(VALID) == []


async def test_one_missing_comma_is_one_error_and_the_rest_is_still_checked(client, tmp_path):
    text = VALID.replace('"mnist",', '"mnist"').replace('"taskNumber": 2', '"taskNumber": -1')
    editor = Editor(client, tmp_path / "job.pai.json")
    diagnostics = await editor.open(text)
    syntax = [d for d in diagnostics if str(d.code).startswith("syntax.")]
    assert [d.code for d in syntax] == ["syntax.missing-comma"]
    # The error sits right after the value that lacks its comma.
    assert syntax[0].range.start == editor.position('"mnist"', len('"mnist"'))
    # Recovery: the schema check further down still runs.
    minimum = [d for d in diagnostics if d.code == "schema.minimum"]
    assert len(minimum) == 1 and text_at(text, minimum[0].range) == "-1"
    assert "taskNumber" in minimum[0].message


async def test_errors_sit_on_the_offending_key_or_value(client, tmp_path):
    text = VALID.replace('"memoryMB"', '"memroyMB"').replace('"name": "worker"', '"name": "ps-0"')
    editor = Editor(client, tmp_path / "job.pai.json")
    diagnostics = {d.code: d for d in await editor.open(text)}
    unknown = diagnostics["schema.unknown-key"]
    assert text_at(text, unknown.range) == '"memroyMB"'
    assert 'Did you mean "memoryMB"?' in unknown.message
    pattern = diagnostics["schema.pattern"]
    assert text_at(text, pattern.range) == '"ps-0"'
    assert "no '-'" in pattern.message
    # The role was renamed, so the variable that named it now points nowhere.
    assert diagnostics["semantic.undefined-role"].severity == types.DiagnosticSeverity.Warning


async def test_missing_required_field_is_named_on_the_objects_key(client, tmp_path):
    text = VALID.replace('      "command": "python train.py --hosts $PAI_TASK_ROLE_worker_HOST_LIST"\n', '      "gpuNumber": 0\n')
    text = text.replace('"memoryMB": 8192,', '"memoryMB": 8192,')
    editor = Editor(client, tmp_path / "job.pai.json")
    diagnostics = await editor.open(text)
    required = [d for d in diagnostics if d.code == "schema.required"]
    assert len(required) == 1 and '"command"' in required[0].message
    # A role has no key of its own: the range is its opening brace.
    assert text_at(text, required[0].range) == "{"


async def test_change_revalidates(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    assert await editor.open(VALID) == []
    diagnostics = await editor.replace_all(VALID.replace('"taskNumber": 2', '"taskNumber": 2, "minSucceededTaskCount": 3'))
    assert [d.code for d in diagnostics] == ["semantic.min-count-exceeds-tasks"]
    assert await editor.replace_all(VALID) == []


async def test_comments_and_trailing_commas_are_warnings(client, tmp_path):
    text = VALID.replace('"mnist",', '"mnist", // the name\n').replace('"memoryMB": 8192,', '"memoryMB": 8192,\n      "gpuNumber": 1,')
    text = text.replace('HOST_LIST"\n', 'HOST_LIST",\n')
    editor = Editor(client, tmp_path / "job.pai.json")
    diagnostics = await editor.open(text)
    assert sorted(d.code for d in diagnostics) == ["syntax.comment", "syntax.trailing-comma"]
    assert all(d.severity == types.DiagnosticSeverity.Warning for d in diagnostics)
    comment = next(d for d in diagnostics if d.code == "syntax.comment")
    assert text_at(text, comment.range) == "// the name"


async def test_semantic_checks(client, tmp_path):
    config = json.loads(VALID)
    role = config["taskRoles"][0]
    role["shmMB"] = 9000
    role["portList"] = [{"label": "tb"}, {"label": "tb"}]
    role["command"] = "echo $PAI_HOST_IP_worker_5 $PAI_CONTAINER_HOST_jupyter_PORT_LIST $PAI_JOB_NAM $PAI_HOST_IP_worker_1"
    config["taskRoles"].append(dict(role, command="echo"))
    config["codeDir"] = "$PAI_DEFAULT_FS_URI/$PAI_TASK_INDEX"
    text = json.dumps(config, indent=2)
    editor = Editor(client, tmp_path / "job.pai.json")
    found = {}
    for d in await editor.open(text):
        found.setdefault(d.code, []).append(text_at(text, d.range))
    assert found["semantic.shm-exceeds-memory"] == ["9000", "9000"]
    assert found["semantic.duplicate-port-label"] == ['"tb"', '"tb"']
    assert found["semantic.duplicate-role"] == ['"worker"']
    assert found["semantic.undefined-task-index"] == ["$PAI_HOST_IP_worker_5"]
    assert found["semantic.undefined-port-label"] == ["$PAI_CONTAINER_HOST_jupyter_PORT_LIST"]
    assert found["semantic.unknown-variable"] == ["$PAI_JOB_NAM"]
    assert found["semantic.not-substituted"] == ["$PAI_TASK_INDEX"]


async def test_messages_follow_the_client_locale(client_zh, tmp_path):
    editor = Editor(client_zh, tmp_path / "job.pai.json")
    diagnostics = await editor.open(VALID.replace('"image": "openpai/pai.example.tensorflow",\n', ""))
    assert [d.message for d in diagnostics] == ['缺少必填字段 "image"。']


async def test_positions_count_utf16_units(client, tmp_path):
    text = '{"jobName": "j", "image": "训练😀", "taskRoles": [{"name": "w", "command": "c"}], "bad": 1}'
    editor = Editor(client, tmp_path / "job.pai.json")
    (diagnostic,) = await editor.open(text)
    prefix = text[: text.index('"bad"')]
    assert diagnostic.range.start.character == len(prefix.encode("utf-16-le")) // 2


async def test_scm_keys_depend_on_the_cluster_kind(client, client_scm, tmp_path):
    config = json.loads(VALID)
    config["taskRoles"][0]["storageGB"] = 5
    config["tmp"] = {"vgInfo": {"名称": "test"}}
    text = json.dumps(config, ensure_ascii=False, indent=2)
    plain = await Editor(client, tmp_path / "a.pai.json").open(text)
    assert sorted(d.code for d in plain) == ["schema.scm-only", "schema.scm-only"]
    assert await Editor(client_scm, tmp_path / "b.pai.json").open(text) == []


async def test_workspace_settings_file_selects_the_dialect(client, tmp_path):
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text('{\n  // SCM cluster\n  "pai.cluster.kind": "scm",\n}\n')
    config = json.loads(VALID)
    config["taskRoles"][0]["storageGB"] = 5
    assert await Editor(client, tmp_path / "jobs" / "a.pai.json").open(json.dumps(config)) == []


async def test_locale_switch_through_configuration(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    text = VALID.replace('"taskNumber": 2', '"taskNumber": -1')
    (english,) = await editor.open(text)
    assert english.message == '"taskNumber" must be at least 0, not -1.'
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"pai": {"locale": "zh-CN"}}))
    (chinese,) = await editor.diagnostics()
    assert chinese.message == '"taskNumber" 不能小于 0，当前为 -1。'
    assert chinese.range == english.range
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(editor.doc()))
    assert lenses[0].command.title == "提交作业到 PAI 集群"
