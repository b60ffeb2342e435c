"""Language-server memory and process hygiene over a long session, for one or more
source trees of pai-lsp in the same run (e.g. this checkout against a checkout of main):

- typing: N one-character edits (insert, then delete, in turn) to a small config over stdio, the
  server's resident memory after a warm-up and after the N edits (KB per edit);
- replacing: N/10 full-text replacements, likewise;
- large: a 20 MB config (`--large-mb`) opened, one-character edits to its job name timed
  (didChange -> the diagnostics that answer it, median), peak resident memory, and memory once it
  is closed;
- orphans: the server started with a document open (which starts its worker processes), then
  killed with SIGKILL, or its stdin closed: how many of its children are still alive 3 s later
  (the bench ends them itself afterwards);
- checking (`--only checking`, this tree only): what checking a config costs by its size, in a
  fresh process per size — parse and check it (open), then again after a one-character edit to
  its job name (outside every task role: read afresh), and peak memory. This is what chose the
  size above which the server no longer checks a document (`LARGEST_CHECKED` in server/app.py).

Each tree runs `python -m pai_lsp lsp` with PYTHONPATH set to it; runs alternate the trees' order.

    .venv/bin/python bench/lsp_memory.py --source . --source /tmp/main-checkout --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SMALL = json.dumps({
    "jobName": "mnist",
    "image": "openpai/pai.example.tensorflow",
    "codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
    "taskRoles": [{"name": "worker", "taskNumber": 2, "memoryMB": 8192,
                   "command": "python train.py --hosts $PAI_TASK_ROLE_worker_HOST_LIST"}],
}, indent=2) + "\n"


def large_config(megabytes: float) -> str:
    """A config of about `megabytes` MB: many task roles."""
    role = {"name": "worker{}", "taskNumber": 2, "cpuNumber": 4, "memoryMB": 8192, "gpuNumber": 1,
            "command": "cd $PAI_JOB_NAME && python train.py --rank $PAI_TASK_INDEX --peers $PAI_TASK_ROLE_worker{}_HOST_LIST"}
    one = json.dumps(role, indent=2)
    count = int(megabytes * 1024 * 1024 / (len(one) + 8))
    roles = ",\n".join(one.replace("{}", str(i)) for i in range(count))
    return '{\n  "jobName": "big",\n  "image": "img",\n  "taskRoles": [\n' + roles + "\n  ]\n}\n"


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            kids = [int(c) for t in os.listdir(f"/proc/{p}/task") for c in Path(f"/proc/{p}/task/{t}/children").read_text().split()]
        except OSError:
            kids = []
        out += kids
        todo += kids
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Session:
    """One server process, driven over stdio as an editor drives it."""

    def __init__(self, source: Path, root: Path):
        self.source, self.root = source, root
        self.client = LanguageClient("bench", "1")
        self.versions: dict[str, int] = {}
        self.published: dict[str, int | None] = {}
        self.arrived = asyncio.Event()
        self.stamp = 0.0

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = params.version
            self.stamp = time.perf_counter()
            self.arrived.set()

    @property
    def pid(self) -> int:
        return self.client._server.pid

    async def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(self.source))
        await self.client.start_io(sys.executable, "-m", "pai_lsp", "lsp", env=env, cwd=str(self.root))
        await self.client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=self.root.as_uri()))
        self.client.initialized(types.InitializedParams())

    async def until_version(self, uri: str, version: int, timeout: float = 300) -> float:
        deadline = time.perf_counter() + timeout
        while self.published.get(uri) != version:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), max(0.01, deadline - time.perf_counter()))
        return self.stamp

    async def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        self.versions[uri] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "json", 1, text)))
        await self.until_version(uri, 1)
        return uri

    def change(self, uri: str, change: types.TextDocumentContentChangeEvent) -> int:
        self.versions[uri] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(self.versions[uri], uri), [change]))
        return self.versions[uri]

    def type_one(self, uri: str, i: int, line: int, col: int) -> int:
        """Insert a character, or delete the one inserted before."""
        at = types.Position(line, col)
        rng = types.Range(at, at) if i % 2 == 0 else types.Range(at, types.Position(line, col + 1))
        return self.change(uri, types.TextDocumentContentChangePartial(range=rng, text="x" if i % 2 == 0 else ""))

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 30)
            self.client.exit(None)
        except Exception:  # noqa: BLE001 - a benchmark only needs the process gone
            pass
        await self.client.stop()


async def typing(source: Path, edits: int, replace: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        session = Session(source, Path(tmp))
        await session.start()
        uri = await session.open(Path(tmp) / "job.pai.json", SMALL)
        line, col = 1, SMALL.splitlines()[1].index("mnist")
        other = SMALL.replace("mnist", "mnist2")

        async def run(n: int) -> None:
            version = 1
            for i in range(n):
                if replace:
                    version = session.change(uri, types.TextDocumentContentChangeWholeDocument(other if i % 2 == 0 else SMALL))
                else:
                    version = session.type_one(uri, i, line, col)
                if i % 200 == 199:  # an editor that keeps up: no more than 200 changes in flight
                    await session.until_version(uri, version)
            await session.until_version(uri, version)

        await run(2000)  # warm-up: caches, the worker's first count, the allocator's arenas
        await asyncio.sleep(0.5)
        before = rss_mb(session.pid)
        t0 = time.perf_counter()
        await run(edits)
        elapsed = time.perf_counter() - t0
        await asyncio.sleep(0.5)
        after = rss_mb(session.pid)
        await session.stop()
    return {"rss_before": before, "rss_after": after, "kb_per_edit": (after - before) * 1024 / edits, "seconds": elapsed}


async def large(source: Path, megabytes: float, rounds: int) -> dict:
    text = large_config(megabytes)
    target, col = 1, text.splitlines()[1].index("big") + 1  # in the job's name: outside every task role
    peak = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        session = Session(source, Path(tmp))
        await session.start()
        await session.open(Path(tmp) / "job.pai.json", SMALL)  # the checker loaded: the baseline a user sees
        await asyncio.sleep(0.5)
        baseline = rss_mb(session.pid)

        async def watch() -> None:
            nonlocal peak
            while True:
                peak = max(peak, rss_mb(session.pid))
                await asyncio.sleep(0.05)

        watcher = asyncio.ensure_future(watch())
        t0 = time.perf_counter()
        uri = await session.open(Path(tmp) / "big.pai.json", text)
        opened = time.perf_counter() - t0
        times = []
        for i in range(rounds):
            t0 = time.perf_counter()
            version = session.type_one(uri, i, target, col)
            times.append(await session.until_version(uri, version) - t0)
        with_open = rss_mb(session.pid)
        session.client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
        await asyncio.sleep(2)
        closed = rss_mb(session.pid)
        watcher.cancel()
        await session.stop()
    return {"bytes": len(text.encode()), "open": opened, "edit": statistics.median(times), "baseline": baseline,
            "rss_open": with_open, "peak": peak, "rss_closed": closed}


async def orphans(source: Path, how: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        session = Session(source, Path(tmp))
        await session.start()
        await session.open(Path(tmp) / "job.pai.json", SMALL)
        deadline = time.perf_counter() + 20
        while len(descendants(session.pid)) < 1 and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
        await asyncio.sleep(1)
        children = descendants(session.pid)
        if how == "kill":
            os.kill(session.pid, signal.SIGKILL)
        else:
            session.client._server.stdin.close()
        await asyncio.sleep(3)
        left = [p for p in children if alive(p)]
        for p in left:  # started by this bench: ended by it
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.kill(session.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        await session.client.stop()
    return {"children": len(children), "left": len(left)}


def checking_one(megabytes: float) -> dict:
    """In this process: the cost of checking a config of `megabytes` MB (see the module docstring)."""
    import resource

    from pai_lsp.core.jsonc import parse
    from pai_lsp.core.model import Settings
    from pai_lsp.core.validate import diagnose

    text = large_config(megabytes)
    t0 = time.perf_counter()
    diagnose(parse(text), Settings())
    opened = time.perf_counter() - t0
    edited_text = text.replace('"big"', '"bigx"', 1)
    t0 = time.perf_counter()
    diagnose(parse(edited_text), Settings())
    return {"bytes": len(text), "open": opened, "edit": time.perf_counter() - t0,
            "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def checking(sizes: list[float]) -> None:
    import subprocess

    print("\n| MB | open: parse + check (s) | one edit outside the task roles (s) | peak RSS (MB) |\n|---:|---:|---:|---:|")
    for mb in sizes:
        out = subprocess.run([sys.executable, __file__, "--checking-one", str(mb)], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        print(f"| {mb:g} | {r['open']:.2f} | {r['edit']:.2f} | {r['peak_rss']:.0f} |", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", action="append", type=Path, help="a pai-lsp source tree (repeatable; default: this one)")
    parser.add_argument("--edits", type=int, default=50_000)
    parser.add_argument("--large-mb", type=float, default=20)
    parser.add_argument("--rounds", type=int, default=5, help="edits timed on the large config")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", choices=["typing", "replacing", "large", "orphans", "checking"], action="append")
    parser.add_argument("--checking-one", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.checking_one:
        print(json.dumps(checking_one(args.checking_one)))
        return 0
    if args.only == ["checking"]:
        checking([1, 2, 4, 5, 6, 8, 12, 16, 20])
        return 0
    sources = [s.resolve() for s in (args.source or [Path(__file__).resolve().parents[1]])]
    only = set(args.only or ["typing", "replacing", "large", "orphans"])
    print(f"load average at start {' '.join(Path('/proc/loadavg').read_text().split()[:3])}; {os.cpu_count()} cores")
    results: dict[str, dict[str, list[dict]]] = {str(s): {} for s in sources}
    for run in range(args.runs):
        for source in sources if run % 2 == 0 else sources[::-1]:
            out = results[str(source)]
            if "typing" in only:
                out.setdefault("typing", []).append(asyncio.run(typing(source, args.edits, replace=False)))
            if "replacing" in only:
                out.setdefault("replacing", []).append(asyncio.run(typing(source, args.edits // 10, replace=True)))
            if "large" in only:
                out.setdefault("large", []).append(asyncio.run(large(source, args.large_mb, args.rounds)))
            if "orphans" in only:
                for how in ("kill", "stdin"):
                    out.setdefault(f"orphans_{how}", []).append(asyncio.run(orphans(source, how)))
            print(f"run {run + 1} {source}: " + json.dumps({k: v[-1] for k, v in out.items()}, default=lambda x: round(x, 3)),
                  file=sys.stderr)
    print(f"load average at end {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    for source, out in results.items():
        print(f"\n## {source} (medians of {args.runs} runs)")
        for name, runs in out.items():
            keys = runs[0].keys()
            print(f"- {name}: " + ", ".join(f"{k} {statistics.median(r[k] for r in runs):.3f}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
