"""Start-up and idle: pai-lsp against the reference language server for the same files, same run.

v1 configs (`*.pai.json`) against VS Code's JSON server given `schemas/pai-job-v1.schema.json`, or
with `--format v2` v2 job files (`*.pai.yaml`) against Red Hat's `yaml-language-server` given the v2
schema; 1, 100, 1,000 and 3,000 task roles (`--sizes`). Each server is a fresh process for every
run, spoken to over stdio in raw JSON-RPC (no client library's own start-up in the timings), the two
alternating (bench/fair.py: ours first in even rounds), medians of `--runs` (5). Two runs per round
and side:

- as an editor opening a file: spawn, `initialize`, then `initialized`, the settings, `didOpen` and
  at once a `documentSymbol` request. Timed from the spawn: the `initialize` answer, the
  `documentSymbol` answer (the first request after the open) and the first diagnostics of the file;
- CPU and memory: spawn, `initialize`, a request the server answers with an error (so it has
  loaded), 1 s idle -> start-up CPU (the whole process tree: user + system), idle memory (RSS of
  every process of the tree) and how many processes; then `didOpen` -> its first diagnostics, 1 s
  idle -> the open's CPU, memory and processes with the file open.

pai-lsp runs with its bytecode written first (as installing a wheel writes it; `PYTHONDONTWRITEBYTECODE`
is dropped): an editable install under that variable compiles every module of pai_lsp at every start,
~0.1 s of CPU before `initialize` and ~0.1 s more at the first open, which no installed server pays.

    cd bench && npm ci && cd .. && .venv/bin/python bench/lsp_start.py [--format v2] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fair import CODE, alternate, wait_for_quiet  # noqa: E402
from lsp_latency import config as v1_config  # noqa: E402
from lsp_v2 import generated as v2_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "bench" / "node_modules" / ".bin"
OURS = [str(Path(sys.executable).with_name("pai-lsp"))]  # what the editors start
SIZES = (1, 100, 1000, 3000)
IDLE = 1.0  # seconds of quiet before CPU and memory are read
BARE_PYGLS = [sys.executable, "-c", "from pygls.lsp.server import LanguageServer; LanguageServer('bare', '1').start_io()"]


@dataclass(frozen=True)
class Format:
    suffix: str
    language: str
    text: object  # roles -> text
    reference: list[str]
    reference_name: str
    settings: dict


V1 = Format(".pai.json", "json", v1_config, [str(BIN / "vscode-json-language-server"), "--stdio"], "vscode-json-languageserver",
            {"json": {"validate": {"enable": True},
                      "schemas": [{"fileMatch": ["*.pai.json"], "url": (ROOT / "schemas" / "pai-job-v1.schema.json").as_uri()}]}})
V2 = Format(".pai.yaml", "yaml", v2_config, [str(BIN / "yaml-language-server"), "--stdio"], "yaml-language-server",
            {"yaml": {"validate": True, "hover": True, "completion": True, "schemaStore": {"enable": False},
                      "schemas": {(ROOT / "schemas" / "pai-job-v2.schema.json").as_uri(): ["*.pai.yaml"]}},
             "redhat": {"telemetry": {"enabled": False}}})


class Server:
    """One server process spoken to in raw JSON-RPC; its messages are read on a thread and stamped."""

    def __init__(self, command: list[str], settings: dict, cwd: Path):
        self.settings = settings
        self.t0 = time.perf_counter()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
        self.ps = psutil.Process(self.process.pid)
        self.received: list[tuple[float, dict]] = []  # every message the server sent, stamped
        self.arrived = threading.Condition()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if not line or length is None:
                return
            message = json.loads(out.read(length))
            stamp = time.perf_counter() - self.t0
            if "method" in message and "id" in message:  # the server asks: answer at once
                self._answer(message)
            else:
                with self.arrived:
                    self.received.append((stamp, message))
                    self.arrived.notify_all()

    def _answer(self, request: dict) -> None:
        result = None
        if request["method"] == "workspace/configuration":
            result = [self.settings.get((item.get("section") or "").split(".")[0]) for item in request["params"]["items"]]
        self._write({"jsonrpc": "2.0", "id": request["id"], "result": result})

    def _write(self, message: dict) -> None:
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict) -> int:
        self.next_id += 1
        self._write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, condition, timeout: float = 300) -> float:
        """Seconds from the spawn to the first message received that meets `condition`."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self.arrived:
            while True:
                for stamp, message in self.received[seen:]:
                    if condition(message):
                        return stamp
                seen = len(self.received)
                if not self.arrived.wait(max(0.0, deadline - time.monotonic())):
                    raise TimeoutError(f"no answer from {self.process.args[0]} in {timeout} s")

    def answered(self, request_id: int) -> float:
        return self.wait(lambda m: m.get("id") == request_id)

    def diagnosed(self, uri: str) -> float:
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)

    def initialize(self, root: Path) -> float:
        capabilities = {"workspace": {"configuration": True},
                        "textDocument": {"publishDiagnostics": {}, "documentSymbol": {"hierarchicalDocumentSymbolSupport": True}}}
        stamp = self.answered(self.request("initialize", {
            "processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": capabilities,
            "initializationOptions": {"provideFormatter": True, "handledSchemaProtocols": ["file"]}}))
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": self.settings})
        return stamp

    def open(self, uri: str, language: str, text: str) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})

    def tree(self) -> list[psutil.Process]:
        try:
            return [self.ps, *self.ps.children(recursive=True)]
        except psutil.Error:
            return []

    def cpu(self) -> float:
        total = 0.0
        for p in self.tree():
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    def memory(self) -> tuple[float, int]:
        """(MB resident over the whole process tree, processes in it)."""
        tree = self.tree()
        total = 0
        for p in tree:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        return total / 1e6, len(tree)

    def stop(self) -> None:
        try:
            self.answered(self.request("shutdown", {}))
            self.notify("exit", {})
            self.process.wait(10)
        except (TimeoutError, OSError, subprocess.TimeoutExpired):
            pass
        for p in self.tree():
            try:
                p.kill()
            except psutil.Error:
                pass
        self.process.wait()


