"""Neovim's views of what a cluster holds and what a job logged, in a real headless Neovim against the
embedded local cluster: :PaiClusters opens a cluster into its virtual clusters (free / total GPUs,
CPUs, memory, queues) and nodes; :PaiLogs and :PaiLogFilter show only some roles, task indices and
lines of a job's log, those already there and those still to come. (Debug Job: test_neovim_debug.py.)"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

from .helpers.cli import pai
from .helpers.failing import failing_workspace
from .helpers.neovim import Neovim, isolated_env, stop_services
from .helpers.vc_jobs import LAYOUT, v2_job

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (.ci/run installs it)")


@pytest.fixture
def env():
    env = isolated_env()
    yield env
    stop_services(env)


def size(mb: int) -> str:
    """A size in MB as the plugin shows sizes (ui.size)."""
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:.1f} MB"


def test_a_cluster_opens_into_its_virtual_clusters_and_nodes(env):
    folder = Path(env["PAI_LOCAL_CLUSTER_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "virtual-clusters.json").write_text(json.dumps(LAYOUT))
    ws = Path(env["PAI_NVIM_TEST_HOME"]) / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.enabled": False,
                                                              "pai.job.generateJobName.enabled": False}))
    # One job holds 2 of vc1's GPUs (and runs), one asks more than vc1 has (and waits).
    for name, text in (("holder", v2_job("holder", gpu=2, cpu=2, memory_mb=2048)), ("big", v2_job("big", gpu=4, instances=2))):
        (ws / f"{name}.pai.yaml").write_text(text)
        sent = pai(env, "submit", "--cluster", "local", f"{name}.pai.yaml", cwd=ws)
        assert sent.returncode == 0, sent.stderr
    for _ in range(200):
        state = pai(env, "status", "--cluster", "local", "holder", "-o", "json")
        if json.loads(state.stdout or "{}").get("state") == "RUNNING":
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"holder never ran: {state.stdout}")
    nvim = Neovim(env, ws)
    try:
        nvim.command("PaiClusters")
        nvim.wait("vim.fn.search('^\\\\* local ', 'n') > 0", what="the local cluster listed")
        nvim.cursor_to("* local ")
        nvim.keys("<CR>")
        nvim.wait("vim.fn.search('^    Nodes:', 'n') > 0", what="local's virtual clusters and nodes")
        lines = nvim.current_lines()
        # What the editor shows is what the daemon (and `pai vc`) says.
        answer = json.loads(pai(env, "vc", "--cluster", "local", "-o", "json").stdout)
        start = next(i for i, line in enumerate(lines) if line.startswith("* local ")) + 1
        shown = lines[start:start + len(answer["vcs"])]
        assert len(answer["vcs"]) == 2, answer
        for vc, line in zip(answer["vcs"], shown, strict=True):
            free, total = vc["free"], vc["total"]
            assert line.startswith(f"    {vc['name']}"), lines
            assert line.endswith(
                f"GPUs {free['gpu']}/{total['gpu']} free · CPUs {free['cpu']}/{total['cpu']} free · "
                f"memory {size(free['memory'])}/{size(total['memory'])} free · {vc['waiting']} waiting, {vc['running']} running"), lines
        vc1 = next(line for line in shown if line.startswith("    vc1 "))
        # vc1 is w1's and w2's halves: 4 GPUs, 8 CPUs, 16 GB; holder uses 2 GPUs, 2 CPUs, 2 GB; big waits.
        assert "GPUs 2/4 free · CPUs 6/8 free · memory 14.0 GB/16.0 GB free · 1 waiting, 1 running" in vc1, vc1
        assert "█████░░░░░" in vc1, vc1  # half its GPUs used
        after = lines[lines.index("    Nodes:") + 1:]
        nodes = after[:next((i for i, line in enumerate(after) if not line.startswith("      ")), len(after))]
        assert [line.split()[0] for line in nodes] == [n["name"] for n in answer["nodes"]] == ["w1", "w2", "w3"], lines
        for node, line in zip(answer["nodes"], nodes, strict=True):
            assert line.endswith(f"{node['gpuAvailable']} of {node['gpuTotal']} GPUs free"), line
        # <CR> again closes it.
        nvim.cursor_to("* local ")
        nvim.keys("<CR>")
        nvim.wait("vim.fn.search('Nodes:', 'n') == 0", what="local closed again")
        assert not any("GPUs" in line for line in nvim.current_lines())
    finally:
        nvim.close()


# Two roles; each line of the workers says its index. The workers write their first lines, then wait
# for the file `go` (the test makes it once the filter is set), then write the rest.
def two_roles(go: Path) -> dict:
    wait = f"while [ ! -e {go} ]; do sleep 0.1; done"
    return {
        "jobName": "filtered",
        "image": "python:3",
        "taskRoles": [
            {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
             "command": f"for i in 1 2 3; do echo \"step $i loss=0.$i of $PAI_TASK_INDEX\"; echo \"note $i\"; {wait}; done"},
            {"name": "ps", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
             "command": f"for i in 1 2 3; do echo \"ps loss=9.$i\"; {wait}; done"},
        ],
    }


def test_a_log_filtered_by_role_index_and_text(env):
    ws = Path(env["PAI_NVIM_TEST_HOME"]) / "ws"
    ws.mkdir(parents=True)
    go = ws / "go"
    (ws / "filtered.pai.json").write_text(json.dumps(two_roles(go), indent=2))
    sent = pai(env, "run", "filtered.pai.json", cwd=ws)
    assert sent.returncode == 0, sent.stderr
    job = re.search(r"submitted (\S+) to local", sent.stdout + sent.stderr).group(1)
    nvim = Neovim(env, ws)
    name = f"pai://logs/{job}"
    try:
        # As the CLI's `pai logs --role worker --grep 'loss='`: set before most lines have come.
        nvim.command(f"PaiLogs {job} --role worker --grep loss=")
        nvim.wait_message(f"log of {job}: only role:worker loss=")
        count = f"#vim.tbl_filter(function(l) return l:find('loss=', 1, true) end, vim.api.nvim_buf_get_lines(vim.fn.bufnr('{name}'), 0, -1, false))"
        nvim.wait(f"{count} == 2", what="the workers' first loss lines")
        nvim.lua("vim.wait(500)")
        assert sorted(nvim.buffer_lines(name)) == ["[worker:0] step 1 loss=0.1 of 0", "[worker:1] step 1 loss=0.1 of 1"]
        go.touch()  # the rest of the log comes after the filter was set
        nvim.wait(f"{count} >= 6", what="the workers' 6 loss lines")
        nvim.lua("vim.wait(2000)")  # the job ends; any line the filter should hide would be here now
        lines = nvim.buffer_lines(name)
        workers = sorted(f"[worker:{t}] step {i} loss=0.{i} of {t}" for t in (0, 1) for i in (1, 2, 3))
        assert sorted(line for line in lines if not line.startswith("[pai]")) == workers, lines
        # f in the log buffer: the filter, to edit; task:1 and a Vim regular expression.
        assert nvim.current_name() == name
        nvim.keys("f<C-u>role:worker task:1 step [23]<CR>")
        nvim.wait_message(f"log of {job}: only role:worker task:1 step [23]")
        assert nvim.buffer_lines(name) == ["[worker:1] step 2 loss=0.2 of 1", "[worker:1] step 3 loss=0.3 of 1"]
        # :PaiLogFilter with no words: every line again, in the order they came.
        nvim.command("PaiLogFilter")
        nvim.wait_message(f"log of {job}: every line")
        lines = [line for line in nvim.buffer_lines(name) if "[PAI local cluster]" not in line]  # its note on CPUs shared
        for task in ("worker:0", "worker:1"):
            own = [line for line in lines if line.startswith(f"[{task}] ")]
            assert own == [f"[{task}] {text}" for i in (1, 2, 3) for text in (f"step {i} loss=0.{i} of {task[-1]}", f"note {i}")], lines
        assert [line for line in lines if line.startswith("[ps:0] ")] == [f"[ps:0] ps loss=9.{i}" for i in (1, 2, 3)], lines
        # A pattern that is none, or a flag without its value: one error, the log as it was.
        nvim.keys(":PaiLogFilter \\(<CR>")
        nvim.wait_message("not a regular expression: \\(")
        nvim.keys(f":PaiLogs {job} --index<CR>")
        nvim.wait_message("--index needs a value (a task index)")
        assert [line for line in nvim.buffer_lines(name) if "[PAI local cluster]" not in line] == lines
    finally:
        nvim.close()



def test_a_long_log_opens_at_its_end_and_reads_earlier_lines_on_demand(env):
    """A log of 1.5 MB this Neovim has none of: its last MiB first (starting at a whole line), then `<`
    reads what is before it; every line once, in order, none cut."""
    ws = Path(env["PAI_NVIM_TEST_HOME"]) / "ws"
    ws.mkdir(parents=True)
    count = 30000
    command = f"python3 -c \"for i in range({count}): print('line %05d ' % i + 'x' * 40)\""
    (ws / "long.pai.json").write_text(json.dumps({"jobName": "long", "image": "python:3", "taskRoles": [
        {"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": command}]}))
    sent = pai(env, "run", "long.pai.json", "--follow", cwd=ws)
    assert sent.returncode == 0, sent.stderr
    job = re.search(r"submitted (\S+) to local", sent.stdout + sent.stderr).group(1)
    expected = [f"line {i:05d} " + "x" * 40 for i in range(count)]
    nvim = Neovim(env, ws)
    name = f"pai://logs/{job}"
    try:
        nvim.command(f"PaiLogs {job}")
        nvim.wait_message(f"log of {job}: from its last 1.0 MB of each task; < reads earlier lines")
        nvim.wait(f"vim.api.nvim_buf_get_lines(vim.fn.bufnr('{name}'), -2, -1, false)[1] == '{expected[-1]}'", what="the log's end")
        tail = nvim.buffer_lines(name)
        assert 10000 < len(tail) < 25000, len(tail)  # about 1 MiB of 51-byte lines
        assert tail == expected[-len(tail):]  # whole lines only
        nvim.command("call cursor(1, 1)")
        nvim.keys("<lt>")
        nvim.wait(f"vim.api.nvim_buf_line_count(vim.fn.bufnr('{name}')) > {len(tail)}", what="earlier lines")
        lines = [line for line in nvim.buffer_lines(name) if "[PAI local cluster]" not in line]
        assert lines == expected, (len(lines), lines[:2])
        assert nvim.lua("return vim.api.nvim_get_current_line()") == tail[0]  # the cursor stays on the line it was on
        nvim.keys("<lt>")
        nvim.wait_message(f"the log of {job} is shown from its start")
    finally:
        nvim.close()


def test_a_traceback_frame_in_a_log_opens_the_workspace_file_at_its_line(env):
    ws = failing_workspace(Path(env["PAI_NVIM_TEST_HOME"]) / "ws", "boom")
    sent = pai(env, "run", "boom.pai.json", "--follow", cwd=ws)
    job = re.search(r"submitted (\S+) to local", sent.stdout + sent.stderr).group(1)
    nvim = Neovim(env, ws)
    try:
        nvim.command(f"PaiLogs {job}")
        nvim.wait("vim.fn.search('pkg/ops.py\", line 3', 'n') > 0", what="the traceback in the log")
        nvim.cursor_to('pkg/ops.py", line 3')
        log_window = nvim.lua("return vim.api.nvim_get_current_win()")
        nvim.keys("<CR>")
        nvim.wait(f"vim.api.nvim_buf_get_name(0) == '{ws / 'pkg' / 'ops.py'}'", what="pkg/ops.py opened")
        assert nvim.lua("return vim.api.nvim_win_get_cursor(0)[1]") == 3
        assert nvim.lua("return vim.api.nvim_get_current_win()") != log_window  # the log stays shown
    finally:
        nvim.close()
