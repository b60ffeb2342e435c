"""The Neovim client in a real headless Neovim (Debian's 0.7.2 in CI) against the embedded local
cluster: submit from a buffer, live log buffers, :PaiJobs, :PaiLogs, :PaiHdfs, :PaiStorages, :PaiClusters and :PaiWhy,
driven by typing keys and checked by reading the buffers and messages the user sees. Each test
has its own daemon, local cluster and config folders."""

from __future__ import annotations

import getpass
import json
import re
import shutil
from pathlib import Path

import psutil
import pynvim
import pytest

from pai_lsp.core import formats

from .helpers.cli import pai as run_pai
from .helpers.configs import FIRST_RUN, PADDLE_JOB, V2_HELLO
from .helpers.failing import failing_workspace
from .helpers.neovim import CLIENT, Neovim, isolated_env, stop_services
from .helpers.paths import EXAMPLE

MNIST_LOG = ["epoch 1/3 loss=1.3800", "epoch 2/3 loss=0.8280", "epoch 3/3 loss=0.4968"]

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (.ci/run installs it)")


@pytest.fixture
def env():
    env = isolated_env()
    yield env
    stop_services(env)


@pytest.fixture
def workspace(env) -> Path:
    ws = Path(env["PAI_NVIM_TEST_HOME"]) / "ws"
    shutil.copytree(EXAMPLE, ws)
    return ws


@pytest.fixture
def nvim(env, workspace):
    editor = Neovim(env, workspace)
    yield editor
    editor.close()


def pai(env: dict, *args: str, cwd: Path | None = None, stdin: str | None = None) -> str:
    done = run_pai(env, *args, cwd=cwd, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def log_lines(job: str, lines: list[str]) -> list[str]:
    """The mnist example's log: its epochs, where it saved its result, and `done`."""
    saved = [line for line in lines if line.startswith("saved ")]
    assert len(saved) == 1 and saved[0].endswith(f"/output/{job}/result.txt"), lines
    return [*MNIST_LOG, saved[0], "done"]


def submitted_job(nvim: Neovim) -> str:
    line = nvim.wait_message(" submitted to local", 90)
    return re.search(r"job (\S+) submitted", line).group(1)


def test_submit_from_a_buffer_logs_jobs_outputs(nvim, env, workspace, tmp_path):
    nvim.command("edit mnist.pai.json")
    nvim.command("PaiRun")
    job = submitted_job(nvim)
    assert job.startswith("mnist_")
    # Upload progress and the end of the job, as notifications.
    messages = nvim.messages()
    assert "pai: Submitting job: " in messages and "uploading 1/1 files" in messages
    assert nvim.wait_message(f"job {job} SUCCEEDED") == f"pai: job {job} SUCCEEDED"
    # The live log buffer, opened beside the config (which keeps the cursor), has the whole log once.
    # The end of the job and the end of its log travel apart (status and log are separate pushes): wait
    # for the log's last line, then the whole log must be there exactly once.
    nvim.wait(f"vim.fn.bufnr('pai://logs/{job}') > 0 and vim.api.nvim_buf_get_lines(vim.fn.bufnr('pai://logs/{job}'), -2, -1, false)[1] == 'done'",
              what="the log's last line")
    log = nvim.buffer_lines(f"pai://logs/{job}")
    assert log == log_lines(job, log), log
    assert nvim.current_name() == str(workspace / "mnist.pai.json")
    assert nvim.lua("return #vim.fn.win_findbuf(vim.fn.bufnr(...))", f"pai://logs/{job}") == 1
    assert nvim.lua("return vim.bo[vim.fn.bufnr(...)].modifiable", f"pai://logs/{job}") is False

    # :PaiJobs lists it SUCCEEDED.
    nvim.command("PaiJobs")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://jobs' and vim.fn.search('{job} *SUCCEEDED', 'n') > 0",
              what="the job listed SUCCEEDED")
    lines = nvim.current_lines()
    assert lines[0].startswith("Jobs on local as ") and lines[1].split() == ["NAME", "STATE", "STARTED", "DURATION"]

    # <CR>: its tasks.
    nvim.cursor_to(job)
    nvim.keys("<CR>")
    details = nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://job/{job}' and vim.api.nvim_buf_get_lines(0, 0, -1, false)")
    assert details[0] == f"Job:      {job}" and details[2].startswith("State:    SUCCEEDED")
    assert any(re.match(r"train:0 +SUCCEEDED", line) for line in details), details
    nvim.keys("q")

    # o: outputs into the folder typed at the prompt.
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://jobs'")
    nvim.cursor_to(job)
    nvim.keys(f"o<C-u>{tmp_path / 'out'}<CR>")
    nvim.wait_message(f"outputs of {job} downloaded to")
    assert (tmp_path / "out" / job / "result.txt").read_text() == "final loss 0.4968\n"

    # c: the config as the cluster has it.
    nvim.keys("c")
    config = nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://job/{job}.pai.json' and vim.api.nvim_buf_get_lines(0, 0, -1, false)")
    assert json.loads("\n".join(config))["jobName"] == job and config[1] == f'  "jobName": "{job}",'

    # ?: the keys; l: the job's log.
    nvim.command("PaiJobs")
    nvim.keys("?")
    assert nvim.wait_message(":PaiJobs keys") == "pai: :PaiJobs keys"
    assert "  o      download the job's outputs" in nvim.messages().splitlines()
    nvim.cursor_to(job)
    nvim.keys("l")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://logs/{job}'")

    # :PaiLogs after wiping the buffer: the whole log again, once.
    nvim.command(f"bwipeout pai://logs/{job}")
    nvim.command(f"PaiLogs {job}")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://logs/{job}' and vim.api.nvim_buf_line_count(0) >= 5")
    assert nvim.current_lines() == log_lines(job, nvim.current_lines())


