"""Debug Job from the editor: `pai.debugJob` (what the code lens runs) submits through the daemon to the
local cluster, `pai.debugTargets` says where the task waits — host, port and the path mappings a
debugger's `attach` takes as they are — and a DAP client (as VS Code's adapter would) stops there."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .helpers.cli import isolated_env, stop_all
from .helpers.debug_job import LOOP_LINE, line_of, stop_once_at
from .helpers.lsp import SERVER, start_session
from .helpers.paths import EXAMPLE

pytestmark = pytest.mark.subprocess  # the language server over stdio

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
    assert stop_once_at(target, source, line_of(source, LOOP_LINE))["epoch"] == "1"
    done = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.debugTargets", [{"job": job, "cluster": "local", "wait": 60, "known": 1}]))
    assert done["state"] == "SUCCEEDED" and [t["state"] for t in done["targets"]] == ["ended"]
    ended = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.debugEnd", [{"job": job, "cluster": "local"}]))
    assert ended == {"ok": True, "job": job, "closed": 0}


SELF_STARTED = """\
protocolVersion: 2
name: selfdebug
type: job
prerequisites:
  - {name: image, type: dockerimage, uri: openpai/pai.example.tensorflow}
taskRoles:
  train:
    instances: 1
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0, ports: {debug: 1}}
    commands:
      - python3 -m debugpy --listen 127.0.0.1:$PAI_CONTAINER_HOST_debug_PORT_LIST --wait-for-client train.py --epochs 2
"""


async def test_attach_to_a_job_whose_own_command_starts_debugpy(editor, tmp_path):
    """Attach Debugger on a job run as it is, its command starting debugpy by hand: the task's labelled
    port, the workspace mapped to the program's working folder, and a message that only the log says
    when it listens."""
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    (ws / "self.pai.yaml").write_text(SELF_STARTED)
    result = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.runLocally", [{"uri": (ws / "self.pai.yaml").as_uri()}]))
    assert result["ok"] is True, result
    job = result["job"]
    answer = None
    for _ in range(120):
        answer = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
            "pai.debugTargets", [{"job": job, "cluster": "local"}]))
        assert answer["ok"] is True, answer
        if [t for t in answer["targets"] if t["state"] == "listening"]:
            break
        await asyncio.sleep(0.5)
    (target,) = answer["targets"]
    assert target["state"] == "listening" and target["task"] == "train:0" and target["port"] > 0
    assert target["pathMappings"] == [{"localRoot": str(ws), "remoteRoot": "."}]
    assert "starts debugpy itself" in answer["message"]
    source = ws / "train.py"  # the task runs before its debugpy listens: attach as a user would, again until it does
    assert stop_once_at(target, source, line_of(source, LOOP_LINE), connect_for=30)["epoch"] == "1"
