"""Typing into one long line: the language server's memory and CPU per keystroke as the line grows,
for a v1 `*.pai.json` against VS Code's JSON language server and a v2 `*.pai.yaml` against Red Hat's
yaml-language-server (each given the job schema), same script, same run.

Each server is started afresh and opens a small job file; then N incremental didChange edits
(`--edits`, default 24,000) each insert one character at the end of one command (a string value on
one line: a role's `command` in v1, a line of `commands` with a parameter template in v2), as an
editor sends them while someone types. Every 100 edits a documentSymbol request, which a server
answers only after the edits before it (an editor that keeps up with its server). At checkpoints of
the line's length: the resident memory of the server's process tree and of its main process (after a
1 s pause) and the
CPU it spent per edit since the checkpoint before. The memory's growth is taken from the first
checkpoint (1,000 characters typed: caches warm, the allocator's pools grown) to the last.

`--source DIR` (repeatable) runs pai-lsp from other checkouts as well (e.g. one of main made with
`git worktree add --detach /tmp/base main`), to measure before and after a change the same way.

    cd bench && npm ci && cd .. && .venv/bin/python bench/typing_memory.py [--edits 24000] [--runs 1]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_latency import JSON_SERVER, Session, cpu_seconds, rss_mb  # noqa: E402  (the v1 bench's driver)
from lsp_v2 import YAML_SERVER, YamlSession  # noqa: E402  (the v2 bench's driver)

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = (1_000, 2_000, 4_000, 8_000, 12_000, 16_000, 24_000, 48_000)
SYNC_EVERY = 100
WORDS = "the quick brown fox jumps over the lazy dog "  # neither JSON nor YAML reads anything special in it

V1 = """{
  "jobName": "typing",
  "image": "openpai/pai.example.tensorflow",
  "taskRoles": [
    {
      "name": "worker",
      "taskNumber": 1,
      "cpuNumber": 2,
      "memoryMB": 8192,
      "command": "python train.py --hosts $PAI_TASK_ROLE_worker_HOST_LIST |"
    }
  ]
}
"""

V2 = """protocolVersion: 2
name: typing
type: job
parameters:
  epochs: 10
prerequisites:
  - name: image
    type: dockerimage
    uri: ubuntu:18.04
taskRoles:
  worker:
    instances: 1
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands:
      - python train.py --epochs <% $parameters.epochs %> --hosts $PAI_TASK_ROLE_worker_HOST_LIST |
defaults:
  virtualCluster: default
"""


def typed_into(template: str) -> tuple[str, tuple[int, int]]:
    """The text, and the (line, column) where typing starts: where the template has `|`."""
    offset = template.index("|")
    return template.replace("|", "", 1), (template.count("\n", 0, offset), offset - (template.rfind("\n", 0, offset) + 1))


FILES = {  # kind -> (file name, text, where typing starts)
    "v1": ("job.pai.json", *typed_into(V1)),
    "v2": ("job.pai.yaml", *typed_into(V2)),
}


def own_rss_mb(pid: int) -> float:
    """The resident memory of the process alone (pai-lsp's worker process, which counts the files an
    upload would send, is a child: in `rss_mb`, not here)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def ours(source: Path) -> list[str]:
    """pai-lsp from the checkout `source` (`-P`: the working folder does not come before it)."""
    return ["env", f"PYTHONPATH={source}", sys.executable, "-P", "-m", "pai_lsp", "lsp"]