def test_logs_of_a_job_this_neovim_did_not_start(env, workspace):
    """:PaiLogs in another Neovim (after the job ended) shows the whole log once, from the daemon."""
    out = pai(env, "run", "mnist.pai.json", "--follow", cwd=workspace)
    job = re.search(r"submitted (\S+) to local", out).group(1)
    editor = Neovim(env, workspace)
    try:
        editor.command(f"PaiLogs {job}")
        editor.wait(f"vim.api.nvim_buf_line_count(vim.fn.bufnr('pai://logs/{job}')) >= 5")
        editor.lua("vim.wait(500)")  # anything more would arrive now
        assert editor.buffer_lines(f"pai://logs/{job}") == log_lines(job, editor.buffer_lines(f"pai://logs/{job}"))
        assert f"job {job} SUCCEEDED" not in editor.messages()  # not started here: no end notification
    finally:
        editor.close()


def test_a_job_the_terminal_ran_is_told_when_it_ends(nvim, env, workspace):
    """Neovim is open (its jobs listed): a job run from the terminal fails, and Neovim says so with
    the cause in one line, though it did not start the job."""
    nvim.command("PaiJobs")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://jobs' and vim.fn.search('^Jobs on local', 'n') > 0",
              what="the jobs listed", timeout=90)
    failing_workspace(workspace / "boom", "boom")
    out = pai(env, "run", "boom.pai.json", cwd=workspace / "boom")
    job = re.search(r"submitted (\S+) to local", out).group(1)
    line = nvim.wait_message(f"job {job} FAILED", 90)
    assert line.startswith(f"pai: job {job} FAILED: ") and "pkg/ops.py:3" in line, line


MULTI = {
    "jobName": "pair",
    "image": "python:3",
    "taskRoles": [{
        "name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
        "command": "for i in 1 2 3 4; do echo \"line $i of $PAI_TASK_INDEX\"; sleep 0.8; done; sleep 120",
    }],
}


def test_several_tasks_hidden_log_and_stop(nvim, env, workspace):
    (workspace / "pair.pai.json").write_text(json.dumps(MULTI, indent=2))
    nvim.command("edit pair.pai.json")
    nvim.command("PaiRun")
    job = submitted_job(nvim)
    name = f"pai://logs/{job}"
    nvim.wait(f"vim.tbl_contains(vim.api.nvim_buf_get_lines(vim.fn.bufnr('{name}'), 0, -1, false), '[worker:0] line 1 of 0')")
    # Hide the log: it goes on filling. Kill the language server meanwhile: it is started again
    # and the log goes on from the bytes the buffer has, no line lost or repeated.
    nvim.lua("for _, w in ipairs(vim.fn.win_findbuf(vim.fn.bufnr(...))) do vim.api.nvim_win_close(w, true) end", name)
    assert nvim.lua("return #vim.fn.win_findbuf(vim.fn.bufnr(...))", name) == 0
    (server,) = [p for p in psutil.Process(nvim.lua("return vim.fn.getpid()")).children(recursive=True)
                 if p.status() != psutil.STATUS_ZOMBIE and p.cmdline()[-3:] == ["-m", "pai_lsp", "lsp"]]  # (an ended helper not reaped yet)
    server.kill()
    assert len(nvim.buffer_lines(name)) < 8  # the job still prints
    nvim.wait_message("the language server stopped")
    nvim.wait(f"#vim.api.nvim_buf_get_lines(vim.fn.bufnr('{name}'), 0, -1, false) >= 8", what="all 8 lines")
    nvim.lua("vim.wait(600)")  # a repeated line would arrive now
    lines = nvim.buffer_lines(name)
    for task in (0, 1):
        assert [line for line in lines if line.startswith(f"[worker:{task}]")] == [
            f"[worker:{task}] line {i} of {task}" for i in range(1, 5)], lines
    assert len(lines) == 8 and not server.is_running()
    # s on the running job, confirmed: it stops, and the end is notified.
    nvim.command("PaiJobs")
    nvim.wait(f"vim.fn.search('{job} *RUNNING', 'n') > 0", what="the job listed RUNNING")
    nvim.cursor_to(job)
    nvim.keys("sy<CR>")
    assert nvim.wait_message(f"job {job} STOPPED") == f"pai: job {job} STOPPED"
    nvim.wait(f"vim.fn.search('{job} *STOPPED', 'n') > 0", what="the job listed STOPPED")


