"""Language-server speed: pai-lsp against VS Code's JSON language server, same script, same run.

Measures initialize round trip (process start included), didChange -> publishDiagnostics,
completion latency, and resident memory with a small file open, on a small config (one
role, ~1 KB) and a generated large one (3,000 roles, ~1.3 MB).

    python bench/lsp_latency.py            # needs `npm ci` in bench/ for the reference
"""

from __future__ import annotations

import argparse
import asyncio
import json
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


def role(i: int) -> dict:
    return {
        "name": f"worker{i}",
        "taskNumber": 2,
        "cpuNumber": 4,
        "memoryMB": 8192,
        "shmMB": 512,
        "gpuNumber": 1,
        "portList": [{"label": "tb", "beginAt": 0, "portNumber": 1}] + ([{"label": "jupyter", "beginAt": 0, "portNumber": 1}] if i == 0 else []),
        "command": f"cd $PAI_JOB_NAME && python train.py --rank $PAI_TASK_INDEX --peers $PAI_TASK_ROLE_worker{i}_HOST_LIST",
        "minFailedTaskCount": 1,
    }


def config(roles: int) -> str:
    return json.dumps({
        "jobName": "bench",
        "image": "openpai/pai.example.tensorflow",
        "dataDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/data/cifar10",
        "outputDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/output/$PAI_JOB_NAME",
        "codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
        "virtualCluster": "default",
        "retryCount": 0,
        "taskRoles": [role(i) for i in range(roles)],
        "jobEnvs": {"isDebug": False, "EPOCHS": "10"},
    }, indent=2) + "\n"


class Session:
    """One server process driven over stdio."""

    def __init__(self, name: str, command: list[str]):
        self.name = name
        self.command = command
        self.client = LanguageClient("bench", "1")
        self.diagnostics: asyncio.Queue = asyncio.Queue()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics.put_nowait((time.perf_counter(), params))

        @self.client.feature(types.WORKSPACE_CONFIGURATION)
        def _configuration(params: types.ConfigurationParams) -> list:
            return [self.settings().get(item.section or "", None) for item in params.items]

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

    async def open(self, uri: str, text: str) -> None:
        self.versions = getattr(self, "versions", {})
        self.versions[uri] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "json", 1, text)))
        await self.wait(uri, timeout=30)

    async def wait(self, uri: str, timeout: float = 10) -> float:
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

    async def complete(self, uri: str, line: int, character: int) -> tuple[float, int]:
        t0 = time.perf_counter()
        result = await self.client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(line, character)))
        items = result.items if isinstance(result, types.CompletionList) else (result or [])
        return time.perf_counter() - t0, len(items)

    def rss_mb(self) -> float:
        pid = self.client._server.pid  # the process pygls started
        total = 0
        for p in [pid, *_children(pid)]:
            try:
                for line in Path(f"/proc/{p}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total / 1024

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 5)
            self.client.exit(None)
        except Exception:  # noqa: BLE001 - a benchmark only needs the process gone
            pass
        await self.client.stop()


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def edit_site(text: str, marker: str) -> tuple[int, int, int]:
    """(line, start, end) of the number after `marker`'s last occurrence in the middle of the text."""
    found = text.find(marker, len(text) // 2)
    offset = (found if found >= 0 else text.index(marker)) + len(marker)
    line = text.count("\n", 0, offset)
    col = offset - (text.rfind("\n", 0, offset) + 1)
    return line, col, col + 4


async def measure(name: str, command: list[str], small: str, large: str, rounds: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        session = Session(name, command)
        spawned = time.perf_counter()
        init = await session.start(root)
        out = {"initialize": init}
        small_uri, large_uri = (root / "small.pai.json").as_uri(), (root / "large.pai.json").as_uri()
        await session.open(small_uri, small)
        out["first_diagnostics"] = time.perf_counter() - spawned
        await asyncio.sleep(0.5)
        out["rss"] = session.rss_mb()
        for label, uri, text in (("small", small_uri, small), ("large", large_uri, large)):
            if label == "large":
                await session.open(uri, text)
            line, start, end = edit_site(text, '"memoryMB": ')
            times = []
            for i in range(rounds):
                value = "8193" if i % 2 == 0 else "8192"
                times.append(await session.change(uri, line, start, end, value))
            out[f"change_{label}"] = statistics.median(times)
            # Completion at a key position inside a task role, as when starting a new line.
            cline, ccol, _ = edit_site(text, '"gpuNumber": 1,')
            ctimes = []
            for _ in range(rounds):
                elapsed, count = await session.complete(uri, cline, ccol + 1)
                ctimes.append(elapsed)
            out[f"complete_{label}"] = statistics.median(ctimes)
            out[f"items_{label}"] = count
        await session.stop()
        return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args()
    small, large = config(1), config(3000)
    servers = [("pai-lsp", [sys.executable, "-m", "pai_lsp", "lsp"])]
    if not args.no_reference:
        if not JSON_SERVER.exists():
            print("reference server missing: run `npm ci` in bench/ (or pass --no-reference)", file=sys.stderr)
            return 2
        servers.append(("vscode-json-languageserver", [str(JSON_SERVER), "--stdio"]))
    print(f"small config {len(small.encode()):,} bytes, large config {len(large.encode()):,} bytes, {args.rounds} rounds, median")
    results = {name: asyncio.run(measure(name, cmd, small, large, args.rounds)) for name, cmd in servers}
    rows = [
        ("initialize round trip, process start included (s)", "initialize", "{:.3f}"),
        ("start -> first diagnostics of the small file (s)", "first_diagnostics", "{:.3f}"),
        ("didChange -> diagnostics, small (ms)", "change_small", "ms"),
        ("didChange -> diagnostics, large (ms)", "change_large", "ms"),
        ("completion, small (ms)", "complete_small", "ms"),
        ("completion, large (ms)", "complete_large", "ms"),
        ("resident memory, small file open (MB)", "rss", "{:.1f}"),
    ]
    names = list(results)
    print("| measure | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for title, key, fmt in rows:
        cells = []
        for name in names:
            value = results[name][key]
            cells.append(f"{value * 1000:.1f}" if fmt == "ms" else fmt.format(value))
        print(f"| {title} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
