"""Start-up: the server answers at once, and loads, starts and keeps only what the editor's requests
need (the times are bench/lsp_start.py's: docs/benchmarks.md)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .helpers.configs import V2_JOB, VALID
from .helpers.lsp import Editor, RawServer

pytestmark = pytest.mark.subprocess  # the language server over stdio, and `pai-lsp` started as editors start it


async def test_requests_sent_right_after_initialize_are_served(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    diagnostics = await editor.open(VALID.replace('"mnist"', '"a~b"'))
    assert [d.code for d in diagnostics] == ["schema.pattern"]
    hover = await client.text_document_hover_async(types.HoverParams(editor.doc(), editor.position('"jobName"', 2)))
    assert "**jobName**" in hover.contents.value


def test_the_language_server_does_not_load_the_job_stack_at_start():
    """Start-up time and memory (docs/benchmarks.md) depend on this: HTTP and HDFS clients load
    only when a job command runs."""
    import subprocess
    import sys

    code = ("import sys, pai_lsp.cli.main; pai_lsp.cli.main.build_parser(); from pai_lsp.server import create_language_server; create_language_server(); "
            "print(sorted(m for m in ('httpx', 'requests', 'hdfs', 'starlette', 'uvicorn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_pai_lsp_starts_the_server_before_loading_the_job_commands():
    """Nothing of the CLI's other commands loads before the server starts (they pulled in the
    daemon protocol and asyncio: +0.13 s per editor start)."""
    import subprocess
    import sys

    code = ("import sys; import pai_lsp.server as s; "
            "s.serve_stdio = lambda: print(sorted(m for m in sys.modules if m.startswith(('pai_lsp.', 'jsonschema', 'asyncio', 'pygls')) "
            "and m not in ('pai_lsp.cli', 'pai_lsp.cli.main', 'pai_lsp.cli.cmd_lsp', 'pai_lsp.server', 'pai_lsp.__main__'))) or 0; "
            "from pai_lsp.cli.main import main; main(['lsp'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# What loads before `initialize` is answered, and what the server starts: counted, not timed.
HEAVY = ("pai_lsp.core.formats", "pai_lsp.core.validate", "pai_lsp.daemon", "pai_lsp.service", "jsonschema", "yaml",
         "tree_sitter", "multiprocessing", "watchdog", "httpx")
MODULES_BEFORE_INITIALIZE = 330  # every module the interpreter imports, pygls and lsprotocol included (267 today)
CODE_DIR = '"codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",\n  "image"'


def imported(stderr: list[str]) -> list[str]:
    """The modules `-X importtime` reported on stderr so far."""
    return [line.rsplit("|", 1)[1].strip() for line in stderr if line.startswith("import time:") and "imported package" not in line]


def test_initialize_is_answered_before_any_job_file_machinery_loads(tmp_path, monkeypatch):
    """The job-file formats, their validators and readers load with the first document; the daemon's
    client with the first job command; nothing loads in the background meanwhile."""
    import time

    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
    server = RawServer(tmp_path)
    try:
        server.initialize()
        time.sleep(0.5)  # anything loading after the answer, unasked, would show now
        before = imported(server.stderr)
        assert [m for m in before if m.startswith(HEAVY)] == []
        assert 100 < len(before) < MODULES_BEFORE_INITIALIZE, len(before)
        server.open(tmp_path / "job.pai.json", VALID)
        server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        opened = imported(server.stderr)
        assert "pai_lsp.core.formats" in opened  # the count above was of the right lines
        # a v1 config loads its own format only: no YAML reader, no v2 or PaddlePaddle format
        assert [m for m in opened if m.startswith(("pai_lsp.core.v2", "pai_lsp.core.paddle", "pai_lsp.core.yaml", "yaml", "tree_sitter"))] == []
        # and a config without a schema error is cleared without jsonschema (core/schema_proof.py)
        assert [m for m in opened if m.startswith("jsonschema")] == []
    finally:
        server.close()


@pytest.mark.subprocess
def test_opening_a_valid_v2_job_loads_neither_jsonschema_nor_the_features_not_asked_for(tmp_path, monkeypatch):
    """A v2 job without a schema error or warning is cleared without jsonschema (core/schema_proof.py);
    completion, hover and navigation load when first asked, not at the open."""
    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
    server = RawServer(tmp_path)
    try:
        server.initialize()
        server.open(tmp_path / "job.pai.yaml", V2_JOB)
        published = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        assert published["params"]["diagnostics"] == []
        opened = imported(server.stderr)
        assert "pai_lsp.core.v2.checks" in opened  # the v2 format was loaded: the count is of the right lines
        assert [m for m in opened if m.startswith("jsonschema")] == []
        assert [m for m in opened if m.startswith(("pai_lsp.core.v2.completion", "pai_lsp.core.v2.hover", "pai_lsp.core.v2.navigate"))] == []
    finally:
        server.close()


# A server of pygls alone, no feature of its own: what any pygls server loads (bench/lsp_start.py's floor).
BARE_PYGLS = ["-c", "from pygls.lsp.server import LanguageServer; LanguageServer('bare', '1').start_io()"]
MODULES_BEYOND_PYGLS = 60  # the CLI's parser, the server's own modules, the settings (46 today)


def test_initialize_loads_little_beyond_what_pygls_alone_loads(tmp_path, monkeypatch):
    """pygls and lsprotocol are most of the start-up (docs/benchmarks.md): what the server adds to
    them before `initialize` is answered is counted against a server of pygls alone."""
    import sys
    import time

    monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
    loaded = {}
    for name, command in (("pai-lsp", None), ("pygls", [sys.executable, *BARE_PYGLS])):
        server = RawServer(tmp_path, command)
        try:
            server.initialize()
            time.sleep(0.5)  # anything loading after the answer, unasked, would show now
            loaded[name] = set(imported(server.stderr))
        finally:
            server.close()
    assert "lsprotocol.types" in loaded["pygls"] and "pai_lsp.server.language_server" in loaded["pai-lsp"]
    beyond = loaded["pai-lsp"] - loaded["pygls"]
    assert len(beyond) <= MODULES_BEYOND_PYGLS, sorted(beyond)
    assert [m for m in beyond if m.startswith(HEAVY)] == []


def test_a_small_workspace_is_counted_without_starting_a_process(tmp_path):
    """Counting the files an upload would send (codeDir's hover and warnings) runs in a thread: the
    server starts no process for it, nor multiprocessing's resource tracker."""
    import psutil

    (tmp_path / "train.py").write_text("print('hi')\n")
    job = tmp_path / "job.pai.json"
    text = VALID.replace('"image"', CODE_DIR, 1)
    server = RawServer(tmp_path)
    try:
        server.initialize()
        server.open(job, text)
        server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        line = text.count("\n", 0, text.index('"codeDir"'))
        for attempt in range(60):  # a hover waits a second for the first count, else says "Counting…"
            server.send({"jsonrpc": "2.0", "id": f"hover{attempt}", "method": "textDocument/hover",
                         "params": {"textDocument": {"uri": job.as_uri()}, "position": {"line": line, "character": 4}}})
            hover = server.wait_for(lambda m, a=attempt: m.get("id") == f"hover{a}")["result"]["contents"]["value"]
            if "Counting the workspace files" not in hover:
                break
        assert "train.py" in hover or "1 file" in hover, hover
        assert psutil.Process(server.process.pid).children(recursive=True) == []
    finally:
        server.close()
