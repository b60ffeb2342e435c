"""`pai check` as a user runs it: one line per problem, exit codes 0 / 1 / 2, no tracebacks."""

from __future__ import annotations

import os

import pytest

from .helpers.cli import pai_lang
from .helpers.configs import VALID
from .helpers.paths import own_configs

pytestmark = pytest.mark.subprocess  # `pai check` as a user runs it


def test_clean_files_exit_zero():
    configs = [str(p) for p in own_configs() if not p.name.endswith(".scm.pai.json")]
    result = pai_lang("check", *configs)
    assert result.returncode == 0, result.stdout
    # Only the comment warnings of jsonc-comments.pai.json are printed.
    assert result.stdout.count("\n") == 3 and "jsonc-comments.pai.json:2:3: warning syntax.comment" in result.stdout


def test_errors_print_one_line_each_and_exit_one(tmp_path):
    job = tmp_path / "job.pai.json"
    job.write_text(VALID.replace('"mnist"', '"alice~mnist"').replace('"memoryMB"', '"memoryMb"'))
    result = pai_lang("check", str(job))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines == [
        f"{job}:2:14: error schema.pattern \"alice~mnist\" is not a valid jobName: it may contain only letters, digits, '-', '.' "
        "and '_'; '~' is reserved as the user~job separator on OpenPAI ≥ 0.12 (older docs allowed it).",
        f'{job}:8:7: error schema.unknown-key Unknown key "memoryMb": the server rejects unknown keys. Did you mean "memoryMB"?',
    ]
    assert result.stderr == ""


def test_messages_in_chinese_from_lang(tmp_path):
    job = tmp_path / "job.pai.json"
    job.write_text('{"jobName": "x", "image": "y"}')
    result = pai_lang("check", str(job), lang="zh_CN.UTF-8")
    assert result.returncode == 1
    assert result.stdout == f'{job}:1:1: error schema.required 缺少必填字段 "taskRoles"。\n'


def test_unreadable_files_exit_two_without_traceback(tmp_path):
    good = tmp_path / "good.pai.json"
    good.write_text(VALID)
    binary = tmp_path / "bin.pai.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    result = pai_lang("check", str(tmp_path / "missing.pai.json"), str(tmp_path), str(binary), str(good))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"{tmp_path / 'missing.pai.json'}: cannot read: no such file",
        f"{tmp_path}: cannot read: is a directory",
        f"{binary}: cannot read: not UTF-8 text",
    ]
    assert "Traceback" not in result.stderr
    chinese = pai_lang("check", str(tmp_path / "missing.pai.json"), str(binary), lang="zh_CN.UTF-8")
    assert chinese.returncode == 2 and chinese.stderr.splitlines() == [
        f"{tmp_path / 'missing.pai.json'}：无法读取：没有这个文件",
        f"{binary}：无法读取：不是 UTF-8 文本",
    ]


def test_malformed_json_is_reported_not_crashed(tmp_path):
    job = tmp_path / "job.pai.json"
    job.write_text('{"jobName": "x",, "image": tru')
    result = pai_lang("check", str(job))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert ":1:17: error syntax.expected-property" in result.stdout


def test_workspace_settings_choose_the_dialect(tmp_path):
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text('{"pai.cluster.kind": "scm"}')
    job = tmp_path / "job.pai.json"
    job.write_text(VALID.replace('"taskNumber": 2,', '"taskNumber": 2, "storageGB": 5,'))
    assert pai_lang("check", str(job)).returncode == 0
    assert pai_lang("check", "--cluster-kind", "openpai", str(job)).returncode == 1


def test_files_that_never_end_or_are_too_large_are_refused(tmp_path):

    fifo = tmp_path / "pipe.pai.json"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.pai.json"
    with huge.open("wb") as f:
        f.truncate(65 * 1024 * 1024)  # sparse: costs no disk
    result = pai_lang("check", "/dev/zero", str(fifo), str(huge))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "/dev/zero: cannot read: not a regular file",
        f"{fifo}: cannot read: not a regular file",
        f"{huge}: cannot read: larger than 64 MB: not a job config",
    ]
