"""v2 job files (`*.pai.yaml`) in the editor: pai-lsp against Red Hat's `yaml-language-server` given
`schemas/pai-job-v2.schema.json` (its `yaml.schemas` setting), same script, same run.

Two files: a real OpenPAI example from the corpus, and a generated job of 3,000 task roles. Each
server is started afresh for each file, the servers alternating (which goes first changes from one
run to the next), and measured over stdio as an editor drives it:

- open -> first diagnostics;
- incremental didChange of one `memoryMB` (the middle role's) -> the diagnostics that answer it
  (median of the rounds), and the CPU the server spent per edit;
- completion at a key position inside a role (median), and after `$PAI_` in a command;
- resident memory with the file open.

    cd bench && npm ci && cd .. && .venv/bin/python bench/lsp_v2.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_latency import Session, cpu_seconds, ms, rss_mb  # noqa: E402  (the v1 bench's driver)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "schemas" / "pai-job-v2.schema.json"
YAML_SERVER = ROOT / "bench" / "node_modules" / ".bin" / "yaml-language-server"
SHARED = Path(os.environ.get("PAI_SHARED_DIR") or ROOT.parent / "shared")
CORPUS = SHARED / "corpus" / "openpai-examples" / "v2" / "tensorflow-cifar10.yaml"
OURS, REFERENCE = "pai-lsp", "yaml-language-server"


def generated(roles: int) -> str:
    """A v2 job of `roles` task roles, each with ports, a template and `$PAI_…` variables."""
    lines = ["protocolVersion: 2", "name: bench", "type: job", "parameters:", "  epochs: 10", "prerequisites:",
             "  - name: image", "    type: dockerimage", "    uri: openpai/standard:python_3.6-pytorch_1.2.0-gpu", "taskRoles:"]
    for i in range(roles):
        lines += [f"  worker{i}:", "    instances: 2", "    dockerImage: image", "    resourcePerInstance:", "      cpu: 4",
                  "      memoryMB: 8192", "      gpu: 1", "      ports:", "        tb: 1", "    commands:",
                  f"      - python train.py --epochs <% $parameters.epochs %> --peers $PAI_TASK_ROLE_worker{i}_HOST_LIST"]
    lines += ["defaults:", "  virtualCluster: default", ""]
    return "\n".join(lines)


def position(text: str, marker: str, after: bool = True) -> tuple[int, int]:
    """(line, column) of `marker` in the middle of the text (just after it, or at its start)."""
    found = text.find(marker, len(text) // 2)
    found = found if found >= 0 else text.index(marker)
    offset = found + (len(marker) if after else 0)
    return text.count("\n", 0, offset), offset - (text.rfind("\n", 0, offset) + 1)


class YamlSession(Session):
    """The v1 bench's session, opening YAML documents and telling the YAML server the v2 schema."""

    def settings(self) -> dict:
        return {"yaml": {"validate": True, "hover": True, "completion": True, "schemas": {SCHEMA.as_uri(): ["*.pai.yaml"]},
                         "schemaStore": {"enable": False}},
                "redhat": {"telemetry": {"enabled": False}}}

    async def open(self, uri: str, text: str) -> float:
        self.versions[uri] = 1
        t0 = time.perf_counter()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text)))
        return await self.wait(uri, timeout=300) - t0

    async def edit_memory(self, uri: str, text: str, rounds: int) -> tuple[float, float]:
        line, col = position(text, "memoryMB: ")
        width = len(text[text.find("memoryMB: ", len(text) // 2) + 10:].split("\n", 1)[0])
        times = []
        cpu0 = cpu_seconds(self.pid)
        for i in range(rounds):
            times.append(await self.change(uri, line, col, col + width, "8193" if i % 2 == 0 else "8192"))
            width = 4
        return statistics.median(times), (cpu_seconds(self.pid) - cpu0) / rounds


async def measure(command: list[str], text: str, rounds: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        session = YamlSession(command)
        await session.start(root)
        await session.floor(1)
        uri = (root / "job.pai.yaml").as_uri()
        cpu0 = cpu_seconds(session.pid)
        out: dict = {"open": await session.open(uri, text)}
        out["cpu_open"] = cpu_seconds(session.pid) - cpu0
        await asyncio.sleep(0.5)  # the reference validates again once its schema is loaded: let it settle
        while not session.diagnostics.empty():
            session.diagnostics.get_nowait()
        out["rss"] = rss_mb(session.pid)
        out["change"], out["cpu_edit"] = await session.edit_memory(uri, text, rounds)
        line, col = position(text, "    instances:", after=False)
        col += 4  # at the start of the key `instances` of a role: the role's keys
        out["complete_key"], out["items_key"] = await session.complete(uri, line, col, rounds)
        line, col = position(text, "$PAI_")
        out["complete_var"], out["items_var"] = await session.complete(uri, line, col, rounds)
        await session.stop()
    return out


def curve(sizes: list[int], rounds: int) -> None:
    """pai-lsp's own work per size, in-process through the server's document store: open (parse and
    check), and an edit of one memoryMB (the incremental parse and the check), CPU medians."""
    from pai_lsp.core.formats import format_for
    from pai_lsp.core.model import Settings
    from pai_lsp.server.documents import Documents

    print("\n| roles | lines | open: parse + check (ms CPU) | one edit: parse + check (ms CPU, median) |")
    print("|---:|---:|---:|---:|")
    job_format = format_for("x.pai.yaml")
    for size in sizes:
        text = generated(size)
        store = Documents()
        uri = "file:///bench.pai.yaml"
        t0 = time.process_time()
        store.open(uri, text, 1)
        job_format.diagnose(store.get(uri).parsed, Settings())
        opened = time.process_time() - t0
        line, col = position(text, "memoryMB: ")
        times = []
        for i in range(rounds):
            change = types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(line, col), types.Position(line, col + 4)), text="8193" if i % 2 == 0 else "8192")
            t0 = time.process_time()
            store.change(uri, [change], i + 2)
            job_format.diagnose(store.get(uri).parsed, Settings())
            times.append(time.process_time() - t0)
        print(f"| {size:,} | {text.count(chr(10)):,} | {ms(opened)} | {ms(statistics.median(times))} |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21, help="edits and completions per session (medians)")
    parser.add_argument("--runs", type=int, default=5, help="sessions per server and file, the servers' order alternating")
    parser.add_argument("--roles", type=int, default=3000)
    parser.add_argument("--curve", default="", help="only pai-lsp's in-process curve, for these comma-separated role counts")
    args = parser.parse_args()
    if args.curve:
        curve([int(n) for n in args.curve.split(",")], args.rounds)
        return 0
    if not YAML_SERVER.exists():
        print("reference server missing: run `npm ci` in bench/", file=sys.stderr)
        return 2
    servers = {OURS: [sys.executable, "-m", "pai_lsp", "lsp"], REFERENCE: [str(YAML_SERVER), "--stdio"]}
    files = {f"corpus: {CORPUS.name}": CORPUS.read_text(encoding="utf-8"), f"generated: {args.roles:,} roles": generated(args.roles)}
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"{args.runs} runs × {args.rounds} rounds, medians; load average at start {load}; {os.cpu_count()} cores")
    results: dict = {(f, s): [] for f in files for s in servers}
    for run in range(args.runs):
        for name, text in files.items():
            order = list(servers) if run % 2 == 0 else list(reversed(servers))
            for server in order:
                found = asyncio.run(measure(servers[server], text, args.rounds))
                results[(name, server)].append(found)
                print(f"  run {run + 1} {name} {server}: {json.dumps({k: round(v, 4) for k, v in found.items()})}", file=sys.stderr)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"load average at the end {load}\n")

    def median(name: str, server: str, key: str) -> float:
        return statistics.median(r[key] for r in results[(name, server)])

    print(f"| file | measure | {OURS} | {REFERENCE} | ratio |")
    print("|---|---|---:|---:|---:|")
    rows = [("open → diagnostics (ms)", "open", ms), ("didChange → diagnostics (ms)", "change", ms),
            ("CPU per edit (ms)", "cpu_edit", ms), ("completion, a key of a role (ms)", "complete_key", ms),
            ("completion after `$PAI_` (ms)", "complete_var", ms), ("resident memory (MB)", "rss", lambda v: f"{v:.1f}")]
    for name in files:
        for label, key, show in rows:
            ours, theirs = median(name, OURS, key), median(name, REFERENCE, key)
            print(f"| {name} | {label} | {show(ours)} | {show(theirs)} | {ours / theirs:.2f}× |" if theirs else
                  f"| {name} | {label} | {show(ours)} | {show(theirs)} | — |")
        items = [statistics.median(r[k] for r in results[(name, s)]) for s in servers for k in ("items_key", "items_var")]
        print(f"| {name} | completion items (key, `$PAI_`) | {items[0]:.0f}, {items[1]:.0f} | {items[2]:.0f}, {items[3]:.0f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