BURN = {"jobName": "burn", "image": "python:3", "taskRoles": [{
    "name": "train", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
    "command": "end=$((SECONDS + 120)); while [ $SECONDS -lt $end ]; do :; done"}]}


def test_a_running_jobs_details_show_each_tasks_resources(nvim, env, workspace):
    (workspace / "burn.pai.json").write_text(json.dumps(BURN, indent=2))
    nvim.command("edit burn.pai.json")
    nvim.command("PaiRun")
    job = submitted_job(nvim)
    nvim.command("PaiJobs")
    nvim.wait(f"vim.fn.search('{job} *RUNNING', 'n') > 0", what="the job listed RUNNING")
    name = f"pai://job/{job}"
    # <CR> again until the cluster's Prometheus has scraped the task (every 10 s, its first within 15 s of the start).
    for _ in range(30):
        nvim.command("PaiJobs")
        nvim.cursor_to(job)
        nvim.keys("<CR>")
        nvim.lua("vim.wait(1500)")
        lines = nvim.buffer_lines(name) or []
        figures = [line for line in lines if line.strip().startswith("train:0") and "CPU" in line]
        if figures:
            break
    assert "Resources of running tasks:" in lines, lines
    assert re.search(r"CPU \d+% · mem [\d.]+ [KMG]iB/512\.0 MiB \(\d+%\)$", figures[0]), figures
    nvim.command("PaiJobs")
    nvim.cursor_to(job)
    nvim.keys("sy<CR>")
    nvim.wait_message(f"job {job} STOPPED")


def test_invalid_config_is_one_error(nvim, workspace):
    (workspace / "bad.pai.json").write_text(json.dumps({"jobName": "x", "image": "i", "taskRoles": [{"name": "a-b", "command": "c"}]}))
    nvim.command("edit bad.pai.json")
    nvim.command("PaiSubmit")
    line = nvim.wait_message("is not a valid name")
    assert line.startswith("pai: ") and '"a-b"' in line
    nvim.lua("vim.wait(300)")
    assert sum("a-b" in m for m in nvim.messages().splitlines()) == 1
    assert not nvim.lua("for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.api.nvim_buf_get_name(b):match('^pai://logs/') then return true end end return false")
    # :PaiLogs of a job that does not exist: its buffer and a warning say so.
    nvim.command("PaiLogs no_such_job")
    line = nvim.wait_message("no_such_job: ")
    assert nvim.buffer_lines("pai://logs/no_such_job")[-1] == "[pai] " + line.split("no_such_job: ", 1)[1]


def test_the_job_files_are_the_ones_the_server_names(nvim, workspace):
    """The plugin hard-codes no file pattern: it asks the server program (`pai-lsp --kinds`), attaches
    the buffers of every format it names, and names them when a buffer is no job file."""
    assert nvim.lua("return require('pai_lsp.client').job_file_patterns()") == formats.patterns()
    (workspace / "fit.paddle.json").write_text(PADDLE_JOB)
    nvim.command("edit fit.paddle.json")
    nvim.wait("#vim.diagnostic.get(0) > 0", what="the PaddlePaddle Cloud job file's diagnostics")
    assert "paddle.name" in nvim.lua("return vim.tbl_map(function(d) return d.code end, vim.diagnostic.get(0))")
    nvim.command("edit notes.json")
    with pytest.raises(pynvim.NvimError, match=re.escape(f"pai: open a job file ({', '.join(formats.patterns())}) to submit it")):
        nvim.command("PaiSubmit")