def as_editor(command: list[str], fmt: Format, text: str) -> dict:
    """Spawn, initialize, open and ask at once: each answer's time from the spawn."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        uri = (root / f"job{fmt.suffix}").as_uri()
        server = Server(command, fmt.settings, root)
        try:
            out = {"initialize": server.initialize(root)}
            server.open(uri, fmt.language, text)
            asked = server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
            out["first_request"] = server.answered(asked)
            out["diagnostics"] = server.diagnosed(uri)
        finally:
            server.stop()
    return out


def costs(command: list[str], fmt: Format, text: str) -> dict:
    """Start-up CPU and idle memory, then the open's CPU and the memory with the file open."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        uri = (root / f"job{fmt.suffix}").as_uri()
        server = Server(command, fmt.settings, root)
        try:
            server.initialize(root)
            server.answered(server.request("pai/benchNoSuchMethod", {}))
            time.sleep(IDLE)
            cpu = server.cpu()
            out = {"cpu_start": cpu}
            out["rss_idle"], out["processes_idle"] = server.memory()
            opened = time.perf_counter()
            server.open(uri, fmt.language, text)
            out["open"] = server.diagnosed(uri) - (opened - server.t0)
            time.sleep(IDLE)
            out["cpu_open"] = server.cpu() - cpu
            out["rss_open"], out["processes_open"] = server.memory()
        finally:
            server.stop()
    return out


