"""Debug Job end to end on the embedded local cluster: `pai debug FILE -o json` as a subprocess prints
where each chosen task waits, and a Debug Adapter Protocol client (tests/helpers/dap.py, as an editor's
debugger) attaches there with the printed path mappings: a breakpoint set in the workspace's file stops
the task's process, its variables are read, and the job then ends as it would have.

The tasks run this Python (its folder first on PATH), which has debugpy: an image that has it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from .helpers.cli import pai
from .helpers.dap import DapClient
from .helpers.debug_job import LOOP_LINE, finish, line_of, start, stop_once_at, targets
from .helpers.paths import EXAMPLE

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def debug_env(env):
    return {**env, "PATH": os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")}


def test_debug_job_stops_at_a_breakpoint_in_the_workspace_file_and_the_job_succeeds(debug_env, tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    process = start(debug_env, ws, "mnist.pai.yaml")
    (target,) = targets(process, 1)
    assert set(target) == {"host", "port", "pathMappings", "job", "task"}
    assert target["task"] == "train:0" and target["host"] == "127.0.0.1"
    (mapping,) = target["pathMappings"]
    assert mapping["localRoot"] == str(ws) and mapping["remoteRoot"].endswith("/" + target["job"])
    variables = stop_once_at(target, ws / "train.py", line_of(ws / "train.py", LOOP_LINE))
    assert variables["epoch"] == "1" and variables["loss"] == "2.3"
    code, out, err = finish(process)
    assert code == 0, err
    assert f"{target['job']} ended: SUCCEEDED" in err
    log = pai(debug_env, "logs", target["job"])
    assert "epoch 3/3 loss=0.4968" in log.stdout  # it ran on to its end


NESTED = {"jobName": "nested", "image": "python:3", "codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
          "taskRoles": [{"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
                         "command": "cd $PAI_JOB_NAME/pkg && python3 -u loop.py --task $PAI_TASK_INDEX"}]}
LOOP = """\
import sys

total = 0
for step in range(3):
    total += step
print("task", sys.argv[2], "total", total, flush=True)
"""


def test_every_instance_of_a_role_stops_and_a_nested_file_maps(debug_env, tmp_path):
    ws = tmp_path / "nested"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "loop.py").write_text(LOOP)
    (ws / "nested.pai.json").write_text(json.dumps(NESTED))
    process = start(debug_env, ws, "nested.pai.json", "--task", "worker")
    found = sorted(targets(process, 2), key=lambda t: t["task"])
    assert [t["task"] for t in found] == ["worker:0", "worker:1"] and found[0]["port"] != found[1]["port"]
    for target in found:
        (mapping,) = target["pathMappings"]  # pkg/loop.py runs from .../<job>/pkg: the workspace is .../<job>
        assert mapping["localRoot"] == str(ws) and mapping["remoteRoot"].endswith("/" + target["job"])
        variables = stop_once_at(target, ws / "pkg" / "loop.py", 5)
        assert variables["step"] == "0" and variables["total"] == "0"
    code, _, err = finish(process)
    assert code == 0, err
    log = pai(debug_env, "logs", found[0]["job"]).stdout
    assert "task 0 total 3" in log and "task 1 total 3" in log


FAILING = """\
def ratio(values):
    count = len(values)
    return values[count] / count


