"""The server commands editor views are built on (jobs list, job actions, log follow, cluster
profiles, cancellable submit), driven over stdio as an editor drives them, against the local
cluster through the real daemon."""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .helpers.cli import isolated_env, stop_all
from .helpers.lsp import SERVER, start_session, until
from .helpers.paths import EXAMPLE

pytestmark = pytest.mark.subprocess  # the language server over stdio

HOME = Path(tempfile.mkdtemp(prefix="pai-lsp-wb-"))
ENV = isolated_env(HOME)


@pytest.fixture(scope="module", autouse=True)
def daemon_and_local_cluster():
    """The daemon and the local cluster the first editor starts serve every test here (each test its own
    jobs, found by name), and are stopped at the end."""
    yield
    stop_all(ENV)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def editor(lsp_client: LanguageClient):
    events: dict[str, list] = {"log": [], "status": [], "end": []}
    for method, key in (("pai/jobLog", "log"), ("pai/jobStatus", "status"), ("pai/jobLogEnd", "end")):
        lsp_client.feature(method)(lambda params, key=key: events[key].append(params._asdict()))
    lsp_client.events = events
    # This client shows failures and job ends itself: the server sends no window/showMessage for them.
    await start_session(lsp_client, "en", {"pai": {"job": {"upload": {"include": ["**/*.py", "data/*"]}}},
                                    "client": {"showsMessages": True}})
    try:
        yield
    finally:
        await lsp_client.shutdown_session()  # before the daemon stops: a server still running would start it again


async def run(editor: LanguageClient, command: str, *arguments) -> dict:
    return await editor.workspace_execute_command_async(types.ExecuteCommandParams(command, list(arguments)))


def workspace(tmp_path: Path, command: str | None = None) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    if command is not None:
        config = json.loads((ws / "mnist.pai.json").read_text())
        config.pop("codeDir")
        config["taskRoles"][0]["command"] = command
        (ws / "mnist.pai.json").write_text(json.dumps(config))
    return ws


def log_text(events: list[dict], job: str) -> bytes:
    """The log as a client assembles it from offsets: each byte exactly once."""
    chunks: dict[str, bytearray] = {}
    for e in events:
        if e["job"] != job:
            continue
        data = chunks.setdefault(e["task"], bytearray())
        assert e["offset"] == len(data), "a gap or a repeat in the log"
        assert e["length"] == len(e["text"].encode())
        data.extend(e["text"].encode())
    return b"".join(bytes(v) for v in chunks.values())


async def test_run_with_client_progress_then_list_inspect_and_refollow(editor, tmp_path):
    ws = workspace(tmp_path)
    editor.progress_reports["submit-1"] = []
    result = await run(editor, "pai.runLocally", {"uri": (ws / "mnist.pai.json").as_uri(), "workDoneToken": "submit-1"})
    assert result["ok"] is True, result
    job = result["job"]
    reports = editor.progress_reports["submit-1"]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable is True
    assert any(isinstance(r, types.WorkDoneProgressReport) and r.message.startswith("uploading 1/1 files") for r in reports)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd) and reports[-1].message == f"submitted {job}"

    # The relay started by the submit: every byte once, then the end.
    await until(lambda: any(e["job"] == job for e in editor.events["end"]))
    (end,) = [e for e in editor.events["end"] if e["job"] == job]
    # (the test client turns objects into named tuples: the one task's final offset)
    assert end["state"] == "SUCCEEDED" and tuple(end["offsets"]) == (len(log_text(editor.events["log"], job)),)
    assert b"epoch 3/3 loss=0.4968" in log_text(editor.events["log"], job)
    assert all(e["taskCount"] == 1 for e in editor.events["log"])
    await until(lambda: any(s["job"] == job and s["state"] == "SUCCEEDED" for s in editor.events["status"]))
    assert editor.messages == []  # the client shows job ends itself

    listing = await run(editor, "pai.jobs.list", {"limit": 5})
    assert listing["ok"] and listing["cluster"] == "local" and listing["jobs"][0]["name"] == job
    assert listing["jobs"][0]["state"] == "SUCCEEDED" and listing["jobs"][0]["created"] <= listing["jobs"][0]["completed"]
    status = await run(editor, "pai.job.status", {"job": job, "cluster": "local"})
    assert status["ok"] and [(t["role"], t["index"], t["exitCode"]) for t in status["tasks"]] == [("train", 0, 0)]
    assert status["webPortal"] is None  # the local cluster has none
    config = await run(editor, "pai.job.config", {"job": job, "cluster": "local"})
    assert config["config"]["jobName"] == job and config["config"]["taskRoles"][0]["name"] == "train"
    # also as text, in the cluster's key order, for clients that show it as it is (Neovim)
    assert config["text"].startswith(f'{{\n  "jobName": "{job}",\n') and json.loads(config["text"])["taskRoles"][0]["name"] == "train"

    # Download Outputs with its progress on the client's token.
    editor.progress_reports["out-1"] = []
    out = await run(editor, "pai.jobOutputs", {"job": job, "dest": str(tmp_path / "out"), "cluster": "local", "workDoneToken": "out-1"})
    assert out["ok"] and (Path(out["path"]) / "result.txt").read_text() == "final loss 0.4968\n"
    reports = editor.progress_reports["out-1"]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert any(isinstance(r, types.WorkDoneProgressReport) and r.message.startswith("downloading 1/1 files") for r in reports)

    # Reopening the log from the jobs view: from the start, or only what is missing.
    first = len(editor.events["log"])
    assert (await run(editor, "pai.job.follow", {"job": job, "cluster": "local"}))["ok"]
    await until(lambda: len([e for e in editor.events["end"] if e["job"] == job]) == 2)
    assert log_text(editor.events["log"][first:], job) == log_text(editor.events["log"][:first], job)
    have = {"train:0": 10}
    second = len(editor.events["log"])
    await run(editor, "pai.job.follow", {"job": job, "cluster": "local", "offsets": have})
    await until(lambda: len([e for e in editor.events["end"] if e["job"] == job]) == 3)
    resumed = editor.events["log"][second:]
    assert resumed[0]["offset"] == 10
    assert "".join(e["text"] for e in resumed).encode() == log_text(editor.events["log"][:first], job)[10:]