def test_in_chinese(env, workspace):
    """With a Chinese $LANG, the plugin's texts and the server's messages are in Chinese."""
    env = dict(env, LANG="zh_CN.UTF-8", LC_ALL="", LC_MESSAGES="")
    editor = Neovim(env, workspace)
    try:
        (workspace / "bad.pai.json").write_text(json.dumps({"jobName": "x", "image": "i", "taskRoles": [{"name": "a-b", "command": "c"}]}))
        editor.command("edit bad.pai.json")
        editor.command("PaiSubmit")
        assert '"a-b" 不是有效的' in editor.wait_message("不是有效的")
        editor.command("PaiClusters")
        editor.wait("vim.fn.search('^\\\\* local ', 'n') > 0")
        lines = editor.current_lines()
        assert lines[0] == "集群配置   (? 帮助)" and lines[1].split() == ["名称", "用户", "类型", "登录", "REST"]
        assert lines[2].split()[-2:] == ["运行中", "（内置，在本机）"] or lines[2].split()[-2:] == ["已停止", "（内置，在本机）"], lines
        # <CR>: its virtual clusters, in Chinese too.
        editor.cursor_to("* local ")
        editor.keys("<CR>")
        editor.wait("vim.fn.search('^    节点：', 'n') > 0", what="local's virtual clusters and nodes")
        assert any(line.startswith("    default ") and "GPU 空闲 " in line and "个等待" in line for line in editor.current_lines())
    finally:
        editor.close()


def test_hdfs_browser(nvim, env, workspace, tmp_path):
    out = pai(env, "run", "mnist.pai.json", cwd=workspace)
    code_dir = re.search(r"to (/\S+) \(", out).group(1)  # "uploaded 1 file, … to /<user>/<job> (0 unchanged)"
    home, job = code_dir.rsplit("/", 1)

    nvim.command(f"PaiHdfs {home}")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://hdfs{home}' and vim.fn.search('^{job}/', 'n') > 0",
              what="the code folder listed")
    assert nvim.current_lines()[:2] == [f"{home}   (? help)", "../"]

    nvim.cursor_to(f"{job}/")
    nvim.keys("<CR>")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://hdfs{code_dir}' and vim.fn.search('^train.py', 'n') > 0")

    # <CR> on a file: its text, read-only.
    nvim.cursor_to("train.py")
    nvim.keys("<CR>")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://hdfs{code_dir}/train.py'")
    assert nvim.current_lines() == (workspace / "train.py").read_text().splitlines()
    assert nvim.lua("return vim.bo.modifiable or vim.bo.filetype ~= 'python'") is False
    nvim.command(f"PaiHdfs {code_dir}")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://hdfs{code_dir}'")
    nvim.command(f"PaiHdfs {code_dir}/train.py")  # a file's path opens the file
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://hdfs{code_dir}/train.py'")
    nvim.command(f"PaiHdfs {code_dir}")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://hdfs{code_dir}'")

    # u: upload a local file typed at the prompt.
    notes = tmp_path / "notes.txt"
    notes.write_text("from neovim\n")
    nvim.keys(f"u<C-u>{notes}<CR>")
    nvim.wait("vim.fn.search('^notes.txt', 'n') > 0", what="the uploaded file listed")
    assert pai(env, "hdfs", "cat", f"{code_dir}/notes.txt") == "from neovim\n"

    # d: download it again.
    nvim.cursor_to("notes.txt")
    nvim.keys(f"d<C-u>{tmp_path / 'back.txt'}<CR>")
    nvim.wait_message("downloaded ")
    assert (tmp_path / "back.txt").read_text() == "from neovim\n"
    # Onto a file that is there: replaced only after a yes (as `pai hdfs get` needs -f).
    (tmp_path / "back.txt").write_text("edited here\n")
    nvim.keys(f"d<C-u>{tmp_path / 'back.txt'}<CR>")
    nvim.wait("vim.fn.mode() == 'c' or vim.fn.mode() == 'i'", what="the question whether to replace")
    nvim.keys("y<CR>")
    nvim.wait(f"vim.fn.readfile('{tmp_path / 'back.txt'}')[1] == 'from neovim'", what="back.txt replaced")

    # y: its path in the unnamed register.
    nvim.keys("y")
    assert nvim.wait("vim.fn.getreg('\"')") == f"{code_dir}/notes.txt"

    # D: delete it, after a yes.
    nvim.keys("Dy<CR>")
    nvim.wait("vim.fn.search('^notes.txt', 'n') == 0", what="the file gone from the listing")
    assert "notes.txt" not in pai(env, "hdfs", "ls", code_dir)

    # m: a new folder; r: renamed.
    nvim.keys("mfresh<CR>")
    nvim.wait("vim.fn.search('^fresh/', 'n') > 0")
    nvim.cursor_to("fresh/")
    nvim.keys(f"r<C-u>{code_dir}/renamed<CR>")
    nvim.wait("vim.fn.search('^renamed/', 'n') > 0 and vim.fn.search('^fresh/', 'n') == 0")

    # -: the parent folder.
    nvim.keys("-")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://hdfs{home}' and vim.fn.search('^{job}/', 'n') > 0")


