"""The cluster's storages in a v2 job file, over LSP against the real local cluster (its daemon running,
as an editor's job views start it): a command that runs a workspace file no upload reaches is said
before submit and its quick fix makes it go away; storage names are completed and explained from the
cluster; a name the user may not use is an error; a `readOnly` the server overwrites is a warning.
With no daemon to ask, none of it is said (tests/core/test_route_rules.py holds the rules)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .helpers.cli import isolated_env, pai, stop_all
from .helpers.lsp import SERVER, Editor, apply_edit, start_session, text_at, until

pytestmark = pytest.mark.subprocess  # the language server over stdio

ENV = isolated_env(Path(tempfile.mkdtemp(prefix="pai-lsp-storages-")))
JOB = """\
protocolVersion: 2
name: first
type: job
prerequisites:
  - {name: image, type: dockerimage, uri: "ubuntu:18.04"}
taskRoles:
  main:
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}
    commands:
      - python3 train.py --epochs 1
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, starts_processes):
    """The local cluster (and the daemon) with two storages and no writable default: `datasets`
    (read-only, the default) and `scratch`."""
    assert pai(ENV, "storage", "list").returncode == 0  # starts the daemon and the cluster
    folders = tmp_path_factory.mktemp("storage-folders")
    (folders / "datasets").mkdir()
    config = {"storages": {"datasets": {"path": str(folders / "datasets"), "readOnly": True},
                           "scratch": {"path": str(folders / "scratch")}},
              "groups": {"default": ["datasets", "scratch"]}}
    (Path(ENV["PAI_LOCAL_CLUSTER_DIR"]) / "storages.json").write_text(json.dumps(config))
    listed = pai(ENV, "storage", "list", "-o", "json")
    assert [s["name"] for s in json.loads(listed.stdout)["storages"]] == ["datasets", "scratch"], listed.stdout
    yield folders
    stop_all(ENV)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def editor(lsp_client: LanguageClient, cluster):
    await start_session(lsp_client, "en")
    yield
    await lsp_client.shutdown_session()


def workspace(tmp_path: Path, settings: dict | None = None) -> Path:
    ws = tmp_path / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "train.py").write_text("print('trained')\n")
    (ws / ".vscode" / "settings.json").write_text(json.dumps(settings or {}))
    return ws


async def settled(client: LanguageClient, editor: Editor, code: str | None) -> list[types.Diagnostic]:
    """The document's diagnostics once the cluster's facts arrived: with `code` among them (None: with none)."""
    await until(lambda: editor.uri in client.diagnostics and (
        any(d.code == code for d in client.diagnostics[editor.uri]) if code else not client.diagnostics[editor.uri]))
    return list(client.diagnostics[editor.uri])


async def test_a_command_whose_file_no_upload_reaches_is_said_and_fixed(editor: LanguageClient, tmp_path):
    ws = workspace(tmp_path)
    doc = Editor(editor, ws / "job.pai.yaml")
    await doc.open(JOB)
    (found,) = [d for d in await settled(editor, doc, "route.no-default-storage")]
    assert text_at(JOB, found.range) == "train.py" and found.severity == types.DiagnosticSeverity.Error
    assert "no default storage" in found.message and "datasets, scratch" in found.message
    actions = await editor.text_document_code_action_async(types.CodeActionParams(
        doc.doc(), found.range, types.CodeActionContext(diagnostics=[found])))
    (mount,) = [a for a in actions if a.title == "Mount storage scratch and upload the code there"]
    (edits,) = mount.edit.changes.values()
    text = JOB
    for e in edits:
        text = apply_edit(text, e)
    assert "extras:\n  storages:\n    - name: scratch\n" in text
    await doc.replace_all(text)
    await settled(editor, doc, None)
    # And the submit agrees: the code goes to scratch, the job runs there.
    (ws / "job.pai.yaml").write_text(text)
    dry = pai(ENV, "run", str(ws / "job.pai.yaml"), "--dry-run")
    assert dry.returncode == 0 and "storage scratch" in dry.stdout, dry.stdout + dry.stderr