async def test_stop_a_running_job_pushes_its_status(editor, tmp_path):
    ws = workspace(tmp_path, "echo started; sleep 60")
    result = await run(editor, "pai.runLocally", (ws / "mnist.pai.json").as_uri())
    job = result["job"]
    await until(lambda: b"started" in log_text(editor.events["log"], job))
    ssh = await run(editor, "pai.job.ssh", {"job": job, "cluster": "local"})
    assert ssh["ok"] and ssh["tasks"][0]["task"] == "train:0"
    assert ssh["tasks"][0]["command"] == f"ssh -p {ssh['tasks'][0]['sshPort']} root@{ssh['tasks'][0]['ip']}"
    stopped = await run(editor, "pai.job.stop", {"job": job, "cluster": "local"})
    assert stopped == {"ok": True, "stopped": job, "state": "RUNNING"}
    await until(lambda: any(s["job"] == job and s["state"] == "STOPPED" for s in editor.events["status"]))
    missing = await run(editor, "pai.job.status", {"job": "no_such_job", "cluster": "local"})
    assert missing["ok"] is False and missing["kind"] == "not-found" and "no_such_job" in missing["message"]
    assert editor.messages == []


async def test_cancel_while_uploading_submits_nothing(editor, tmp_path):
    ws = workspace(tmp_path)
    (ws / "data").mkdir()
    for i in range(400):
        (ws / "data" / f"part{i:03}.bin").write_bytes(os.urandom(64 * 1024))
    editor.progress_reports["submit-2"] = []
    before = (await run(editor, "pai.jobs.list", {}))["total"]
    home = f"/{getpass.getuser()}"
    folders = await run(editor, "pai.hdfs.ls", {"path": home})
    folders_before = sorted(e["name"] for e in folders["entries"]) if folders["ok"] else []
    pending = asyncio.ensure_future(run(editor, "pai.runLocally", {"uri": (ws / "mnist.pai.json").as_uri(),
                                                                   "workDoneToken": "submit-2"}))
    await until(lambda: any(isinstance(r, types.WorkDoneProgressReport) for r in editor.progress_reports["submit-2"]))
    editor.protocol.notify(types.WINDOW_WORK_DONE_PROGRESS_CANCEL, types.WorkDoneProgressCancelParams(token="submit-2"))
    result = await pending
    assert result == {"ok": False, "kind": "cancelled", "message": "Submit cancelled: nothing was submitted."}
    assert editor.progress_reports["submit-2"][-1].message == result["message"]
    await asyncio.sleep(1)
    assert (await run(editor, "pai.jobs.list", {}))["total"] == before
    listing = await run(editor, "pai.hdfs.ls", {"path": home})
    assert sorted(e["name"] for e in listing.get("entries", [])) == folders_before  # nothing half-uploaded left


