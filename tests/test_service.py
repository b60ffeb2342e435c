"""The service layer in-process, against a cluster in memory behind the `Backend` interface:
submit (check, name, fill in, upload, submit), logs by offset, outputs, the HDFS explorer."""

from __future__ import annotations

import json
import shutil

import pytest

from pai_lsp.clusters.backend import Backend
from pai_lsp.errors import Exists, InvalidInput, NameTaken, NotFound, PermissionDenied
from pai_lsp.service import hdfs as explorer
from pai_lsp.service import jobs as service

from .helpers.memory import MemoryBackend, Script
from .helpers.paths import CONFIGS, EXAMPLE


@pytest.fixture(autouse=True)
def state(tmp_path, monkeypatch, no_programs):
    """Submits keep their records in the state folder: a temporary one, never the user's; no git to ask."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    (ws / "notes.md").write_text("not uploaded\n")
    (ws / "lib").mkdir()
    (ws / "lib" / "util.py").write_text("X = 1\n")
    (ws / "lib" / "test_util.py").write_text("excluded\n")
    return ws


def test_submit_names_fills_in_uploads_and_leaves_the_file_alone(workspace):
    backend = MemoryBackend(user="alice")
    config = workspace / "mnist.pai.json"
    before = config.read_bytes()
    result = service.submit(backend, config, {"pai.job.upload.exclude": ["**/test_*"]})
    job = result.job
    assert job.startswith("mnist_") and len(job) == len("mnist_") + 8 and result.cluster == "local"
    sent = backend.submitted[job]
    assert sent["jobName"] == job and "$schema" not in sent
    assert sent["codeDir"].endswith(f"/alice/{job}")  # $PAI_USER_NAME and $PAI_JOB_NAME filled in
    code = f"/alice/{job}"
    assert sorted(p[len(code) + 1:] for p in backend.storage.files if p.startswith(code)) == [
        ".pai-manifest.json", "lib/util.py", "train.py"]
    assert result.upload.sent_files == 2 and config.read_bytes() == before


def test_settings_turn_off_generated_names_and_the_upload(workspace):
    backend = MemoryBackend()
    settings = {"pai.job.generateJobName.enabled": False, "pai.job.upload.enabled": False}
    result = service.submit(backend, workspace / "mnist.pai.json", settings)
    assert result.job == "mnist" and result.upload is None and backend.storage.files == {}
    with pytest.raises(NameTaken, match="a job named mnist already exists on local"):
        service.submit(backend, workspace / "mnist.pai.json", settings)


def test_a_resubmit_sends_nothing_when_nothing_changed_and_only_what_changed_otherwise(workspace):
    backend = MemoryBackend()
    config = json.loads((workspace / "mnist.pai.json").read_text())
    config["codeDir"] = "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/code"
    (workspace / "mnist.pai.json").write_text(json.dumps(config))
    first = service.submit(backend, workspace / "mnist.pai.json").upload
    again = service.submit(backend, workspace / "mnist.pai.json").upload
    (workspace / "lib" / "util.py").write_text("X = 2\n")
    third = service.submit(backend, workspace / "mnist.pai.json").upload
    assert (first.sent_files, again.sent_files, again.unchanged_files) == (3, 0, 3)
    # The changed file is sent beside the old tree and switched into it by renames (never half-new).
    assert (third.sent_files, third.changed_files, third.unchanged_files) == (1, 1, 2)
    assert backend.storage.read(f"{third.remote}/lib/util.py") == b"X = 2\n"


def test_the_config_is_checked_in_the_dialect_of_the_cluster_it_goes_to(tmp_path):
    scm_config = tmp_path / "scm.pai.json"
    shutil.copy(CONFIGS / "scm.scm.pai.json", scm_config)
    assert service.submit(MemoryBackend(kind="scm"), scm_config).job.startswith("scm-resnet_")
    with pytest.raises(InvalidInput, match=r'^scm.pai.json:16:7: "storageGB" is an SCM extension.*\(and 1 more: run `pai check'):
        service.submit(MemoryBackend(kind="openpai"), scm_config, shown="scm.pai.json")
    with pytest.raises(InvalidInput, match="missing.pai.json: no such file"):
        service.submit(MemoryBackend(), tmp_path / "missing.pai.json", shown="missing.pai.json")


def test_task_logs_are_read_by_offset_once_the_task_runs():
    backend = MemoryBackend()
    backend.submit({"jobName": "j"})
    backend.scripts["j"] = Script(["WAITING", "RUNNING", "RUNNING", "SUCCEEDED"], [b"", b"one\n", b"two\n", b"three\n"])
    logs = service.TaskLogs(offsets={})
    read = [logs.read(backend, backend.job("j")) for _ in range(4)]
    assert read == [[], [("main:0", 0, b"one\n")], [("main:0", 4, b"two\n")], [("main:0", 8, b"three\n")]]
    resumed = service.TaskLogs(offsets={"main:0": 6})  # a follower that already has "one\ntw"
    assert resumed.read(backend, backend.job("j")) == [("main:0", 6, b"o\nthree\n")]
    assert service.TaskLogs(task="other:0").read(backend, backend.job("j")) == []


def test_outputs_download_the_output_dir(tmp_path):
    backend = MemoryBackend()
    backend.submit({"jobName": "j", "outputDir": "$PAI_DEFAULT_FS_URI/alice/out/j"})
    with pytest.raises(NotFound, match="wrote nothing to its outputDir /alice/out/j"):
        service.outputs(backend, "j", tmp_path)
    backend.storage.write("/alice/out/j/model/weights.bin", b"\x00\x01")
    target = service.outputs(backend, "j", tmp_path / "dest")
    assert target == tmp_path / "dest" / "j" and (target / "model" / "weights.bin").read_bytes() == b"\x00\x01"


def test_hdfs_explorer_operations(tmp_path):
    backend = MemoryBackend(user="alice")
    backend.storage.write("/user/alice/data/a.txt", b"hello\n")
    assert [e.name for e in explorer.ls(backend.storage, "data").entries] == ["a.txt"]  # relative to /user/<user>
    assert explorer.stat(backend.storage, "data/a.txt").size == 6
    assert explorer.cat(backend.storage, "data/a.txt", 1, 3) == b"ell" and explorer.tail(backend.storage, "data/a.txt", 3) == b"lo\n"
    with pytest.raises(InvalidInput, match="is a folder: use -r"):
        explorer.rm(backend.storage, "data")
    explorer.mv(backend.storage, "data/a.txt", "data/b.txt")
    got = explorer.get(backend.storage, "data", tmp_path)
    assert got.files == 1 and (tmp_path / "data" / "b.txt").read_bytes() == b"hello\n"
    backend.storage.write("/user/alice/evil/x", b"")
    backend.storage.files["/user/alice/evil/..\\x"] = b"escape"
    with pytest.raises(PermissionDenied, match="refusing to download a remote entry"):
        explorer.get(backend.storage, "evil", tmp_path / "dest")
    assert explorer.rm(backend.storage, "data", recursive=True).path == "/user/alice/data"
    with pytest.raises(NotFound):
        explorer.stat(backend.storage, "data")


def test_a_backend_that_lacks_a_method_cannot_be_made():
    class NoRegistries(MemoryBackend):
        remove_registry = Backend.remove_registry  # abstract again

    with pytest.raises(TypeError, match="remove_registry"):
        NoRegistries()
    assert not MemoryBackend.__abstractmethods__  # the fake is whole


def test_stop_ssh_and_tasks_follow_the_jobs_state():
    backend = MemoryBackend()
    backend.submit({"jobName": "j"})
    backend.scripts["j"] = Script(["WAITING", "RUNNING", "RUNNING", "SUCCEEDED"])
    with pytest.raises(NotFound, match=r"no task of j is running now \(state WAITING\)"):
        service.ssh_info(backend.job("j"))  # WAITING
    running = backend.job("j")
    assert [t.command for t in service.ssh_info(running)] == ["ssh -p 2222 root@10.0.0.1"]
    service.check_task(running, "main:0")
    with pytest.raises(NotFound, match="main:0"):
        service.check_task(running, "worker:1")
    assert service.stop(backend, "j").state == "RUNNING" and backend.stopped == ["j"]
    with pytest.raises(InvalidInput, match="STOPPED"):
        service.stop(backend, "j")
    with pytest.raises(NotFound):
        service.stop(backend, "nope")


def test_jobs_are_listed_newest_first_in_pages():
    backend = MemoryBackend()
    for name in ("a", "b", "c"):
        backend.submit({"jobName": name})
    page = service.list_jobs(backend, offset=1, limit=1)
    assert (page.total, page.offset, len(page.jobs), page.user) == (3, 1, 1, "alice")
    assert [j.name for j in service.list_jobs(backend).jobs] == ["a", "b", "c"]  # same created time: as listed


def test_hdfs_put_du_and_a_tail_longer_than_the_file(tmp_path):
    backend = MemoryBackend(user="alice")
    (tmp_path / "up" / "sub").mkdir(parents=True)
    (tmp_path / "up" / "a.txt").write_bytes(b"12345")
    (tmp_path / "up" / "sub" / "b.txt").write_bytes(b"67")
    sent = explorer.put(backend.storage, tmp_path / "up", "data")
    assert (sent.files, sent.bytes) == (2, 7) and backend.storage.files["/user/alice/data/sub/b.txt"] == b"67"
    usage = explorer.du(backend.storage, "data")
    assert usage.bytes == 7 and sorted((e.path.rsplit("/", 1)[-1], e.bytes) for e in usage.entries) == [("a.txt", 5), ("sub", 2)]
    assert explorer.tail(backend.storage, "data/a.txt", 100) == b"12345"
    assert explorer.put(backend.storage, tmp_path / "up", "data").path == "/user/alice/data/up"  # into the folder that is there
    with pytest.raises(Exists):
        explorer.put(backend.storage, tmp_path / "up" / "a.txt", "data/a.txt")  # a file there already: only with overwrite
    (tmp_path / "up" / "a.txt").write_bytes(b"new")
    assert explorer.put(backend.storage, tmp_path / "up" / "a.txt", "data/a.txt", overwrite=True).bytes == 3
    assert backend.storage.files["/user/alice/data/a.txt"] == b"new"
