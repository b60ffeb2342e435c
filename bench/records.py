"""Submission records: the record's size for a 1,000-file workspace, and the time of
`pai rerun JOB` against the reference, a fresh `pai run` of the same workspace — both as a user runs
them (the CLI as a subprocess, through the daemon, on the local cluster), from the same state.

The workspace: 1,000 files of 10 KB (random bytes) in 350 folders, a git repository with one
uncommitted change; codeDir `$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME`, so every fresh submit
uploads the whole tree to a new folder, while a rerun finds the first run's folder intact and uploads
nothing. Medians of `--repeat` runs (default 5), the order alternated (submit first, then rerun
first), with the load average recorded.

    python bench/records.py [--repeat N] [--files 1000]
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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.trees import make_tree  # noqa: E402


def pai(env: dict, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "pai_lsp", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"pai {' '.join(args)} failed: {done.stderr}")
    return done


def timed(env: dict, *args: str, cwd: Path | None = None) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = pai(env, *args, cwd=cwd)
    return time.perf_counter() - t0, done.stdout.split()[1]


def workspace(root: Path, files: int) -> Path:
    ws = root / "ws"
    make_tree(ws, files, 10_000)
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.maxFiles": 100_000}))
    (ws / "job.pai.json").write_text(json.dumps({
        "jobName": "bench", "image": "busybox", "codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
        "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "command": "true"}]}))
    git = ["git", "-C", str(ws), "-c", "user.email=b@example.com", "-c", "user.name=b"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "bench"], check=True)
    (ws / "pkg0" / "mod0" / "f0.py").write_bytes(b"print('an uncommitted change')\n")
    return ws


def record_cost(ws: Path, folder: Path, repeat: int) -> tuple[float, float]:
    """What making the record adds to a submit, in-process: every file hashed (and, the first time,
    copied into the journal) and the git facts read; (first time, again) in seconds, medians."""
    from types import SimpleNamespace

    from pai_lsp.core.model import Settings
    from pai_lsp.service import records
    from pai_lsp.service.selection import choose

    files = choose(ws, Settings(upload_max_files=100_000)).files
    backend = SimpleNamespace(profile=SimpleNamespace(name="local", kind="openpai", user="bench"))

    def make(local) -> float:
        t0 = time.perf_counter()
        records.make(backend, "bench_1", {"jobName": "bench_1"}, {"jobName": "bench"}, "/bench/bench_1", ws, ws / "job.pai.json",
                     files, local)
        return time.perf_counter() - t0

    first = [make(records.LocalRecords(folder / f"cold{i}")) for i in range(repeat)]
    records._HASHES.clear()
    warm = records.LocalRecords(folder / "warm")
    make(warm)
    again = [make(warm) for _ in range(repeat)]
    return statistics.median(first), statistics.median(again)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pai-bench-records-"))
    env = dict(os.environ, XDG_CONFIG_HOME=str(work / "config"), XDG_STATE_HOME=str(work / "state"),
               PAI_LOCAL_CLUSTER_DIR=str(work / "cluster"), PAI_LSP_SECRETS="file", LANG="C.UTF-8")
    try:
        ws = workspace(work, args.files)
        _, first = timed(env, "run", "job.pai.json", cwd=ws)  # starts the daemon and the local cluster
        journal = work / "state" / "pai-lsp" / "records" / "local" / f"{first}.json"
        record = json.loads(journal.read_bytes())
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; median of {args.repeat}")
        print(f"record of a {len(record['files']):,}-file workspace ({record['git']['diffBytes']:,} bytes of git diff): "
              f"{journal.stat().st_size:,} bytes ({journal.stat().st_size / len(record['files']):.0f} bytes per file)")
        cold, warm = record_cost(ws, work / "journals", args.repeat)
        print(f"making the record (in-process): {cold:.2f} s with a new journal (every file copied in), {warm:.2f} s again")
        submits, reruns = [], []
        for i in range(args.repeat):
            order = ("submit", "rerun") if i % 2 == 0 else ("rerun", "submit")
            for what in order:
                if what == "submit":
                    submits.append(timed(env, "run", "job.pai.json", cwd=ws)[0])
                else:
                    reruns.append(timed(env, "rerun", first)[0])
        s, r = statistics.median(submits), statistics.median(reruns)
        print(f"{'fresh submit (pai run)':28} {s:6.2f} s   runs {', '.join(f'{x:.2f}' for x in submits)}")
        print(f"{'rerun (pai rerun JOB)':28} {r:6.2f} s   runs {', '.join(f'{x:.2f}' for x in reruns)}")
        print(f"rerun / submit: {r / s:.2f}; load average after {os.getloadavg()[0]:.2f}")
    finally:
        for command in (["daemon", "stop"], ["cluster", "stop-local"]):
            subprocess.run([sys.executable, "-m", "pai_lsp", *command], env=env, capture_output=True, timeout=60)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
