"""Submitting from the editor: the LSP command goes through the daemon to the local cluster, and
upload progress, job status, log lines and the final message come back as LSP traffic."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .helpers.cli import command_job, isolated_env, pai, stop_all
from .helpers.configs import V2_HELLO
from .helpers.failing import failing_workspace
from .helpers.lsp import SERVER, start_session, until
from .helpers.paths import EXAMPLE

pytestmark = pytest.mark.subprocess  # the language server over stdio

ENV = isolated_env(Path(tempfile.mkdtemp(prefix="pai-lsp-home-")))


@pytest.fixture(scope="module", autouse=True)
def daemon_and_local_cluster():
    """The daemon and the local cluster the first editor starts serve every test here (each test its own
    jobs, found by name), and are stopped at the end: starting them once is all a test of the start needs."""
    yield
    stop_all(ENV)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def editor(lsp_client: LanguageClient):
    events: dict[str, list] = {"log": [], "status": [], "end": [], "ended": []}

    @lsp_client.feature("pai/jobLog")
    def _log(params):
        events["log"].append(params._asdict())

    @lsp_client.feature("pai/jobStatus")
    def _status(params):
        events["status"].append(params._asdict())

    @lsp_client.feature("pai/jobLogEnd")
    def _log_end(params):
        events["end"].append(params._asdict())

    @lsp_client.feature("pai/jobEnded")
    def _ended(params):
        events["ended"].append(params._asdict())

    lsp_client.events = events
    await start_session(lsp_client, "en", {"pai": {"job": {"upload": {"include": ["**/*.py", "data/*.csv"]}}}})
    try:
        yield
    finally:
        await lsp_client.shutdown_session()  # before the daemon stops: a server still running would start it again


async def test_run_locally_from_the_editor(editor, tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    (ws / "data").mkdir()
    (ws / "data" / "train.csv").write_text("x,y\n1,2\n")
    (ws / "notes.md").write_text("not uploaded\n")
    uri = (ws / "mnist.pai.json").as_uri()
    editor.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "json", 1, (ws / "mnist.pai.json").read_text())))
    await editor.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    result = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.runLocally", [uri]))
    assert result["ok"] is True and result["cluster"] == "local", result
    job = result["job"]
    assert result["upload"]["sent_files"] == 2  # train.py and data/train.csv, by the client's globs
    # Upload progress came as $/progress: begin, reports, end.
    (reports,) = [r for r in editor.progress_reports.values() if r]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert any(isinstance(r, types.WorkDoneProgressReport) and r.percentage == 100 for r in reports)
    await until(lambda: any(s["state"] == "SUCCEEDED" for s in editor.events["status"]))
    states = [s["state"] for s in editor.events["status"]]
    assert len(states) >= 2 and states[-1] == "SUCCEEDED" and len(set(states)) == len(states), states  # each change, once
    # The status and the log travel apart; `pai/jobLogEnd` says the whole log has arrived.
    await until(lambda: any(e["job"] == job for e in editor.events["end"]))
    text = "".join(e["text"] for e in editor.events["log"])
    assert [line for line in text.splitlines() if line.startswith("epoch")] == [
        "epoch 1/3 loss=1.3800", "epoch 2/3 loss=0.8280", "epoch 3/3 loss=0.4968"]
    assert all(e["job"] == job and e["uri"] == uri for e in editor.events["log"])
    await until(lambda: any(m.message == f"Job {job} SUCCEEDED" for m in editor.messages))
    out = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.jobOutputs", [{"job": job, "dest": str(tmp_path / "out")}]))
    assert out["ok"] is True
    assert (Path(out["path"]) / "result.txt").read_text() == "final loss 0.4968\n"
    # What it ran, said in the editor's language: the server asks the daemon for the record's words in it.
    editor.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"pai": {"locale": "zh-CN"}}))
    try:
        shown = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.job.record", [{"job": job}]))
    finally:
        editor.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"pai": {"locale": "en"}}))
    assert shown["ok"] is True and shown["lines"][0].startswith(f"作业       {job}，集群 local"), shown
    assert shown["lines"][3].startswith("代码       2 个文件，"), shown["lines"]


async def test_a_job_run_from_the_terminal_that_fails_is_told_in_the_editor_with_why(editor, tmp_path):
    """The editor is connected: a job the terminal ran (watched by the daemon) ends, and the editor is
    told — `pai/jobEnded` with its cause in one line, which the clients show with its log and the
    report; a client that shows no messages itself gets it as one `window/showMessage`."""
    await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.jobs.list", [{"cluster": "local"}]))
    ws = failing_workspace(tmp_path / "ws", "boom")
    run = pai(ENV, "run", "boom.pai.json", cwd=ws)
    assert run.returncode == 0, run.stderr
    job = run.stdout.split()[1]
    await until(lambda: any(e["job"] == job for e in editor.events["ended"]), timeout=60)
    (ended,) = [e for e in editor.events["ended"] if e["job"] == job]
    assert ended["state"] == "FAILED" and ended["cluster"] == "local" and ended["message"] == f"Job {job} failed"
    assert "KeyError" in ended["why"] and "pkg/ops.py:3" in ended["why"]
    await until(lambda: any(m.message.startswith(f"Job {job} FAILED: ") for m in editor.messages))
    assert [m.type for m in editor.messages if job in m.message] == [types.MessageType.Warning]


async def test_a_long_log_followed_from_the_editor_starts_at_its_tail(editor, tmp_path):
    """`pai.job.follow` with `tail`: each task's last bytes, not the log from its start."""
    ws = command_job(tmp_path, "long.pai.json", "seq 1 300000")
    run = pai(ENV, "run", "long.pai.json", cwd=ws)
    job = run.stdout.split()[1]
    await until(lambda: json.loads(pai(ENV, "status", job, "-o", "json").stdout)["state"] == "SUCCEEDED")
    result = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.job.follow", [{"job": job, "tail": 1000}]))
    assert result["ok"] is True, result
    await until(lambda: any(e["job"] == job for e in editor.events["end"]))
    pieces = [e for e in editor.events["log"] if e["job"] == job]
    text = "".join(e["text"] for e in pieces)
    assert pieces[0]["offset"] > 1_000_000 and len(text.encode()) == 1000  # the last 1,000 bytes, nothing before
    assert text.endswith("299999\n300000\n")
    (end,) = [e for e in editor.events["end"] if e["job"] == job]
    assert tuple(end["offsets"]) == (pieces[0]["offset"] + 1000,)  # (pytest-lsp reads the object as a named tuple)
    # Reading backwards on demand: the 1,000 bytes before, exactly the log's.
    log = "".join(f"{i}\n" for i in range(1, 300001))
    first = pieces[0]["offset"]
    assert log[first:] == text
    earlier = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.job.logRead", [{"job": job, "task": "train:0", "offset": first - 1000, "length": 1000}]))
    assert earlier["ok"] is True and earlier["offset"] == first - 1000 and earlier["length"] == 1000, earlier
    assert earlier["text"] == log[first - 1000:first]
    wrong = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.job.logRead", [{"job": job, "task": "train:7", "offset": 0, "length": 10}]))
    assert wrong["ok"] is False and "train:0" in wrong["message"]