def test_storages_beside_hdfs(nvim, env, tmp_path):
    """:PaiStorages lists the storages the user's jobs may mount (the local cluster's default `local`,
    and a read-only `datasets` beside it) and browses one with the HDFS browser's keys, on the storage:
    a file the terminal put there opens, an upload lands in its folder, `y` copies the path a job sees,
    and a read-only storage has no write keys."""
    pai(env, "storage", "list")  # starts the local cluster, which then reads storages.json
    datasets = tmp_path / "datasets"
    datasets.mkdir()
    (datasets / "given.csv").write_text("a,b\n")
    config = {"storages": {"datasets": {"path": str(datasets), "readOnly": True}}, "groups": {"default": ["local", "datasets"]}}
    (Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "storages.json").write_text(json.dumps(config))
    code = tmp_path / "train.py"
    code.write_text("print('from the local storage')\n")
    pai(env, "storage", "put", str(code), "local:/code/train.py")

    nvim.command("PaiStorages")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://storages' and vim.fn.search('^  datasets ', 'n') > 0", what="the storages listed")
    lines = nvim.current_lines()
    assert lines[0] == "Storages of local   (? help)", lines
    local, = [line.split() for line in lines if line.startswith("* local ")]
    assert local[:5] == ["*", "local", "unknown", "read-write", "/mnt/local"], lines
    ro, = [line.split() for line in lines if line.startswith("  datasets ")]
    assert ro[:4] == ["datasets", "unknown", "read-only", "/mnt/datasets"] and ro[4] == str(datasets), lines

    nvim.cursor_to("* local ")
    nvim.keys("<CR>")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://storage/local/' and vim.fn.search('^code/', 'n') > 0", what="local browsed")
    assert nvim.current_lines()[0] == "/  storage local (in jobs: /mnt/local)   (? help)"
    nvim.cursor_to("code/")
    nvim.keys("<CR>")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://storage/local/code' and vim.fn.search('^train.py', 'n') > 0")
    nvim.cursor_to("train.py")
    nvim.keys("<CR>")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://storage/local/code/train.py'")
    assert nvim.current_lines() == ["print('from the local storage')"]

    # The same folder by name; u uploads into it, y copies the path as jobs see it, D deletes.
    nvim.command("PaiStorages local:/code")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://storage/local/code'")
    notes = tmp_path / "notes.txt"
    notes.write_text("from neovim\n")
    nvim.keys(f"u<C-u>{notes}<CR>")
    nvim.wait("vim.fn.search('^notes.txt', 'n') > 0", what="the uploaded file listed")
    assert pai(env, "storage", "cat", "local:/code/notes.txt") == "from neovim\n"
    nvim.cursor_to("notes.txt")
    nvim.keys("y")
    assert nvim.wait("vim.fn.getreg('\"')") == "/mnt/local/code/notes.txt"
    nvim.keys("Dy<CR>")
    nvim.wait("vim.fn.search('^notes.txt', 'n') == 0", what="the file gone from the listing")
    assert "notes.txt" not in pai(env, "storage", "ls", "local:/code")

    # - up to the storage's top, then back to the list; a read-only storage has no write keys.
    nvim.keys("-")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://storage/local/'")
    nvim.keys("-")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://storages'")
    nvim.cursor_to("  datasets ")
    nvim.keys("<CR>")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://storage/datasets/' and vim.fn.search('^given.csv', 'n') > 0")
    assert nvim.current_lines()[0] == "/  storage datasets (in jobs: /mnt/datasets), read-only   (? help)"
    assert nvim.lua("return {vim.fn.maparg('u', 'n'), vim.fn.maparg('D', 'n'), vim.fn.maparg('m', 'n'), vim.fn.maparg('r', 'n')}") == [""] * 4
    assert nvim.lua("return vim.fn.maparg('d', 'n') ~= ''")


def test_hdfs_browser_on_paddlecloud_pfs(nvim, env, tmp_path):
    """:PaiHdfs works the same on PaddlePaddle Cloud's PFS (the plugin knows no kinds): from `/`
    down to the home folder, a file opened, one uploaded and downloaded; a rename, which PFS cannot
    do, says so."""
    name = "pai://hdfs{}  [local-paddle]"
    nvim.command("PaiHdfs / local-paddle")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == '{name.format('/')}' and vim.fn.search('^pfs/', 'n') > 0", what="/ listed")
    home = f"/pfs/local/home/{getpass.getuser()}"  # the local cluster's client user
    parts = home.split("/")
    for depth in range(1, len(parts)):
        nvim.cursor_to(f"{parts[depth]}/")
        nvim.keys("<CR>")
        nvim.wait(f"vim.api.nvim_buf_get_name(0) == '{name.format('/'.join(parts[:depth + 1]))}'")
    notes = tmp_path / "notes.txt"
    notes.write_text("on pfs\n")
    nvim.keys(f"u<C-u>{notes}<CR>")
    nvim.wait("vim.fn.search('^notes.txt', 'n') > 0", what="the uploaded file listed")
    assert pai(env, "hdfs", "--cluster", "local-paddle", "cat", f"{home}/notes.txt") == "on pfs\n"
    nvim.cursor_to("notes.txt")
    nvim.keys(f"d<C-u>{tmp_path / 'back.txt'}<CR>")
    nvim.wait_message("downloaded ")
    assert (tmp_path / "back.txt").read_text() == "on pfs\n"
    nvim.cursor_to("notes.txt")
    nvim.keys("<CR>")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == '{name.format(home + '/notes.txt')}'")
    assert nvim.current_lines() == ["on pfs"]
    nvim.command(f"PaiHdfs {home} local-paddle")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == '{name.format(home)}' and vim.fn.search('^notes.txt', 'n') > 0")
    nvim.cursor_to("notes.txt")
    nvim.keys("r<C-u>renamed.txt<CR>")
    assert "cannot rename or move files" in nvim.wait_message("cannot rename")


