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

`--before DIR` adds a third side, alternated with the two: pai-lsp from another checkout (`git worktree
add --detach /tmp/base main`, or `git archive`), its folder first on PYTHONPATH, bytecode written alike.
Every run notes the 1-minute load when it starts; CPU times are the columns to compare on a busy machine.

    cd bench && npm ci && cd .. && .venv/bin/python bench/lsp_start.py [--format v2] [--runs 5] [--before DIR]
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
from fair import CODE, wait_for_quiet  # noqa: E402
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

    def __init__(self, command: list[str], settings: dict, cwd: Path, env: dict[str, str] | None = None):
        self.settings = settings
        self.t0 = time.perf_counter()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd,
                                        env=env)
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


def as_editor(command: list[str], fmt: Format, text: str, env: dict[str, str] | None = None) -> dict:
    """Spawn, initialize, open and ask at once: each answer's time from the spawn."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        uri = (root / f"job{fmt.suffix}").as_uri()
        server = Server(command, fmt.settings, root, env)
        try:
            out = {"initialize": server.initialize(root)}
            server.open(uri, fmt.language, text)
            asked = server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
            out["first_request"] = server.answered(asked)
            out["diagnostics"] = server.diagnosed(uri)
        finally:
            server.stop()
    return out


def costs(command: list[str], fmt: Format, text: str, env: dict[str, str] | None = None) -> dict:
    """Start-up CPU and idle memory, then the open's CPU and the memory with the file open."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        uri = (root / f"job{fmt.suffix}").as_uri()
        server = Server(command, fmt.settings, root, env)
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


def measure(command: list[str], fmt: Format, text: str, env: dict[str, str] | None = None) -> dict:
    wait_for_quiet()
    return {"load": os.getloadavg()[0], **as_editor(command, fmt, text, env), **costs(command, fmt, text, env)}


def with_bytecode(*checkouts: Path) -> None:
    """pai_lsp's bytecode written, and kept by every process started from here on."""
    import compileall

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for checkout in checkouts:
        compileall.compile_dir(checkout / "pai_lsp", quiet=1)


def rotated(runs: int, sides: dict) -> dict[str, list[dict]]:
    """`runs` rounds of every side, the order turned by one each round (each side as often first)."""
    names = list(sides)
    out: dict[str, list[dict]] = {name: [] for name in names}
    for r in range(runs):
        for name in names[r % len(names):] + names[: r % len(names)]:
            done = sides[name]()
            out[name].append(done)
            print(f"round {r} {name}: open CPU {done['cpu_open'] * 1000:.0f} ms, start-up CPU {done['cpu_start'] * 1000:.0f} ms, "
                  f"load {done['load']:.1f}", file=sys.stderr, flush=True)
    return out


def ms(value: float) -> str:
    return f"{value * 1000:,.0f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", choices=("v1", "v2"), default="v1")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated role counts")
    parser.add_argument("--before", type=Path, help="another checkout of pai-lsp, measured alternately with this one")
    args = parser.parse_args()
    fmt = V1 if args.format == "v1" else V2
    if not Path(fmt.reference[0]).exists():
        print("reference server missing: run `npm ci` in bench/", file=sys.stderr)
        return 2
    with_bytecode(CODE, *([args.before] if args.before else []))
    before_env = dict(os.environ, PYTHONPATH=str(args.before.resolve())) if args.before else None
    print(f"{args.runs} runs each, alternated, medians; {os.cpu_count()} cores; pai-lsp: {' '.join(OURS)}; "
          f"reference: {fmt.reference_name}" + (f"; before: {args.before}" if args.before else ""))
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        text = fmt.text(size)
        sides = {"ours": lambda text=text: measure(OURS, fmt, text), "reference": lambda text=text: measure(fmt.reference, fmt, text)}
        if before_env is not None:
            sides["before"] = lambda text=text: measure(OURS, fmt, text, before_env)
        compared = rotated(args.runs, sides)
        for name, runs in compared.items():
            print(f"  {size:>5} roles: {name} {runs}", file=sys.stderr)
        rows.append((size, len(text.encode()), compared))

    def med(runs: list[dict], key: str) -> float:
        return statistics.median(run[key] for run in runs)

    def cell(c: dict, key: str, fmt_value=ms) -> str:
        return " / ".join(fmt_value(med(c[name], key)) for name in c)

    mb = "{:.0f}".format
    floor = [bare(BARE_PYGLS) for _ in range(args.runs)]
    python_alone = statistics.median(runtime_cpu([sys.executable, "-c", "pass"]) for _ in range(args.runs))
    node = shutil.which("node")
    node_alone = statistics.median(runtime_cpu([node, "-e", ""]) for _ in range(args.runs)) if node else float("nan")
    print("\n| roles | bytes | initialize answered (ms from spawn) | first request after the open | first diagnostics | "
          "open -> diagnostics (ms) | start-up CPU (ms) | open CPU (ms) | idle MB (processes) | MB with the file open (processes) | load |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size, size_bytes, c in rows:
        loads = [run["load"] for runs in c.values() for run in runs]
        idle = " / ".join(f"{mb(med(c[n], 'rss_idle'))} ({med(c[n], 'processes_idle'):.0f})" for n in c)
        opened = " / ".join(f"{mb(med(c[n], 'rss_open'))} ({med(c[n], 'processes_open'):.0f})" for n in c)
        print(f"| {size:,} | {size_bytes:,} | {cell(c, 'initialize')} | {cell(c, 'first_request')} | {cell(c, 'diagnostics')} | "
              f"{cell(c, 'open')} | {cell(c, 'cpu_start')} | {cell(c, 'cpu_open')} | {idle} | {opened} | "
              f"{min(loads):.1f}–{max(loads):.1f} |")
    print(f"\nEach cell: {' / '.join(rows[0][2]) if rows else ''} (ours: this checkout). The floor, a server of pygls alone "
          f"(no feature; not alternated): initialize answered {ms(med(floor, 'initialize'))} ms from spawn, start-up CPU "
          f"{ms(med(floor, 'cpu_start'))} ms, idle {mb(med(floor, 'rss_idle'))} MB. The runtimes alone (start and exit, no code): "
          f"CPython {ms(python_alone)} ms of CPU, node {ms(node_alone)} ms.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
