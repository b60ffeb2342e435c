"""What a big request body costs the server to receive, by how the client frames it: one body of a
stated length (`Content-Length`), or chunked in pieces of 64 KiB (as `hdfscli` sends a file) up to
1 MiB. The server is uvicorn as the local cluster runs it (h11), its app reading the body and
dropping it (no file written: the HTTP part alone); the client is pai's (storage/session.py).
Server CPU time per GiB, median of `--runs`, the order of the framings alternating every run.

Why it matters: on one machine the server's CPU is what a big upload waits for, and the framing is
the client's choice (`storage/webhdfs.py` `PIECE`).

    .venv/bin/python bench/body_framing.py [--mb 256] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import print_markdown  # noqa: E402
from pai_lsp.storage import session  # noqa: E402

FRAMINGS = [("stated length, 1 MiB writes", None, 1 << 20)] + [(f"chunked, {k} KiB chunks", k << 10, k << 10)
                                                               for k in (64, 128, 192, 256, 384, 512, 1024)]


async def sink(scope, receive, send) -> None:
    """The body read to its end and dropped; its length sent back."""
    if scope["type"] != "http":
        return
    size = 0
    while True:
        message = await receive()
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    answer = str(size).encode()
    await send({"type": "http.response.start", "status": 201, "headers": [(b"content-length", str(len(answer)).encode())]})
    await send({"type": "http.response.body", "body": answer})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=256)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    size = args.mb << 20
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "uvicorn", "bench.body_framing:sink", "--port", str(port), "--http", "h11",
                               "--log-level", "warning"], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    http = session.client(read=300)
    url = f"http://127.0.0.1:{port}/sink"
    try:
        import httpx

        for _ in range(100):
            try:
                http.put(url, content=b"")
                break
            except httpx.TransportError:  # not listening yet
                time.sleep(0.1)
        process = psutil.Process(server.pid)
        block = os.urandom(1 << 20)
        cpu: dict[str, list[float]] = {name: [] for name, _, _ in FRAMINGS}
        loads = []
        for run in range(args.runs):
            loads.append(os.getloadavg()[0])
            for name, chunk, piece in FRAMINGS if run % 2 == 0 else reversed(FRAMINGS):
                def pieces(piece: int = piece):
                    left = size
                    while left:
                        n = min(piece, left)
                        left -= n
                        yield block[:n]
                headers = {} if chunk else {"Content-Length": str(size)}  # none: chunked, one chunk a piece
                before = sum(process.cpu_times()[:2])
                answer = http.put(url, content=pieces(), headers=headers)
                assert answer.text == str(size), answer.text
                cpu[name].append((sum(process.cpu_times()[:2]) - before) * (1 << 30) / size)
        length = statistics.median(cpu[FRAMINGS[0][0]])
        rows = [[name, f"{statistics.median(cpu[name]):.2f}", f"{statistics.median(cpu[name]) / length:.2f}×"] for name, _, _ in FRAMINGS]
        print(f"\n### The server's CPU to receive a body, by its framing ({args.mb} MiB a body, median of {args.runs}; "
              f"load {min(loads):.1f}–{max(loads):.1f})\n")
        print_markdown(["framing", "server CPU per GiB, s", "vs a stated length"], rows)
    finally:
        http.close()
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