def test_preview_upload(nvim, env, workspace):
    """:PaiPreview shows what :PaiSubmit would send, nothing sent, in a read-only buffer: the files
    the include globs choose without what the default excludes (`.git/`) and `.paiignore` leave out,
    the largest first, the job's name and its final config. After an upload to the same codeDir,
    `R` shows every file unchanged."""
    config = json.loads((workspace / "mnist.pai.json").read_text())
    config["codeDir"] = "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/code/mnist"  # one place, whatever the job's name
    (workspace / "preview.pai.json").write_text(json.dumps(config, indent=2))
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "hooks" / "huge.py").write_text("#" * 500_000)
    (workspace / "scratch").mkdir()
    (workspace / "scratch" / "notes.py").write_text("#" * 400_000)
    (workspace / ".paiignore").write_text("scratch/\n")
    (workspace / "data_prep.py").write_text("x = 1\n" * 50_000)  # 300,000 bytes
    (workspace / "model").mkdir()
    (workspace / "model" / "net.py").write_text("import math\n")

    nvim.command("edit preview.pai.json")
    nvim.command("PaiPreview")
    name = "pai://preview/preview.pai.json"
    lines = nvim.wait(f"vim.api.nvim_buf_get_name(0) == '{name}' and vim.api.nvim_buf_get_lines(0, 0, -1, false)",
                      what="the preview buffer")
    text = "\n".join(lines)
    assert lines[0] == "Dry run of preview.pai.json: nothing was sent.", text
    job = re.search(r"^job name: (mnist_[0-9a-f]{8}) \(a new name is drawn at submit\)$", text, re.M).group(1)
    upload = re.search(r"^upload: +3 files, (\S+ \S+) from (\S+) to (\S+)$", text, re.M)
    assert upload and upload.group(2) == str(workspace) and upload.group(3).endswith("/code/mnist"), text
    assert "0 unchanged since the last upload there (skipped), 3 to send" in text
    largest = lines[lines.index("largest files:") + 1:lines.index("largest files:") + 4]
    assert [line.split()[-1] for line in largest] == ["data_prep.py", "train.py", "model/net.py"], largest
    assert largest[0].split()[:2] == ["293.0", "KB"]
    assert "huge.py" not in text and "scratch" not in text and ".git" not in text
    final = json.loads("\n".join(lines[lines.index("config after substitution:") + 1:]))
    assert final["jobName"] == job and final["taskRoles"][0]["command"].startswith(f"cd {job} && ")
    assert nvim.lua("return vim.bo.modifiable") is False and nvim.lua("return vim.bo.filetype") == "paipreview"
    assert run_pai(env, "hdfs", "ls", upload.group(3)).returncode != 0  # nothing was sent

    pai(env, "run", "preview.pai.json", cwd=workspace)  # the upload, for real
    nvim.keys("R")
    nvim.wait("vim.fn.search('3 unchanged since the last upload there (skipped), 0 to send', 'n') > 0",
              what="every file unchanged after the upload")
    assert nvim.current_name() == name  # the same buffer, written again

    # An invalid config: one error naming the field, and no preview.
    (workspace / "bad.pai.json").write_text(json.dumps({"jobName": "x", "image": "i", "taskRoles": [{"name": "a-b", "command": "c"}]}))
    nvim.command("edit bad.pai.json")
    nvim.command("PaiPreview")
    assert nvim.wait_message("is not a valid name").startswith("pai: bad.pai.json:")
    assert nvim.buffer_lines("pai://preview/bad.pai.json") is None



