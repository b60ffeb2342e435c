"""The submission record's service side in-process, on the in-memory backend: what a record from the
cluster may not do (name files outside the folder it is written into), and a record kept by a
submit whose upload is turned off (on this machine only)."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from pai_lsp.core import record as rec
from pai_lsp.errors import InvalidInput, NotFound
from pai_lsp.service import jobs as service
from pai_lsp.service import records

from .helpers.memory import MemoryBackend
from .helpers.paths import EXAMPLE


@pytest.fixture(autouse=True)
def state(tmp_path, monkeypatch, no_programs):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    return ws


def test_a_record_naming_files_outside_its_folder_writes_nothing(workspace, tmp_path):
    backend = MemoryBackend()
    job = service.submit(backend, workspace / "mnist.pai.json").job
    found = records.find(backend, job)
    assert found.source == "cluster" and found.notes == [] and set(found.record.files) == {"train.py"}
    evil = dataclasses.replace(found.record, files={"../../outside.py": found.record.files["train.py"]})
    with pytest.raises(InvalidInput, match="outside the code folder"):
        records.fetch(backend, evil, records.LocalRecords(), tmp_path / "dest")
    assert not (tmp_path / "outside.py").exists() and not any((tmp_path / "dest").glob("**/*"))


def test_without_an_upload_the_record_stays_on_this_machine(workspace):
    backend = MemoryBackend()
    result = service.submit(backend, workspace / "mnist.pai.json", {"pai.job.upload.enabled": False})
    assert result.record.location is None and backend.storage.files == {}
    assert rec.reference_of(backend.submitted[result.job]) is None  # the job points at nothing on the cluster
    found = records.find(backend, result.job)
    assert found.source == "journal" and found.record.code_dir is None and found.record.files == {}


def test_the_job_carries_the_records_fingerprint(workspace):
    backend = MemoryBackend()
    job = service.submit(backend, workspace / "mnist.pai.json").job
    ref = rec.reference_of(backend.submitted[job])
    data = backend.storage.files[ref["path"]]
    assert rec.digest(data) == ref["sha256"] and json.loads(data)["codeHash"] == ref["codeHash"]
    backend.storage.files[ref["path"]] = data.replace(b"train.py", b"trainX.py")
    (records.LocalRecords().folder / "local" / f"{job}.json").unlink()
    with pytest.raises(NotFound, match="was changed after the job was submitted"):
        records.find(backend, job)


def test_what_is_wrong_with_a_record_is_said_in_the_readers_language(workspace):
    """A record changed on the cluster and no copy on this machine: one failure, which travels as
    its catalogue code (errors.to_wire) and is said again in Chinese on the other side, notes and all."""
    from pai_lsp.errors import PaiError

    backend = MemoryBackend()
    job = service.submit(backend, workspace / "mnist.pai.json").job
    ref = rec.reference_of(backend.submitted[job])
    backend.storage.files[ref["path"]] = b"{}"
    (records.LocalRecords().folder / "local" / f"{job}.json").unlink()
    with pytest.raises(NotFound) as caught:
        records.find(backend, job)
    again = PaiError.from_wire(caught.value.to_wire(), caught.value.message)
    assert isinstance(again, NotFound) and again.message == caught.value.message
    assert "was changed after the job was submitted" in again.render("en")
    zh = again.render("zh-cn")
    assert f"{job} 位于 {ref['path']} 的提交记录在作业提交后被改动过" in zh and "本机日志中也没有完好的副本" in zh
    backend.submitted[job] = rec.without_reference(backend.submitted[job])  # as if another tool submitted it
    with pytest.raises(NotFound) as none:
        records.find(backend, job)
    assert none.value.render("zh-cn").startswith(f"作业 {job} 没有提交记录")
