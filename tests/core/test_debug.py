"""Debugging a job's tasks, the pure part (core/debug): which tasks, the job rewritten through its
format's interface (v1 and v2 alike), the launcher's line read back, and the path mappings."""

from __future__ import annotations

import base64
import json

import pytest

from pai_lsp.core.debug import DebugRefused, Options, debugged, listening_lines, path_mappings, rewrite, select
from pai_lsp.core.debug.debugpy_launcher import LAUNCHER
from pai_lsp.core.debug.selector import SelectionError
from pai_lsp.core.debug.self_started import SelfStarted, self_started
from pai_lsp.core.debug.shell_words import invocation, segments
from pai_lsp.core.debug.targets import gave_up
from pai_lsp.core.formats import format_for
from pai_lsp.core.messages import render

pytestmark = pytest.mark.unit

ROLES = [("master", 1), ("worker", 3)]


def v1(command: str, tasks: int = 2, ports: list | None = None) -> tuple:
    config = {"jobName": "d", "image": "img", "taskRoles": [
        {"name": "worker", "taskNumber": tasks, "command": command, **({"portList": ports} if ports else {})},
        {"name": "ps", "taskNumber": 1, "command": "python ps.py"}]}
    text = json.dumps(config)
    job_format = format_for("d.pai.json", text)
    return job_format, job_format.parse(text).root.value


def v2(commands: list[str], instances: int = 2) -> tuple:
    lines = "".join(f"      - {json.dumps(c)}\n" for c in commands)
    text = ("protocolVersion: 2\nname: d\ntype: job\nprerequisites:\n  - {name: img, type: dockerimage, uri: 'ubuntu:18.04'}\n"
            f"taskRoles:\n  trainer:\n    instances: {instances}\n    dockerImage: img\n"
            "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0, ports: {tb: 1}}\n"
            f"    commands:\n{lines}")
    job_format = format_for("d.pai.yaml", text)
    return job_format, job_format.parse(text).root.value


# -- which tasks ---------------------------------------------------------------------------
@pytest.mark.parametrize(("tasks", "chosen"), [
    ("first", ["master:0"]), ("", ["master:0"]), ("all", ["master:0", "worker:0", "worker:1", "worker:2"]),
    ("worker", ["worker:0", "worker:1", "worker:2"]), ("worker:2", ["worker:2"])])
def test_selector_chooses_tasks(tasks: str, chosen: list[str]) -> None:
    assert select(tasks, ROLES).tasks(dict(ROLES)) == chosen


@pytest.mark.parametrize(("tasks", "code"), [("nope", "debug.unknown-role"), ("worker:3", "debug.no-index"),
                                             ("worker:x", "debug.bad-selector"), ("a b", "debug.bad-selector")])
def test_selector_says_what_is_wrong(tasks: str, code: str) -> None:
    with pytest.raises(SelectionError) as caught:
        select(tasks, ROLES)
    assert caught.value.said.code == code
    assert render(code, "en", **caught.value.said.args) in str(caught.value)


# -- the rewrite, v1 and v2 through the format's interface --------------------------------------
def test_v1_first_task_wraps_its_python_and_adds_a_debug_port() -> None:
    job_format, job = v1("cd $PAI_JOB_NAME && python -u train.py --lr 0.1")
    plan = rewrite(job_format, job, Options())
    assert plan.tasks == ["worker:0"] and plan.programs == {"worker": "train.py"}
    role = job["taskRoles"][0]
    assert role["portList"] == [{"label": "debug", "beginAt": 0, "portNumber": 1}]
    command = role["command"]
    assert command.startswith("cd $PAI_JOB_NAME && { PAI_DEBUGPY=$(mktemp) && echo ")
    assert ('then PAI_DEBUG_TASKS=worker:0 PAI_DEBUG_VIA=direct python -u "$PAI_DEBUGPY" train.py --lr 0.1; '
            'else python -u train.py --lr 0.1; fi') in command
    assert '[ "${PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX:-$PAI_TASK_INDEX}" = 0 ]' in command
    encoded = command.split("echo ", 1)[1].split(" ", 1)[0]
    assert base64.b64decode(encoded).decode() == LAUNCHER  # the launcher travels whole
    assert job["taskRoles"][1]["command"] == "python ps.py"  # the role not chosen runs as written
    assert debugged(job_format, job) == {"worker": (frozenset({0}), Options("worker:0", None, "direct"))}