async def test_invalid_config_is_one_editor_message(editor, tmp_path):
    bad = tmp_path / "bad.pai.json"
    bad.write_text(json.dumps({"jobName": "x", "image": "i", "taskRoles": [{"name": "a-b", "command": "c"}]}))
    result = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.submitJob", [bad.as_uri()]))
    assert result["ok"] is False and '"a-b" is not a valid name' in result["message"]
    assert editor.messages[-1].type == types.MessageType.Error and editor.messages[-1].message == result["message"]
    assert result["message"].startswith(f"{bad}:1:")  # outside every workspace folder: its full path


async def test_a_refused_config_is_named_relative_to_its_workspace_folder(editor, tmp_path):
    """The start of the message is what a collapsed notification shows: the file as the editor's file
    tree names it, then the reason."""
    bad = tmp_path / "jobs" / "bad.pai.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps({"jobName": "x", "image": "i", "taskRoles": [{"name": "a-b", "command": "c"}]}))
    editor.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(types.WorkspaceFoldersChangeEvent(
        added=[types.WorkspaceFolder(tmp_path.as_uri(), "ws")], removed=[])))
    result = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.submitJob", [bad.as_uri()]))
    assert result["ok"] is False and result["message"].startswith('jobs/bad.pai.json:1:'), result
    assert '"a-b" is not a valid name' in result["message"]


