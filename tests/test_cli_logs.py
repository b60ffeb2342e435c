"""`pai logs` as a user runs it against the embedded local cluster: every task's log at once, whole
lines, filtered by role, task index and text or regular expression (lines already there and lines
still arriving), a long log opened at its tail, and the last line never lost — even one without a
newline, written by a task killed right after writing it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers.cli import command_job, pai

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster

ROLES = [
    {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
     "command": "for i in 1 2 3; do echo \"step $i loss=0.$i of $PAI_TASK_INDEX\"; echo \"noise $i\"; done"},
    {"name": "ps", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
     "command": "echo 'ps ready'; echo 'LOSS in capitals'"},
]


def _run(env: dict, tmp_path: Path, name: str, command: str | None = None, roles: list | None = None, follow: bool = True) -> str:
    ws = command_job(tmp_path / name, f"{name}.pai.json", command or "true")
    if roles is not None:
        config = json.loads((ws / f"{name}.pai.json").read_text())
        config["taskRoles"] = roles
        (ws / f"{name}.pai.json").write_text(json.dumps(config))
    run = pai(env, "run", f"{name}.pai.json", *(["--follow"] if follow else []), cwd=ws)
    return run.stdout.split()[1]


def _own(text: str) -> list[str]:
    """The lines the tasks wrote (not the local cluster's note on running a job bigger than this machine)."""
    return [line for line in text.splitlines() if "[PAI local cluster]" not in line]


def test_every_task_filtered_by_role_index_and_pattern(env, tmp_path):
    job = _run(env, tmp_path, "pair", roles=ROLES)
    every = pai(env, "logs", job)
    assert every.returncode == 0, every.stderr
    lines = _own(every.stdout)
    assert sorted(lines) == sorted([f"[worker:{t}] step {i} loss=0.{i} of {t}" for t in (0, 1) for i in (1, 2, 3)]
                                   + [f"[worker:{t}] noise {i}" for t in (0, 1) for i in (1, 2, 3)]
                                   + ["[ps:0] ps ready", "[ps:0] LOSS in capitals"])
    worker = pai(env, "logs", job, "--role", "worker", "--grep", r"loss=0\.[23]")
    assert worker.stdout.splitlines() == [f"[worker:{t}] step {i} loss=0.{i} of {t}" for t in (0, 1) for i in (2, 3)] or \
        sorted(worker.stdout.splitlines()) == sorted(f"[worker:{t}] step {i} loss=0.{i} of {t}" for t in (0, 1) for i in (2, 3))
    one = pai(env, "logs", job, "--role", "worker", "--index", "1")
    assert _own(one.stdout) == [f"{word} {i}" for i in (1, 2, 3) for word in ("step", "noise")] or \
        [line.split(" loss")[0] for line in _own(one.stdout)] == [f"{word} {i}" for i in (1, 2, 3) for word in ("step", "noise")]
    fixed = pai(env, "logs", job, "--grep", "loss=0.1", "-F", "-i")
    assert sorted(fixed.stdout.splitlines()) == ["[worker:0] step 1 loss=0.1 of 0", "[worker:1] step 1 loss=0.1 of 1"]
    caseless = pai(env, "logs", job, "--grep", "^loss", "-i")
    assert caseless.stdout.splitlines() == ["[ps:0] LOSS in capitals"]
    bad = pai(env, "logs", job, "--grep", "(")
    assert bad.returncode == 1 and bad.stdout == "" and len(bad.stderr.splitlines()) == 1 and "-F" in bad.stderr


def test_the_filter_applies_to_lines_still_arriving(env, tmp_path):
    command = "for i in 1 2 3 4 5 6; do echo \"tick $i\"; echo \"tock $i\"; sleep 0.4; done"
    job = _run(env, tmp_path, "ticker", command, follow=False)
    follow = subprocess.run([sys.executable, "-m", "pai_lsp", "logs", job, "-f", "--grep", "tick [2-6]"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert follow.returncode == 0, follow.stderr
    assert follow.stdout.splitlines() == [f"tick {i}" for i in range(2, 7)]
    assert f"{job}: SUCCEEDED" in follow.stderr


def test_the_last_line_of_a_task_killed_right_after_writing_it_is_never_lost(env, tmp_path):
    command = "printf 'first\\nsecond\\nthe last words, no newline'; kill -9 $$"
    run_ws = command_job(tmp_path / "killed", "killed.pai.json", command)
    run = pai(env, "run", "killed.pai.json", "--follow", cwd=run_ws)
    job = run.stdout.split()[1]
    assert run.stdout.splitlines()[-3:] == ["first", "second", "the last words, no newline"], run.stdout
    assert f"{job}: FAILED" in run.stderr
    later = pai(env, "logs", job)
    assert later.stdout == "first\nsecond\nthe last words, no newline"
    assert pai(env, "logs", job, "--tail", "1").stdout == "the last words, no newline"


def test_a_long_log_opens_at_its_tail(env, tmp_path):
    command = "seq 1 200000 | sed 's/^/line /'"
    job = _run(env, tmp_path, "long", command)
    started = time.monotonic()
    tail = pai(env, "logs", job, "--tail", "3")
    assert tail.returncode == 0, tail.stderr
    assert tail.stdout.splitlines() == ["line 199998", "line 199999", "line 200000"]
    assert time.monotonic() - started < 60
    grep = pai(env, "logs", job, "--tail", "2", "--grep", "99$")
    assert grep.stdout.splitlines() == ["line 199899", "line 199999"]
    assert pai(env, "logs", job, "--tail", "0").returncode == 1
