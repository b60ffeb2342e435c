"""`*.paddle.json` job files in the editor (the language server over stdio) and in `pai check`: the server
reads each file in its own format. What the format finds and offers is tested in-process (tests/core/)."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from .helpers.cli import pai_lang
from .helpers.configs import PADDLE_JOB as JOB
from .helpers.lsp import Editor, text_at

pytestmark = pytest.mark.subprocess  # the language server and `pai check`


async def test_a_paddle_job_file_in_the_editor(client, client_zh, tmp_path):
    editor = Editor(client, tmp_path / "fit.paddle.json")
    found = {d.code: d for d in await editor.open(JOB)}
    assert text_at(JOB, found["paddle.name"].range) == '"Fit_A.Line"' and "schema.unknown-key" not in found
    registry = found["paddle.registry-prefix"]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        editor.doc(), registry.range, types.CodeActionContext([registry])))
    fix = next(a for a in actions if "pcloud-registry-mine" in a.title)
    fixed = await editor.edit(fix.edit.changes[editor.uri])
    assert '"registry": "pcloud-registry-mine"' in editor.text and "paddle.registry-prefix" not in {d.code for d in fixed}
    hover = await client.text_document_hover_async(types.HoverParams(editor.doc(), editor.position("$PADDLE_INIT_TRAINER_ID", 3)))
    assert "sorted by address" in hover.contents.value and text_at(editor.text, hover.range) == "$PADDLE_INIT_TRAINER_ID"
    result = await client.text_document_completion_async(types.CompletionParams(editor.doc(), editor.position("$PADDLE_INIT_", 13)))
    labels = [i.label for i in (result.items if isinstance(result, types.CompletionList) else result)]
    assert "PADDLE_INIT_NUM_GRADIENT_SERVERS" in labels
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(editor.doc()))
    assert [lens.command.command for lens in lenses] == ["pai.submitJob", "pai.runLocally", "pai.previewUpload"]
    assert lenses[0].range.start.line == 2  # at "name"
    zh = Editor(client_zh, tmp_path / "zh.paddle.json")
    assert "作业名" in {d.code: d for d in await zh.open(JOB)}["paddle.name"].message


def test_pai_check_reads_paddle_files(tmp_path):
    good = tmp_path / "ok.paddle.json"
    good.write_text(json.dumps({"name": "fit-a-line", "entry": "python train.py", "memory": "512Mi"}))
    bad = tmp_path / "bad.paddle.json"
    bad.write_text(JOB)
    ok = pai_lang("check", str(good))
    assert ok.returncode == 0 and ok.stdout == ""
    result = pai_lang("check", str(bad))
    assert result.returncode == 1
    assert f"{bad}:3:11: error paddle.name" in result.stdout
    assert f"{bad}:5:13: error paddle.quantity" in result.stdout
