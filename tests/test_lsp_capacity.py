"""Will it fit, while the job is written: over stdio with pytest-lsp, against the embedded local
cluster shaped as a small cluster (tests/helpers/vc_jobs.py) through the daemon's cached state. A job
that can never run gets an error with numbers, one that will wait a warning with numbers, one that
fits nothing; `virtualCluster` completes and hovers with what is free; with no daemon, nothing."""

from __future__ import annotations

import getpass
import json
import tempfile
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .helpers.cli import isolated_env, pai, stop_all
from .helpers.lsp import SERVER, start_session, until
from .helpers.vc_jobs import LAYOUT, v2_job

pytestmark = pytest.mark.subprocess  # the language server over stdio

ENV = isolated_env(Path(tempfile.mkdtemp(prefix="pai-lsp-vc-")))
BARE = isolated_env(Path(tempfile.mkdtemp(prefix="pai-lsp-vc-none-")))  # no daemon ever runs here


def shaped_cluster_with_a_running_holder(tmp: Path) -> None:
    """The daemon and the shaped local cluster running, with `holder` using 2 of vc1's 4 GPUs."""
    folder = Path(ENV["PAI_LOCAL_CLUSTER_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "virtual-clusters.json").write_text(json.dumps(LAYOUT))
    (tmp / ".vscode").mkdir(parents=True, exist_ok=True)
    (tmp / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.enabled": False,
                                                               "pai.job.generateJobName.enabled": False}))
    (tmp / "holder.pai.yaml").write_text(v2_job("holder", gpu=2))
    sent = pai(ENV, "submit", "--cluster", "local", "holder.pai.yaml", cwd=tmp)
    assert sent.returncode == 0, sent.stderr
    deadline = time.monotonic() + 60
    while json.loads(pai(ENV, "status", "holder", "-o", "json").stdout)["state"] != "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.3)


@pytest.fixture(scope="module")
def shaped(tmp_path_factory, starts_processes):
    shaped_cluster_with_a_running_holder(tmp_path_factory.mktemp("holder"))
    yield
    stop_all(ENV)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def editor(lsp_client: LanguageClient, shaped):
    await start_session(lsp_client, "en")
    yield
    await lsp_client.shutdown_session()


def opened(client: LanguageClient, path: Path, text: str) -> str:
    path.write_text(text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(path.as_uri(), "yaml", 1, text)))
    return path.as_uri()


def capacity_diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    return [d for d in client.diagnostics.get(uri, []) if str(d.code).startswith("capacity.")]


async def test_never_wait_and_fits_with_numbers_and_the_vc_completes_with_what_is_free(editor, tmp_path):
    never = opened(editor, tmp_path / "never.pai.yaml", v2_job("never", gpu=5))
    wait = opened(editor, tmp_path / "wait.pai.yaml", v2_job("wait", gpu=2, instances=2))
    fits = opened(editor, tmp_path / "fits.pai.yaml", v2_job("fits", gpu=1))
    await until(lambda: capacity_diagnostics(editor, never) and capacity_diagnostics(editor, wait))
    (error,) = capacity_diagnostics(editor, never)
    assert error.severity == types.DiagnosticSeverity.Error
    assert error.message == "This job can never run: an instance of worker asks 5 GPUs, the largest node has 4."
    (warning,) = capacity_diagnostics(editor, wait)
    assert warning.severity == types.DiagnosticSeverity.Warning
    assert warning.message == "This job will wait: it asks 4 GPUs; vc1 has 2 free of 4, 0 jobs waiting ahead."
    text = (tmp_path / "wait.pai.yaml").read_text()
    line = text.splitlines().index("  virtualCluster: vc1")
    assert (warning.range.start.line, warning.range.start.character, warning.range.end.character) == (line, 18, 21)
    assert capacity_diagnostics(editor, fits) == []
    listed = await editor.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(wait), types.Position(line, 19)))
    items = {i.label: i for i in listed.items if i.label in ("vc1", "default")}
    assert set(items) == {"vc1", "default"}
    assert [i.label for i in listed.items].count("default") == 1  # the schema's "default" is the VC's, offered once
    assert items["default"].detail.startswith("free ")
    assert items["vc1"].detail == "free 2 of 4 GPUs, 7 of 8 CPUs, 15360 of 16384 MB; 0 waiting"
    hover = await editor.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(wait), types.Position(line, 19)))
    assert "**vc1**: free 2 of 4 GPUs" in hover.contents.value


async def test_a_v1_config_is_judged_and_completed_the_same_way(editor, tmp_path):
    config = {"jobName": "v1job", "image": "ubuntu:18.04", "virtualCluster": "vc1",
              "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 1024, "gpuNumber": 5, "command": "true"}]}
    text = json.dumps(config, indent=2)
    path = tmp_path / "big.pai.json"
    path.write_text(text)
    uri = path.as_uri()
    editor.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "json", 1, text)))
    await until(lambda: capacity_diagnostics(editor, uri))
    (error,) = capacity_diagnostics(editor, uri)
    assert error.message == "This job can never run: an instance of main asks 5 GPUs, the largest node has 4."
    line = next(i for i, row in enumerate(text.splitlines()) if '"virtualCluster"' in row)
    assert (error.range.start.line, error.range.start.character) == (line, text.splitlines()[line].index('"vc1"'))
    listed = await editor.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), types.Position(line, text.splitlines()[line].index('"vc1"') + 2)))
    vc1 = next(i for i in listed.items if i.label == "vc1")
    assert vc1.text_edit.new_text == '"vc1"' and vc1.detail.startswith("free ")


async def test_a_waiting_job_says_why_in_the_editors_words_and_the_vcs_are_listed(editor, tmp_path):
    (tmp_path / "queued.pai.yaml").write_text(v2_job("queued", gpu=2, instances=2))
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.enabled": False,
                                                                   "pai.job.generateJobName.enabled": False}))
    assert pai(ENV, "submit", "--cluster", "local", "queued.pai.yaml", cwd=tmp_path).returncode == 0
    args = [{"job": "queued", "cluster": "local"}]
    answer = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.job.waiting", args))
    assert answer["ok"] is True and answer["state"] == "WAITING", answer
    assert answer["lines"][0] == "waiting: not enough free GPUs in vc1: it asks 4, 2 free of 4"
    assert any(line.strip().startswith(f"{getpass.getuser()}~holder (") for line in answer["lines"])
    listed = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.vc.list", [{"cluster": "local"}]))
    vc1 = next(row for row in listed["vcs"] if row["name"] == "vc1")
    assert (vc1["free"]["gpu"], vc1["waiting"], vc1["running"]) == (2, 1, 1)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=BARE))
async def offline(lsp_client: LanguageClient):
    await start_session(lsp_client, "en")
    yield
    await lsp_client.shutdown_session()


async def test_with_no_daemon_running_nothing_is_said_and_none_is_started(offline, tmp_path):
    uri = opened(offline, tmp_path / "never.pai.yaml", v2_job("never", gpu=5))
    await until(lambda: uri in offline.diagnostics)
    await offline.text_document_completion_async(types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(0, 0)))
    assert capacity_diagnostics(offline, uri) == []
    assert not (Path(BARE["XDG_STATE_HOME"]) / "pai-lsp" / "daemon.log").exists()  # never started
