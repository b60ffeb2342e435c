"""Why a job failed, through `pai` as a user runs it against the embedded local cluster: the daemon
explains a failed job the moment it ends (from the cluster's exit facts, the log's end and the
upload's manifest), `pai run --follow` and `pai status` print it in one line, `pai why` in full or
as JSON, with the traceback's frames on the workspace's own files (and a file changed since the
upload said so)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from .helpers.cli import pai
from .helpers.failing import OPS, RUN, failing_workspace

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster


def _workspace(tmp_path: Path, name: str, command: str, **role) -> Path:
    return failing_workspace(tmp_path / name, name, command, **role)


def _run(env: dict, ws: Path, *more: str):
    result = pai(env, "run", f"{ws.name}.pai.json", *more, cwd=ws)
    return result, result.stdout.splitlines()[0].split()[1]


def _why(env: dict, job: str, *more: str) -> dict:
    result = pai(env, "why", job, "--json", *more)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_traceback_three_modules_deep_is_on_the_workspace_file_and_line(env, tmp_path):
    ws = _workspace(tmp_path, "deep", RUN)
    result, job = _run(env, ws, "--follow")
    assert result.returncode == 1
    assert f"{job}: FAILED" in result.stderr
    why_line = next(line for line in result.stderr.splitlines() if line.startswith("why: "))
    assert "KeyError" in why_line and "pkg/ops.py:3" in why_line
    got = _why(env, job)
    explanation = got["explanation"]
    assert explanation["kind"] == "python-exception"
    primary = explanation["traceback"]["primary"]
    assert (primary["workspace"], primary["line"], primary["function"]) == ("pkg/ops.py", 3, "<listcomp>") or \
        (primary["workspace"], primary["line"]) == ("pkg/ops.py", 3)
    related = [(f["workspace"], f["line"]) for f in explanation["traceback"]["related"]]
    assert ("pkg/data.py", 5) in related and ("train.py", 5) in related
    assert got["changed"] == [] and got["workspace"] == str(ws)
    text = pai(env, "why", job)
    assert text.returncode == 0
    assert "pkg/ops.py:3" in text.stdout and "KeyError: 'train'" in text.stdout
    assert "where:" in text.stdout and "pkg/ops.py:3 in " in text.stdout
    # A Chinese terminal reads the report's own words in Chinese too (the catalogue's), not only the explanation's.
    chinese = pai({**env, "LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "why", job)
    assert chinese.returncode == 0 and "位置：" in chinese.stdout and "where:" not in chinese.stdout
    assert got["explanation"]["title"]["zh"] in chinese.stdout
    status = pai(env, "status", job)
    assert "why: " in status.stdout and "pkg/ops.py:3" in status.stdout

    # The file is edited after the upload: the explanation says its lines are the uploaded version's.
    (ws / "pkg" / "ops.py").write_text("# a comment on top\n" + OPS)
    again = _why(env, job)  # no --refresh: a kept explanation whose files changed is made again
    assert again["changed"] == ["pkg/ops.py"]
    assert "pkg/ops.py changed since it was uploaded" in again["explanation"]["message"]["en"]


def test_the_daemon_explains_a_job_when_it_ends(env, tmp_path):
    ws = _workspace(tmp_path, "early", "cd $PAI_JOB_NAME && python3 -c 'import no_such_package_xyz'")
    result, job = _run(env, ws)
    assert result.returncode == 0, result.stderr
    deadline = time.monotonic() + 30
    while json.loads(pai(env, "why", job, "--json").stdout)["state"] != "FAILED":
        assert time.monotonic() < deadline
        time.sleep(0.5)
    time.sleep(3)  # the daemon has had time to explain it by itself: what `pai why` reads is what it kept
    got = _why(env, job)
    assert got["explanation"]["kind"] == "missing-module"
    assert got["explanation"]["module"] == "no_such_package_xyz"
    assert got["explanation"]["image"] == "python:3.11" and "python:3.11" in got["explanation"]["message"]["en"]
    assert got["madeAt"] - got["completed"] < 3000


@pytest.mark.parametrize(("command", "kind", "check"), [
    ("no-such-tool --epochs 3", "command-not-found", lambda e: e["command"] == "no-such-tool"),
    ("python3 -c 'import ctypes; ctypes.string_at(0)'", "signal", lambda e: e["signal"] == "SIGSEGV"),
    ("echo starting; echo cannot go on >&2; exit 3", "exit-nonzero",
     lambda e: any("cannot go on" in line["text"] for line in e["lastLines"])),
    ("python3 -c 'open(\"/data/missing/train.csv\")'", "path-not-found", lambda e: e["path"] == "/data/missing/train.csv"),
])
def test_each_class_a_machine_can_produce(env, tmp_path, command, kind, check):
    ws = _workspace(tmp_path, "cls", command)
    result, job = _run(env, ws, "--follow")
    assert result.returncode == 1
    explanation = _why(env, job)["explanation"]
    assert explanation["kind"] == kind, explanation["message"]["en"]
    assert check(explanation)


def test_a_stopped_job_and_a_running_one(env, tmp_path):
    ws = _workspace(tmp_path, "long", "sleep 300")
    _, job = _run(env, ws)
    running = pai(env, "why", job)
    assert running.returncode == 0 and "nothing to explain" in running.stdout
    chinese = pai({**env, "LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "why", job)
    assert "没有需要说明的" in chinese.stdout
    assert pai(env, "stop", job).returncode == 0
    deadline = time.monotonic() + 30
    while (got := _why(env, job))["state"] != "STOPPED":
        assert time.monotonic() < deadline
        time.sleep(0.3)
    assert got["explanation"]["kind"] == "user-stop"


def test_retries_used_up(env, tmp_path):
    ws = _workspace(tmp_path, "retry", "echo attempt; exit 4")
    config = json.loads((ws / "retry.pai.json").read_text())
    config["retryCount"] = 1
    (ws / "retry.pai.json").write_text(json.dumps(config))
    result, job = _run(env, ws, "--follow")
    assert result.returncode == 1
    explanation = _why(env, job)["explanation"]
    assert explanation["kind"] == "retries-exhausted" and explanation["retriesAllowed"] == 1
    assert explanation["cause"]["userExitCode"] == 4


def test_an_unknown_job_is_one_line(env):
    result = pai(env, "why", "no-such-job-here")
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_missing_hdfs_path_is_named_and_looked_up_on_hdfs_now(env, tmp_path):
    # The task reads its data from the cluster's HDFS with the `hdfs` package, as training scripts do.
    fetch = (f"{sys.executable} -c \"import os; from hdfs import InsecureClient; "
             "c = InsecureClient(os.environ['PAI_DEFAULT_FS_URI'].replace('hdfs://', 'http://'), user=os.environ['PAI_USER_NAME']); "
             "c.download('/why-data/train.csv', 'train.csv')\"")
    ws = _workspace(tmp_path, "hdfsdata", fetch)
    result, job = _run(env, ws, "--follow")
    assert result.returncode == 1
    explanation = _why(env, job)["explanation"]
    assert (explanation["kind"], explanation["path"], explanation["hdfs"]) == ("path-not-found", "/why-data/train.csv", True)
    assert explanation["message"]["en"].endswith("It does not exist on HDFS now either.")
    # Once it is there, the explanation made again says a rerun may find it.
    (tmp_path / "train.csv").write_text("x,y\n")
    assert pai(env, "hdfs", "mkdir", "/why-data").returncode == 0
    assert pai(env, "hdfs", "put", str(tmp_path / "train.csv"), "/why-data/train.csv").returncode == 0
    again = _why(env, job, "--refresh")["explanation"]
    assert again["message"]["en"].endswith("It exists on HDFS now: a rerun may find it.")


def test_terminal_escapes_in_a_log_are_shown_not_obeyed(env, tmp_path):
    """An exception message in a task's log changes the window's title (ESC ] 0 ; … BEL) and clears
    the screen: `pai why` (its summary and its evidence), `pai status` and `run --follow`'s why line show
    them made visible; `pai logs` gives the log's bytes as they are, as `cat` does."""
    command = "python3 -c 'raise ValueError(\"\\x1b]0;pwned\\x07\\x1b[2Jgone\")'"
    ws = _workspace(tmp_path, "escapes", command)
    result, job = _run(env, ws, "--follow")
    assert result.returncode == 1
    why_line = next(line for line in result.stderr.splitlines() if line.startswith("why: "))
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr, result.stderr
    text = pai(env, "why", job)
    assert text.returncode == 0
    assert "ValueError: \\033]0;pwned\\a\\033[2Jgone" in text.stdout, text.stdout
    assert "\x1b" not in text.stdout and "\x07" not in text.stdout
    assert "\x1b" not in pai(env, "status", job).stdout
    exact = _why(env, job)  # JSON: exactly what the log said
    assert "\\u001b]0;pwned\\u0007" in json.dumps(exact)
    assert "\x1b]0;pwned\x07" in pai(env, "logs", job).stdout
    assert why_line


