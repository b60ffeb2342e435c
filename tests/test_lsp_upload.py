"""What an upload would send, in the editor as you type: the hover on `codeDir`, the
warning on it when the files are over the limits or look like data — refreshed when files change
(watchdog, or the client's `workspace/didChangeWatchedFiles`) — and the "Preview Upload" command."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .helpers.cli import isolated_env, stop_all
from .helpers.lsp import SERVER, Editor, start_session, text_at, until
from .helpers.paths import EXAMPLE

pytestmark = pytest.mark.subprocess  # the language server over stdio

ENV = isolated_env(Path(tempfile.mkdtemp(prefix="pai-lsp-upload-")))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def editor(lsp_client: LanguageClient):
    await start_session(lsp_client, "en")
    try:
        yield
    finally:
        stop_all(ENV)
        await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def watching_editor(lsp_client: LanguageClient):
    """A client that watches files for the server, as VS Code does (dynamic registration)."""
    registrations: list[types.Registration] = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    lsp_client.registrations = registrations
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)),
            text_document=types.TextDocumentClientCapabilities(
                hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]))),
        locale="en"))
    yield
    await lsp_client.shutdown_session()


def workspace(tmp_path: Path, settings: dict, files: dict[str, int]) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    (ws / ".vscode" / "settings.json").write_text(json.dumps(settings))
    for rel, size in files.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            f.truncate(size)  # sparse: big files cost no disk
    return ws, (ws / "mnist.pai.json").read_text()


async def counted_hover(client: LanguageClient, doc: Editor, anchor: str, offset: int) -> str:
    """The hover once the server's first count of the workspace is done: a hover waits a second for
    it and then says "Counting…" (its worker process may take longer to start on a busy machine)."""
    for _ in range(60):
        hover = await client.text_document_hover_async(types.HoverParams(doc.doc(), doc.position(anchor, offset)))
        if "Counting the workspace files" not in hover.contents.value:
            return hover.contents.value
    raise AssertionError("the workspace was never counted")


def upload_warnings(client: LanguageClient, uri: str) -> dict[str, types.Diagnostic]:
    return {d.code: d for d in client.diagnostics.get(uri, []) if str(d.code).startswith("upload.")}


async def test_hover_on_code_dir_says_what_would_be_uploaded(editor, tmp_path):
    ws, text = workspace(tmp_path, {"pai.job.upload.include": ["**/*"]},
                         {"src/model.py": 3000, "src/util.py": 1000, "data/big.bin": 2_000_000, ".venv/lib/x.py": 10,
                          "node_modules/a/b.js": 10})
    doc = Editor(editor, ws / "mnist.pai.json")
    diagnostics = await doc.open(text)
    assert [d for d in diagnostics if d.severity == types.DiagnosticSeverity.Error] == []
    value = await counted_hover(editor, doc, '"codeDir"', 2)
    assert "**codeDir**" in value  # the field's own doc first
    files = [p for p in ws.rglob("*") if p.is_file() and not {".venv", "node_modules"} & set(p.relative_to(ws).parts)]
    total = sum(p.stat().st_size for p in files)
    assert f"**Upload**: {len(files)} files, {total / 1024 / 1024:.1f} MB from this workspace" in value
    lines = value.splitlines()
    largest = lines[lines.index("Largest:") + 1:][:3]
    assert largest == ["- `data/big.bin` 1.9 MB", "- `src/model.py` 2.9 KB", "- `train.py` 1.5 KB"]
    assert ".venv" not in value and "node_modules" not in value
    on_value = await editor.text_document_hover_async(types.HoverParams(doc.doc(), doc.position('$PAI_USER_NAME/$PAI_JOB_NAME"', 16)))
    assert "**Upload**:" in on_value.contents.value


async def test_warning_on_code_dir_when_over_the_limit_or_data(editor, tmp_path):
    ws, text = workspace(tmp_path, {"pai.job.upload.include": ["**/*"], "pai.job.upload.maxBytes": 1_000_000},
                         {"ckpt/model.ckpt": 100, "features.npy": 200, "src/a.py": 10})
    doc = Editor(editor, ws / "mnist.pai.json")
    await doc.open(text)
    await until(lambda: "upload.data-files" in upload_warnings(editor, doc.uri))
    data = upload_warnings(editor, doc.uri)["upload.data-files"]
    assert data.severity == types.DiagnosticSeverity.Warning
    assert data.message.startswith("The upload includes 2 files that look like data: features.npy (200 B), ckpt/model.ckpt (100 B).")
    line = text.splitlines()[data.range.start.line]
    assert line[data.range.start.character:data.range.end.character] == '"codeDir"'
    assert "upload.over-limit" not in upload_warnings(editor, doc.uri)
    # Typing keeps the warning where codeDir is, without counting again.
    await doc.replace_all("\n\n" + text)
    moved = upload_warnings(editor, doc.uri)["upload.data-files"]
    assert moved.range.start.line == data.range.start.line + 2
    # A large file lands: over the limit (and it looks like data: over 50 MB).
    with open(ws / "dump.bin", "wb") as f:
        f.truncate(60 * 1024 * 1024)
    await until(lambda: "upload.over-limit" in upload_warnings(editor, doc.uri), timeout=10)
    over = upload_warnings(editor, doc.uri)["upload.over-limit"]
    assert over.message.startswith("The upload from this workspace is over the limit: 60.0 MB (limit 976.6 KB, "
                                   "pai.job.upload.maxBytes). Largest: dump.bin (60.0 MB),")
    assert "dump.bin (60.0 MB)" in upload_warnings(editor, doc.uri)["upload.data-files"].message
    # It goes, and so does the warning; a .paiignore takes the rest away.
    (ws / "dump.bin").unlink()
    await until(lambda: "upload.over-limit" not in upload_warnings(editor, doc.uri), timeout=10)
    (ws / ".paiignore").write_text("*.npy\nckpt/\n")
    await until(lambda: not upload_warnings(editor, doc.uri), timeout=10)


async def test_warning_follows_files_in_a_workspace_of_many_folders(editor, tmp_path):
    """Each count opens every folder; with 9,000 of them, watching those opens alone would overflow
    inotify's queue (16,384 events) and bury the event of the file that matters."""
    ws, text = workspace(tmp_path, {"pai.job.upload.include": ["**/*.py"]}, {})
    for i in range(9000):
        (ws / "pkg" / f"m{i % 90}" / f"p{i}").mkdir(parents=True)
    doc = Editor(editor, ws / "mnist.pai.json")
    await doc.open(text)
    assert "**Upload**: 1 file, " in await counted_hover(editor, doc, '"codeDir"', 2)
    for _ in range(2):  # a count after a count: the second one's file event is not lost either
        with open(ws / "pkg" / "m7" / "p7" / "weights.py", "wb") as f:
            f.truncate(300 * 1024 * 1024)
        await until(lambda: "upload.over-limit" in upload_warnings(editor, doc.uri), timeout=15)
        (ws / "pkg" / "m7" / "p7" / "weights.py").unlink()
        await until(lambda: "upload.over-limit" not in upload_warnings(editor, doc.uri), timeout=15)