def test_v2_role_all_instances_post_mortem_over_ssh() -> None:
    job_format, job = v2(["pip install -r requirements.txt", "python -m pip list", "python3 -m trainer.main --epochs 3"])
    plan = rewrite(job_format, job, Options(tasks="trainer", post_mortem_minutes=5, via="ssh"))
    assert plan.tasks == ["trainer:0", "trainer:1"]
    role = job["taskRoles"]["trainer"]
    assert role["resourcePerInstance"]["ports"] == {"tb": 1, "debug": 1}
    assert role["commands"][:2] == ["pip install -r requirements.txt", "python -m pip list"]  # a tool, not the program
    wrapped = role["commands"][2]
    assert "if [" not in wrapped  # every instance
    assert ('PAI_DEBUG_TASKS=trainer PAI_DEBUG_VIA=ssh PAI_DEBUG_POST_MORTEM=5 python3 "$PAI_DEBUGPY" -m trainer.main '
            "--epochs 3;") in wrapped
    assert debugged(job_format, job) == {"trainer": (None, Options("trainer", 5, "ssh"))}
    rendered = " ".join(job_format.rendered(job).split())  # (YAML folds the long line)
    assert "debug: 1" in rendered and 'python3 "$PAI_DEBUGPY" -m trainer.main' in rendered  # the preview shows it


def test_torchrun_gets_a_port_per_worker() -> None:
    job_format, job = v2(["torchrun --standalone --nproc_per_node=4 train.py --bs 8"])
    rewrite(job_format, job, Options(tasks="trainer:1"))
    role = job["taskRoles"]["trainer"]
    assert role["resourcePerInstance"]["ports"]["debug"] == 4
    assert ('PAI_DEBUG_RANKED=1 torchrun --standalone --nproc_per_node=4 "$PAI_DEBUGPY" train.py --bs 8; '
            "else torchrun") in role["commands"][0]
    assert "= 1 ]; then" in role["commands"][0]


def test_torch_distributed_launch_module() -> None:
    job_format, job = v1("python -m torch.distributed.launch --nproc_per_node 2 -m pkg.train --x 1")
    rewrite(job_format, job, Options(tasks="worker"))
    role = job["taskRoles"][0]
    assert role["portList"][0]["portNumber"] == 2
    assert 'python -m torch.distributed.launch --nproc_per_node 2 "$PAI_DEBUGPY" -m pkg.train --x 1;' in role["command"]


def test_torchrun_with_gpu_workers_gets_a_node_of_ports() -> None:
    job_format, job = v2(["torchrun --nproc-per-node gpu train.py"])
    rewrite(job_format, job, Options())
    assert job["taskRoles"]["trainer"]["resourcePerInstance"]["ports"]["debug"] == 8


def test_an_existing_debug_label_is_kept_when_large_enough() -> None:
    job_format, job = v1("python train.py", ports=[{"label": "debug", "beginAt": 0, "portNumber": 3}])
    rewrite(job_format, job, Options())
    assert job["taskRoles"][0]["portList"] == [{"label": "debug", "beginAt": 0, "portNumber": 3}]


@pytest.mark.parametrize("command", ["bash run.sh", "python -c 'print(1)'", "python -m pip install x", "python",
                                     "torchrun --no-python ./a.out", "echo python train.py"])
def test_a_command_it_cannot_wrap_is_one_line(command: str) -> None:
    job_format, job = v1(command)
    with pytest.raises(DebugRefused) as caught:
        rewrite(job_format, job, Options())
    assert caught.value.said.code == "debug.cannot-wrap"
    assert caught.value.said.args["role"] == "worker"
    line = render("debug.cannot-wrap", "en", **caught.value.said.args)
    assert "\n" not in line and "python x.py" in line


