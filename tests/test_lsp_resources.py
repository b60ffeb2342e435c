"""The language server over a day's work: its memory stays flat while the user types, a document
too large to check stays responsive and gives its memory back when closed, and the worker process
the server starts for a large workspace ends with it however it ends."""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics

import psutil
import pytest
from lsprotocol import types

from pai_lsp.common.portable import PORTABLE_ENV
from pai_lsp.server.uploads import LARGE_WORKSPACE

from .helpers.configs import TYPING_V1, TYPING_V2, TYPING_WORDS, VALID, typing_start
from .helpers.lsp import Editor, RawServer

pytestmark = pytest.mark.subprocess  # the language server and its workers

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


EDITS, ROUNDS = 2_000, 5  # 10,000 edits measured, after 4,000 of warm-up
LEAK_BOUND_MB = 1.5  # 150 bytes per edit measured; flat within ±0.6 MB on a loaded 2-core machine


async def test_memory_stays_flat_over_many_typing_edits(client, tmp_path):
    """Each keystroke is a didChange; the server keeps nothing of it once handled: after each 2,000
    edits its memory is where it was. A leak of 2 KB per edit (pygls keeping every handled
    notification's future, which the server's protocol forgets) would grow it 20 MB here; the bound
    allows 150 bytes per edit, RSS noise included. (50,000 edits, and the same against main:
    bench/lsp_memory.py, docs/benchmarks.md.)"""
    editor = Editor(client, tmp_path / "job.pai.json")
    await editor.open(VALID)
    server = psutil.Process(client._server.pid)
    await type_edits(editor, 2 * EDITS)  # warm-up: caches, the allocator's pools, a first collection
    baseline = server.memory_info().rss
    samples = []
    for _ in range(ROUNDS):
        await type_edits(editor, EDITS)
        samples.append(round((server.memory_info().rss - baseline) / MB, 2))
    assert max(samples) < LEAK_BOUND_MB, f"growth (MB) after each {EDITS:,} edits: {samples}"
    # Every edit was applied, in order: each "x" typed was deleted again.
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(editor.doc()))
    assert [s.name for s in symbols] == ["mnist"]


async def type_into_line(editor: Editor, line: int, column: int, typed: int, count: int) -> None:
    """`count` characters typed at the end of one line, one didChange each (raw, as in `type_edits`);
    every 50 an outline request (an editor asks for it while the user types), answered only after
    the changes before it."""
    for i in range(typed, typed + count):
        editor.version += 1
        at = {"line": line, "character": column + i}
        editor.client.protocol._send_data({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": editor.uri, "version": editor.version},
            "contentChanges": [{"range": {"start": at, "end": at}, "text": TYPING_WORDS[i % len(TYPING_WORDS)]}]}})
        if i % 50 == 49 or i == typed + count - 1:
            await editor.client.text_document_document_symbol_async(types.DocumentSymbolParams(editor.doc()))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name, template", [("job.pai.json", TYPING_V1), ("job.pai.yaml", TYPING_V2)])
async def test_memory_stays_flat_while_typing_into_one_long_line(client, tmp_path, name, template):
    """Each keystroke into a line 20,000 characters long makes a new version of that line. Kept by
    caches bounded by count alone and by garbage cycles, 1,500 keystrokes grew the server by 63 MB
    (v1) and 18 MB (v2); kept by nothing, it stays flat (within 1 MB, measured)."""
    text, line, column = typing_start(template, 20_000)
    editor = Editor(client, tmp_path / name)
    await editor.open(text)
    server = psutil.Process(client._server.pid)
    await type_into_line(editor, line, column, 0, 300)  # warm-up: the bounded caches fill
    await asyncio.sleep(1)
    baseline = server.memory_info().rss
    await type_into_line(editor, line, column, 300, 1_500)
    await asyncio.sleep(1)
    grown = (server.memory_info().rss - baseline) / MB
    assert grown < 12, f"{grown:.1f} MB more after 1,500 keystrokes into a line of 20,000 characters"
    # Every keystroke landed inside the command (one out of place breaks the JSON or YAML around it):
    # the diagnostics of the last version, published before the outline request's answer, are empty.
    assert list(client.diagnostics[editor.uri]) == []


