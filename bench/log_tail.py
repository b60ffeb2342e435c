"""Opening a huge log at its tail (wanted: a 1 GB log in under 2 s and under 200 MB of memory),
against `tail -n 1000` on the log file itself.

A job on the embedded local cluster (as users run it, in an environment of its own) writes LOG_MB of
numbered lines; then `pai logs JOB --tail 1000` (the daemon reads each log's last bytes by a suffix
range: nothing before them) is timed from start to exit, with the peak memory of the `pai` process
and the daemon's growth meanwhile, beside `tail -n 1000 FILE` on the cluster's own log file. Both
print the same 1000 lines (checked).

    .venv/bin/python bench/log_tail.py [LOG_MB] [RUNS]     (default 1024 MB, 5 runs)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.cli import command_job, isolated_env, pai, stop_all  # noqa: E402

LINE = 100  # bytes per line, newline included


def daemon_rss(env: dict) -> int:
    """The daemon's resident memory (it runs `pai daemon serve` in this environment's state folder)."""
    for process in psutil.process_iter(["cmdline", "environ"]):
        try:
            if process.info["cmdline"][-2:] == ["daemon", "serve"] and \
                    (process.info["environ"] or {}).get("XDG_STATE_HOME") == env["XDG_STATE_HOME"]:
                return process.memory_info().rss
        except (psutil.Error, TypeError, IndexError):
            continue
    return 0


def timed(argv: list[str], env: dict | None = None) -> tuple[float, int, bytes]:
    """(seconds, peak resident memory of the process in bytes, its standard output)."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE)
    out = process.stdout.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(process.pid, 0)
    took = time.perf_counter() - started
    assert os.waitstatus_to_exitcode(status) == 0, argv
    return took, usage.ru_maxrss * 1024, out


def main() -> None:
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as root:
        env = isolated_env(Path(root))
        try:
            lines = size_mb * (1 << 20) // LINE
            command = f"seq -f 'line %0{LINE - 6}.0f' 1 {lines}"  # "line " + digits + newline = LINE bytes
            ws = command_job(Path(root), "big.pai.json", command)
            run = pai(env, "run", "big.pai.json", cwd=ws)
            job = run.stdout.split()[1]
            while json.loads(pai(env, "status", job, "-o", "json").stdout)["state"] not in ("SUCCEEDED", "FAILED"):
                time.sleep(1)
            log = max((p for p in Path(env["PAI_LOCAL_CLUSTER_DIR"]).rglob("*") if p.is_file() and job in str(p)),
                      key=lambda p: p.stat().st_size)
            print(f"log: {log.stat().st_size / (1 << 20):.0f} MB, {lines} lines ({log.name})")
            pai(env, "logs", job, "--tail", "1")  # the daemon is up and has its session to the cluster
            ours, theirs, peaks, growth = [], [], [], []
            for _ in range(runs):
                before = daemon_rss(env)
                took, peak, out = timed([sys.executable, "-m", "pai_lsp", "logs", job, "--tail", "1000"], env)
                growth.append(daemon_rss(env) - before)
                ours.append(took)
                peaks.append(peak)
                took_tail, _, expected = timed(["tail", "-n", "1000", str(log)])
                theirs.append(took_tail)
                assert out == expected, "pai logs --tail 1000 and tail -n 1000 differ"
            print(f"pai logs --tail 1000: median {statistics.median(ours):.3f} s (max {max(ours):.3f} s), "
                  f"peak memory {max(peaks) / (1 << 20):.0f} MB; the daemon {daemon_rss(env) / (1 << 20):.0f} MB, "
                  f"grown by at most {max(growth) / (1 << 20):.1f} MB in a run")
            print(f"tail -n 1000 FILE:    median {statistics.median(theirs):.3f} s (max {max(theirs):.3f} s)")
        finally:
            stop_all(env)
            os.sync()


if __name__ == "__main__":
    main()
