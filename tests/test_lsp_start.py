"""Start-up: the server answers at once, and loads, starts and keeps only what the editor's requests
need (the times are bench/lsp_start.py's: docs/benchmarks.md)."""

from __future__ import annotations

from lsprotocol import types

from .helpers.configs import VALID
from .helpers.lsp import Editor


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
            "and m not in ('pai_lsp.cli', 'pai_lsp.cli.main', 'pai_lsp.server', 'pai_lsp.__main__'))) or 0; "
            "from pai_lsp.cli.main import main; main(['lsp'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
