"""The submission record's pure core: its canonical form and fingerprints, what tampering it
detects by itself, and the comparison of two runs."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from pai_lsp.core import record as rec
from pai_lsp.core.record import FileEntry, GitState, Record, RecordError


def make(job: str = "mnist_1a2b3c4d", **changes) -> Record:
    config = {"jobName": job, "codeDir": f"$PAI_DEFAULT_FS_URI/alice/{job}", "image": "img",
              "taskRoles": [{"name": "train", "command": f"cd {job} && python train.py --lr 0.1", "memoryMB": 1024}]}
    base = Record(job=job, cluster="local", kind="openpai", user="alice", submitted="2026-11-26T15:00:00Z", tool="0.1.0",
                  environment={"python": "3.11.7", "os": "Linux 6", "host": "box"}, config_file="mnist.pai.json",
                  workspace="/home/alice/ws", source_config={"jobName": "mnist"}, config=config,
                  variables={"PAI_JOB_NAME": job}, code_dir=f"/alice/{job}",
                  files={"train.py": FileEntry(10, "a" * 64), "util.py": FileEntry(5, "b" * 64)},
                  git=GitState(commit="c" * 40, branch="main", dirty=True, diff="+x\n", diff_bytes=3))
    return replace(base, **changes)


def test_round_trip_and_a_stable_fingerprint():
    record = make()
    data = rec.encode(record)
    assert rec.decode(data) == record
    assert rec.encode(rec.decode(data)) == data  # canonical: the digest of a record read back is the same
    assert rec.digest(data) == rec.digest(rec.encode(make()))
    assert record.code_hash == make(job="other_job").code_hash  # the same files, the same code hash
    assert record.code_hash != make(files={"train.py": FileEntry(10, "d" * 64)}).code_hash


def test_a_file_list_edited_by_hand_is_caught():
    value = json.loads(rec.encode(make()))
    value["files"]["train.py"]["sha256"] = "e" * 64
    with pytest.raises(RecordError, match="code hash"):
        rec.Record.from_json(value)
    with pytest.raises(RecordError, match="not JSON"):
        rec.decode(b"{half")
    with pytest.raises(RecordError, match="version"):
        rec.Record.from_json({**json.loads(rec.encode(make())), "version": 99})


def test_reference_goes_on_the_config_and_comes_off_again():
    config = {"jobName": "x", "extras": {"virtualGroup": "total"}}
    ref = rec.reference("/alice/.pai-records/x.json", "f" * 64, "0" * 64)
    carried = rec.with_reference(config, ref)
    assert rec.reference_of(carried) == ref and rec.reference_of(config) is None
    assert rec.without_reference(carried) == config
    assert rec.without_reference(rec.with_reference({"jobName": "x"}, ref)) == {"jobName": "x"}


def test_record_path_is_beside_the_code_folder():
    assert rec.record_path("/alice/mnist_1", "/user/alice", "mnist_1") == "/alice/.pai-records/mnist_1.json"
    assert rec.record_path(None, "/user/alice", "j") == "/user/alice/.pai-records/j.json"
    assert rec.record_path("/code", "/", "j") == "/.pai-records/j.json"


def test_a_too_large_diff_is_left_out_and_said():
    kept, size = rec.bounded_diff("x" * (rec.DIFF_LIMIT + 1))
    assert kept is None and size == rec.DIFF_LIMIT + 1
    lines = rec.summary_lines(make(git=GitState(commit="c" * 40, dirty=True, diff=None, diff_bytes=size)))
    assert any("the diff is too large to keep" in line for line in lines)


def test_config_changes_by_key_without_the_runs_own_names():
    a, b = make("mnist_aaaa1111"), make("mnist_bbbb2222")
    assert rec.config_changes(a, b) == []
    b = replace(b, config={**b.config, "taskRoles": [{**b.config["taskRoles"][0], "memoryMB": 2048}], "gpuType": "P100"})
    assert rec.config_changes(a, b) == [
        {"key": "gpuType", "change": "added", "new": "P100"},
        {"key": "taskRoles[train].memoryMB", "change": "changed", "old": 1024, "new": 2048}]


def test_file_commit_and_environment_changes():
    a = make()
    b = make(files={"train.py": FileEntry(11, "9" * 64), "new.py": FileEntry(1, "8" * 64)},
             git=GitState(commit="d" * 40, branch="main"), environment={"python": "3.12.0", "os": "Linux 6", "host": "box"})
    assert rec.file_changes(a, b) == {"added": ["new.py"], "removed": ["util.py"], "changed": ["train.py"]}
    assert [c["key"] for c in rec.commit_changes(a, b)] == ["commit", "dirty"]
    assert rec.environment_changes(a, b) == [{"key": "python", "old": "3.11.7", "new": "3.12.0"}]
    dirtier = make(git=replace(a.git, diff="+x\n+y\n", diff_bytes=1200))
    assert rec.commit_changes(a, dirtier) == [{"key": "diff", "old": 3, "new": 1200}]  # the uncommitted changes, in bytes
    assert rec.commit_changes(make(git=None), a)[0] == {"key": "commit", "old": None, "new": "c" * 40}


def test_text_and_binary_diffs():
    shown = rec.text_diff("a.py", b"x = 1\n", b"x = 2\n", "j1", "j2")
    assert shown.splitlines() == ["--- j1/a.py", "+++ j2/a.py", "@@ -1 +1 @@", "-x = 1", "+x = 2"]
    assert rec.text_diff("w.bin", b"\0\1", b"\0\2\3", "j1", "j2") == "Binary file w.bin differs (2 → 3 bytes)\n"
    long = rec.text_diff("big.txt", b"", "".join(f"{i}\n" for i in range(1000)).encode(), "j1", "j2")
    assert long.endswith("more diff lines)\n") and long.count("\n") == rec.TEXT_DIFF_LINES + 1


def test_a_rerun_differs_from_its_first_run_by_nothing():
    first = make("mnist_aaaa1111")
    config = {**first.config, "jobName": "mnist_bbbb2222", "outputDir": "/alice/output/mnist_bbbb2222"}
    rerun = make("mnist_bbbb2222", config=config, rerun_of="mnist_aaaa1111")
    first = replace(first, config={**first.config, "outputDir": "/alice/output/mnist_aaaa1111"})
    assert rec.config_changes(first, rerun) == []  # its codeDir and command name the first run's folder: no difference
    text = rec.diff_text({"jobs": [first.job, rerun.job], "config": [], "files": rec.file_changes(first, rerun), "diffs": [],
                          "commit": [], "environment": []})
    assert text == "config: the same\ncode: the same\ncommit: the same\nenvironment: the same\n"


def test_a_record_and_two_runs_compared_are_said_in_the_reader_s_language():
    """Every line of `pai show` and `pai diff` is a catalogue text: English with a count said as one or
    many, Chinese for a Chinese reader."""
    one = make(files={"train.py": FileEntry(10, "a" * 64)})
    english = rec.summary_lines(one)
    assert english[3] == "code       1 file, 10 bytes at /alice/mnist_1a2b3c4d (code hash " + one.code_hash[:12] + ")"
    assert "2 files, 15 bytes" in rec.summary_lines(make())[3]
    assert english[4] == "git        main @ cccccccccccc, uncommitted changes (3 bytes of diff)"
    chinese = rec.summary_lines(one, "zh-CN")
    assert chinese[0] == "作业       mnist_1a2b3c4d，集群 local（openpai），用户 alice"
    assert chinese[3].startswith("代码       1 个文件，10 字节") and chinese[4].endswith("有未提交的修改（差异 3 字节）")
    assert len(chinese) == len(english) and not any(line in english for line in chinese)

    a, b = make(), make(git=GitState(commit="c" * 40, branch="main", dirty=True, diff="+y\n" * 400, diff_bytes=1200))
    found = {"jobs": ["j1", "j2"], "config": [], "files": rec.file_changes(a, b), "diffs": [],
             "commit": rec.commit_changes(a, b), "environment": []}
    assert rec.diff_text(found).splitlines()[2:4] == ["commit:", "  ~ uncommitted changes: 3 → 1,200 bytes of diff"]
    assert rec.diff_text(found, "zh-CN").splitlines() == ["配置：相同", "代码：相同", "提交：", "  ~ 未提交的修改：差异 3 → 1,200 字节",
                                                         "环境：相同"]
    assert rec.text_diff("w.bin", b"\0", b"\0\1", "j1", "j2", "zh-CN") == "二进制文件 w.bin 不同（1 → 2 字节）\n"
