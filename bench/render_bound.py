"""A v2 job whose templates fill in hugely: a 90 KB parameter used 3,000 times (270 MB once filled
in). `pai submit --dry-run` renders it and must refuse it once past the bound (core/v2/templates.py:
16 MB, 1,000,000 tags per job); its reference is `pai check` of the same file, which reads and checks
it without filling anything in. Before the bound the dry run reached 1.5 GB in 21 s.

Alternated in one run, medians of 5, with the daemon warm; the daemon's resident memory after.

    .venv/bin/python bench/render_bound.py
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

BIN = Path(sys.executable).parent / "pai"


def job(size: int = 90_000, uses: int = 3_000) -> str:
    commands = "".join("      - echo <% $parameters.big %>\n" for _ in range(uses))
    return (f"protocolVersion: 2\nname: huge\ntype: job\nparameters:\n  big: {'x' * size}\n"
            "prerequisites:\n  - {name: image, type: dockerimage, uri: 'ubuntu:18.04'}\n"
            "taskRoles:\n  main:\n    dockerImage: image\n    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n"
            f"    commands:\n{commands}")


def timed(env: dict, cwd: Path, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run([str(BIN), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    return time.perf_counter() - start, done


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="pai-render-bound-") as tmp:
        root = Path(tmp)
        ws = root / "ws"
        (ws / ".vscode").mkdir(parents=True)
        (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.enabled": False}))
        (ws / "huge.pai.yaml").write_text(job())
        env = dict(os.environ, XDG_CONFIG_HOME=str(root / "config"), XDG_STATE_HOME=str(root / "state"),
                   PAI_LOCAL_CLUSTER_DIR=str(root / "local"), PAI_LSP_SECRETS="file", LANG="C.UTF-8")
        try:
            _, first = timed(env, ws, "submit", "huge.pai.yaml", "--dry-run")  # starts the daemon
            print(f"the dry run says: {first.stderr.strip()}")
            checks, dry_runs = [], []
            for _ in range(5):
                took, done = timed(env, ws, "check", "huge.pai.yaml")
                assert done.returncode == 0, done.stdout + done.stderr
                checks.append(took)
                took, done = timed(env, ws, "submit", "huge.pai.yaml", "--dry-run")
                assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
                dry_runs.append(took)
            state = str(root / "state")
            daemons = [p for p in psutil.process_iter(["cmdline"]) if "daemon" in " ".join(p.info["cmdline"] or [])
                       and p.environ().get("XDG_STATE_HOME") == state]
            rss = max((p.memory_info().rss for p in daemons), default=0) / 2**20
            print(f"pai check:              median {statistics.median(checks):.2f} s")
            print(f"pai submit --dry-run:   median {statistics.median(dry_runs):.2f} s (refused), daemon {rss:.0f} MB resident")
        finally:
            for command in (["daemon", "stop"], ["cluster", "stop-local"]):
                subprocess.run([str(BIN), *command], env=env, capture_output=True, timeout=60)


if __name__ == "__main__":
    main()