async def test_the_client_watches_files_for_the_server(watching_editor, tmp_path):
    client = watching_editor
    ws, text = workspace(tmp_path, {"pai.job.upload.include": ["**/*.py"]}, {"a.py": 10})
    await until(lambda: client.registrations)
    (registration,) = client.registrations
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    assert [w["globPattern"] for w in registration.register_options["watchers"]] == ["**/*"]
    doc = Editor(client, ws / "mnist.pai.json")
    await doc.open(text)
    assert "**Upload**: 2 files" in await counted_hover(client, doc, '"codeDir"', 2)
    with open(ws / "weights.pt", "wb") as f:  # not a *.py: not uploaded, no warning
        f.truncate(10)
    big = ws / "big.py"
    with open(big, "wb") as f:
        f.truncate(300 * 1024 * 1024)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(big.as_uri(), types.FileChangeType.Created),
        types.FileEvent((ws / "weights.pt").as_uri(), types.FileChangeType.Created)]))
    await until(lambda: "upload.over-limit" in upload_warnings(client, doc.uri), timeout=10)
    assert "big.py (300.0 MB)" in upload_warnings(client, doc.uri)["upload.over-limit"].message
    assert "weights.pt" not in upload_warnings(client, doc.uri)["upload.data-files"].message


async def test_preview_upload_command(editor, tmp_path):
    ws, text = workspace(tmp_path, {"pai.job.upload.include": ["**/*.py"]}, {"lib/x.py": 4096, "venv/y.py": 1})
    doc = Editor(editor, ws / "mnist.pai.json")
    await doc.open(text)
    result = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.previewUpload", [{"uri": doc.uri, "cluster": "local", "listFiles": True}]))
    assert result["ok"] is True, result
    assert result["upload"]["files"] == 2 and [e[0] for e in result["upload"]["entries"]] == ["lib/x.py", "train.py"]
    assert result["config"]["jobName"] == result["job"] and result["job"].startswith("mnist_")
    text_lines = result["text"].splitlines()
    assert text_lines[0] == f"Dry run of {ws / 'mnist.pai.json'}: nothing was sent." or text_lines[0].startswith("Dry run of ")
    assert any(line.startswith("upload:   2 files, ") for line in text_lines)
    jobs = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.jobs.list", [{"cluster": "local"}]))
    assert result["job"] not in [j["name"] for j in jobs["jobs"]]  # nothing submitted


