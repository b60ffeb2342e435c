"""Language-server speed: pai-lsp against VS Code's JSON language server, same script, same run.

For configs of 1, 100, 1,000, 3,000 and 10,000 task roles (`--sizes`), each server is started
afresh and measured over stdio as an editor drives it:

- open -> first diagnostics of the config;
- incremental didChange of one `memoryMB` in the middle role -> the diagnostics that answer it
  (median), and the CPU the server process spent per edit (user + system, all rounds / rounds);
- completion at a key position inside a role, and after `$PAI_` in a role's command (median);
- resident memory with the config open;
- the JSON-RPC floor: the round trip of a request for a method the server does not have,
  i.e. what any answer costs before the server does any work.

pai-lsp only: the same edit in a config whose middle role uses five unknown `$PAI_…` variables
(their cost must not depend on how many there are), and an in-process run of the same edits
through the server's document store and analysis, timing garbage collection with `gc.callbacks`.

    cd bench && npm ci && cd .. && .venv/bin/python bench/lsp_latency.py
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "schemas" / "pai-job-v1.schema.json"
JSON_SERVER = ROOT / "bench" / "node_modules" / ".bin" / "vscode-json-language-server"
OURS = "pai-lsp"
REFERENCE = "vscode-json-languageserver"
SIZES = (1, 100, 1000, 3000, 10000)
UNKNOWN = " ".join(f"$PAI_NOT_DEFINED_{i}" for i in range(5))
TICK = os.sysconf("SC_CLK_TCK")


def role(i: int, extra: str = "") -> dict:
    return {
        "name": f"worker{i}",
        "taskNumber": 2,
        "cpuNumber": 4,
        "memoryMB": 8192,
        "shmMB": 512,
        "gpuNumber": 1,
        "portList": [{"label": "tb", "beginAt": 0, "portNumber": 1}] + ([{"label": "jupyter", "beginAt": 0, "portNumber": 1}] if i == 0 else []),
        "command": f"cd $PAI_JOB_NAME && python train.py --rank $PAI_TASK_INDEX --peers $PAI_TASK_ROLE_worker{i}_HOST_LIST{extra}",
        "minFailedTaskCount": 1,
    }


def config(roles: int, unknown: bool = False) -> str:
    """A generated config; with `unknown`, the middle role's command uses five undefined variables."""
    return json.dumps({
        "jobName": "bench",
        "image": "openpai/pai.example.tensorflow",
        "dataDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/data/cifar10",
        "outputDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/output/$PAI_JOB_NAME",
        "codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
        "virtualCluster": "default",
        "retryCount": 0,
        "taskRoles": [role(i, " " + UNKNOWN if unknown and i == roles // 2 else "") for i in range(roles)],
        "jobEnvs": {"isDebug": False, "EPOCHS": "10"},
    }, indent=2) + "\n"


def middle(text: str, marker: str) -> tuple[int, int]:
    """(line, column) just after `marker` in the middle role (the first one past the text's middle)."""
    roles_at = text.index('"taskRoles"')
    found = text.find(marker, roles_at + (len(text) - roles_at) // 2 - 600)
    offset = (found if found >= 0 else text.index(marker)) + len(marker)
    return text.count("\n", 0, offset), offset - (text.rfind("\n", 0, offset) + 1)


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children so far."""
    total = 0.0
    for p in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def rss_mb(pid: int) -> float:
    total = 0
    for p in [pid, *_children(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


class Session:
    """One server process driven over stdio."""

    def __init__(self, command: list[str]):
        self.command = command
        self.client = LanguageClient("bench", "1")
        self.diagnostics: asyncio.Queue = asyncio.Queue()
        self.versions: dict[str, int] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics.put_nowait((time.perf_counter(), params))

        @self.client.feature(types.WORKSPACE_CONFIGURATION)
        def _configuration(params: types.ConfigurationParams) -> list:
            return [self.settings().get(item.section or "", None) for item in params.items]

    @property
    def pid(self) -> int:
        return self.client._server.pid  # the process pygls started

    def settings(self) -> dict:
        return {"json": {"validate": {"enable": True},
                         "schemas": [{"fileMatch": ["*.pai.json"], "url": SCHEMA.as_uri()}]}}

    async def start(self, root: Path) -> float:
        t0 = time.perf_counter()
        await self.client.start_io(*self.command)
        caps = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                completion=types.CompletionClientCapabilities(
                    completion_item=types.ClientCompletionItemOptions(snippet_support=True)),
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities()),
            workspace=types.WorkspaceClientCapabilities(configuration=True))
        await self.client.initialize_async(types.InitializeParams(
            capabilities=caps, root_uri=root.as_uri(), process_id=None,
            initialization_options={"provideFormatter": True, "handledSchemaProtocols": ["file"]}))
        elapsed = time.perf_counter() - t0
        self.client.initialized(types.InitializedParams())
        self.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=self.settings()))
        return elapsed

    async def open(self, uri: str, text: str) -> float:
        """Seconds from sending didOpen to the first diagnostics of the document."""
        self.versions[uri] = 1
        t0 = time.perf_counter()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "json", 1, text)))
        return await self.wait(uri, timeout=120) - t0

    async def wait(self, uri: str, timeout: float = 60) -> float:
        while True:
            stamp, params = await asyncio.wait_for(self.diagnostics.get(), timeout)
            if params.uri == uri:
                return stamp

    async def change(self, uri: str, line: int, start: int, end: int, text: str) -> float:
        """Seconds from sending an incremental change to the diagnostics that answer it."""
        while not self.diagnostics.empty():
            self.diagnostics.get_nowait()
        self.versions[uri] += 1
        change = types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, start), types.Position(line, end)), text=text)
        t0 = time.perf_counter()
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(self.versions[uri], uri), [change]))
        return await self.wait(uri) - t0

    async def edits(self, uri: str, text: str, rounds: int) -> tuple[float, float]:
        """(median latency, CPU seconds per edit) of `rounds` edits of one memoryMB value."""
        line, col = middle(text, '"memoryMB": ')
        times = []
        cpu0 = cpu_seconds(self.pid)
        for i in range(rounds):
            times.append(await self.change(uri, line, col, col + 4, "8193" if i % 2 == 0 else "8192"))
        return statistics.median(times), (cpu_seconds(self.pid) - cpu0) / rounds

    async def complete(self, uri: str, line: int, character: int, rounds: int) -> tuple[float, int]:
        times, count = [], 0
        for _ in range(rounds):
            t0 = time.perf_counter()
            result = await self.client.text_document_completion_async(
                types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(line, character)))
            times.append(time.perf_counter() - t0)
            count = len(result.items if isinstance(result, types.CompletionList) else (result or []))
        return statistics.median(times), count

    async def floor(self, rounds: int) -> float:
        """Median round trip of a request the server answers with an error at once."""
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            try:
                await self.client.protocol.send_request_async("pai/benchNoSuchMethod", {})
            except Exception:  # noqa: BLE001 - the error answer is the point
                pass
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 10)
            self.client.exit(None)
        except Exception:  # noqa: BLE001 - a benchmark only needs the process gone
            pass
        await self.client.stop()


async def measure(command: list[str], size: int, rounds: int, ours: bool) -> dict:
    text = config(size)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        session = Session(command)
        spawned = time.perf_counter()
        out: dict = {"initialize": await session.start(root)}
        await session.floor(1)  # answered once the server has loaded: the open below measures the config's cost
        out["ready"] = time.perf_counter() - spawned
        uri = (root / "job.pai.json").as_uri()
        cpu0 = cpu_seconds(session.pid)
        out["open"] = await session.open(uri, text)
        out["cpu_open"] = cpu_seconds(session.pid) - cpu0
        await asyncio.sleep(0.3)
        out["rss"] = rss_mb(session.pid)
        out["change"], out["cpu_edit"] = await session.edits(uri, text, rounds)
        line, col = middle(text, '"gpuNumber": 1,')
        out["complete_key"], out["items_key"] = await session.complete(uri, line, col + 1, rounds)
        line, col = middle(text, "--rank $PAI_")
        out["complete_var"], out["items_var"] = await session.complete(uri, line, col, rounds)
        out["floor"] = await session.floor(rounds)
        if ours:
            unknown = config(size, unknown=True)
            uri2 = (root / "unknown.pai.json").as_uri()
            await session.open(uri2, unknown)
            out["change_unknown"], out["cpu_edit_unknown"] = await session.edits(uri2, unknown, rounds)
        await session.stop()
    return out


def in_process(size: int, rounds: int) -> dict:
    """The same edits through the server's document store and the core's analysis, without LSP:
    CPU time per edit, and the time spent collecting garbage per edit."""
    from pai_lsp.core.model import Settings
    from pai_lsp.core.validate import diagnose
    from pai_lsp.server.documents import Documents

    text = config(size)
    uri = "file:///bench.pai.json"
    store = Documents()
    store.open(uri, text, 1)
    diagnose(store.get(uri).parsed, Settings())
    line, col = middle(text, '"memoryMB": ')
    paused = [0.0]
    started = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            paused[0] += time.perf_counter() - started[0]

    gc.callbacks.append(on_gc)
    try:
        times = []
        for i in range(rounds):
            t0 = time.process_time()
            change = types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(line, col), types.Position(line, col + 4)),
                text="8193" if i % 2 == 0 else "8192")
            store.change(uri, [change], i + 2)
            diagnose(store.get(uri).parsed, Settings())
            times.append(time.process_time() - t0)
    finally:
        gc.callbacks.remove(on_gc)
    return {"edit": statistics.median(times), "gc": paused[0] / rounds}


def physical(size: int) -> dict:
    """What any server must spend: decode the didOpen message (C JSON) for open, and for an edit
    copy the text once; done here in-process, no server involved."""
    text = config(size)
    message = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                          "params": {"textDocument": {"uri": "file:///x", "languageId": "json", "version": 1, "text": text}}})
    t0 = time.perf_counter()
    json.loads(message)
    decode = time.perf_counter() - t0
    t0 = time.perf_counter()
    json.loads(text)
    parse = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(10):
        copied = text[: len(text) // 2] + "8193" + text[len(text) // 2 + 4 :]
    copy = (time.perf_counter() - t0) / 10
    del copied
    return {"bytes": len(text.encode()), "decode": decode, "parse": parse, "copy": copy}


def ms(value: float | None) -> str:
    return "—" if value is None else f"{value * 1000:.1f}"


def report(sizes: list[int], results: dict, inproc: dict, floors: dict, names: list[str]) -> None:
    ref = REFERENCE in names

    def ratio(size: int, key: str) -> str:
        if not ref:
            return "—"
        a, b = results[OURS][size][key], results[REFERENCE][size][key]
        return f"{a / b:.2f}×" if b > 0 else "—"

    print("\n### Open -> first diagnostics (ms), and the server's CPU for it (ms)\n")
    print(f"| roles | bytes | {OURS} | {REFERENCE} | ratio | {OURS} CPU | {REFERENCE} CPU | CPU ratio | "
          "floor: decode the didOpen message | floor: json.loads the text |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        o, r = results[OURS][s], results.get(REFERENCE, {}).get(s, {})
        print(f"| {s:,} | {floors[s]['bytes']:,} | {ms(o['open'])} | {ms(r.get('open'))} | {ratio(s, 'open')} | "
              f"{ms(o['cpu_open'])} | {ms(r.get('cpu_open'))} | {ratio(s, 'cpu_open')} | {ms(floors[s]['decode'])} | {ms(floors[s]['parse'])} |")
    print("\n### One edit: didChange -> diagnostics (ms, median) and server CPU per edit (ms)\n")
    print(f"| roles | {OURS} latency | {REFERENCE} latency | {OURS} CPU | {REFERENCE} CPU | CPU ratio | "
          f"{OURS} CPU, 5 unknown $PAI_ variables | in-process CPU / GC per edit | floor: round trip | floor: copy the text |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        o, r = results[OURS][s], results.get(REFERENCE, {}).get(s, {})
        print(f"| {s:,} | {ms(o['change'])} | {ms(r.get('change'))} | {ms(o['cpu_edit'])} | {ms(r.get('cpu_edit'))} | "
              f"{ratio(s, 'cpu_edit')} | {ms(o['cpu_edit_unknown'])} | {ms(inproc[s]['edit'])} / {ms(inproc[s]['gc'])} | "
              f"{ms(o['floor'])} | {ms(floors[s]['copy'])} |")
    print("\n### Completion (ms, median; items)\n")
    print(f"| roles | {OURS} key | {REFERENCE} key | {OURS} `$PAI_` | {REFERENCE} `$PAI_` | floor: round trip ({OURS} / {REFERENCE}) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        o, r = results[OURS][s], results.get(REFERENCE, {}).get(s, {})
        print(f"| {s:,} | {ms(o['complete_key'])} ({o['items_key']}) | {ms(r.get('complete_key'))} ({r.get('items_key', '—')}) | "
              f"{ms(o['complete_var'])} ({o['items_var']}) | {ms(r.get('complete_var'))} ({r.get('items_var', '—')}) | "
              f"{ms(o['floor'])} / {ms(r.get('floor'))} |")
    print("\n### Resident memory with the config open (MB); start: initialize round trip and ready to serve, process start included (ms)\n")
    print(f"| roles | {OURS} | {REFERENCE} | {OURS} initialize / ready | {REFERENCE} initialize / ready |")
    print("|---:|---:|---:|---:|---:|")
    for s in sizes:
        o, r = results[OURS][s], results.get(REFERENCE, {}).get(s, {})
        rr = f"{r['rss']:.1f}" if r else "—"
        print(f"| {s:,} | {o['rss']:.1f} | {rr} | {ms(o['initialize'])} / {ms(o['ready'])} | "
              f"{ms(r.get('initialize'))} / {ms(r.get('ready'))} |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated role counts")
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    servers = {OURS: [sys.executable, "-m", "pai_lsp", "lsp"]}
    if not args.no_reference:
        if not JSON_SERVER.exists():
            print("reference server missing: run `npm ci` in bench/ (or pass --no-reference)", file=sys.stderr)
            return 2
        servers[REFERENCE] = [str(JSON_SERVER), "--stdio"]
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"{args.rounds} rounds, medians; load average at start {' '.join(load)}; {os.cpu_count()} cores")
    results: dict = {name: {} for name in servers}
    inproc, floors = {}, {}
    for size in sizes:
        for name, command in servers.items():
            results[name][size] = asyncio.run(measure(command, size, args.rounds, ours=name == OURS))
            print(f"  {size:>6} roles  {name}: {json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in results[name][size].items()})}",
                  file=sys.stderr)
        inproc[size] = in_process(size, args.rounds)
        floors[size] = physical(size)
    report(sizes, results, inproc, floors, list(servers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
