"""The Neovim client, driven headless: it starts the server for a *.pai.json buffer and shows its answers."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[1] / "editor-clients" / "nvim"

SCRIPT = """
vim.opt.runtimepath:append({client})
require("pai_lsp").setup({{ cmd = {{ {python}, "-m", "pai_lsp", "lsp" }} }})
vim.cmd("edit " .. vim.fn.fnameescape({file}))
local ok = vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local out = {{ diagnostics = {{}}, hover = "" }}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, {{ lnum = d.lnum, col = d.col, message = d.message }})
end
local params = {{ textDocument = {{ uri = vim.uri_from_bufnr(0) }}, position = {{ line = 1, character = 4 }} }}
local answers = vim.lsp.buf_request_sync(0, "textDocument/hover", params, 10000) or {{}}
for _, answer in pairs(answers) do
  if answer.result then out.hover = answer.result.contents.value end
end
vim.fn.writefile({{ vim.fn.json_encode(out) }}, {result})
vim.cmd("qa!")
"""


def test_neovim_shows_diagnostics_and_hover(tmp_path):
    nvim = shutil.which("nvim")
    assert nvim, "Neovim is needed for this test: .ci/run installs it (apt-get install neovim)"
    job = tmp_path / "job.pai.json"
    job.write_text('{\n  "jobName": "a~b",\n  "image": "x",\n  "taskRoles": [{"name": "w", "command": "c"}]\n}\n')
    result = tmp_path / "result.json"
    script = tmp_path / "script.lua"
    script.write_text(SCRIPT.format(client=json.dumps(str(CLIENT)), python=json.dumps(sys.executable),
                                    file=json.dumps(str(job)), result=json.dumps(str(result))))
    subprocess.run([nvim, "--headless", "-u", "NONE", "-c", f"luafile {script}"], timeout=90, check=True,
                   stdin=subprocess.DEVNULL, capture_output=True)
    out = json.loads(result.read_text())
    assert [(d["lnum"], d["col"]) for d in out["diagnostics"]] == [(1, 13)]
    assert "is not a valid jobName" in out["diagnostics"][0]["message"]
    assert "**jobName** `string`" in out["hover"]


SCRIPT_V2 = """
vim.opt.runtimepath:append({client})
require("pai_lsp").setup({{ cmd = {{ {python}, "-m", "pai_lsp", "lsp" }} }})
vim.cmd("edit " .. vim.fn.fnameescape({file}))
vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local out = {{ diagnostics = {{}}, completion = {{}} }}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, {{ lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message }})
end
local params = {{ textDocument = {{ uri = vim.uri_from_bufnr(0) }}, position = {{ line = {line}, character = {character} }} }}
local answers = vim.lsp.buf_request_sync(0, "textDocument/completion", params, 10000) or {{}}
for _, answer in pairs(answers) do
  local items = answer.result and (answer.result.items or answer.result) or {{}}
  for _, item in ipairs(items) do table.insert(out.completion, item.label) end
end
vim.fn.writefile({{ vim.fn.json_encode(out) }}, {result})
vim.cmd("qa!")
"""


def test_neovim_checks_and_completes_a_v2_job(tmp_path):
    """A *.pai.yaml buffer (the pattern comes from the server's registry): a diagnostic on the image
    written where a prerequisite's name goes, and completion of a role's keys."""
    from .helpers.configs import V2_JOB

    nvim = shutil.which("nvim")
    assert nvim, "Neovim is needed for this test: .ci/run installs it (apt-get install neovim)"
    job = tmp_path / "job.pai.yaml"
    text = V2_JOB.replace("    dockerImage: img\n", "    dockerImage: ubuntu:18.04\n")
    job.write_text(text)
    line = text[: text.index("    instances: 2")].count("\n")
    result = tmp_path / "result.json"
    script = tmp_path / "script.lua"
    script.write_text(SCRIPT_V2.format(client=json.dumps(str(CLIENT)), python=json.dumps(sys.executable), file=json.dumps(str(job)),
                                       result=json.dumps(str(result)), line=line, character=4))
    subprocess.run([nvim, "--headless", "-u", "NONE", "-c", f"luafile {script}"], timeout=90, check=True,
                   stdin=subprocess.DEVNULL, capture_output=True)
    out = json.loads(result.read_text())
    (diagnostic,) = out["diagnostics"]
    image_line = text[: text.index("ubuntu:18.04\n    resource")].count("\n")
    assert (diagnostic["lnum"], diagnostic["col"], diagnostic["end_col"]) == (image_line, 17, 29)
    assert "dockerImage names a prerequisite, not an image" in diagnostic["message"]
    assert {"instances", "completion", "taskRetryCount", "extraContainerOptions"} <= set(out["completion"])