@pytest.mark.parametrize("how", ["killed", "stdin closed", "killed, without Linux's PR_SET_PDEATHSIG"])
def test_worker_processes_end_with_the_server(tmp_path, how, monkeypatch):
    if "PDEATHSIG" in how:  # as on macOS and Windows: the parent's pipe alone tells the worker
        monkeypatch.setenv(PORTABLE_ENV, "1")
    # A workspace large enough that, once counted, its counts go to a worker process.
    (tmp_path / "src").mkdir()
    for i in range(LARGE_WORKSPACE + 1):
        (tmp_path / "src" / f"m{i}.py").touch()
    server = RawServer(tmp_path)
    workers: list[psutil.Process] = []
    try:
        server.initialize()
        server.open(tmp_path / "job.pai.json", VALID)  # counting the files an upload would send: first in a thread
        server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        process = psutil.Process(server.process.pid)
        for attempt in range(900):
            workers = process.children(recursive=True)
            if any(_started(worker) for worker in workers):
                break
            if attempt % 10 == 0:  # a file changed: counted again, in the worker once the first count is in
                (tmp_path / "src" / "m0.py").write_text(f"# {attempt}\n")
            psutil.wait_procs([], timeout=0.1)
        assert any(_started(worker) for worker in workers), "the server started no worker"
        if how.startswith("killed"):
            server.process.kill()
        else:
            assert server.process.stdin is not None
            server.process.stdin.close()
            assert server.process.wait(10) is not None
        _, alive = psutil.wait_procs(workers, timeout=5)
        alive = [p for p in alive if not _ended(p)]
        assert alive == [], f"still running after the server ended: {[p.cmdline() for p in alive]}"
    finally:
        server.close()
        for worker in workers:  # if they outlived it: this test started them
            with contextlib.suppress(psutil.Error):
                worker.kill()


def _started(process: psutil.Process) -> bool:
    """A worker process that has started: its thread watching for the server's end is running
    (killed while still loading, a worker ends too, only later: when it has loaded)."""
    try:
        return "spawn_main" in " ".join(process.cmdline()) and process.num_threads() >= 2
    except psutil.Error:
        return False


def _ended(process: psutil.Process) -> bool:
    """Gone, or a zombie: ended, but its new parent (where PID 1 reaps no orphans, as in some
    containers) has not collected its exit status."""
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def large_config(megabytes: int) -> str:
    role = json.dumps({"name": "worker{}", "taskNumber": 2, "memoryMB": 8192, "command": "python train.py --rank $PAI_TASK_INDEX"}, indent=2)
    count = megabytes * MB // (len(role) + 4)
    return '{\n  "jobName": "big",\n  "image": "img",\n  "taskRoles": [\n' + ",\n".join(role.replace("{}", str(i)) for i in range(count)) + "\n  ]\n}\n"


async def test_a_document_over_the_size_limit_says_so_stays_responsive_and_its_memory_goes_when_closed(client, tmp_path):
    server = psutil.Process(client._server.pid)
    small = Editor(client, tmp_path / "job.pai.json")
    await small.open(VALID)
    await asyncio.sleep(0.5)
    baseline = server.memory_info().rss
    editor = Editor(client, tmp_path / "big.pai.json")
    found = await editor.open(large_config(20))
    assert [(d.code, d.severity, d.range.start.line) for d in found] == [("file.too-large", types.DiagnosticSeverity.Information, 0)]
    assert "up to 5 MB" in found[0].message
    work = []  # the server's CPU seconds per edit: its work, which waiting behind a loaded machine does not stretch
    for i in range(6):  # one character typed into the job's name, then deleted
        rng = types.Range(types.Position(1, 15), types.Position(1, 15 + i % 2))
        editor.version += 1
        before = sum(server.cpu_times()[:2])
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(editor.version, editor.uri),
            [types.TextDocumentContentChangePartial(range=rng, text="" if i % 2 else "x")]))
        assert [d.code for d in await editor.diagnostics()] == ["file.too-large"]
        work.append(sum(server.cpu_times()[:2]) - before)
    # Applying the edit, not reading the 20 MB as JSON (what took 3 s of CPU and more, each); bench/lsp_latency.py times edits.
    assert statistics.median(work) < 0.5, work
    # Nothing is worked out from it: hover and the outline answer at once, with nothing.
    assert await client.text_document_hover_async(types.HoverParams(editor.doc(), types.Position(1, 5))) is None
    assert await client.text_document_document_symbol_async(types.DocumentSymbolParams(editor.doc())) == []
    # Cut down below the limit, it is checked again.
    editor.text = large_config(20)
    found = await editor.replace_all(VALID.replace('"taskNumber": 2', '"taskNumber": "two"'))
    assert [d.code for d in found] == ["schema.type"]
    await editor.replace_all(large_config(20))
    client.text_document_did_close(types.DidCloseTextDocumentParams(editor.doc()))
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(small.doc()))  # the close is done
    await asyncio.sleep(0.5)
    grown = (server.memory_info().rss - baseline) / MB
    assert grown < 15, f"{grown:.0f} MB more than before the large document was opened"