async def test_hdfs_commands_return_structured_results(editor, tmp_path):
    local = tmp_path / "up.txt"
    local.write_text("from the editor\n")
    put = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.hdfs.put", [{"local": str(local), "remote": "/tmp/editor/up.txt"}]))
    assert put["ok"] is True and put["files"] == 1
    listing = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.hdfs.ls", [{"path": "/tmp/editor"}]))
    assert listing["ok"] is True and listing["path"] == "/tmp/editor"
    (item,) = listing["entries"]
    assert (item["name"], item["type"], item["size"]) == ("up.txt", "file", 16)
    cat = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.hdfs.cat", [{"path": "/tmp/editor/up.txt"}]))
    assert cat["text"] == "from the editor\n"
    missing = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.hdfs.ls", [{"path": "/nope"}]))
    assert missing == {"ok": False, "message": "/nope: no such file or directory on HDFS", "kind": "not-found"}


async def test_storage_commands_list_and_reach_a_mounted_storage(editor, tmp_path):
    """The explorer's storages: `pai.storages.list` answers the local cluster's default storage, and
    the `pai.hdfs.*` commands with `storage` set reach that folder (cat, tail and put included, which
    the server builds anew), not HDFS."""
    listed = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.storages.list", [{}]))
    assert listed["ok"] is True, listed
    local = next(s for s in listed["storages"] if s["name"] == "local")
    assert (local["default"], local["readOnly"], local["mountPath"]) == (True, False, "/mnt/local")
    up = tmp_path / "code.py"
    up.write_text("print('from a storage')\n")
    put = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.hdfs.put", [{"local": str(up), "remote": "/editor/", "storage": "local"}]))
    assert put["ok"] is True and put["files"] == 1, put
    assert (Path(local["server"]) / "editor" / "code.py").read_text() == up.read_text()
    on_hdfs = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.hdfs.ls", [{"path": "/editor"}]))
    assert on_hdfs["ok"] is False and on_hdfs["kind"] == "not-found"
    cat = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.hdfs.cat", [{"path": "/editor/code.py", "storage": "local"}]))
    tail = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.hdfs.tail", [{"path": "/editor/code.py", "storage": "local", "bytes": 8}]))
    assert (cat["text"], tail["text"]) == (up.read_text(), up.read_text()[-8:])


async def test_a_daemon_error_is_said_in_the_editors_language(editor):
    """The daemon sends a failure as a catalogue code; the server says it in the editor's language
    (here `pai.locale`, set after start), as every other text it sends."""
    made = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.hdfs.mkdir", [{"path": "/tmp/said/in"}]))
    assert made["ok"] is True
    editor.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"pai": {"locale": "zh-CN"}}))
    try:
        refused = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.hdfs.rm", [{"path": "/tmp/said"}]))
    finally:
        editor.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"pai": {"locale": "en"}}))
    assert refused == {"ok": False, "message": "/tmp/said 是文件夹：请用 -r 连同其内容一起删除", "kind": "invalid"}