async def measure(kind: str, command: list[str], edits: int) -> list[dict]:
    """One server, one file, `edits` keystrokes: a row per checkpoint."""
    name, text, (line, col) = FILES[kind]
    session = YamlSession(command) if kind == "v2" else Session(command)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        await session.start(root)
        uri = (root / name).as_uri()
        await session.open(uri, text)
        send = session.client.protocol._send_data  # raw messages: the client's own cost stays small
        doc = types.TextDocumentIdentifier(uri)
        cpu0, t0, done = cpu_seconds(session.pid), time.perf_counter(), 0
        for point in [p for p in CHECKPOINTS if p < edits] + [edits]:
            for i in range(done, point):
                send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": uri, "version": i + 2},
                    "contentChanges": [{"range": {"start": {"line": line, "character": col + i},
                                                  "end": {"line": line, "character": col + i}},
                                        "text": WORDS[i % len(WORDS)]}]}})
                if i % SYNC_EVERY == SYNC_EVERY - 1:
                    await session.client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
            await session.client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
            cpu1, t1 = cpu_seconds(session.pid), time.perf_counter()
            await asyncio.sleep(1.0)
            rows.append({"typed": point, "line": col + point, "rss": rss_mb(session.pid), "rss_main": own_rss_mb(session.pid),
                         "cpu_edit": (cpu1 - cpu0) / (point - done), "wall_edit": (t1 - t0) / (point - done)})
            cpu0, t0, done = cpu_seconds(session.pid), time.perf_counter(), point
        await session.stop()
    return rows


def report(kind: str, results: dict[str, list[list[dict]]]) -> None:
    names = list(results)
    print(f"\n### {kind}: one character per didChange at the end of one line (medians of {len(results[names[0]])} runs)\n")
    print("RSS: the process tree's (pai-lsp's main process alone in brackets); CPU: per edit, since the row before.\n")
    print("| characters typed (line length) | " + " | ".join(f"{n}: RSS (MB) | {n}: CPU per edit (ms)" for n in names) + " |")
    print("|---:|" + "---:|---:|" * len(names))
    first = results[names[0]][0]

    def median(runs: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    for index, row in enumerate(first):
        cells = []
        for n in names:
            runs = [r[index] for r in results[n]]
            tree, main = median(runs, "rss"), median(runs, "rss_main")
            rss = f"{tree:.1f} ({main:.1f})" if abs(tree - main) > 0.05 else f"{tree:.1f}"
            cells.append(f"{rss} | {median(runs, 'cpu_edit') * 1000:.2f}")
        print(f"| {row['typed']:,} ({row['line']:,}) | " + " | ".join(cells) + " |")
    typed = first[-1]["typed"] - first[0]["typed"]
    if not typed:  # one checkpoint (fewer than 1,000 edits): no growth to tell
        return
    growth = []
    for n in names:
        grew = statistics.median(r[-1]["rss"] - r[0]["rss"] for r in results[n])
        growth.append(f"{n} {grew:+.1f} MB ({grew * 1024 / typed:+.2f} KB per edit)")
    print(f"\nGrowth of the RSS from {first[0]['typed']:,} to {first[-1]['typed']:,} characters typed: " + "; ".join(growth))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=24_000, help="characters typed into the line")
    parser.add_argument("--runs", type=int, default=1, help="sessions per server and file, the servers' order alternating")
    parser.add_argument("--kind", choices=list(FILES), action="append", help="v1, v2 (default: both)")
    parser.add_argument("--source", action="append", type=Path, help="another pai-lsp checkout to run too (repeatable)")
    parser.add_argument("--no-reference", action="store_true", help="pai-lsp only")
    args = parser.parse_args()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"{args.edits:,} edits, {args.runs} run(s); load average at start {load}")
    for kind in args.kind or list(FILES):
        servers = {"pai-lsp": ours(ROOT)}
        for source in args.source or []:
            servers[f"pai-lsp ({source})"] = ours(source.resolve())
        reference = JSON_SERVER if kind == "v1" else YAML_SERVER
        if not args.no_reference:
            if not reference.exists():
                print("reference server missing: run `npm ci` in bench/", file=sys.stderr)
                return 2
            servers[reference.name] = [str(reference), "--stdio"]
        results: dict[str, list[list[dict]]] = {n: [] for n in servers}
        for run in range(args.runs):
            for n in servers if run % 2 == 0 else list(servers)[::-1]:
                rows = asyncio.run(measure(kind, servers[n], args.edits))
                results[n].append(rows)
                print(f"  run {run + 1} {kind} {n}: {json.dumps(rows[-1], default=lambda x: round(x, 4))}", file=sys.stderr)
        report(kind, results)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"\nload average at the end {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
