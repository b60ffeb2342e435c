"""Completion, hover, quick fixes, outline, folding, formatting and code lenses over LSP: each feature's
mapping to LSP types, one case each. What the core answers is tested in-process (tests/core/test_editing.py)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .helpers.configs import VALID
from .helpers.lsp import Editor, apply_edit, text_at, until

pytestmark = pytest.mark.subprocess  # the language server over stdio


async def complete(editor: Editor, position: types.Position) -> list[types.CompletionItem]:
    result = await editor.client.text_document_completion_async(types.CompletionParams(editor.doc(), position))
    return result.items if isinstance(result, types.CompletionList) else list(result or [])


async def test_completion_in_half_typed_text(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    text = '{"taskRoles": [{"na'
    await editor.open(text)
    items = await complete(editor, types.Position(0, len(text)))
    by_label = {i.label: i for i in items}
    assert "name" in by_label and "command" in by_label and "jobName" not in by_label
    edit = by_label["name"].text_edit
    assert text_at(text, edit.range) == '"na'
    assert edit.new_text.startswith('"name": "')
    assert by_label["name"].insert_text_format == types.InsertTextFormat.Snippet





async def test_hover_on_field_variable_and_role(client, client_zh, tmp_path):
    for c, words in ((client, ("Memory for each task", "Default: `100`")), (client_zh, ("每个任务分配的内存", "默认值: `100`"))):
        editor = Editor(c, tmp_path / "job.pai.json")
        await editor.open(VALID)
        result = await c.text_document_hover_async(types.HoverParams(editor.doc(), editor.position('"memoryMB"', 3)))
        assert all(w in result.contents.value for w in words)
    editor = Editor(client, tmp_path / "job.pai.json")
    await editor.open(VALID)
    variable = await client.text_document_hover_async(types.HoverParams(editor.doc(), editor.position("$PAI_TASK_ROLE_worker", 5)))
    assert "`ip:httpPort` of every task of role worker" in variable.contents.value
    assert text_at(VALID, variable.range) == "$PAI_TASK_ROLE_worker_HOST_LIST"
    role = await client.text_document_hover_async(types.HoverParams(editor.doc(), editor.position('"worker"', 2)))
    assert "2 tasks × (1 CPU, 8 GB, 0 GPU) = 2 CPU, 16 GB, 0 GPU" in role.contents.value


async def actions_for(editor: Editor, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    return await editor.client.text_document_code_action_async(types.CodeActionParams(
        editor.doc(), diagnostic.range, types.CodeActionContext([diagnostic])))


async def test_quick_fix_for_a_misspelled_key_is_applied_and_revalidated(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    (diagnostic,) = await editor.open(VALID.replace('"memoryMB"', '"memoryMb"'))
    (action,) = await actions_for(editor, diagnostic)
    assert action.title == 'Replace with "memoryMB"'
    assert await editor.edit(action.edit.changes[editor.uri]) == []
    assert editor.text == VALID




async def test_document_symbols_and_folding(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    await editor.open(VALID.replace('"taskNumber": 2,', '"taskNumber": 2, "portList": [{"label": "tb"}],'))
    (job,) = await client.text_document_document_symbol_async(types.DocumentSymbolParams(editor.doc()))
    assert job.name == "mnist" and [r.name for r in job.children] == ["worker"]
    assert [p.name for p in job.children[0].children] == ["tb"]
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(editor.doc()))
    assert {(f.start_line, f.end_line) for f in folds} >= {(0, 10), (3, 9), (4, 8)}  # the closing line stays visible


async def test_formatting_keeps_comments_and_is_stable(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    messy = '{"jobName":"mnist", // keep me\n"image":"x","taskRoles":[{"name":"w","command":"c",}]}'
    await editor.open(messy)
    options = types.FormattingOptions(tab_size=2, insert_spaces=True)
    (edit,) = await client.text_document_formatting_async(types.DocumentFormattingParams(editor.doc(), options))
    formatted = apply_edit(messy, edit)
    assert "// keep me" in formatted and '    {\n      "name": "w",' in formatted
    diagnostics = await editor.replace_all(formatted)
    assert [d.code for d in diagnostics] == ["syntax.comment"]  # the trailing comma is gone
    again = await client.text_document_formatting_async(types.DocumentFormattingParams(editor.doc(), options))
    assert not again


async def test_code_lenses_above_job_name(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    await editor.open(VALID)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(editor.doc()))
    assert [(lens.command.title, lens.command.command) for lens in lenses] == [
        ("Submit Job to PAI Cluster", "pai.submitJob"), ("Run Job Locally", "pai.runLocally"), ("Debug Job", "pai.debugJob"),
        ("Preview", "pai.previewUpload")]
    assert [(lens.range.start.line, list(lens.command.arguments)) for lens in lenses] == [(1, [editor.uri])] * 4


async def test_pai_kinds_tells_clients_the_job_files_and_cluster_kinds(client_zh):
    """What clients build their file selectors and kind choices from (so they hard-code none), in their locale."""
    from pai_lsp.clusters.kinds import catalogue

    told = await client_zh.workspace_execute_command_async(types.ExecuteCommandParams("pai.kinds", []))
    assert told == {"ok": True, **catalogue("zh-CN")}
    assert [f["patterns"] for f in told["jobFiles"]] == [["*.pai.json"], ["*.paddle.json"], ["*.pai.yaml", "*.pai.yml"]]
    assert told["jobFiles"][1]["title"] == "PaddlePaddle Cloud 作业文件"


async def test_a_command_without_or_with_a_wrong_argument_is_refused_in_one_log_line(client, capfd):
    """A command sent without `arguments`, or with an argument of the wrong shape, is answered with an
    InvalidParams error saying what is wrong, and the server's stderr gets one line for it, not a
    traceback (pytest-lsp hands the server's stderr on to this test's)."""
    from pygls.exceptions import JsonRpcInvalidParams

    cases = [("pai.jobOutputs", None, "pai.jobOutputs: its argument, an object, is missing"),
             ("pai.hdfs.ls", None, "pai.hdfs.ls: its argument, an object, is missing"),
             ("pai.hdfs.ls", [3], "hdfs.ls: params must be an object"),
             ("pai.hdfs.ls", [{"cluster": "x"}], "hdfs.ls: `path` is missing"),
             ("pai.submitJob", [{"uri": 3}], "pai.submitJob: `uri` must be a string"),
             ("pai.previewRendered", [[1]], "pai.previewRendered: params must be an object")]
    for command, arguments, wanted in cases:
        try:
            await client.workspace_execute_command_async(types.ExecuteCommandParams(command, arguments))
        except JsonRpcInvalidParams as exc:
            assert wanted in str(exc), exc
        else:
            raise AssertionError(f"{command} {arguments} was accepted")
    kinds = await client.workspace_execute_command_async(types.ExecuteCommandParams("pai.kinds"))  # needs none
    assert kinds["ok"] is True
    logged: list[str] = []

    def refused() -> list[str]:
        logged.extend(line for line in capfd.readouterr().err.splitlines() if line.strip())
        return [line for line in logged if line.startswith("refused a request's params: ")]

    await until(lambda: len(refused()) >= len(cases))
    await client.workspace_execute_command_async(types.ExecuteCommandParams("pai.kinds"))  # anything after arrives too
    assert "Traceback" not in "\n".join(logged) and len(refused()) == len(cases), logged
    assert all(wanted in line for (_, _, wanted), line in zip(cases, refused(), strict=True)), logged
