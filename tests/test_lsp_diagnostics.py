"""Diagnostics as the editor sees them over LSP: published on open and change, in UTF-16 positions, in the
client's locale and the dialect its settings choose. What the core finds, and where, is tested in-process
(tests/core/test_diagnostics.py)."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from .helpers.configs import VALID
from .helpers.lsp import Editor

pytestmark = pytest.mark.subprocess  # the language server over stdio


async def test_valid_config_has_no_diagnostics(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    assert await editor.open(VALID) == []





async def test_change_revalidates(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    assert await editor.open(VALID) == []
    diagnostics = await editor.replace_all(VALID.replace('"taskNumber": 2', '"taskNumber": 2, "minSucceededTaskCount": 3'))
    assert [d.code for d in diagnostics] == ["semantic.min-count-exceeds-tasks"]
    assert await editor.replace_all(VALID) == []




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
