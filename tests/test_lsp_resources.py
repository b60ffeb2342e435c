"""The language server over a day's work: its memory stays flat while the user types, and the
worker processes it starts end with it however it ends."""

from __future__ import annotations

import contextlib

import psutil
import pytest
from lsprotocol import types

from .helpers.configs import VALID
from .helpers.lsp import Editor, RawServer

MB = 1024 * 1024


async def type_edits(editor: Editor, count: int) -> None:
    """`count` keystrokes in the job's name (a character typed, then deleted), as one didChange each,
    sent raw so that the client's own cost stays small; every 500, a request the server answers only
    after handling the changes before it (an editor keeping up with its server)."""
    line = editor.text.count("\n", 0, editor.text.index("mnist"))
    col = editor.text.splitlines()[line].index("mnist")
    for i in range(count):
        editor.version += 1
        end = col + (i % 2)
        editor.client.protocol._send_data({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": editor.uri, "version": editor.version},
            "contentChanges": [{"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": end}},
                                "text": "" if i % 2 else "x"}]}})
        if i % 500 == 499 or i == count - 1:
            await editor.client.text_document_document_symbol_async(types.DocumentSymbolParams(editor.doc()))


@pytest.mark.timeout(600)
async def test_memory_stays_flat_over_50000_typing_edits(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    await editor.open(VALID)
    server = psutil.Process(client._server.pid)
    await type_edits(editor, 5_000)  # warm-up: caches, the allocator's pools
    baseline = server.memory_info().rss
    samples = []
    for _ in range(10):
        await type_edits(editor, 5_000)
        samples.append(round((server.memory_info().rss - baseline) / MB, 1))
    assert max(samples) < 3, f"growth (MB) after each 5,000 edits: {samples}"
    # Every edit was applied, in order: each "x" typed was deleted again.
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(editor.doc()))
    assert [s.name for s in symbols] == ["mnist"]


@pytest.mark.parametrize("how", ["killed", "stdin closed"])
def test_worker_processes_end_with_the_server(tmp_path, how):
    server = RawServer(tmp_path)
    workers: list[psutil.Process] = []
    try:
        server.initialize()
        server.open(tmp_path / "job.pai.json", VALID)  # counting the files an upload would send starts a worker
        server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        process = psutil.Process(server.process.pid)
        for _ in range(300):
            workers = process.children(recursive=True)
            if workers:
                break
            psutil.wait_procs([], timeout=0.1)
        assert workers, "the server started no worker"
        if how == "killed":
            server.process.kill()
        else:
            assert server.process.stdin is not None
            server.process.stdin.close()
            assert server.process.wait(10) is not None
        _, alive = psutil.wait_procs(workers, timeout=5)
        assert alive == [], f"still running after the server ended: {[p.cmdline() for p in alive]}"
    finally:
        server.close()
        for worker in workers:  # if they outlived it: this test started them
            with contextlib.suppress(psutil.Error):
                worker.kill()
