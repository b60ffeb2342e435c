"""Neovim's :PaiJobs says why a job waits, on the line below its row, against the embedded local
cluster shaped as a small cluster (tests/helpers/vc_jobs.py); the line goes when the job starts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .helpers.cli import pai
from .helpers.neovim import Neovim, isolated_env, stop_services
from .helpers.vc_jobs import LAYOUT, v2_job

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (.ci/run installs it)")


@pytest.fixture
def env():
    env = isolated_env()
    folder = Path(env["PAI_LOCAL_CLUSTER_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "virtual-clusters.json").write_text(json.dumps(LAYOUT))
    yield env
    stop_services(env)


def test_a_waiting_job_says_why_under_its_row_until_it_starts(env):
    ws = Path(env["PAI_NVIM_TEST_HOME"]) / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.enabled": False,
                                                              "pai.job.generateJobName.enabled": False}))
    # holder asks 8 GPUs in all of vc1, which has 4: it waits for ever; queued fits, and runs
    for name, text in (("holder", v2_job("holder", gpu=4, instances=2)), ("queued", v2_job("queued", gpu=2))):
        (ws / f"{name}.pai.yaml").write_text(text)
        sent = pai(env, "submit", "--cluster", "local", f"{name}.pai.yaml", cwd=ws)
        assert sent.returncode == 0, sent.stderr
    nvim = Neovim(env, ws)
    try:
        nvim.command("PaiJobs local")
        nvim.wait("vim.fn.search('↳ ', 'n') > 0", what="a reason under a waiting job")
        lines = nvim.current_lines()
        row = next(i for i, line in enumerate(lines) if line.startswith("holder "))
        assert lines[row + 1] == "  ↳ it can never run: it asks 8 GPUs in all, vc1 has 4", lines
        nvim.command("PaiLogs holder")  # its log buffer says why too, while nothing is logged
        nvim.wait("vim.fn.bufnr('pai://logs/holder') > 0 and table.concat(vim.api.nvim_buf_get_lines("
                  "vim.fn.bufnr('pai://logs/holder'), 0, -1, false), '\\n'):find('[pai] waiting: ', 1, true) ~= nil",
                  what="why it waits in its log buffer")
        log = nvim.buffer_lines("pai://logs/holder")
        assert "[pai] waiting: it can never run: it asks 8 GPUs in all, vc1 has 4" in log, log
        assert any(line.startswith("[pai] jobs ahead: 0 (an estimate") for line in log), log
        assert pai(env, "stop", "holder").returncode == 0
        nvim.command("PaiJobs local")
        nvim.wait("vim.fn.search('^holder *STOPPED', 'n') > 0", what="holder stopped")
        assert not any("it can never run" in line for line in nvim.current_lines())
    finally:
        nvim.close()
