"""The physical limit of the local cluster's big-file write: a plain Python process that
receives S MB over loopback and writes it to a new file, its CPU time measured by itself, against
which the cluster's CPU for one big upload is read (`bench/uploads.py big`).

Two receivers, the order alternating, medians of N: `into` reads into one reused buffer
(`recv_into`, the least work there is: the kernel's two copies, socket to buffer and buffer to page
cache); `bytes` reads a new 256 KiB `bytes` at a time, as asyncio does for the cluster. The sender
is this process, the file read once beforehand; the disk is synced before every run.

    .venv/bin/python bench/receive_floor.py [--mb 1024] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fair import settle, warm  # noqa: E402
from bench.report import print_markdown  # noqa: E402
from bench.trees import make_big  # noqa: E402

READ = 256 << 10  # asyncio's read size (selector transports' max_size)


def receive(mode: str, size: int, target: Path) -> None:
    """The receiving process: prints its port, then (once done) wall, user, sys seconds and minor faults."""
    server = socket.create_server(("127.0.0.1", 0))
    print(server.getsockname()[1], flush=True)
    conn, _ = server.accept()
    before, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    got = 0
    with conn, open(target, "wb", buffering=0) as f:
        if mode == "into":
            buffer = memoryview(bytearray(READ))
            while got < size and (n := conn.recv_into(buffer)):
                f.write(buffer[:n])
                got += n
        else:
            while got < size and (piece := conn.recv(READ)):
                f.write(piece)
                got += len(piece)
    after = resource.getrusage(resource.RUSAGE_SELF)
    print(time.perf_counter() - t0, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime,
          after.ru_minflt - before.ru_minflt, flush=True)


def one_run(mode: str, source: Path, work: Path) -> list[float]:
    target = Path(tempfile.mkdtemp(dir=work)) / "f"
    settle()
    child = subprocess.Popen([sys.executable, __file__, "--receive", mode, "--size", str(source.stat().st_size),
                              "--target", str(target)], stdout=subprocess.PIPE, text=True)
    try:
        port = int(child.stdout.readline())
        with socket.create_connection(("127.0.0.1", port)) as sock, open(source, "rb") as f:
            while piece := f.read(1 << 20):
                sock.sendall(piece)
        measured = [float(x) for x in child.stdout.readline().split()]
    finally:
        child.wait(timeout=60)
        target.unlink(missing_ok=True)
    return measured


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--receive", choices=["into", "bytes"], help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--target", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.receive:
        receive(args.receive, args.size, args.target)
        return
    with tempfile.TemporaryDirectory(prefix="pai-bench-floor-") as tmp:
        work = Path(tmp)
        source = make_big(work / "src", args.mb)
        warm(source.parent)  # in the page cache, for every run alike
        runs: dict[str, list[list[float]]] = {"into": [], "bytes": []}
        for r in range(args.runs):
            for mode in (["into", "bytes"] if r % 2 == 0 else ["bytes", "into"]):
                runs[mode].append(one_run(mode, source, work))
    load = os.getloadavg()[0]
    rows = []
    for mode, measured in runs.items():
        wall, user, system, faults = (statistics.median(m[i] for m in measured) for i in range(4))
        rows.append([mode, f"{wall:.2f}", f"{user + system:.2f}", f"{user:.2f} / {system:.2f}", f"{faults:,.0f}", f"{load:.1f}"])
    print(f"{args.mb} MB received over loopback and written to a new file, median of {args.runs}")
    print_markdown(["receiver", "wall, s", "CPU, s", "user / sys, s", "minor page faults", "load (1 min) after"], rows)


if __name__ == "__main__":
    main()
