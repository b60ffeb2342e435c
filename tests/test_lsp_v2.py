"""The v2 job protocol (`*.pai.yaml`) over LSP, as an editor drives the server: diagnostics on exact
ranges that survive half-typed text, in the client's language; completion in half-typed YAML; hover;
definition, references and rename; a quick fix applied and checked again; outline, folding and code
lenses; a YAML file claimed by its content; and the v1 → v2 action writing a new file beside a
`*.pai.json`. What the core answers is tested in-process (tests/core/test_v2_*.py)."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .helpers.configs import V2_JOB as JOB
from .helpers.configs import VALID
from .helpers.lsp import SERVER, Editor, apply_edit, text_at

pytestmark = pytest.mark.subprocess  # the language server over stdio


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def editor_client(lsp_client: LanguageClient):
    """A client that can create files from a workspace edit and shows disabled code actions (VS Code)."""
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True, resource_operations=[types.ResourceOperationKind.Create])),
            text_document=types.TextDocumentClientCapabilities(
                code_action=types.CodeActionClientCapabilities(disabled_support=True),
                completion=types.CompletionClientCapabilities(completion_item=types.ClientCompletionItemOptions(snippet_support=True)),
            ),
        ),
        locale="en",
    ))
    yield
    await lsp_client.shutdown_session()


async def test_diagnostics_on_exact_ranges_through_half_typed_text(client, client_zh, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.yaml")
    assert await editor.open(JOB) == []
    broken = JOB.replace("    dockerImage: img\n", "    dockerImage: ubuntu:18.04\n")
    (image,) = await editor.replace_all(broken)
    assert text_at(broken, image.range) == "ubuntu:18.04" and image.severity == types.DiagnosticSeverity.Error
    assert image.code == "v2.uri-not-prerequisite" and image.source == "pai"
    # A key half typed above it: one syntax error there, the image's error still where it was.
    half = broken.replace("    instances: 2\n", "    instances: 2\n    extraCont\n")
    found = await editor.replace_all(half)
    assert {d.code for d in found} == {"syntax.missing-colon", "v2.uri-not-prerequisite"}
    assert text_at(half, next(d for d in found if d.code == "v2.uri-not-prerequisite").range) == "ubuntu:18.04"
    chinese = Editor(client_zh, tmp_path / "zh.pai.yaml")
    (d,) = await chinese.open(broken)
    assert "前置条件" in d.message


async def test_a_yaml_file_with_protocol_version_2_is_a_v2_job(client, tmp_path):
    editor = Editor(client, tmp_path / "job.yaml")
    (d,) = await editor.open(JOB.replace("    instances: 2\n", "    instances: 2.5\n"))
    assert d.code == "schema.type" and text_at(editor.text, d.range) == "2.5"


async def test_completion_inserts_yaml_as_it_is(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.yaml")
    text = JOB.replace("    instances: 2\n", "    instances: 2\n    extraC\n")
    await editor.open(text)
    result = await client.text_document_completion_async(types.CompletionParams(editor.doc(), editor.position("extraC", 6)))
    item = next(i for i in result.items if i.label == "extraContainerOptions")
    assert item.insert_text_mode == types.InsertTextMode.AsIs and item.insert_text_format == types.InsertTextFormat.Snippet
    assert text_at(text, item.text_edit.range) == "extraC" and item.text_edit.new_text == "extraContainerOptions:\n      $1"
    value = JOB.replace("    dockerImage: img\n", "    dockerImage: \n")
    await editor.replace_all(value)
    result = await client.text_document_completion_async(types.CompletionParams(editor.doc(), editor.position("dockerImage: ", 13)))
    assert [i.label for i in result.items] == ["img"]


async def test_hover_renders_templates_with_the_files_parameters(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.yaml")
    await editor.open(JOB)
    found = await client.text_document_hover_async(types.HoverParams(editor.doc(), editor.position("$parameters.epochs")))
    assert "`<% $parameters.epochs %>` → `10`" in found.contents.value
    assert text_at(JOB, found.range) == "<% $parameters.epochs %>"


async def test_definition_references_and_rename(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.yaml")
    await editor.open(JOB)
    where = editor.position("dockerImage: img", 14)
    (definition,) = await client.text_document_definition_async(types.DefinitionParams(editor.doc(), where))
    assert definition.range.start == editor.position("name: img", 6) and definition.uri == editor.uri
    role = editor.position("worker:", 2)
    found = await client.text_document_references_async(types.ReferenceParams(text_document=editor.doc(), position=role, context=types.ReferenceContext(True)))
    assert len(found) == 3 and {text_at(JOB, r.range) for r in found} == {"worker"}
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(editor.doc(), role))
    assert text_at(JOB, prepared) == "worker"
    renamed = await client.text_document_rename_async(types.RenameParams(editor.doc(), role, "trainer"))
    assert await editor.edit(renamed.changes[editor.uri]) == []
    assert "worker" not in editor.text and "$PAI_TASK_ROLE_trainer_HOST_LIST" in editor.text
    try:
        await client.text_document_rename_async(types.RenameParams(editor.doc(), editor.position("trainer:"), "2bad"))
        raise AssertionError("a name the server refuses was accepted")
    except Exception as e:  # the editor shows the reason
        assert "cannot name a task role" in str(e)


async def test_quick_fix_keeps_comments_and_is_checked_again(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.yaml")
    text = JOB.replace("      gpu: 0\n", "      gpu: 0\n      shmMB: 2048\n")
    (d,) = await editor.open(text)
    assert d.code == "v2.shm-in-resources" and text_at(text, d.range) == "shmMB"
    (action,) = await client.text_document_code_action_async(types.CodeActionParams(
        editor.doc(), d.range, types.CodeActionContext([d])))
    assert action.title == "Move shmMB to extraContainerOptions"
    assert await editor.edit(action.edit.changes[editor.uri]) == []
    assert "# keep me" in editor.text and "    extraContainerOptions:\n      shmMB: 2048\n" in editor.text


async def test_outline_folding_and_code_lenses(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.yaml")
    await editor.open(JOB)
    (job,) = await client.text_document_document_symbol_async(types.DocumentSymbolParams(editor.doc()))
    assert job.name == "demo_job" and [c.name for c in job.children] == ["img", "worker", "epochs"]
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(editor.doc()))
    assert (10, 22) in {(f.start_line, f.end_line) for f in folds}  # taskRoles: through its last line
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(editor.doc()))
    assert [lens.command.command for lens in lenses] == ["pai.submitJob", "pai.runLocally", "pai.debugJob", "pai.previewUpload"]
    assert {lens.range.start.line for lens in lenses} == {1}  # on `name:`


async def test_a_v1_config_converts_to_a_v2_file_beside_it(editor_client, tmp_path):
    editor = Editor(editor_client, tmp_path / "mnist.pai.json")
    await editor.open(VALID)
    everywhere = types.Range(types.Position(0, 0), types.Position(0, 0))
    actions = await editor_client.text_document_code_action_async(types.CodeActionParams(
        editor.doc(), everywhere, types.CodeActionContext([])))
    (convert,) = [a for a in actions if a.kind == types.CodeActionKind.RefactorRewrite]
    assert convert.title == "Convert to OpenPAI protocol v2 (mnist.pai.yaml)"
    create, insert = convert.edit.document_changes
    target = tmp_path / "mnist.pai.yaml"
    assert isinstance(create, types.CreateFile) and create.uri == target.as_uri() and not create.options.overwrite
    text = apply_edit("", insert.edits[0])
    assert insert.text_document.uri == target.as_uri() and "protocolVersion: 2" in text
    target.write_text(text)  # what the editor does with the edit
    converted = Editor(editor_client, target)
    assert [d for d in await converted.open(text) if d.severity == types.DiagnosticSeverity.Error] == []
    # An existing file is never overwritten: the next action names another.
    actions = await editor_client.text_document_code_action_async(types.CodeActionParams(
        editor.doc(), everywhere, types.CodeActionContext([])))
    assert [a.title for a in actions if a.kind == types.CodeActionKind.RefactorRewrite] == [
        "Convert to OpenPAI protocol v2 (mnist-2.pai.yaml)"]
    # A config with errors: the action says why it cannot be taken.
    await editor.replace_all(VALID.replace('"image"', '"imag"'))
    actions = await editor_client.text_document_code_action_async(types.CodeActionParams(
        editor.doc(), everywhere, types.CodeActionContext([])))
    (disabled,) = [a for a in actions if a.kind == types.CodeActionKind.RefactorRewrite]
    assert disabled.disabled.reason == "Fix the errors of this config first." and disabled.edit is None