def test_a_v2_job_file_rendered_and_run(nvim, env, workspace):
    """A `*.pai.yaml`: :PaiRendered shows it as the server will see it (templates filled in, defaults
    written out, secrets masked) in a read-only yaml buffer; :PaiRun runs it, its log buffer has the
    rendered commands' lines."""
    (workspace / "hello.pai.yaml").write_text(V2_HELLO)
    nvim.command("edit hello.pai.yaml")
    nvim.command("PaiRendered")
    name = "pai://rendered/hello.pai.yaml"
    lines = nvim.wait(f"vim.api.nvim_buf_get_name(0) == '{name}' and vim.api.nvim_buf_get_lines(0, 0, -1, false)",
                      what="the rendered job")
    assert lines[0].startswith("# The job as the server will see it"), lines
    assert '    - echo "hello from $PAI_CURRENT_TASK_ROLE_NAME"' in lines and "s3cr3t-value" not in "\n".join(lines)
    assert '    - test -n "******" && echo done' in lines and "    instances: 1" in lines
    assert nvim.lua("return vim.bo.modifiable") is False and nvim.lua("return vim.bo.filetype") == "yaml"
    nvim.command("wincmd p")
    assert nvim.current_name() == str(workspace / "hello.pai.yaml")
    nvim.command("PaiRun")
    job = submitted_job(nvim)
    assert job.startswith("hello_v2_")
    nvim.wait(f"vim.fn.bufnr('pai://logs/{job}') > 0 and vim.api.nvim_buf_get_lines(vim.fn.bufnr('pai://logs/{job}'), -2, -1, false)[1] == 'done'",
              what="the log's last line")
    assert nvim.buffer_lines(f"pai://logs/{job}") == ["hello from worker", "done"]
    assert nvim.wait_message(f"job {job} SUCCEEDED") == f"pai: job {job} SUCCEEDED"


def test_a_first_run_v2_job_gets_its_code_through_the_default_storage(nvim, env, workspace):
    """The most natural v2 job (`python3 train.py`, nothing about where the code goes): :PaiSubmit says
    where the code went (the local cluster's default storage, mounted at /mnt/local), its log buffer
    has train.py's output, and :PaiStorages browses the job's code folder."""
    (workspace / "train.py").write_text("print('hello from train.py', flush=True)\n")
    (workspace / "job.pai.yaml").write_text(FIRST_RUN)
    nvim.command("edit job.pai.yaml")
    nvim.command("PaiSubmit")
    job = submitted_job(nvim)
    folder = f"{getpass.getuser()}~{job}"
    # (the upload sends the example's other files too: its count is what the upload globs chose)
    where = nvim.wait_message("→ storage local:/")
    assert re.fullmatch(rf"pai: \d+ files? → storage local:/{re.escape(folder)}, mounted at /mnt/local", where), where
    nvim.wait(f"vim.fn.bufnr('pai://logs/{job}') > 0 and vim.api.nvim_buf_get_lines(vim.fn.bufnr('pai://logs/{job}'), 0, -1, false)[1] == 'hello from train.py'",
              what="train.py's output in the log buffer")
    assert nvim.wait_message(f"job {job} SUCCEEDED") == f"pai: job {job} SUCCEEDED"
    nvim.command(f"PaiStorages local:/{folder}")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://storage/local/{folder}' and vim.fn.search('^train.py', 'n') > 0",
              what="train.py in the job's code folder")
    assert (workspace / "job.pai.yaml").read_text() == FIRST_RUN


def test_add_a_cluster(nvim, env):
    nvim.command("PaiClusters")
    nvim.wait("vim.fn.search('^\\\\* local ', 'n') > 0", what="the local cluster listed as the default")
    # A second user of the local cluster stands in for a team's cluster.
    pai(env, "hdfs", "ls", "/")  # starts the local cluster
    local = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    local["webhdfs"] = local["hdfs"]
    pai(env, "local-cluster", "users", "add", "alice", "--password-stdin", "--data-dir", env["PAI_LOCAL_CLUSTER_DIR"],
        stdin="s3cret-pw\n")

    def add(name: str, password: str) -> None:
        nvim.keys(f"a{name}<CR><C-u>{local['url']}<CR><C-u>{local['webhdfs']}<CR><C-u>alice<CR>1<CR>{password}<CR>")

    add("team", "s3cret-pw")
    assert nvim.wait_message("added cluster team") == "pai: added cluster team, logged in"
    # The first profile added becomes the default (as with `pai cluster add`).
    nvim.wait("vim.fn.search('^\\\\* team  *alice  *openpai  *logged in', 'n') > 0", what="team listed, logged in")
    config = Path(env["XDG_CONFIG_HOME"]) / "pai-lsp"
    assert "s3cret-pw" not in (config / "clusters.json").read_text()
    assert "s3cret-pw" in (config / "secrets.json").read_text()  # PAI_LSP_SECRETS=file stands in for the keyring

    # A refused password: one error, and it is not kept.
    add("wrong", "not-her-password")
    nvim.wait_message("cluster wrong: ")
    assert "not-her-password" not in (config / "secrets.json").read_text()

    # d: the default again; D: removed.
    nvim.cursor_to(" local ")
    nvim.keys("d")
    nvim.wait("vim.fn.search('^\\\\* local ', 'n') > 0", what="local the default")
    nvim.cursor_to(" team ")
    nvim.keys("Dy<CR>")
    nvim.wait("vim.fn.search(' team ', 'n') == 0", what="team removed")
    assert "s3cret-pw" not in (config / "secrets.json").read_text()