ratio([3, 4])
"""


def test_post_mortem_stops_at_the_exception_then_the_task_fails_as_it_would_have(debug_env, tmp_path):
    ws = tmp_path / "pm"
    ws.mkdir()
    (ws / "fail.py").write_text(FAILING)
    config = {**NESTED, "jobName": "pm", "taskRoles": [{**NESTED["taskRoles"][0], "taskNumber": 1,
                                                        "command": "cd $PAI_JOB_NAME && python3 fail.py"}]}
    (ws / "pm.pai.json").write_text(json.dumps(config))
    process = start(debug_env, ws, "pm.pai.json", "--post-mortem", "2")
    (target,) = targets(process, 1)
    client = DapClient(target["host"], target["port"])
    try:
        client.attach(target["pathMappings"], {})
        stopped = client.stopped(timeout=60)
        assert stopped["reason"] == "exception" and "IndexError" in stopped.get("text", "") + stopped.get("description", "")
        frame = client.frames(stopped["threadId"])[0]
        assert frame["source"]["path"] == str(ws / "fail.py") and frame["line"] == 3
        assert client.variables(frame["id"])["count"] == "2"
        client.resume(stopped["threadId"])
    finally:
        client.disconnect()
    code, _, err = finish(process)
    assert code == 1 and f"{target['job']} ended: FAILED" in err
    log = pai(debug_env, "logs", target["job"]).stdout + pai(debug_env, "logs", target["job"]).stderr
    assert "IndexError: list index out of range" in log


def test_a_command_it_cannot_wrap_is_refused_in_one_line_before_anything_is_sent(debug_env, tmp_path):
    ws = tmp_path / "sh"
    ws.mkdir()
    config = {**NESTED, "jobName": "sh", "taskRoles": [{**NESTED["taskRoles"][0], "command": "bash run.sh"}]}
    (ws / "sh.pai.json").write_text(json.dumps(config))
    result = pai(debug_env, "debug", "sh.pai.json", cwd=ws)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "starts no Python program pai can debug" in result.stderr


def test_dry_run_shows_the_debug_port_and_the_wrapped_command(debug_env, tmp_path):
    ws = tmp_path / "dry"
    shutil.copytree(EXAMPLE, ws)
    result = pai(debug_env, "debug", "mnist.pai.yaml", "--dry-run", cwd=ws)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "debug: 1" in text and 'PAI_DEBUG_TASKS=train:0 PAI_DEBUG_VIA=direct python3 "$PAI_DEBUGPY" train.py' in text


def test_an_image_without_debugpy_that_cannot_install_it_fails_in_one_clear_line(tmp_path):
    """The task's Python lacks debugpy and pip can reach no index: the launcher says so in the task's log,
    the task fails, and `pai debug` ends saying the job ended before any task waited."""
    from .helpers.cli import isolated_env, stop_all

    plain = shutil.which("python3", path="/usr/bin:/bin")
    if plain is None or subprocess.run([plain, "-c", "import debugpy"], capture_output=True).returncode == 0:
        pytest.skip("needs a system python3 without debugpy")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(plain)
    env = {**isolated_env(tmp_path / "home"), "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    ws = tmp_path / "nodebugpy"
    ws.mkdir()
    (ws / "fail.py").write_text(FAILING)
    config = {**NESTED, "jobName": "nodebugpy", "jobEnvs": {"PIP_CONFIG_FILE": "/dev/null", "PIP_NO_INDEX": "1",
                                                           "PYTHONUSERBASE": str(tmp_path / "userbase")},
              "taskRoles": [{**NESTED["taskRoles"][0], "taskNumber": 1, "command": "cd $PAI_JOB_NAME && python3 fail.py"}]}
    (ws / "nodebugpy.pai.json").write_text(json.dumps(config))
    try:
        process = start(env, ws, "nodebugpy.pai.json")
        code, out, err = finish(process)
        assert code == 1 and out == "", err
        assert "ended (FAILED) before any task waited for a debugger" in err
        job = err.split("submitted ", 1)[1].split()[0]
        log = pai(env, "logs", job)
        said = log.stdout + log.stderr
        assert "[pai debug] debugpy is not installed here: installing it with pip" in said
        assert "[pai debug] debugpy could not be installed: add it to the image (pip install debugpy) and debug again" in said
    finally:
        stop_all(env)


# A stand-in for torchrun (no torch here): it starts --nproc_per_node workers as torchrun does, each
# `python -u SCRIPT ARGS…` with LOCAL_RANK, RANK and WORLD_SIZE set, and fails when one fails.
TORCHRUN = """\
#!/usr/bin/env python3
import os, subprocess, sys
args = sys.argv[1:]
workers = 1
while args[0].startswith("-"):
    option = args.pop(0)
    if option.startswith("--nproc_per_node="):
        workers = int(option.split("=", 1)[1])
script, rest = args[0], args[1:]
running = [subprocess.Popen([sys.executable, "-u", script, *rest],
                            env={**os.environ, "LOCAL_RANK": str(i), "RANK": str(i), "WORLD_SIZE": str(workers)})
           for i in range(workers)]
sys.exit(max(p.wait() for p in running))
"""
RANKED = """\
import os

rank = int(os.environ["LOCAL_RANK"])
for step in range(2):
    rank += 0
print("worker rank", rank, "done", flush=True)
"""


def test_each_torchrun_worker_waits_on_its_own_port(debug_env, tmp_path):
    ws = tmp_path / "ranks"
    ws.mkdir()
    (ws / "torchrun").write_text(TORCHRUN)
    (ws / "ranked.py").write_text(RANKED)
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.include": ["**/*.py", "torchrun"]}))
    config = {**NESTED, "jobName": "ranks", "taskRoles": [{
        **NESTED["taskRoles"][0], "taskNumber": 1,
        "command": "cd $PAI_JOB_NAME && chmod +x torchrun && PATH=$PWD:$PATH torchrun --nproc_per_node=2 ranked.py"}]}
    (ws / "ranks.pai.json").write_text(json.dumps(config))
    process = start(debug_env, ws, "ranks.pai.json")
    found = targets(process, 2)
    assert [t["task"] for t in found] == ["worker:0", "worker:0"] and found[0]["port"] != found[1]["port"]
    assert sorted(t["worker"] for t in found) == [0, 1]  # which of the task's processes each is (LOCAL_RANK)
    ranks = set()
    for target in found:
        variables = stop_once_at(target, ws / "ranked.py", 5)
        ranks.add(variables["rank"])
    assert ranks == {"0", "1"}
    code, _, err = finish(process)
    assert code == 0, err
    log = pai(debug_env, "logs", found[0]["job"]).stdout
    assert "worker rank 0 done" in log and "worker rank 1 done" in log


ROUTED = """\
protocolVersion: 2
name: routed
type: job
prerequisites:
  - {name: image, type: dockerimage, uri: "python:3"}
taskRoles:
  train:
    instances: 1
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}
    commands:
      - python3 src/train.py --epochs 2
"""


def test_code_sent_through_a_storage_maps_from_the_folder_named_after_the_job(debug_env, tmp_path):
    """No codeDir: the code goes to the user's default storage under `<user>~<job>/`, which the job mounts and
    `cd`s into; a breakpoint in the workspace's nested src/train.py binds there."""
    ws = tmp_path / "routed"
    (ws / "src").mkdir(parents=True)
    shutil.copy(EXAMPLE / "train.py", ws / "src" / "train.py")
    (ws / "routed.pai.yaml").write_text(ROUTED)
    process = start(debug_env, ws, "routed.pai.yaml")
    (target,) = targets(process, 1)
    (mapping,) = target["pathMappings"]
    assert mapping["localRoot"] == str(ws) and mapping["remoteRoot"].endswith(f"~{target['job']}")
    variables = stop_once_at(target, ws / "src" / "train.py", line_of(ws / "src" / "train.py", LOOP_LINE))
    assert variables["epoch"] == "1"
    code, _, err = finish(process)
    assert code == 0, err