def test_bad_options_are_refused() -> None:
    job_format, job = v1("python train.py")
    for options, code in ((Options(via="telnet"), "debug.bad-via"), (Options(post_mortem_minutes=0), "debug.bad-post-mortem"),
                          (Options(tasks="ghost"), "debug.unknown-role")):
        with pytest.raises(DebugRefused) as caught:
            rewrite(job_format, job, options)
        assert caught.value.said.code == code


SESSION_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeSessionKeyForTheTestOnly pai-debug"
PLUGINS = "com.microsoft.pai.runtimeplugin"


def test_via_ssh_a_job_without_the_ssh_plugin_gets_one_with_the_session_key() -> None:
    job_format, job = v2(["python train.py"])
    plan = rewrite(job_format, job, Options(via="ssh"), SESSION_KEY)
    assert plan.ssh_key == SESSION_KEY
    assert job["extras"][PLUGINS] == [{"plugin": "ssh", "parameters": {"userssh": {"type": "custom", "value": SESSION_KEY}}}]
    assert job_format.ssh_keys(job) == (SESSION_KEY,)
    assert SESSION_KEY in " ".join(job_format.rendered(job).split())  # the dry run shows it (a public key)


def test_via_ssh_the_key_joins_the_plugin_list_or_fills_an_ssh_entry_without_userssh() -> None:
    job_format, job = v2(["python train.py"])
    job["extras"] = {PLUGINS: [{"plugin": "tensorboard", "parameters": {"port": 6006}}]}
    rewrite(job_format, job, Options(via="ssh"), SESSION_KEY)
    assert [p["plugin"] for p in job["extras"][PLUGINS]] == ["tensorboard", "ssh"]  # appended, the other kept
    job_format, job = v2(["python train.py"])
    job["extras"] = {PLUGINS: [{"plugin": "ssh", "parameters": {"jobssh": True, "userssh": {"type": "custom", "value": ""}},
                                "taskroles": ["ps"], "failurePolicy": "ignore"}]}
    rewrite(job_format, job, Options(via="ssh"), SESSION_KEY)
    (entry,) = job["extras"][PLUGINS]  # the portal's empty "Enable User SSH" entry, filled
    assert entry["parameters"] == {"jobssh": True, "userssh": {"type": "custom", "value": SESSION_KEY}}
    assert entry["taskroles"] == ["ps", "trainer"] and entry["failurePolicy"] == "ignore"


def test_via_ssh_a_job_that_names_the_users_key_keeps_it_and_direct_adds_nothing() -> None:
    own = {PLUGINS: [{"plugin": "ssh", "parameters": {"userssh": {"type": "custom", "value": "ssh-rsa AAAAmine me@host"}}}]}
    job_format, job = v2(["python train.py"])
    job["extras"] = json.loads(json.dumps(own))
    plan = rewrite(job_format, job, Options(via="ssh"), SESSION_KEY)
    assert plan.ssh_key is None and job["extras"] == own
    job_format, job = v2(["python train.py"])
    assert rewrite(job_format, job, Options(via="direct"), SESSION_KEY).ssh_key is None and "extras" not in job


def test_via_ssh_a_v1_job_is_refused_in_one_line() -> None:
    job_format, job = v1("python train.py")
    before = json.loads(json.dumps(job))
    with pytest.raises(DebugRefused) as caught:
        rewrite(job_format, job, Options(via="ssh"), SESSION_KEY)
    assert caught.value.said.code == "debug.ssh-no-plugin" and job == before
    assert "\n" not in render("debug.ssh-no-plugin", "en") and render("debug.ssh-no-plugin", "zh-cn")


def test_a_job_not_debugged_reads_back_empty() -> None:
    job_format, job = v2(["python train.py"])
    assert debugged(job_format, job) == {}


def test_shell_segments_respect_quotes_and_comments() -> None:
    line = "echo 'a && python x.py' && VAR=1 python y.py | tee log # python z.py"
    found = [s.text for s in segments(line) if invocation(s) is not None]
    assert found == ["VAR=1 python y.py"]