# -- .vscode/settings.json: the pai.job.* keys, checked by the same server ----------------------------

def settings_problems(client: LanguageClient, doc: Editor) -> dict[str, tuple[str, str]]:
    """code -> (the text it is on, its message), for the settings document."""
    return {d.code: (text_at(doc.text, d.range), d.message) for d in client.diagnostics.get(doc.uri, [])}


async def test_settings_json_values_of_the_wrong_type(editor, tmp_path):
    ws, _ = workspace(tmp_path, {}, {"a.py": 10})
    doc = Editor(editor, ws / ".vscode" / "settings.json")
    diagnostics = await doc.open(
        '{\n  // comments are fine here\n  "editor.tabSize": "not ours",\n  "pai.job.upload.maxBytes": "200MB",\n'
        '  "pai.job.upload.enabled": "yes",\n  "pai.job.generateJobName.enabled": 1,\n  "pai.cluster.kind": "k8s",\n'
        '  "pai.job.upload.exclude": ["**/*.log", 3],\n  "pai.job.uploadInclude": ["**/*.py"],\n}\n')
    found = {d.code: d for d in diagnostics}
    by_text = {text_at(doc.text, d.range): (d.code, d.severity, d.message) for d in diagnostics}
    assert by_text['"200MB"'] == ("settings.type", types.DiagnosticSeverity.Error,
                                  "pai.job.upload.maxBytes should be a positive integer, not a string: pai ignores it and "
                                  "uses the default (209,715,200).")
    assert by_text['"yes"'][2] == "pai.job.upload.enabled should be true or false, not a string: pai ignores it and uses the default (true)."
    assert by_text["1"][2].startswith("pai.job.generateJobName.enabled should be true or false, not 1:")
    assert by_text['"k8s"'][2].startswith('pai.cluster.kind should be "openpai" | "scm", not a string:')
    assert by_text["3"][:2] == ("settings.glob-type", types.DiagnosticSeverity.Error)
    assert by_text["3"][2] == ("Each entry of pai.job.upload.exclude is a glob (a non-empty string), not 3: pai ignores "
                               "the whole list and uses the default.")
    assert by_text['"pai.job.uploadInclude"'][:2] == ("settings.unknown", types.DiagnosticSeverity.Information)
    assert len(diagnostics) == 6, diagnostics  # not the editor's own keys, no job-config errors, no comment warning
    assert "syntax.comment" not in found
    # Fixed as you type: the diagnostics go.
    fixed = await doc.replace_all('{"pai.job.upload.maxBytes": 1000000, "pai.job.upload.enabled": true, '
                                  '"pai.job.upload.exclude": []}')
    assert [d for d in fixed if d.code.startswith("settings.")] == []
    # The nested form is read (and checked) too; Chinese when the user reads Chinese.
    nested = await doc.replace_all('{"pai": {"locale": "zh-CN", "job": {"upload": {"maxFiles": -5}}}}')
    (problem,) = nested
    assert text_at(doc.text, problem.range) == "-5"
    assert problem.message.startswith("pai.job.upload.maxFiles 应为正整数，而不是-5")
    # Nothing of the job-config features answers on this file.
    assert await editor.text_document_hover_async(types.HoverParams(doc.doc(), doc.position('"maxFiles"', 2))) is None
    assert not await editor.text_document_formatting_async(types.DocumentFormattingParams(
        doc.doc(), types.FormattingOptions(tab_size=2, insert_spaces=True)))


