"""What a job ran, in a real headless Neovim: after a submit the workspace moves on;
from :PaiJobs, `C` lists the files the job was submitted with and <CR> opens one as it was sent,
`d` opens a diff split of the workspace's file against the submitted one, `r` reruns the job."""

from __future__ import annotations

import shutil

import pytest

from . import test_neovim_jobs as neovim_jobs

env, workspace, nvim = neovim_jobs.env, neovim_jobs.workspace, neovim_jobs.nvim  # the same fixtures: daemon, workspace, editor

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (.ci/run installs it)")
CHANGE = "print('changed after the job was submitted')"


def test_submitted_code_diff_split_and_rerun(nvim, workspace):
    nvim.command("edit mnist.pai.json")
    nvim.command("PaiRun")
    job = neovim_jobs.submitted_job(nvim)
    sent = (workspace / "train.py").read_text()
    (workspace / "train.py").write_text(sent + CHANGE + "\n")

    nvim.command("PaiJobs")
    nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://jobs' and vim.fn.search('{job}', 'n') > 0", what="the job listed")
    nvim.cursor_to(job)
    nvim.keys("C")
    listing = nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://code/{job}' and vim.api.nvim_buf_get_lines(0, 0, -1, false)",
                        what="the submitted code's listing")
    assert listing[0].startswith(f"Code of {job}: 1 file, sent to /") and listing[2].startswith("train.py ")
    nvim.cursor_to("train.py")
    nvim.keys("<CR>")
    shown = nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://code/{job}/train.py' and vim.api.nvim_buf_get_lines(0, 0, -1, false)",
                      what="the submitted train.py")
    assert "\n".join(shown) + "\n" == sent  # as it was sent, not as the workspace is now
    assert nvim.lua("return vim.bo.modifiable") is False

    # d in :PaiJobs: a diff split, the workspace's file beside the submitted one.
    nvim.command("PaiJobs")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://jobs'")
    nvim.cursor_to(job)
    nvim.keys("d")
    windows = nvim.wait("#vim.api.nvim_tabpage_list_wins(0) == 2 and vim.api.nvim_buf_get_name(0):match('^pai://code/') and "
                        "vim.tbl_map(function(w) return {vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)), "
                        "vim.api.nvim_win_get_option(w, 'diff')} end, vim.api.nvim_tabpage_list_wins(0))",
                        what="the diff split")
    assert windows == [[str(workspace / "train.py"), True], [f"pai://code/{job}/train.py", True]]
    # The one line the workspace added is the difference Neovim shows.
    assert nvim.lua("return vim.fn.search(..., 'n')", CHANGE) == 0  # the submitted side (the cursor's) lacks it
    nvim.command("wincmd h")
    line = nvim.lua("return vim.fn.search(..., 'n')", CHANGE)
    assert nvim.lua("return vim.fn.diff_hlID(..., 1)", line) > 0  # highlighted as added on the workspace's side

    # r in :PaiJobs: the same code again, under a new name, nothing uploaded.
    nvim.command("tabclose")
    nvim.command("PaiJobs")
    nvim.wait("vim.api.nvim_buf_get_name(0) == 'pai://jobs'")
    nvim.cursor_to(job)
    nvim.keys("r")
    message = nvim.wait_message(f"rerun of {job}", 90)
    assert "nothing uploaded" in message and "job mnist_" in message
    rerun = message.split("job ", 1)[1].split()[0]

    # :PaiDiff: the two runs compared: the same config and code.
    nvim.command(f"PaiDiff {job} {rerun}")
    text = nvim.wait(f"vim.api.nvim_buf_get_name(0) == 'pai://diff/{job}/{rerun}' and vim.api.nvim_buf_get_lines(0, 0, -1, false)",
                     what="the two runs compared")
    assert text[:2] == ["config: the same", "code: the same"] and nvim.lua("return vim.bo.filetype") == "diff"