async def test_command_arguments_are_typed(editor):
    """Arguments are read into the command's types: a wrong shape is an InvalidParams error naming
    what is wrong, and no daemon is asked."""
    from pygls.exceptions import JsonRpcInvalidParams

    for command, arguments, wanted in (("pai.hdfs.ls", [{"cluster": "x"}], "hdfs.ls: `path` is missing"),
                                       ("pai.hdfs.mv", [{"from": "/a", "to": 3}], "hdfs.mv: `to` must be a string"),
                                       ("pai.jobOutputs", [{"job": "only-a-job"}], "pai.jobOutputs: `dest` is missing")):
        try:
            await editor.workspace_execute_command_async(types.ExecuteCommandParams(command, arguments))
        except JsonRpcInvalidParams as exc:
            assert wanted in str(exc), exc
        else:
            raise AssertionError(f"{command} {arguments} was accepted")
    none = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.submitJob", []))
    assert none == {"ok": False, "message": "Open a *.pai.json file to submit it.", "kind": "invalid"}


async def test_the_clusters_warnings_reach_the_editor(editor, tmp_path):
    """The local cluster accepts a job larger than the machine with an `X-Warning`: the editor shows it
    as a Warning message naming the job, and the command's result carries it too."""
    ws = tmp_path / "ws"
    ws.mkdir()
    config = {"jobName": "big", "image": "ubuntu:18.04", "killAllOnCompletedTaskNumber": 1,
              "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 4096, "memoryMB": 256, "command": "echo ran"}]}
    (ws / "big.pai.json").write_text(json.dumps(config))
    result = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.runLocally", [(ws / "big.pai.json").as_uri()]))
    assert result["ok"] is True, result
    job = result["job"]
    assert len(result["warnings"]) == 2 and "the job asks for 4096 CPUs" in result["warnings"][0], result
    await until(lambda: len([m for m in editor.messages if m.type == types.MessageType.Warning and m.message.startswith(job)]) == 2)
    shown = [m.message for m in editor.messages if m.type == types.MessageType.Warning and m.message.startswith(job)]
    assert shown == [f"{job}: {warning}" for warning in result["warnings"]]
    assert shown[1] == (f"{job}: killAllOnCompletedTaskNumber has been obsoleted, please use minFailedTaskCount and "
                        "minSucceededTaskCount instead.")



async def test_a_v2_job_file_is_previewed_rendered_and_runs_from_the_editor(editor, tmp_path):
    job_file = tmp_path / "hello.pai.yaml"
    job_file.write_text(V2_HELLO)
    uri = job_file.as_uri()
    shown = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.previewRendered", [uri]))
    assert shown["ok"] is True and shown["language"] == "yaml", shown
    assert '- echo "hello from $PAI_CURRENT_TASK_ROLE_NAME"\n' in shown["text"] and '- test -n "******" && echo done' in shown["text"]
    assert "s3cr3t-value" not in json.dumps(shown)
    assert shown["text"].startswith("# The job as the server will see it") and "instances: 1" in shown["text"]
    revealed = await editor.workspace_execute_command_async(types.ExecuteCommandParams(
        "pai.previewRendered", [{"uri": uri, "showSecrets": True}]))
    assert '- test -n "s3cr3t-value" && echo done' in revealed["text"]
    # The upload preview carries the same text under its heading (the dry run's), but for the name drawn anew.
    upload = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.previewUpload", [uri]))
    assert "the job as the server will see it:\n" + shown["text"].replace(shown["job"], upload["job"]) in upload["text"]
    result = await editor.workspace_execute_command_async(types.ExecuteCommandParams("pai.runLocally", [uri]))
    assert result["ok"] is True and result["job"].startswith("hello_v2_"), result
    await until(lambda: any(e["job"] == result["job"] for e in editor.events["end"]))
    text = "".join(e["text"] for e in editor.events["log"] if e["job"] == result["job"])
    assert "hello from worker" in text.splitlines()
    await until(lambda: any(m.message == f"Job {result['job']} SUCCEEDED" for m in editor.messages))