async def test_uploads_off_is_fixed_in_the_workspace_settings(editor: LanguageClient, tmp_path):
    ws = workspace(tmp_path, {"pai.job.upload.enabled": False})
    doc = Editor(editor, ws / "job.pai.yaml")
    await doc.open(JOB.replace("python3 train.py --epochs 1", "python3 -m train"))
    (found,) = await settled(editor, doc, "route.upload-off")
    assert text_at(doc.text, found.range) == "train"
    actions = await editor.text_document_code_action_async(types.CodeActionParams(
        doc.doc(), found.range, types.CodeActionContext(diagnostics=[found])))
    (turn_on,) = [a for a in actions if a.title.startswith("Turn uploads on")]
    settings = ws / ".vscode" / "settings.json"
    ((uri, edits),) = turn_on.edit.changes.items()
    assert Path(uri.removeprefix("file://")) == settings
    settings.write_text(apply_edit(settings.read_text(), edits[0]))
    assert json.loads(settings.read_text()) == {"pai.job.upload.enabled": True}
    editor.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(settings.as_uri(), types.FileChangeType.Changed)]))
    await settled(editor, doc, "route.no-default-storage")  # uploads on: the storage is what is missing now


async def test_storage_names_completed_explained_and_checked(editor: LanguageClient, tmp_path):
    ws = workspace(tmp_path)
    text = JOB + "extras:\n  storages:\n    - name: scratch\n    - name: datasets\n      readOnly: false\n    - name: homes\n"
    doc = Editor(editor, ws / "job.pai.yaml")
    await doc.open(text)
    found = await settled(editor, doc, "v2.storage-unknown")
    by_code = {d.code: d for d in found}
    assert set(by_code) == {"v2.storage-unknown", "v2.storage-read-only-ignored"}, found
    assert text_at(text, by_code["v2.storage-unknown"].range) == "homes"
    assert "404 NoStorageError" in by_code["v2.storage-unknown"].message
    assert text_at(text, by_code["v2.storage-read-only-ignored"].range) == "false"
    assert by_code["v2.storage-read-only-ignored"].severity == types.DiagnosticSeverity.Warning
    completion = await editor.text_document_completion_async(types.CompletionParams(doc.doc(), doc.position("homes", 2)))
    assert {i.label for i in completion.items} >= {"datasets", "scratch"}
    datasets = next(i for i in completion.items if i.label == "datasets")
    assert datasets.detail.startswith("unknown · ") and datasets.detail.endswith(" · ro")
    hover = await editor.text_document_hover_async(types.HoverParams(doc.doc(), doc.position("name: datasets", 7)))
    assert "**Storage datasets**" in hover.contents.value and "read-only" in hover.contents.value
    assert "`/mnt/datasets`" in hover.contents.value


def test_the_cli_refuses_a_job_whose_file_no_upload_reaches(cluster, tmp_path):
    ws = workspace(tmp_path)
    (ws / "job.pai.yaml").write_text(JOB)
    refused = pai(ENV, "run", str(ws / "job.pai.yaml"))
    assert refused.returncode != 0 and refused.stdout == ""
    (line,) = refused.stderr.strip().splitlines()
    assert "`train.py` is a file of the workspace" in line and "--without-code" in line
    # The setting per cluster names where the code goes: the submit goes there and says so.
    (ws / ".vscode" / "settings.json").write_text(json.dumps(
        {"pai.job.upload.storage": {"local": {"storage": "scratch", "path": "code/$PAI_JOB_NAME"}}}))
    ran = pai(ENV, "run", str(ws / "job.pai.yaml"), "-f")
    assert ran.returncode == 0, ran.stderr
    assert "1 file → storage scratch:/code/first_" in ran.stderr and "mounted at /mnt/scratch" in ran.stderr
    assert "trained" in ran.stdout
    assert list(cluster.glob("scratch/code/first_*/train.py"))


