"""Why a job failed, in a real headless Neovim against the embedded local cluster: :PaiRun of a config
whose code raises three modules deep fills the quickfix list by itself (the deepest frame in the
user's own file first, an error; the calling frames after it), with one message; :PaiWhy opens the
report buffer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .helpers.failing import failing_workspace
from .helpers.neovim import Neovim, isolated_env, stop_services

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (.ci/run installs it)")


@pytest.fixture
def env():
    env = isolated_env()
    yield env
    stop_services(env)


@pytest.fixture
def workspace(env) -> Path:
    return failing_workspace(Path(env["PAI_NVIM_TEST_HOME"]) / "ws", "failing")


@pytest.fixture
def nvim(env, workspace):
    editor = Neovim(env, workspace)
    yield editor
    editor.close()


QUICKFIX = """
local out = {}
for _, item in ipairs(vim.fn.getqflist()) do
  table.insert(out, { vim.fn.fnamemodify(vim.api.nvim_buf_get_name(item.bufnr), ':.'), item.lnum, item.type, item.text })
end
return out"""


def test_a_failed_run_fills_the_quickfix_list_and_paiwhy_shows_the_report(nvim, workspace):
    nvim.command("edit failing.pai.json")
    nvim.command("PaiRun")
    line = nvim.wait_message("failed: Python exception: KeyError", 120)
    assert "(pkg/ops.py:3)" in line and ":PaiWhy" in line, line
    job = line.split("why ")[1].split(" failed")[0]
    assert job.startswith("failing_")
    items = nvim.lua(QUICKFIX)
    assert items[0][:3] == ["pkg/ops.py", 3, "E"], items
    assert items[0][3].startswith(f"{job}: KeyError was raised at pkg/ops.py:3"), items
    assert [item[:2] for item in items[1:]] == [["pkg/data.py", 5], ["train.py", 5], ["train.py", 8]], items
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
