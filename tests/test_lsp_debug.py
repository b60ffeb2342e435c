"""Debug Job from the editor: `pai.debugJob` (what the code lens runs) submits through the daemon to the
local cluster, `pai.debugTargets` says where the task waits — host, port and the path mappings a
debugger's `attach` takes as they are — and a DAP client (as VS Code's adapter would) stops there."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .helpers.cli import isolated_env, stop_all
from .helpers.dap import DapClient
from .helpers.lsp import SERVER, start_session
from .helpers.paths import EXAMPLE

ENV = isolated_env(Path(tempfile.mkdtemp(prefix="pai-lsp-debug-")))
ENV["PATH"] = os.path.dirname(sys.executable) + os.pathsep + ENV.get("PATH", "")  # the tasks' Python has debugpy


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def editor(lsp_client: LanguageClient):
    await start_session(lsp_client, "en", {})
    try:
        yield
    finally:
        await lsp_client.shutdown_session()
        stop_all(ENV)


async def test_debug_job_from_the_editor_then_attach(editor, tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    uri = (ws / "mnist.pai.yaml").as_uri()
    result = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.debugJob", [{"uri": uri}]))
    assert result["ok"] is True and result["cluster"] == "local" and result["tasks"] == ["train:0"], result
    job = result["job"]
    answer = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.debugTargets", [{"job": job, "cluster": "local", "wait": 60}]))
    assert answer["ok"] is True, answer
    (target,) = [t for t in answer["targets"] if t["state"] == "listening"]
    assert target["task"] == "train:0" and target["host"] == "127.0.0.1"
    assert target["pathMappings"][0]["localRoot"] == str(ws)
    source = ws / "train.py"
    line = source.read_text().splitlines().index("    loss *= 0.6") + 1
    client = DapClient(target["host"], target["port"])
    try:
        client.attach(target["pathMappings"], {str(source): [line]})
        stopped = client.stopped(timeout=60)
        frame = client.frames(stopped["threadId"])[0]
        assert frame["source"]["path"] == str(source) and client.variables(frame["id"])["epoch"] == "1"
        client.request("setBreakpoints", source={"path": str(source)}, breakpoints=[])
        client.resume(stopped["threadId"])
    finally:
        client.disconnect()
    done = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.debugTargets", [{"job": job, "cluster": "local", "wait": 60, "known": 1}]))
    assert done["state"] == "SUCCEEDED" and [t["state"] for t in done["targets"]] == ["ended"]
    ended = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.debugEnd", [{"job": job, "cluster": "local"}]))
    assert ended == {"ok": True, "job": job, "closed": 0}
