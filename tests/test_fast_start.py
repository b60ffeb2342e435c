"""The stdio server answers `initialize` before it has loaded; the answer must be the server's own."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from pai_lsp.server.fast_start import SNAPSHOT, snapshot_from_server

from .helpers.configs import VALID
from .helpers.lsp import Editor


def test_capability_snapshot_matches_the_server():
    expected = json.loads(SNAPSHOT.read_text())
    assert snapshot_from_server() == expected, "run `python -m pai_lsp.server.fast_start` to refresh capabilities.json"


async def test_requests_sent_right_after_initialize_are_served(client, tmp_path):
    # The fixture's initialize came back from the snapshot; the real server answers what follows.
    caps = client.protocol._server_capabilities if hasattr(client.protocol, "_server_capabilities") else None
    del caps
    editor = Editor(client, tmp_path / "job.pai.json")
    diagnostics = await editor.open(VALID.replace('"mnist"', '"a~b"'))
    assert [d.code for d in diagnostics] == ["schema.pattern"]
    hover = await client.text_document_hover_async(types.HoverParams(editor.doc(), editor.position('"jobName"', 2)))
    assert "**jobName**" in hover.contents.value


@pytest.mark.subprocess
def test_the_language_server_does_not_load_the_job_stack_at_start():
    """Start-up time and memory (docs/benchmarks.md) depend on this: HTTP and HDFS clients load
    only when a job command runs."""
    import subprocess
    import sys

    code = ("import sys, pai_lsp.cli.main; pai_lsp.cli.main.build_parser(); from pai_lsp.server import create_language_server; create_language_server(); "
            "print(sorted(m for m in ('httpx', 'requests', 'hdfs', 'starlette', 'uvicorn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.subprocess
def test_pai_lsp_starts_the_server_before_loading_the_job_commands():
    """`initialize` is answered by fast_start from a snapshot; nothing heavier may load before it
    (the CLI's job commands pulled in the daemon protocol and asyncio: +0.13 s per editor start); the
    stdio framing (standard library only) is part of it."""
    import subprocess
    import sys

    code = ("import sys; import pai_lsp.server.fast_start as f; "
            "f.serve_stdio = lambda: print(sorted(m for m in sys.modules if m.startswith(('pai_lsp.', 'jsonschema', 'asyncio', 'pygls')) "
            "and m not in ('pai_lsp.cli', 'pai_lsp.cli.main', 'pai_lsp.cli.cmd_lsp', 'pai_lsp.server', 'pai_lsp.server.fast_start', 'pai_lsp.server.framing', 'pai_lsp.__main__'))); "
            "from pai_lsp.cli.main import main; main(['lsp'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