def bare(command: list[str]) -> dict:
    """The floor: a server of pygls alone, no feature of its own (what loading pygls and lsprotocol costs)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server = Server(command, {}, root)
        try:
            out = {"initialize": server.initialize(root)}
            server.answered(server.request("pai/benchNoSuchMethod", {}))
            time.sleep(IDLE)
            out["cpu_start"] = server.cpu()
            out["rss_idle"], out["processes_idle"] = server.memory()
        finally:
            server.stop()
    return out


def runtime_cpu(command: list[str]) -> float:
    """CPU seconds of a process that does nothing: its runtime's own start and exit."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdin=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def measure(command: list[str], fmt: Format, text: str) -> dict:
    wait_for_quiet()
    return {"load": os.getloadavg()[0], **as_editor(command, fmt, text), **costs(command, fmt, text)}


def with_bytecode() -> None:
    """pai_lsp's bytecode written, and kept by every process started from here on."""
    import compileall

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(CODE / "pai_lsp", quiet=1)


def ms(value: float) -> str:
    return f"{value * 1000:,.0f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", choices=("v1", "v2"), default="v1")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated role counts")
    args = parser.parse_args()
    fmt = V1 if args.format == "v1" else V2
    if not Path(fmt.reference[0]).exists():
        print("reference server missing: run `npm ci` in bench/", file=sys.stderr)
        return 2
    with_bytecode()
    print(f"{args.runs} runs each, alternated, medians; {os.cpu_count()} cores; pai-lsp: {' '.join(OURS)}; "
          f"reference: {fmt.reference_name}")
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        text = fmt.text(size)
        compared = alternate(args.runs, lambda r, text=text: measure(OURS, fmt, text),
                             lambda r, text=text: measure(fmt.reference, fmt, text))
        print(f"  {size:>5} roles: ours {compared.ours}\n  {'':>5}        reference {compared.reference}", file=sys.stderr)
        rows.append((size, len(text.encode()), compared))

    def med(runs: list[dict], key: str) -> float:
        return statistics.median(run[key] for run in runs)

    def pair(c, key: str, fmt_value=ms) -> str:
        return f"{fmt_value(med(c.ours, key))} / {fmt_value(med(c.reference, key))}"

    mb = "{:.0f}".format
    floor = [bare(BARE_PYGLS) for _ in range(args.runs)]
    python_alone = statistics.median(runtime_cpu([sys.executable, "-c", "pass"]) for _ in range(args.runs))
    node = shutil.which("node")
    node_alone = statistics.median(runtime_cpu([node, "-e", ""]) for _ in range(args.runs)) if node else float("nan")
    print("\n| roles | bytes | initialize answered (ms from spawn) | first request after the open | first diagnostics | "
          "open -> diagnostics (ms) | start-up CPU (ms) | open CPU (ms) | idle MB (processes) | MB with the file open (processes) | load |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size, size_bytes, c in rows:
        o, r = c.ours, c.reference
        loads = [run["load"] for run in o + r]
        print(f"| {size:,} | {size_bytes:,} | {pair(c, 'initialize')} | {pair(c, 'first_request')} | {pair(c, 'diagnostics')} | "
              f"{pair(c, 'open')} | {pair(c, 'cpu_start')} | {pair(c, 'cpu_open')} | "
              f"{mb(med(o, 'rss_idle'))} ({med(o, 'processes_idle'):.0f}) / {mb(med(r, 'rss_idle'))} ({med(r, 'processes_idle'):.0f}) | "
              f"{mb(med(o, 'rss_open'))} ({med(o, 'processes_open'):.0f}) / {mb(med(r, 'rss_open'))} ({med(r, 'processes_open'):.0f}) | "
              f"{min(loads):.1f}–{max(loads):.1f} |")
    print("\nEach cell: pai-lsp / the reference. The floor, a server of pygls alone (no feature; not alternated): "
          f"initialize answered {ms(med(floor, 'initialize'))} ms from spawn, start-up CPU {ms(med(floor, 'cpu_start'))} ms, "
          f"idle {mb(med(floor, 'rss_idle'))} MB. The runtimes alone (start and exit, no code): "
          f"CPython {ms(python_alone)} ms of CPU, node {ms(node_alone)} ms.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
