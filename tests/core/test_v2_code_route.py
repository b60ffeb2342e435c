"""What a v2 job is given to reach code uploaded to a storage (`JobFormat.mount_code`), and which jobs
need it (`service.code_route.runs_workspace_files`): pure, in-process."""

from __future__ import annotations

import copy

import pytest

from pai_lsp.core.formats import of_job
from pai_lsp.service.code_route import runs_workspace_files

JOB = {"protocolVersion": 2, "name": "j", "type": "job",
       "taskRoles": {"main": {"commands": ["python3 train.py"]}, "worker": {"commands": ["echo hi", "python3 w.py"]}}}


def mounted(extras: dict | None) -> tuple[dict, str | None]:
    job = copy.deepcopy(JOB)
    if extras is not None:
        job["extras"] = extras
    return job, of_job(job).mount_code(job, "team", "alice~j_1")


def test_no_storages_listed_mounts_the_one_with_the_code():
    job, where = mounted(None)
    assert where == "/mnt/team/alice~j_1"
    assert job["extras"]["storages"] == [{"name": "team"}]
    assert job["taskRoles"]["main"]["commands"] == ["cd /mnt/team/alice~j_1", "python3 train.py"]
    assert job["taskRoles"]["worker"]["commands"] == ["cd /mnt/team/alice~j_1", "echo hi", "python3 w.py"]


@pytest.mark.parametrize(("listed", "after", "where"), [
    ([], [], "/mnt/team/alice~j_1"),  # the defaults, which the code's storage is one of
    ([{"name": "data"}], [{"name": "data"}, {"name": "team"}], "/mnt/team/alice~j_1"),
    ([{"name": "team", "mountPath": "/code"}], [{"name": "team", "mountPath": "/code"}], "/code/alice~j_1"),
])
def test_a_listed_storage_is_kept_and_its_mount_path_used(listed, after, where):
    job, said = mounted({"storages": listed})
    assert (job["extras"]["storages"], said) == (after, where)
    assert job["taskRoles"]["main"]["commands"][0] == f"cd {where}"


def test_a_path_the_shell_would_split_is_quoted():
    job = copy.deepcopy(JOB)
    assert of_job(job).mount_code(job, "team", "al ice~j") == "/mnt/team/al ice~j"
    assert job["taskRoles"]["main"]["commands"][0] == "cd '/mnt/team/al ice~j'"


def test_only_jobs_that_run_workspace_files_need_a_route(tmp_path):
    (tmp_path / "train.py").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "run.sh").write_text("")
    assert runs_workspace_files(["python3 train.py"], tmp_path)
    assert runs_workspace_files(["bash pkg/run.sh --fast"], tmp_path)
    assert runs_workspace_files(["echo train.py"], tmp_path)  # naming a file counts (the upload and the cd harm nothing)
    assert not runs_workspace_files(["python3 /abs/train.py", "python3 $PAI_JOB_NAME/train.py", "ls pkg"], tmp_path)
    assert not runs_workspace_files(["python3 'unclosed"], tmp_path)
