"""Debug Job's cost to the first breakpoint, on the embedded local cluster.

Debug: from starting `pai debug mnist.pai.yaml -o json` until a DAP client (tests/helpers/dap.py, as an
editor's debugger), attached with the printed path mappings, hears `stopped` at the first pass of
the epoch loop of examples/mnist/train.py (`loss *= 0.6`). Plain: from starting `pai run
mnist.pai.yaml -f` of the same job until its log shows the line printed right after that one
(`epoch 1/3`). Both are the CLI as a user runs it, alternated, with the daemon and the cluster warm
(one run of each first, not counted); medians and spreads.

    .venv/bin/python bench/debug_first_hit.py [ROUNDS]      (default: 7)
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.cli import isolated_env, stop_all  # noqa: E402
from tests.helpers.dap import DapClient  # noqa: E402
from tests.helpers.paths import EXAMPLE  # noqa: E402

LOOP_LINE = "    loss *= 0.6"


def pai(env: dict, cwd: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pai_lsp", *args], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)


def plain(env: dict, ws: Path) -> float:
    started = time.perf_counter()
    process = pai(env, ws, "run", "mnist.pai.yaml", "-f")
    for line in process.stdout:
        if line.startswith("epoch 1/"):
            took = time.perf_counter() - started
            break
    else:
        raise SystemExit(f"pai run ended without its first epoch: {process.wait()}")
    process.communicate(timeout=120)
    return took


def debug(env: dict, ws: Path) -> float:
    source = ws / "train.py"
    line = source.read_text().splitlines().index(LOOP_LINE) + 1
    started = time.perf_counter()
    process = pai(env, ws, "debug", "mnist.pai.yaml", "-o", "json")
    target = json.loads(process.stdout.readline())
    client = DapClient(target["host"], target["port"])
    try:
        client.attach(target["pathMappings"], {str(source): [line]})
        stopped = client.stopped(timeout=120)
        took = time.perf_counter() - started
        client.request("setBreakpoints", source={"path": str(source)}, breakpoints=[])
        client.resume(stopped["threadId"])
    finally:
        client.disconnect()
    process.communicate(timeout=120)
    return took


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    home = Path(tempfile.mkdtemp(prefix="pai-bench-debug-"))
    env = {**isolated_env(home), "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    ws = home / "ws"
    shutil.copytree(EXAMPLE, ws)
    try:
        plain(env, ws), debug(env, ws)  # warm: the daemon, the cluster, the OS's caches
        times: dict[str, list[float]] = {"plain": [], "debug": []}
        for _ in range(rounds):
            times["plain"].append(plain(env, ws))
            times["debug"].append(debug(env, ws))
        for name, values in times.items():
            print(f"{name:6} median {statistics.median(values):.2f} s  min {min(values):.2f}  max {max(values):.2f}  "
                  f"({len(values)} runs)")
        print(f"debug - plain, median: {statistics.median(times['debug']) - statistics.median(times['plain']):+.2f} s")
    finally:
        stop_all(env)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
