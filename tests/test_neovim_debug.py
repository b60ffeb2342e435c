"""Debug Job in a real headless Neovim against the embedded local cluster: :PaiDebugJob submits the job
file with its first task waiting under debugpy, and hands nvim-dap one attach configuration per task
as it listens — with the adapter to reach it and the path mappings that make a breakpoint in the
workspace's file bind — or, without nvim-dap, says in one line where to attach. nvim-dap itself cannot
be installed here: a stand-in module on the runtimepath records what the plugin hands it, and a Debug
Adapter Protocol client (tests/helpers/dap.py) attaches with exactly that, as nvim-dap would, and
stops at the breakpoint. The tasks run this Python (its folder first on PATH), which has debugpy."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers.dap import DapClient
from .helpers.debug_job import LOOP_LINE, line_of, stop_once_at
from .helpers.neovim import Neovim, isolated_env, stop_services
from .helpers.paths import EXAMPLE

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (.ci/run installs it)")



@pytest.fixture
def env():
    env = isolated_env()
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    yield env
    stop_services(env)


@pytest.fixture
def workspace(env) -> Path:
    ws = Path(env["PAI_NVIM_TEST_HOME"]) / "ws"
    shutil.copytree(EXAMPLE, ws)
    return ws


def fake_dap(tmp_path: Path) -> Path:
    """A runtimepath folder holding the stand-in nvim-dap (FAKE_DAP), which records what it is handed."""
    (tmp_path / "fake" / "lua").mkdir(parents=True)
    (tmp_path / "fake" / "lua" / "dap.lua").write_text(FAKE_DAP)
    return tmp_path / "fake"


def stop_once_in_train_py(host: str, port: int, mappings: list[dict], ws: Path) -> dict[str, str]:
    """Attach as a debugger does, stop at the loop's line of the workspace's train.py; its frame's variables."""
    source = ws / "train.py"
    return stop_once_at({"host": host, "port": port, "pathMappings": mappings}, source, line_of(source, LOOP_LINE))


def test_debug_job_hands_nvim_dap_a_session_that_stops_in_the_workspace_file(env, workspace, tmp_path):
    fake = fake_dap(tmp_path)
    nvim = Neovim(env, workspace)
    try:
        nvim.lua("vim.opt.runtimepath:append(...)", str(fake))
        nvim.command("edit mnist.pai.yaml")
        nvim.command("PaiDebugJob")
        line = nvim.wait_message(" wait for a debugger", 90)
        job = re.fullmatch(r"pai: job (\S+) submitted to local: train:0 wait for a debugger", line).group(1)
        config = nvim.wait("require('dap').runs[1]", 90, what="a debug session run")
        assert config == {"type": "pai", "request": "attach", "name": f"{job} train:0", "justMyCode": True,
                          "connect": {"host": "127.0.0.1", "port": config["connect"]["port"]},
                          "pathMappings": config["pathMappings"]}, config
        assert config["pathMappings"][0]["localRoot"] == str(workspace), config
        # nvim-dap asks the registered adapter how to reach it: debugpy where the task listens.
        adapter = nvim.lua("local got; require('dap').adapters.pai(function(a) got = a end, ...); return got", config)
        assert adapter == {"type": "server", **config["connect"]}
        variables = stop_once_in_train_py(adapter["host"], adapter["port"], config["pathMappings"], workspace)
        assert variables["epoch"] == "1" and variables["loss"] == "2.3", variables
        assert nvim.wait_message(f"job {job} SUCCEEDED", 90) == f"pai: job {job} SUCCEEDED"
        nvim.wait(f"vim.tbl_contains(vim.api.nvim_buf_get_lines(vim.fn.bufnr('pai://logs/{job}'), 0, -1, false), 'done')",
                  what="the job's log, to its end")
        assert len(nvim.lua("return require('dap').runs")) == 1  # one task, one session
    finally:
        nvim.close()


def test_without_nvim_dap_one_line_says_where_to_attach(env, workspace):
    nvim = Neovim(env, workspace)
    try:
        nvim.command("edit mnist.pai.yaml")
        nvim.command("PaiDebugJob train:0")
        line = nvim.wait_message(": debugpy listens at ", 90)
        said = re.fullmatch(r"pai: (\S+) train:0: debugpy listens at ([\d.]+):(\d+); attach a debugger there "
                            r"\(nvim-dap does it from Neovim\) with the path mappings (\S+) → (\S+)", line)
        assert said and said.group(4) == str(workspace), line
        job, host, port, local, remote = said.groups()
        variables = stop_once_in_train_py(host, int(port), [{"localRoot": local, "remoteRoot": remote}], workspace)
        assert variables["epoch"] == "1", variables
        assert nvim.wait_message(f"job {job} SUCCEEDED", 90) == f"pai: job {job} SUCCEEDED"
    finally:
        nvim.close()