# -- what the task says, and the mappings -----------------------------------------------------
def test_listening_lines_are_read_from_a_log() -> None:
    log = ("step 1\n[pai debug] waiting for a debugger on 10.0.0.4:31234 (script /pai/work/job/src/train.py)\n"
           "[pai debug] IndexError ended the program: waiting 5 minutes for a debugger on 127.0.0.1:40001 (script /w/a b.py)\n"
           "[pai debug] waiting for a debugger on 10.0.0.4:31235 as worker 1 (script /pai/work/job/src/train.py)\n")
    first, second, third = listening_lines(log)
    assert (first.host, first.port, first.script, first.failed, first.worker) == (
        "10.0.0.4", 31234, "/pai/work/job/src/train.py", None, None)
    assert (second.port, second.script, second.failed) == (40001, "/w/a b.py", "IndexError")
    assert (third.port, third.script, third.worker) == (31235, "/pai/work/job/src/train.py", 1)
    assert not gave_up(log) and gave_up(log + "[pai debug] no debugger came: the task ends as it would have\n")


def test_path_mappings_find_the_workspace_root_from_a_nested_file() -> None:
    files = ["train.py", "src/model/train.py", "README.md"]
    assert path_mappings("/mnt/local/alice~job_1/src/model/train.py", "/home/a/ws", files) == [
        {"localRoot": "/home/a/ws", "remoteRoot": "/mnt/local/alice~job_1"}]
    assert path_mappings("/pai/work/job_1/train.py", "/home/a/ws", files) == [
        {"localRoot": "/home/a/ws", "remoteRoot": "/pai/work/job_1"}]
    # code that came with the image: its folder is taken for the workspace's
    assert path_mappings("/opt/app/main.py", "/home/a/ws", files) == [{"localRoot": "/home/a/ws", "remoteRoot": "/opt/app"}]


def test_all_debugs_every_role_that_runs_python_and_leaves_the_others() -> None:
    job_format, job = v1("python train.py")
    job["taskRoles"][1]["command"] = "bash serve.sh"
    plan = rewrite(job_format, job, Options(tasks="all"))
    assert plan.tasks == ["worker:0", "worker:1"] and job["taskRoles"][1]["command"] == "bash serve.sh"
    job_format, job = v1("bash a.sh")
    job["taskRoles"][1]["command"] = "bash b.sh"
    with pytest.raises(DebugRefused) as caught:
        rewrite(job_format, job, Options(tasks="all"))
    assert caught.value.said.args["role"] == "worker"


# -- a job whose own command starts debugpy ----------------------------------------------------
@pytest.mark.parametrize(("command", "where"), [
    ("python -m debugpy --listen 0.0.0.0:5678 --wait-for-client train.py", SelfStarted(port=5678)),
    ("python3 -m debugpy --listen 5678 train.py", SelfStarted(port=5678)),
    ("python -m debugpy --wait-for-client --listen 0.0.0.0:$PAI_CONTAINER_HOST_dbg_PORT_LIST -m pkg", SelfStarted(label="dbg")),
    ('python -m debugpy --listen "$PAI_PORT_LIST_worker_${PAI_TASK_INDEX}_debug" x.py', SelfStarted(label="debug")),
    ("python -m debugpy --listen ${PAI_worker_0_debugpy_PORT} x.py", SelfStarted(label="debugpy")),
])
def test_where_a_command_that_starts_debugpy_itself_listens(command, where) -> None:
    for job_format, job in (v1(command), v2([f"cd src && {command}"])):
        role = next(iter(self_started(job_format, job)))
        assert self_started(job_format, job) == {role: where}
    assert where.port_of({"dbg": "31001,31002", "debug": "31003", "debugpy": "31004"}) == (
        where.port or {"dbg": 31001, "debug": 31003, "debugpy": 31004}[where.label])


def test_a_command_without_debugpy_or_with_an_unreadable_port_is_no_self_started_debugger() -> None:
    assert self_started(*v1("python train.py")) == {}
    assert self_started(*v1("python -m debugpy --listen $(cat port) train.py")) == {}
    assert SelfStarted(label="debug").port_of({}) is None
