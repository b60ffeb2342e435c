"""The local cluster's HDFS store as it fills, and what one small file costs it.

For a store already holding 0, 50,000 and 500,000 files (written through the store itself before
the cluster starts), N files of S bytes are created over WebHDFS (the two-step CREATE) with pai's
client, 8 threads, into a new folder; the cluster's CPU time and the wall time per file, median of
`--runs` (each run's files removed, untimed, before the next, so every run sees the same store).

Beside them, in the same run, the physical limit of the work: the same files written with plain
Python (open, write, close) and one row each committed to SQLite (WAL, as the store keeps its
metadata); and the part that is HTTP alone: uvicorn (as the cluster runs it) answering the same two
requests per file with nothing done.

    .venv/bin/python bench/hdfs_store.py [--stored 0 50000 500000] [--files 2000] [--size 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fair import USER, fresh_cluster, load, seed, settle, wait_for_quiet  # noqa: E402
from bench.report import print_markdown  # noqa: E402
from pai_lsp.storage import session  # noqa: E402
from pai_lsp.storage.upload import bounded  # noqa: E402
from pai_lsp.storage.webhdfs import Hdfs  # noqa: E402


def creates(url: str, pid: int, folder: str, files: int, data: bytes) -> tuple[float, float]:
    """(server CPU ms, wall ms) per file for `files` WebHDFS creates of `data` under `folder`."""
    storage = Hdfs(url, USER)
    server = psutil.Process(pid)
    cpu0, t0 = sum(server.cpu_times()[:2]), time.perf_counter()
    for _ in bounded(lambda i: storage.write(f"{folder}/d{i % 20}/f{i}", data), list(range(files)), 8):
        pass
    wall = time.perf_counter() - t0
    cpu = sum(server.cpu_times()[:2]) - cpu0
    storage.close()
    return cpu / files * 1e3, wall / files * 1e3


def plain_python(work: Path, files: int, data: bytes, staged: bool = False) -> float:
    """CPU ms per file: open, write, close, and one row committed (SQLite in WAL mode); `staged`: written
    under a name of its own first and renamed into place, as the cluster does so that nobody ever
    sees half a file."""
    folder = Path(tempfile.mkdtemp(dir=work, prefix="plain-"))
    for d in range(20):
        (folder / f"d{d}").mkdir()
    (folder / "staging").mkdir()
    db = sqlite3.connect(folder / "meta.sqlite3", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE files (path TEXT PRIMARY KEY, owner TEXT, perm INTEGER)")
    before = resource.getrusage(resource.RUSAGE_SELF)
    for i in range(files):
        path = f"{folder}/d{i % 20}/f{i}"
        written = f"{folder}/staging/{i}" if staged else path
        with open(written, "wb") as f:
            f.write(data)
        if staged:
            os.replace(written, path)
        db.execute("INSERT INTO files VALUES (?, ?, ?)", (path, USER, 0o644))
    after = resource.getrusage(resource.RUSAGE_SELF)
    db.close()
    shutil.rmtree(folder)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / files * 1e3


async def answer_only(scope, receive, send):
    """An ASGI app answering WebHDFS's two CREATE steps (307, then 201) and doing nothing else."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    while (await receive()).get("more_body"):
        pass
    query = scope["query_string"].decode()
    if "datanode=true" in query:
        headers = [(b"location", b"hdfs://localhost/x"), (b"content-length", b"0")]
        await send({"type": "http.response.start", "status": 201, "headers": headers})
    else:
        host = dict(scope["headers"])[b"host"].decode()
        where = f"http://{host}{scope['path']}?{query}&datanode=true".encode()
        await send({"type": "http.response.start", "status": 307, "headers": [(b"location", where), (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


def http_only(files: int, data: bytes) -> float:
    """Server CPU ms per file of uvicorn (h11, as the cluster runs it) answering the two steps, sent by
    pai's HTTP client (storage/session.py)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "uvicorn", "bench.hdfs_store:answer_only", "--port", str(port),
                               "--http", "h11", "--log-level", "warning"], cwd=ROOT,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        import httpx

        http = session.client()
        url = f"http://127.0.0.1:{port}/webhdfs/v1/probe"
        for _ in range(100):
            try:
                http.get(url)
                break
            except httpx.TransportError:
                time.sleep(0.1)

        def one(i: int) -> None:
            created = http.put(f"{url}/d{i % 20}/f{i}?op=CREATE&overwrite=true&user.name={USER}")
            http.put(created.headers["location"], content=data, headers={"Content-Type": "application/octet-stream"})

        process = psutil.Process(server.pid)
        cpu0 = sum(process.cpu_times()[:2])
        for _ in bounded(one, list(range(files)), 8):
            pass
        return (sum(process.cpu_times()[:2]) - cpu0) / files * 1e3
    finally:
        server.terminate()
        server.wait()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stored", type=int, nargs="+", default=[0, 50_000, 500_000])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    data = os.urandom(args.size)
    rows = []
    with tempfile.TemporaryDirectory(prefix="pai-bench-store-") as tmp:
        work = Path(tmp)
        base = None
        for stored in args.stored:
            t0 = time.perf_counter()
            with fresh_cluster(work, before_start=lambda data_dir, n=stored: seed(data_dir, n)) as cluster:
                seeded = time.perf_counter() - t0
                cpu, wall, floor, staged, http, loads = [], [], [], [], [], []
                for run in range(args.runs):
                    settle()
                    loads.append(wait_for_quiet())
                    c, w = creates(cluster.hdfs_url, cluster.process.pid, f"/probe{run}", args.files, data)
                    cpu.append(c)
                    wall.append(w)
                    settle()
                    floor.append(plain_python(work, args.files, data))
                    settle()
                    staged.append(plain_python(work, args.files, data, staged=True))
                    http.append(http_only(args.files, data))
                    Hdfs(cluster.hdfs_url, USER).delete(f"/probe{run}", recursive=True)
            cpu_ms, floor_ms = statistics.median(cpu), statistics.median(floor)
            base = base or cpu_ms
            rows.append([f"{stored:,}", f"{cpu_ms:.3f}", f"{statistics.median(wall):.3f}", f"{cpu_ms / base:.2f}×",
                         f"{floor_ms:.3f}", f"{cpu_ms / floor_ms:.1f}×", f"{statistics.median(staged):.3f}",
                         f"{statistics.median(http):.3f}",
                         f"{min(loads):.1f}–{max(loads):.1f} (now {load():.1f}); seeded in {seeded:.0f} s"])
    header = ["files stored", "cluster CPU per file, ms", "wall per file, ms (8 threads)", "CPU vs the empty store",
              "plain Python: write + row, CPU ms", "cluster / plain Python", "plain Python, written aside and renamed, CPU ms",
              "HTTP alone (uvicorn, 2 requests), CPU ms",
              "load"]
    print(f"\n{args.files:,} files of {args.size:,} bytes per run, median of {args.runs}\n")
    print_markdown(header, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