def test_help(env, tmp_path):
    """:help pai-lsp and the commands' tags (helptags fails on a duplicate tag)."""
    plugin = tmp_path / "nvim"
    shutil.copytree(CLIENT, plugin)
    editor = Neovim(env, tmp_path, runtimepath=plugin)
    try:
        editor.command(f"helptags {plugin / 'doc'}")
        for tag, line in (("pai-lsp", "*pai-lsp*"), (":PaiJobs", "*:PaiJobs*"), ("pai-lsp-hdfs", "*pai-lsp-hdfs*"),
                          (":PaiPreview", "*:PaiPreview*"), (":PaiRendered", "*:PaiRendered*"),
                          (":PaiStorages", "*:PaiStorages*"), ("pai-lsp-storages", "*pai-lsp-storages*"),
                          (":PaiLogFilter", "*:PaiLogFilter*"), (":PaiDebugJob", "*:PaiDebugJob*"), ("pai-lsp-debug", "*pai-lsp-debug*")):
            editor.command(f"help {tag}")
            assert editor.current_name() == str(plugin / "doc" / "pai_lsp.txt")
            assert line in editor.lua("return vim.api.nvim_get_current_line()")
        # every |link| of the page leads somewhere
        text = (plugin / "doc" / "pai_lsp.txt").read_text()
        for link in set(re.findall(r"\|([^ |]+)\|", text)):
            editor.command(f"help {link}")
        # the buffers' syntax files load
        editor.command("enew | syntax on")
        for filetype in ("pailog", "paijobs", "paihdfs", "paistorages", "paiclusters", "paipreview"):
            editor.command(f"set filetype={filetype}")
            assert editor.lua("return vim.b.current_syntax") == filetype
    finally:
        editor.close()


QUICKFIX = """
local out = {}
for _, item in ipairs(vim.fn.getqflist()) do
  table.insert(out, { vim.fn.fnamemodify(vim.api.nvim_buf_get_name(item.bufnr), ':.'), item.lnum, item.type, item.text })
end
return out"""


def test_a_failed_run_fills_the_quickfix_list_and_paiwhy_shows_the_report(nvim, workspace):
    """:PaiRun of a config whose code raises three modules deep fills the quickfix list by itself (the
    deepest frame in the user's own file first, an error; the calling frames after it), with one
    message; :PaiWhy opens the report buffer."""
    failing_workspace(workspace / "failing", "failing")
    nvim.command("edit failing/failing.pai.json")
    nvim.command("PaiRun")
    line = nvim.wait_message("failed: Python exception: KeyError", 120)
    assert "(failing/pkg/ops.py:3)" in line and ":PaiWhy" in line, line
    job = line.split("why ")[1].split(" failed")[0]
    assert job.startswith("failing_")
    items = nvim.lua(QUICKFIX)
    assert items[0][:3] == ["failing/pkg/ops.py", 3, "E"], items
    assert items[0][3].startswith(f"{job}: KeyError was raised at pkg/ops.py:3"), items
    assert [item[:2] for item in items[1:]] == [["failing/pkg/data.py", 5], ["failing/train.py", 5], ["failing/train.py", 8]], items
    assert items[1][3] == "called from load"
    assert nvim.lua("return vim.fn.getqflist({ title = 1 }).title") == f"PaiWhy {job}"

    # :PaiWhy (the last job that failed here): the report, in a buffer of its own.
    nvim.command("PaiWhy")
    name = f"pai://why/{job}"
    lines = nvim.wait(f"(function() for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.api.nvim_buf_get_name(b) == '{name}' "
                      "then return vim.api.nvim_buf_get_lines(b, 0, -1, false) end end end)()", what="the report buffer")
    assert lines[0] == f"{job}: FAILED — Python exception: KeyError (train:0)", lines
    assert "  pkg/ops.py:3 in <listcomp>" in lines or any(x.startswith("  pkg/ops.py:3") for x in lines), lines
    assert "  pkg/data.py:5 in load" in lines, lines
    assert any("KeyError: 'train'" in x for x in lines), lines
    # :PaiWhy of a job named, and the quickfix list is that job's.
    nvim.command(f"PaiWhy {job}")
    nvim.wait(f"vim.fn.getqflist({{ title = 1 }}).title == 'PaiWhy {job}'")