V2_JOB = """protocolVersion: 2
name: {name}
type: job
prerequisites:
  - {{type: dockerimage, name: image, uri: python:3.11}}
taskRoles:
  worker:
    instances: 1
    dockerImage: image
    resourcePerInstance: {{cpu: 1, memoryMB: 512, gpu: 0}}
    commands:
{commands}
"""


def _v2_workspace(tmp_path: Path, name: str, commands: list[str]) -> Path:
    ws = tmp_path / name
    ws.mkdir()
    (ws / "train.py").write_text("print('training')\n")
    (ws / f"{name}.pai.yaml").write_text(V2_JOB.format(name=name, commands="\n".join(f"      - {c}" for c in commands)))
    return ws


def test_a_missing_script_is_said_by_where_the_code_went(env, tmp_path):
    """A v2 job whose code pai put in the cluster's storage, and one with nothing uploaded: `pai why`
    says what the submit did, not where code would be had it gone to a codeDir."""
    stored = _v2_workspace(tmp_path, "stored", ["python3 train.py", "python3 evaluate.py"])
    result = pai(env, "run", "stored.pai.yaml", "--follow", cwd=stored)
    job = next(line.split()[1] for line in result.stdout.splitlines() if line.startswith("submitted "))
    got = _why(env, job)
    message = got["explanation"]["message"]["en"]
    assert got["explanation"]["kind"] == "path-not-found" and "evaluate.py" in message
    assert "where pai put the job's code (storage local:/" in message and "/mnt/local/" in message
    assert got["codeDir"].startswith("local:/")
    bare = _v2_workspace(tmp_path, "bare", ["python3 evaluate.py"])
    result = pai(env, "run", "bare.pai.yaml", "--follow", cwd=bare)
    job = next(line.split()[1] for line in result.stdout.splitlines() if line.startswith("submitted "))
    message = _why(env, job)["explanation"]["message"]["en"]
    assert "nothing was uploaded for this job" in message and "$PAI_JOB_NAME" not in message