def test_without_code_sends_it_with_a_warning(cluster, tmp_path):
    ws = workspace(tmp_path, {"pai.job.upload.enabled": False})
    (ws / "job.pai.yaml").write_text(JOB)
    sent = pai(ENV, "run", str(ws / "job.pai.yaml"), "--without-code")
    assert sent.returncode == 0, sent.stderr
    assert "warning: `train.py` is a file of the workspace, but uploads are off" in sent.stderr


def test_no_daemon_no_cluster_checks(tmp_path, starts_processes):
    """A server with no daemon to ask says nothing of storages (never something wrong)."""
    script = (
        "import asyncio\n"
        "from pai_lsp.server.cluster_checks import ClusterChecks\n"
        "from pai_lsp.server.cluster_data import ClusterData\n"
        "class S:\n    documents = []\n    def publish(self, uri): pass\n"
        "async def main():\n    c = ClusterChecks(S(), ClusterData(S()))\n    assert c.current() is None\n    await c.data.fetch\n"
        "    assert c.data.facts is None and c.data.state is None\n    print('absent')\n"
        "asyncio.run(main())\n")
    alone = isolated_env(tmp_path)
    done = subprocess.run([sys.executable, "-c", script], env=alone, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "absent", done.stderr


def test_the_daemon_keeps_a_clusters_facts_a_while(cluster, tmp_path):
    """`cluster.facts` over the daemon's socket: the storages as the cluster lists them, then the same
    answer kept (older, not asked again) when the cluster's storages change within the minute."""
    script = ("import json, sys\nfrom pai_lsp import api\nfrom pai_lsp.daemon import client\n"
              "r = client.call_sync(api.ClusterFacts())\nprint(json.dumps(r.to_json()))\n")

    def ask() -> dict:
        done = subprocess.run([sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    first = ask()
    assert first["cluster"] == "local" and first["takesV2"] is True and first["stale"] is False
    assert [(s["name"], s["readOnly"], s["default"]) for s in first["storages"]] == [("datasets", True, True), ("scratch", False, False)]
    config_file = Path(ENV["PAI_LOCAL_CLUSTER_DIR"]) / "storages.json"
    before = config_file.read_text()
    config = json.loads(before)
    config["storages"]["extra"] = {"path": str(cluster / "extra")}
    config["groups"]["default"].append("extra")
    config_file.write_text(json.dumps(config))
    assert "extra" in pai(ENV, "storage", "list").stdout  # the cluster has it now
    kept = ask()
    config_file.write_text(before)
    assert [s["name"] for s in kept["storages"]] == ["datasets", "scratch"] and kept["age"] >= first["age"]


def test_a_script_the_upload_leaves_out_is_refused(cluster, tmp_path):
    """`bash run.sh` with the default include (`**/*.py`): run.sh would not reach the job."""
    ws = workspace(tmp_path)
    (ws / "run.sh").write_text("python3 train.py\n")
    (ws / "job.pai.yaml").write_text(JOB.replace("python3 train.py --epochs 1", "bash run.sh"))
    (ws / ".vscode" / "settings.json").write_text(json.dumps(
        {"pai.job.upload.storage": {"local": {"storage": "scratch"}}}))
    for args in (["--dry-run"], []):
        refused = pai(ENV, "run", str(ws / "job.pai.yaml"), *args)
        assert refused.returncode != 0, refused.stdout
        (line,) = refused.stderr.strip().splitlines()
        assert "runs `run.sh` of the workspace, but the upload leaves it out (pai.job.upload.include is **/*.py" in line
    (ws / ".vscode" / "settings.json").write_text(json.dumps(
        {"pai.job.upload.storage": {"local": {"storage": "scratch"}}, "pai.job.upload.include": ["**/*.py", "*.sh"]}))
    ran = pai(ENV, "run", str(ws / "job.pai.yaml"), "-f")
    assert ran.returncode == 0 and "trained" in ran.stdout, ran.stderr