async def test_cancelling_a_transfer_stops_it_in_the_daemon(editor, tmp_path):
    """Closing the editor's progress notification (`window/workDoneProgress/cancel`) stops an HDFS
    upload where it is, as Ctrl-C does in the terminal: nothing arrives, nothing is left in part."""
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(400 * 1024 * 1024)
    editor.progress_reports["put-1"] = []
    pending = asyncio.ensure_future(run(editor, "pai.hdfs.put", {"local": str(big), "remote": "cancelled/", "cluster": "local",
                                                                 "workDoneToken": "put-1"}))
    await until(lambda: any(isinstance(r, types.WorkDoneProgressReport) and r.percentage
                            for r in editor.progress_reports["put-1"]))
    assert editor.progress_reports["put-1"][0].cancellable is True
    editor.protocol.notify(types.WINDOW_WORK_DONE_PROGRESS_CANCEL, types.WorkDoneProgressCancelParams(token="put-1"))
    result = await pending
    home = f"/user/{getpass.getuser()}"
    assert result == {"ok": False, "kind": "cancelled", "message": f"cancelled: nothing was written to {home}/cancelled/big.bin"}
    assert editor.progress_reports["put-1"][-1].message == result["message"]
    await asyncio.sleep(1)
    listing = await run(editor, "pai.hdfs.ls", {"path": f"{home}/cancelled", "cluster": "local"})
    assert listing.get("entries", []) == []
    assert editor.messages == []  # (this client shows results itself)


async def test_cluster_profiles_from_the_editor_are_the_cli_s(editor):
    await run(editor, "pai.jobs.list", {})  # the local cluster runs
    info = json.loads((HOME / "local" / "server.json").read_text())
    from pai_lsp.localcluster.datadir import secrets_dir

    password = (secrets_dir(HOME / "local", HOME / "config") / "pai-client-password").read_text()
    user = getpass.getuser()
    wrong = await run(editor, "pai.clusters.add", {"name": "lab", "rest": info["url"], "webhdfs": info["hdfs"],
                                                   "user": user, "password": "not-it"})
    assert wrong["ok"] is False and wrong["kind"] == "auth" and "Password is incorrect." in wrong["message"]
    assert wrong["message"].startswith("cluster lab was not added: ")
    assert [c["name"] for c in (await run(editor, "pai.clusters.list"))["clusters"]] == ["local", "local-paddle"]
    added = await run(editor, "pai.clusters.add", {"name": "lab", "rest": info["url"], "webhdfs": info["hdfs"],
                                                   "user": user, "password": password})
    assert added["ok"] and added["loggedIn"] is True and added["protocol"] == 1
    listed = await run(editor, "pai.clusters.list")
    rows = {c["name"]: c for c in listed["clusters"]}
    assert list(rows) == ["local", "local-paddle", "lab"] and rows["lab"]["loggedIn"] and rows["local"]["running"]
    assert listed["default"] == "lab"  # the first added profile becomes the default, as with `pai cluster add`
    cli = subprocess.run([sys.executable, "-m", "pai_lsp", "cluster", "list"], env=ENV, capture_output=True, text=True, timeout=60)
    assert f"* lab              {info['url']}  {user}  openpai" in cli.stdout
    assert password not in (HOME / "config" / "pai-lsp" / "clusters.json").read_text()
    jobs = await run(editor, "pai.jobs.list", {"cluster": "lab"})
    assert jobs["ok"] and jobs["cluster"] == "lab"
    assert (await run(editor, "pai.clusters.setDefault", {"name": "local"}))["default"] == "local"
    assert (await run(editor, "pai.clusters.list"))["default"] == "local"
    assert (await run(editor, "pai.clusters.remove", {"name": "lab"}))["ok"]
    assert [c["name"] for c in (await run(editor, "pai.clusters.list"))["clusters"]] == ["local", "local-paddle"]
    secrets = json.loads((HOME / "config" / "pai-lsp" / "secrets.json").read_text())
    assert not any(key.startswith("lab:") for key in secrets)  # its password and token went with it
    assert (await run(editor, "pai.clusters.stopLocal"))["stopped"] is True
    assert (await run(editor, "pai.clusters.list"))["clusters"][0]["running"] is False
    assert editor.messages == []