async def test_settings_json_globs_checked_against_the_workspace(editor, tmp_path):
    ws, _ = workspace(tmp_path, {}, {"src/a.py": 10, "src/b.py": 10, "notes/readme.md": 10, ".venv/lib/site.py": 10})
    doc = Editor(editor, ws / ".vscode" / "settings.json")
    await doc.open('{\n  "pai.job.upload.include": ["src/**/*.py", "**/*.ipynb", "notes/**", "!notes/**"]\n}\n')
    await until(lambda: "settings.glob-unmatched" in settings_problems(editor, doc))
    problems = settings_problems(editor, doc)
    assert problems["settings.glob-unmatched"] == ('"**/*.ipynb"', "No file in this workspace matches **/*.ipynb: it uploads "
                                                   "nothing (after the default excludes, .paiignore and .gitignore).")
    assert problems["settings.glob-hidden"][0] == '"notes/**"'
    assert set(problems) == {"settings.glob-unmatched", "settings.glob-hidden"}
    # An exclude that hides every include (typed, not saved: the buffer is what counts).
    await doc.replace_all('{\n  "pai.job.upload.include": ["src/**"],\n  "pai.job.upload.exclude": ["**/*.py"]\n}\n')
    await until(lambda: "settings.exclude-hides-all" in settings_problems(editor, doc))
    problems = settings_problems(editor, doc)
    assert problems["settings.exclude-hides-all"] == ('"pai.job.upload.exclude"', "pai.job.upload.exclude leaves out "
                                                      "every file the include globs choose: the upload would be empty.")
    assert problems["settings.glob-hidden"][0] == '"src/**"'
    # A file lands that the glob matches: its warning goes.
    await doc.replace_all('{"pai.job.upload.include": ["**/*.ipynb", "src/**/*.py"]}')
    await until(lambda: "settings.glob-unmatched" in settings_problems(editor, doc))
    (ws / "explore.ipynb").write_text("{}")
    await until(lambda: "settings.glob-unmatched" not in settings_problems(editor, doc), timeout=10)
    # A folder left out by default counts as nothing, unless the include names it.
    await doc.replace_all('{"pai.job.upload.include": ["**/site.py"]}')
    await until(lambda: "settings.glob-unmatched" in settings_problems(editor, doc))
    await doc.replace_all('{"pai.job.upload.include": [".venv/**/site.py"]}')
    await until(lambda: not settings_problems(editor, doc))


async def test_the_example_settings_have_no_problems(editor, tmp_path):
    """As shipped (`exclude: []` is the default, not a mistake); one glob added that matches nothing
    shows the count is done and is the only problem."""
    ws, _ = workspace(tmp_path, {}, {})
    shutil.copy(EXAMPLE / ".vscode" / "settings.json", ws / ".vscode" / "settings.json")
    doc = Editor(editor, ws / ".vscode" / "settings.json")
    text = (ws / ".vscode" / "settings.json").read_text()
    assert await doc.open(text) == []
    await doc.replace_all(text.replace('["**/*.py"]', '["**/*.py", "**/*.nothing"]'))
    await until(lambda: settings_problems(editor, doc))
    assert list(settings_problems(editor, doc).values()) == [('"**/*.nothing"', "No file in this workspace matches "
                                                             "**/*.nothing: it uploads nothing (after the default "
                                                             "excludes, .paiignore and .gitignore).")]
    wrong = await doc.replace_all(text.replace('"pai.job.upload.exclude": []', '"pai.job.upload.exclude": "*.log"'))
    assert [d.message for d in wrong] == ['pai.job.upload.exclude should be a list of globs, not a string: pai ignores '
                                          'it and uses the default ([]).']