def test_the_jobs_view_attaches_to_both_instances_of_a_job_debugged_from_the_terminal(env, workspace, tmp_path):
    """A job already running with its tasks waiting (`pai debug --task train`, two instances): `a` on its
    row in :PaiJobs runs one nvim-dap session per instance, each on its own port."""
    fake = fake_dap(tmp_path)
    job_file = workspace / "mnist.pai.yaml"
    job_file.write_text(job_file.read_text().replace("instances: 1", "instances: 2"))
    terminal = subprocess.Popen([sys.executable, "-m", "pai_lsp", "debug", "mnist.pai.yaml", "--task", "train", "-o", "json"],
                                env=env, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = terminal.stdout.readline()  # a task listens: the job runs
        assert first, terminal.stderr.read()
        job = re.search(r'"job": "([^"]+)"', first).group(1)
        nvim = Neovim(env, workspace)
        try:
            nvim.lua("vim.opt.runtimepath:append(...)", str(fake))
            nvim.command("PaiJobs local")
            nvim.wait(f"vim.fn.search('^{job} *RUNNING', 'n') > 0", 90, what="the job listed RUNNING")
            nvim.cursor_to(job)
            nvim.keys("a")
            nvim.keys("a")  # again while it attaches: said, not done twice
            nvim.wait_message(f"already attaching to the tasks of {job} as they listen")
            nvim.wait("#require('dap').runs == 2", 90, what="two debug sessions")
            runs = sorted(nvim.lua("return require('dap').runs"), key=lambda c: c["name"])
            assert [c["name"] for c in runs] == [f"{job} train:0", f"{job} train:1"], runs
            assert runs[0]["connect"]["port"] != runs[1]["connect"]["port"], runs
            for config in runs:
                variables = stop_once_in_train_py(config["connect"]["host"], config["connect"]["port"], config["pathMappings"],
                                                  workspace)
                assert variables["epoch"] == "1", variables
            nvim.lua("vim.wait(500)")
            assert len(nvim.lua("return require('dap').runs")) == 2
        finally:
            nvim.close()
        assert terminal.wait(timeout=120) == 0, terminal.stderr.read()
    finally:
        if terminal.poll() is None:
            terminal.kill()



FAILING = """\
def ratio(values):
    count = len(values)
    return values[count] / count


ratio([3, 4])
"""


def one_task_job(name: str, command: str) -> str:
    return json.dumps({"jobName": name, "image": "python:3", "codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
                       "taskRoles": [{"name": "worker", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
                                      "command": command}]}, indent=2)


def test_post_mortem_attaches_at_the_exception_and_a_command_it_cannot_wrap_is_one_error(env, tmp_path):
    fake = fake_dap(tmp_path)
    ws = Path(env["PAI_NVIM_TEST_HOME"]) / "pm"
    ws.mkdir()
    (ws / "fail.py").write_text(FAILING)
    (ws / "pm.pai.json").write_text(one_task_job("pm", "cd $PAI_JOB_NAME && python3 fail.py"))
    (ws / "sh.pai.json").write_text(one_task_job("sh", "bash run.sh"))
    nvim = Neovim(env, ws)
    try:
        nvim.lua("vim.opt.runtimepath:append(...)", str(fake))
        nvim.command("edit sh.pai.json")
        nvim.keys(":PaiDebugJob<CR>")
        assert "starts no Python program pai can debug" in nvim.wait_message("starts no Python program")
        nvim.command("edit pm.pai.json")
        nvim.command("PaiDebugJob --post-mortem 2")
        line = nvim.wait_message(" stopped at ", 90)
        job = re.match(r"pai: (\S+) worker:0 stopped at ", line).group(1)
        assert "IndexError" in line and line.endswith(": attaching"), line
        (config,) = nvim.wait("require('dap').runs[1] and require('dap').runs", 30, what="a debug session run")
        assert config["name"] == f"{job} worker:0"
        client = DapClient(config["connect"]["host"], config["connect"]["port"])
        try:
            client.attach(config["pathMappings"], {})
            stopped = client.stopped(timeout=60)
            assert stopped["reason"] == "exception"
            frame = client.frames(stopped["threadId"])[0]
            assert (frame["source"]["path"], frame["line"]) == (str(ws / "fail.py"), 3)
            assert client.variables(frame["id"])["count"] == "2"
            client.resume(stopped["threadId"])
        finally:
            client.disconnect()
        assert nvim.wait_message(f"job {job} FAILED", 90).startswith(f"pai: job {job} FAILED")
    finally:
        nvim.close()



def test_the_debug_job_code_lens_attaches_nvim_dap_too(env, workspace, tmp_path):
    """Neovim's own code lenses (vim.lsp.codelens): the server's "Debug Job" lens runs what :PaiDebugJob
    does, in the editor, so a session follows."""
    fake = fake_dap(tmp_path)
    nvim = Neovim(env, workspace)
    try:
        nvim.lua("vim.opt.runtimepath:append(...)", str(fake))
        nvim.command("edit mnist.pai.yaml")
        nvim.wait("#vim.lsp.get_active_clients() > 0 and vim.lsp.buf_is_attached(0, vim.lsp.get_active_clients()[1].id)",
                  what="the server attached")
        nvim.lua("vim.lsp.codelens.refresh()")
        lenses = nvim.wait("#vim.lsp.codelens.get(0) > 0 and vim.tbl_map(function(l) return {l.range.start.line, l.command.title} end,"
                           " vim.lsp.codelens.get(0))", what="the code lenses")
        line = lenses[0][0]
        titles = [title for at, title in lenses if at == line]
        assert "Debug Job" in titles, lenses
        nvim.lua("vim.api.nvim_win_set_cursor(0, {...})", line + 1, 0)
        nvim.keys(f":lua vim.lsp.codelens.run()<CR>{titles.index('Debug Job') + 1}<CR>")
        job = re.search(r"job (\S+) submitted to local: train:0 wait for a debugger", nvim.wait_message(" wait for a debugger", 90)).group(1)
        (config,) = nvim.wait("require('dap').runs[1] and require('dap').runs", 90, what="a debug session run")
        assert config["name"] == f"{job} train:0"
        client = DapClient(config["connect"]["host"], config["connect"]["port"])
        try:
            client.attach(config["pathMappings"], {})
        finally:
            client.disconnect()
        assert nvim.wait_message(f"job {job} SUCCEEDED", 90) == f"pai: job {job} SUCCEEDED"
    finally:
        nvim.close()


# A stand-in for the third-party nvim-dap (not installable here): it records what the plugin hands it.
FAKE_DAP = """
local M = { adapters = {}, configurations = {}, runs = {} }
function M.run(config) table.insert(M.runs, config) end
return M
"""

# Targets in the shape `pai.debugTargets` answers (docs/protocol.md).
TARGETS = {"targets": [
    {"job": "mnist_1", "task": "worker:0", "host": "127.0.0.1", "port": 40123, "state": "listening",
     "pathMappings": [{"localRoot": "/ws", "remoteRoot": "/pai/mnist_1/code"}]},
    {"job": "mnist_1", "task": "worker:1", "host": "127.0.0.1", "port": 40124, "state": "waiting", "pathMappings": []},
]}


def test_the_nvim_dap_adapter_and_attach_configurations(env, tmp_path):
    nvim = Neovim(env, tmp_path)
    try:
        # The adapter: an attach by `connect` speaks to the task's debugpy there; a launch runs
        # debugpy's adapter with the Python that runs pai-lsp (here the server command is that Python).
        adapter = "local got; require('pai_lsp').dap.adapter(function(a) got = a end, ...); return got"
        assert nvim.lua(adapter, {"type": "pai", "request": "attach", "connect": {"host": "10.0.0.5", "port": 5678}}) == {
            "type": "server", "host": "10.0.0.5", "port": 5678}
        assert nvim.lua(adapter, {"type": "pai", "request": "launch", "program": "x.py"}) == {
            "type": "executable", "command": sys.executable, "args": ["-m", "debugpy.adapter"]}
        # Started as pip's `pai-lsp` script: the Python its first line names.
        script = Path(sys.executable).parent / "pai-lsp"
        if script.exists():
            nvim.lua("require('pai_lsp').config.cmd = { ... }", str(script))
            assert nvim.lua("return require('pai_lsp').dap.executable().command") == script.read_text().splitlines()[0][2:].strip()
        # The configurations: one per task listening now.
        assert nvim.lua("return require('pai_lsp').dap.configurations(...)", TARGETS) == [{
            "type": "pai", "request": "attach", "name": "mnist_1 worker:0", "connect": {"host": "127.0.0.1", "port": 40123},
            "pathMappings": [{"localRoot": "/ws", "remoteRoot": "/pai/mnist_1/code"}], "justMyCode": True}]
        # Without nvim-dap: one line says where to attach.
        nvim.lua("require('pai_lsp.dap').start(...)", TARGETS["targets"][0])
        assert nvim.wait_message("mnist_1 worker:0: ") == (
            "pai: mnist_1 worker:0: debugpy listens at 127.0.0.1:40123; attach a debugger there (nvim-dap does it from Neovim) "
            "with the path mappings /ws → /pai/mnist_1/code")
        # With nvim-dap: its `pai` adapter registered, and a session run for the target.
        nvim.lua("vim.opt.runtimepath:append(...)", str(fake_dap(tmp_path)))
        nvim.lua("require('pai_lsp.dap').start(...)", TARGETS["targets"][0])
        assert nvim.lua("return require('dap').runs") == nvim.lua("return require('pai_lsp').dap.configurations(...)", TARGETS)
        assert nvim.lua("return require('dap').adapters.pai == require('pai_lsp').dap.adapter") is True
    finally:
        nvim.close()
