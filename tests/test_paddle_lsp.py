"""`*.paddle.json` job files in the editor (the language server over stdio) and in `pai check`."""

from __future__ import annotations

import json

from lsprotocol import types

from .helpers.cli import pai_lang
from .helpers.lsp import Editor, apply_edit, text_at

JOB = """{
  // PaddlePaddle Cloud job
  "name": "Fit_A.Line",
  "parallelism": 2,
  "memory": "1GB",
  "psmemory": "1Gi",
  "registry": "mine",
  "entry": "python train.py --id $PADDLE_INIT_TRAINER_ID",
}
"""


async def test_diagnostics_with_exact_ranges_and_fixes(client, tmp_path):
    editor = Editor(client, tmp_path / "fit.paddle.json")
    found = {d.code: d for d in await editor.open(JOB)}
    name = found["paddle.name"]
    assert text_at(JOB, name.range) == '"Fit_A.Line"' and name.severity == types.DiagnosticSeverity.Error
    assert "'_' or '.'" in name.message
    assert text_at(JOB, found["paddle.quantity"].range) == '"1GB"'
    registry = found["paddle.registry-prefix"]
    assert text_at(JOB, registry.range) == '"mine"' and registry.severity == types.DiagnosticSeverity.Warning
    assert "schema.unknown-key" not in found and "paddle.no-entry" not in found
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        editor.doc(), registry.range, types.CodeActionContext([registry])))
    fix = next(a for a in actions if "pcloud-registry-mine" in a.title)
    fixed = await editor.edit(fix.edit.changes[editor.uri])
    assert '"registry": "pcloud-registry-mine"' in editor.text
    assert "paddle.registry-prefix" not in {d.code for d in fixed}
    rename = next(a for a in await client.text_document_code_action_async(types.CodeActionParams(
        editor.doc(), name.range, types.CodeActionContext([name]))) if a.title.startswith("Rename"))
    after = apply_edit(editor.text, rename.edit.changes[editor.uri][0])
    assert '"name": "fit-a-line"' in after
    gone = await editor.replace_all(JOB.replace('"entry": "python train.py --id $PADDLE_INIT_TRAINER_ID",', ""))
    assert "paddle.no-entry" in {d.code for d in gone}


async def test_completion_hover_and_lens(client, client_zh, tmp_path):
    editor = Editor(client, tmp_path / "fit.paddle.json")
    await editor.open(JOB)
    hover = await client.text_document_hover_async(types.HoverParams(editor.doc(), editor.position("$PADDLE_INIT_TRAINER_ID", 3)))
    assert "sorted by address" in hover.contents.value and text_at(editor.text, hover.range) == "$PADDLE_INIT_TRAINER_ID"
    field = await client.text_document_hover_async(types.HoverParams(editor.doc(), editor.position('"parallelism"', 2)))
    assert "trainers" in field.contents.value and "`1`" in field.contents.value
    typed = JOB.replace("$PADDLE_INIT_TRAINER_ID", "$PADDLE_INIT_NUM")
    await editor.replace_all(typed)
    result = await client.text_document_completion_async(types.CompletionParams(editor.doc(), editor.position("$PADDLE_INIT_NUM", 16)))
    labels = [i.label for i in (result.items if isinstance(result, types.CompletionList) else result)]
    assert labels and all(label.startswith("PADDLE_INIT_NUM") for label in labels) and "PADDLE_INIT_NUM_GRADIENT_SERVERS" in labels
    keys = JOB.replace('  "parallelism": 2,\n', '  "parallelism": 2,\n  "\n')
    await editor.replace_all(keys)
    result = await client.text_document_completion_async(types.CompletionParams(editor.doc(), editor.position('  "\n', 3)))
    labels = {i.label for i in (result.items if isinstance(result, types.CompletionList) else result)}
    assert {"pservers", "gpu", "topology", "faulttolerant"} <= labels and "jobName" not in labels and "parallelism" not in labels
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(editor.doc()))
    assert [lens.command.command for lens in lenses] == ["pai.submitJob", "pai.runLocally"]
    assert lenses[0].range.start.line == 2  # at "name"
    zh = Editor(client_zh, tmp_path / "zh.paddle.json")
    found = {d.code: d for d in await zh.open(JOB)}
    assert "作业名" in found["paddle.name"].message


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
