"""The main job through `pai`, as a user runs it: the embedded local cluster started on demand,
code uploaded by globs, logs streamed, outputs downloaded; and every failure one line."""

from __future__ import annotations

import getpass
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from .helpers.cli import command_job, complete, isolated_env, local_client_password, on_a_terminal, pai, remote_files, stop_all, workspace
from .helpers.sshd import key_pair, needs_sshd
from .helpers.standin import StandIn

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster


def test_run_follow_status_jobs_outputs(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    before = (ws / "mnist.pai.json").read_bytes()
    result = pai(env, "run", "mnist.pai.json", "--follow", cwd=ws)
    assert result.returncode == 0, result.stderr
    job = result.stdout.splitlines()[0].split()[1]
    assert job.startswith("mnist_") and len(job) == len("mnist_") + 8
    assert [line for line in result.stdout.splitlines() if line.startswith("epoch")] == [
        "epoch 1/3 loss=1.3800", "epoch 2/3 loss=0.8280", "epoch 3/3 loss=0.4968"]
    assert f"{job}: SUCCEEDED" in result.stderr
    assert (ws / "mnist.pai.json").read_bytes() == before  # the config on disk is never changed
    table = pai(env, "jobs").stdout.splitlines()
    assert table[0].split() == ["NAME", "STATE", "STARTED", "DURATION", "CLUSTER"]
    assert any(line.split()[:2] == [job, "SUCCEEDED"] and line.split()[-1] == "local" for line in table[1:])
    status = pai(env, "status", job)
    assert status.stdout.splitlines()[0] == f"{job}: SUCCEEDED"
    out = pai(env, "outputs", job, str(tmp_path / "out"))
    assert out.returncode == 0 and (tmp_path / "out" / job / "result.txt").read_text() == "final loss 0.4968\n"
    # Fetched again: nothing is replaced without -f; a file is no folder to fetch into.
    again = pai(env, "outputs", job, str(tmp_path / "out"))
    assert (again.returncode, again.stderr) == (1, f"pai outputs: {tmp_path / 'out' / job} exists already (-f replaces it)\n")
    assert pai(env, "outputs", job, str(tmp_path / "out"), "-f").returncode == 0
    into_file = pai(env, "outputs", job, str(ws / "mnist.pai.json"))
    assert (into_file.returncode, into_file.stderr) == (
        1, f"pai outputs: {ws / 'mnist.pai.json'} is a file, not a folder to download the outputs of {job} into\n")
    # -o json: the daemon's results as they are; a watch of an ended job shows it once and returns.
    listed = json.loads(pai(env, "jobs", "-o", "json").stdout)
    assert listed["cluster"] == "local" and any(j["name"] == job and j["state"] == "SUCCEEDED" for j in listed["jobs"])
    shown = json.loads(pai(env, "status", job, "--json").stdout)
    assert shown["name"] == job and shown["state"] == "SUCCEEDED" and shown["tasks"][0]["role"] == "train"
    watched = pai(env, "status", job, "--watch")
    assert watched.returncode == 0 and watched.stdout.splitlines()[0] == f"{job}: SUCCEEDED"
    # States in colour on a terminal only; and bash completes the job's name and its HDFS paths.
    assert "\x1b[" not in pai(env, "jobs").stdout
    assert "\x1b[32mSUCCEEDED" in on_a_terminal(env, "jobs") and "\x1b[32mSUCCEEDED" in on_a_terminal(env, "status", job)
    assert job in complete(env, "pai status mnist_") and complete(env, f"pai logs {job} --task ") == ["train:0"]
    user = os.environ.get("USER") or __import__("getpass").getuser()
    assert complete(env, f"pai hdfs ls /{user}/{job[:-2]}") == [f"/{user}/{job}/"]  # a folder: Tab goes on into it
    assert complete(env, f"pai hdfs ls /{user}/{job}/tr") == [f"/{user}/{job}/train.py"]


def test_upload_follows_globs_and_resubmit_sends_only_changes(env, tmp_path):
    settings = {"pai.job.upload.include": ["**/*.py", "lib/**/*.{sh,cfg}"], "pai.job.upload.exclude": ["**/test_*"],
                "pai.job.generateJobName.enabled": True}
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/code/globs", settings)
    (ws / "lib" / "deep").mkdir(parents=True)
    (ws / "lib" / "deep" / "run.sh").write_text("echo\n")
    (ws / "lib" / "a.cfg").write_text("x=1\n")
    (ws / "lib" / "notes.txt").write_text("not uploaded\n")
    (ws / "test_train.py").write_text("excluded\n")
    first = pai(env, "run", "mnist.pai.json", cwd=ws)
    assert first.returncode == 0, first.stderr
    assert "uploaded 3 files," in first.stderr and "(3 new or changed, 0 unchanged kept)" in first.stderr
    user = os.environ.get("USER") or __import__("getpass").getuser()
    assert remote_files(env, f"/{user}/code/globs") == {"train.py", "lib/deep/run.sh", "lib/a.cfg", ".pai-manifest.json"}
    again = pai(env, "run", "mnist.pai.json", cwd=ws)
    assert f"code at /{user}/code/globs is up to date (3 files unchanged)" in again.stderr
    (ws / "lib" / "a.cfg").write_text("x=2\n")
    (ws / "lib" / "deep" / "run.sh").unlink()
    third = pai(env, "run", "mnist.pai.json", cwd=ws)
    # Only the changed file is sent; it is switched into the kept tree, and the removed one taken out.
    assert "uploaded 1 file," in third.stderr and "(1 new or changed, 1 unchanged kept, 1 removed)" in third.stderr
    assert remote_files(env, f"/{user}/code/globs") == {"train.py", "lib/a.cfg", ".pai-manifest.json"}


def test_invalid_config_is_refused_with_one_line(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    (ws / "bad.pai.json").write_text('{"jobName": "a~b", "image": "x", "taskRoles": [{"name": "w", "command": "c"}]}')
    result = pai(env, "run", "bad.pai.json", cwd=ws)
    assert result.returncode == 1
    assert result.stderr.startswith("pai run: bad.pai.json:1:13: ") and result.stderr.count("\n") == 1
    missing = pai(env, "run", "nope.pai.json", cwd=ws)
    assert (missing.returncode, missing.stderr) == (1, "pai run: nope.pai.json: no such file\n")


def test_name_taken_without_generated_names(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", {"pai.job.generateJobName.enabled": False})
    config = json.loads((ws / "mnist.pai.json").read_text())
    config["jobName"] = "fixed_name"
    (ws / "mnist.pai.json").write_text(json.dumps(config))
    assert pai(env, "run", "mnist.pai.json", cwd=ws).returncode == 0
    again = pai(env, "run", "mnist.pai.json", cwd=ws)
    assert again.returncode == 1 and "a job named fixed_name already exists on local" in again.stderr


def test_remote_profile_login_and_expired_token_renewal(env, tmp_path):
    pai(env, "jobs")  # make sure the local cluster runs
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    user = __import__("getpass").getuser()
    lab = ("cluster", "add", "lab", "--rest", info["url"], "--webhdfs", info["hdfs"], "--user", user)
    # A refused password at `add`: one line, and nothing is added (nor kept in the keyring).
    refused = pai(env, *lab, "--password-stdin", stdin="not-the-password\n")
    assert refused.returncode == 4 and refused.stderr.startswith("pai cluster: cluster lab was not added: login to"), refused.stderr
    assert "Password is incorrect." in refused.stderr and refused.stderr.count("\n") == 1
    assert " lab " not in pai(env, "cluster", "list").stdout
    secrets = Path(env["XDG_CONFIG_HOME"]) / "pai-lsp" / "secrets.json"
    assert not secrets.exists() or "not-the-password" not in secrets.read_text()
    # Without a password: added, and it says how to log in.
    added = pai(env, *lab)
    assert added.returncode == 0 and added.stdout.splitlines()[0].endswith("not logged in: log in with `pai cluster login lab`")
    wrong = pai(env, "cluster", "login", "lab", "--password-stdin", stdin="not-the-password\n")
    assert wrong.returncode == 4 and "login to" in wrong.stderr and "Password is incorrect." in wrong.stderr
    password = local_client_password(env)
    assert pai(env, "cluster", "login", "lab", "--password-stdin", stdin=password + "\n").returncode == 0
    assert oct(secrets.stat().st_mode & 0o777) == "0o600"
    stored = json.loads(secrets.read_text())
    stored[f"lab:{user}:token"] = "expired.token.value"
    secrets.write_text(json.dumps(stored))
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    submitted = pai(env, "submit", "--cluster", "lab", "mnist.pai.json", cwd=ws)  # submitting needs the token
    assert submitted.returncode == 0, submitted.stderr
    assert submitted.stdout.startswith("submitted mnist_") and submitted.stdout.rstrip().endswith("to lab")
    assert json.loads(secrets.read_text())[f"lab:{user}:token"] != "expired.token.value"  # renewed, not asked
    listed = pai(env, "cluster", "list").stdout
    assert "lab" in listed and "local" in listed
    assert pai(env, "cluster", "remove", "lab").returncode == 0


def test_unreachable_cluster_is_one_line(env):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pai(env, "cluster", "add", "gone", "--rest", f"http://127.0.0.1:{port}", "--webhdfs", f"http://127.0.0.1:{port}", "--user", "u")
    pai(env, "cluster", "login", "gone", "--password-stdin", stdin="whatever\n")
    result = pai(env, "jobs", "--cluster", "gone")
    assert result.returncode == 5
    assert result.stderr == f"pai jobs: cannot reach the cluster at http://127.0.0.1:{port}: connection refused or no route\n"
    pai(env, "cluster", "remove", "gone")


def test_client_side_errors_are_said_in_the_terminals_language(env):
    """A cluster that does not answer and a profile that does not exist, said in Chinese to a Chinese
    terminal (LANG): the HTTP failure travels from the daemon as a catalogue code, the address in it."""
    import socket

    chinese = {**env, "LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pai(env, "cluster", "add", "gone", "--rest", f"http://127.0.0.1:{port}", "--webhdfs", f"http://127.0.0.1:{port}", "--user", "u")
    pai(env, "cluster", "login", "gone", "--password-stdin", stdin="whatever\n")
    try:
        result = pai(chinese, "jobs", "--cluster", "gone")
        assert result.returncode == 5
        assert result.stderr == f"pai jobs: 无法连接位于 http://127.0.0.1:{port} 的集群：连接被拒绝或没有路由\n"
    finally:
        pai(env, "cluster", "remove", "gone")
    missing = pai(chinese, "cluster", "remove", "gone")
    assert missing.returncode == 2 and missing.stderr == "pai cluster: 没有名为 'gone' 的集群：请查看 `pai cluster list`\n"
    english = pai({**env, "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "cluster", "remove", "gone")
    assert english.stderr == "pai cluster: no cluster named 'gone': see `pai cluster list`\n"


def test_server_errors_are_one_line(env):
    def respond(method, path, body):
        if method == "POST":
            return 200, {}, {"token": "t"}
        return 502, {}, b"<html>Bad Gateway</html>"

    with StandIn(respond) as server:
        pai(env, "cluster", "add", "broken", "--rest", server.url, "--webhdfs", server.url, "--user", "u")
        pai(env, "cluster", "login", "broken", "--password-stdin", stdin="pw\n")
        result = pai(env, "jobs", "--cluster", "broken")
        pai(env, "cluster", "remove", "broken")
    assert result.returncode == 6
    assert result.stderr == "pai jobs: the cluster answered 502: <html>Bad Gateway</html>\n"


def test_daemon_killed_mid_follow_loses_and_repeats_nothing(env, tmp_path):
    import signal
    import time

    # Each line ends with a byte that is not UTF-8: offsets count bytes written, not text, so none drift.
    ws = command_job(tmp_path, "count.pai.json", r'for i in $(seq 1 120); do printf "line %s ünïcödé \377\n" $i; sleep 0.05; done')
    job = pai(env, "run", "count.pai.json", cwd=ws).stdout.split()[1]
    follower = subprocess.Popen([sys.executable, "-m", "pai_lsp", "logs", "-f", job], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    time.sleep(1.2)
    status = pai(env, "daemon", "status").stdout
    pid = int(status.split("pid ")[1].split(",")[0])
    os.kill(pid, signal.SIGKILL)  # the daemon dies while it streams
    out, err = follower.communicate(timeout=60)
    assert follower.returncode == 0, err
    assert out.splitlines() == [f"line {i} ünïcödé ".encode() + b"\xff" for i in range(1, 121)]  # byte for byte
    again = pai(env, "daemon", "status").stdout
    assert again.startswith("the pai daemon runs") and f"pid {pid}," not in again


def test_daemon_status_and_stop(env):
    assert pai(env, "daemon", "status").returncode in (0, 1)
    pai(env, "jobs")
    assert pai(env, "daemon", "status").stdout.startswith("the pai daemon runs (pid ")
    assert pai(env, "daemon", "stop").stdout == "stopped the pai daemon\n"
    import time

    time.sleep(0.3)
    assert pai(env, "daemon", "status").stdout == "the pai daemon is not running\n"
    assert pai(env, "jobs").returncode == 0  # started again on demand


def test_ssh_shows_how_to_reach_running_tasks(env, tmp_path):
    ws = command_job(tmp_path, "svc.pai.json", "sleep 30", portList=[{"label": "jupyter", "beginAt": 0, "portNumber": 1}])
    job = pai(env, "run", "svc.pai.json", cwd=ws).stdout.split()[1]
    import time

    for _ in range(100):
        info = pai(env, "ssh", job)
        if info.returncode == 0:
            break
        time.sleep(0.1)
    lines = info.stdout.splitlines()
    # The local cluster's tasks log in as its user (a real cluster's as root).
    assert lines[0].startswith("train:0  ssh -p ") and lines[0].endswith(f" {getpass.getuser()}@127.0.0.1")
    assert any(line.strip().startswith("jupyter: http://127.0.0.1:") for line in lines)
    assert pai(env, "stop", job).stdout == f"stopped {job} (it was RUNNING)\n"
    gone = pai(env, "ssh", job)
    assert gone.returncode == 3 and "no task of" in gone.stderr


SSH_JOB = """\
protocolVersion: 2
name: sshd_job
type: job
prerequisites:
  - {name: image, type: dockerimage, uri: "ubuntu:18.04"}
taskRoles:
  worker:
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}
    commands: [sleep 300]
extras:
  com.microsoft.pai.runtimeplugin:
    - {plugin: ssh, parameters: {userssh: {type: custom, value: "KEY"}}}
"""


def test_ssh_connect_logs_in_to_the_tasks_sshd_with_the_jobs_key(env, tmp_path):
    needs_sshd()
    key, public = key_pair(tmp_path / "keys")
    ws = tmp_path / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.enabled": False}))
    (ws / "sshd.pai.yaml").write_text(SSH_JOB.replace("KEY", public))
    job = pai(env, "run", "sshd.pai.yaml", cwd=ws).stdout.split()[1]
    me = getpass.getuser()
    # ssh reads the commands from its standard input (no terminal); its sshd starts beside the task's command.
    for _ in range(200):
        connect = pai(env, "ssh", job, "--connect", "-i", str(key),
                      stdin='echo "$PAI_CURRENT_TASK_ROLE_NAME:$PAI_TASK_INDEX $(id -un)"\n')
        if connect.returncode == 0:
            break
        time.sleep(0.1)
    assert connect.returncode == 0, connect.stderr
    lines = connect.stdout.splitlines()
    assert lines[0].startswith("worker:0  ssh -p ") and lines[0].endswith(f" {me}@127.0.0.1")
    assert lines[-1] == f"worker:0 {me}"
    assert connect.stderr == ""  # no host-key warning: a task's host key is never kept nor checked
    wrong_key, _ = key_pair(tmp_path / "keys", "other")
    refused = pai(env, "ssh", job, "--connect", "-i", str(wrong_key), stdin="true\n")
    assert refused.returncode == 255 and "Permission denied" in refused.stderr
    assert pai(env, "stop", job).returncode == 0


def test_watchers_resume_after_the_daemon_dies(env, tmp_path):
    import signal
    import time

    ws = command_job(tmp_path, "w.pai.json", "sleep 3")
    job = pai(env, "run", "w.pai.json", cwd=ws).stdout.split()[1]
    pid = int(pai(env, "daemon", "status").stdout.split("pid ")[1].split(",")[0])
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    assert "watching" in pai(env, "daemon", "status").stdout or pai(env, "jobs").returncode == 0  # started again
    watched = Path(env["XDG_STATE_HOME"]) / "pai-lsp" / "watched.json"
    for _ in range(150):
        entry = json.loads(watched.read_text()).get(f"local/{job}", {})
        if entry.get("state") == "SUCCEEDED":
            break
        time.sleep(0.1)
    assert entry.get("state") == "SUCCEEDED"  # the new daemon went on watching the job the old one took


def test_every_occurrence_of_job_and_user_name_is_filled_in():
    from pai_lsp.clusters.openpai import substitute

    config = {"codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME/$PAI_JOB_NAME",
              "outputDir": "${PAI_USER_NAME}/out/${PAI_JOB_NAME}", "dataDir": "$PAI_USER_NAMES_LIST",
              "taskRoles": [{"command": "cd $PAI_JOB_NAME && echo $PAI_JOB_NAME $PAI_USER_NAME $PAI_TASK_INDEX"}]}
    substitute(config, "mnist_1a2b3c4d", "alice")
    assert config["codeDir"] == "$PAI_DEFAULT_FS_URI/alice/mnist_1a2b3c4d/mnist_1a2b3c4d"
    assert config["outputDir"] == "alice/out/mnist_1a2b3c4d"
    assert config["dataDir"] == "$PAI_USER_NAMES_LIST"  # a longer name is left alone
    assert config["taskRoles"][0]["command"] == "cd mnist_1a2b3c4d && echo mnist_1a2b3c4d alice $PAI_TASK_INDEX"


def test_submit_to_a_protocol_v2_cluster_converts_the_config(env, tmp_path):
    """A Kubernetes-era cluster takes only v2 YAML: the same *.pai.json is converted on the way."""
    pai(env, "jobs")
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    user = __import__("getpass").getuser()
    added = pai(env, "cluster", "add", "k8s", "--rest", info["url"], "--webhdfs", info["hdfs"], "--user", user, "--protocol", "2")
    assert added.stdout.splitlines()[0] == "added cluster k8s (job protocol v2 as given); not logged in: log in with `pai cluster login k8s`"
    from .helpers.servers import free_port

    nowhere = f"http://127.0.0.1:{free_port()}"  # no server answers: its protocol is assumed, and said so
    away = pai({**env, "LC_ALL": "zh_CN.UTF-8"}, "cluster", "add", "away", "--rest", nowhere, "--webhdfs", nowhere, "--user", user)
    assert "job protocol v1" not in away.stdout and "；暂时无法连接，按 v1 处理" in away.stdout, away.stdout + away.stderr
    assert pai(env, "cluster", "remove", "away").returncode == 0
    password = local_client_password(env)
    assert pai(env, "cluster", "login", "k8s", "--password-stdin", stdin=password + "\n").returncode == 0
    ws = command_job(tmp_path, "v2.pai.json", 'echo "role $PAI_CURRENT_TASK_ROLE_NAME out $PAI_OUTPUT_DIR"', name="train.v1")
    result = pai(env, "submit", "--cluster", "k8s", "v2.pai.json", "--follow", cwd=ws)
    assert result.returncode == 0, result.stderr
    job = result.stdout.splitlines()[0].split()[1]
    assert result.stdout.splitlines()[1] == f"role train_v1 out hdfs://127.0.0.1:{info['hdfs'].rsplit(':', 1)[1]}/{user}/output/{job}"
    v2 = httpx.get(f"{info['url']}/api/v2/jobs/{user}~{job}/config",
                   headers={"Authorization": "Bearer " + httpx.post(f"{info['url']}/api/v1/token", json={
                       "username": user, "password": password}).json()["token"]})
    assert json.loads(v2.text)["protocolVersion"] == 2
    table = pai(env, "jobs", "--cluster", "k8s").stdout
    assert any(line.split()[:2] == [job, "SUCCEEDED"] for line in table.splitlines())
    pai(env, "cluster", "remove", "k8s")


def test_the_clusters_warnings_are_one_stderr_line_each(env, tmp_path):
    """An obsolete key and a job larger than the machine: the local cluster accepts the job with an
    `X-Warning` for each, and `pai run` / `pai submit` print each as one `warning: …` line."""
    ws = command_job(tmp_path, "big.pai.json", "echo ran", cpuNumber=4096)
    config = json.loads((ws / "big.pai.json").read_text())
    (ws / "big.pai.json").write_text(json.dumps({**config, "killAllOnCompletedTaskNumber": 1}))
    result = pai(env, "run", "big.pai.json", cwd=ws)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("submitted mnist_")
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2, result.stderr
    assert warnings[0].startswith("warning: Run scaled to this machine (pai local-cluster --strict-resources refuses "
                                  "instead): the job asks for 4096 CPUs, this machine has ")
    assert warnings[1] == ("warning: killAllOnCompletedTaskNumber has been obsoleted, please use minFailedTaskCount "
                           "and minSucceededTaskCount instead.")
    # The same through a profile on the v2 routes (which have no obsolete keys), and none for a job that fits.
    pai(env, "jobs")
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    user = __import__("getpass").getuser()
    pai(env, "cluster", "add", "k8s-warn", "--rest", info["url"], "--webhdfs", info["hdfs"], "--user", user, "--protocol", "2")
    assert pai(env, "cluster", "login", "k8s-warn", "--password-stdin", stdin=local_client_password(env) + "\n").returncode == 0
    try:
        (ws / "big.pai.json").write_text(json.dumps(config))
        v2 = pai(env, "submit", "--cluster", "k8s-warn", "big.pai.json", cwd=ws)
        assert v2.returncode == 0, v2.stderr
        assert [line for line in v2.stderr.splitlines() if line.startswith("warning: ")] == [warnings[0]]
        small = pai(env, "submit", "--cluster", "k8s-warn", "small.pai.json",
                    cwd=command_job(tmp_path / "small", "small.pai.json", "echo ran"))
        assert small.returncode == 0 and "warning" not in small.stderr, small.stderr
    finally:
        pai(env, "cluster", "remove", "k8s-warn")


def test_logs_of_a_task_the_job_lacks_names_the_tasks_it_has(env, tmp_path):
    """`pai logs --task main:9 JOB` once printed nothing and exited 0."""
    ws = command_job(tmp_path, "two.pai.json", 'echo "I am $PAI_CURRENT_TASK_ROLE_NAME $PAI_TASK_INDEX"', taskNumber=2)
    run = pai(env, "run", "two.pai.json", "--follow", cwd=ws)
    assert run.returncode == 0, run.stderr
    job = run.stdout.split()[1]
    for task, form in (("main:9", ""), ("nocolon", " (a task is ROLE:INDEX, e.g. worker:0)"),
                       (":1", ""), ("train:-1", " (a task is ROLE:INDEX, e.g. worker:0)")):
        for follow in ([], ["-f"]):
            wrong = pai(env, "logs", job, "--task", task, *follow)
            assert (wrong.returncode, wrong.stdout) == (3, ""), wrong.stderr
            assert wrong.stderr == f"pai logs: job {job} has no task {task}{form}: its tasks are train:0, train:1\n"
    assert pai(env, "logs", job, "--task", "train:1").stdout == "I am train 1\n"


def test_stop_of_an_ended_job_says_so(env, tmp_path):
    ws = command_job(tmp_path, "quick.pai.json", "true")
    job = pai(env, "run", "quick.pai.json", "--follow", cwd=ws).stdout.split()[1]
    ended = pai(env, "stop", job)
    assert (ended.returncode, ended.stdout, ended.stderr) == (1, "", f"pai stop: {job} has ended already (SUCCEEDED): nothing to stop\n")


def test_list_without_dry_run_submits_nothing(env, tmp_path):
    ws = command_job(tmp_path, "l.pai.json", "true")
    before = len(json.loads(pai(env, "jobs", "-o", "json").stdout)["jobs"])
    listed = pai(env, "run", "--list", "l.pai.json", cwd=ws)
    assert (listed.returncode, listed.stderr) == (
        1, "pai run: --list shows what --dry-run would upload: give both (nothing was submitted)\n")
    assert len(json.loads(pai(env, "jobs", "-o", "json").stdout)["jobs"]) == before


def test_a_dry_run_that_the_submit_would_refuse_exits_one(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", {"pai.job.upload.maxFiles": 3})
    for i in range(33):
        (ws / f"mod{i:02d}.py").write_text("x = 1\n" * (i + 1))
    dry = pai(env, "run", "--dry-run", "mnist.pai.json", cwd=ws)
    assert dry.returncode == 1 and "! over the limit: 34 files (limit 3, pai.job.upload.maxFiles)" in dry.stdout
    assert pai(env, "run", "--dry-run", "--force", "mnist.pai.json", cwd=ws).returncode == 0
    refused = pai(env, "run", "mnist.pai.json", cwd=ws)
    assert refused.returncode == 1 and ", … (+29 more). Nothing was sent" in refused.stderr, refused.stderr
    single = workspace(tmp_path / "one", "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME", {"pai.job.upload.maxBytes": 100})
    shown = pai(env, "run", "--dry-run", "mnist.pai.json", cwd=single)
    assert shown.returncode == 1 and "\nupload:   1 file, " in shown.stdout
    said = pai(env, "run", "mnist.pai.json", cwd=single).stderr
    assert "the upload is over the limit: " in said and "; largest: train.py (" in said and "(+" not in said


def test_a_paiignore_line_that_is_no_pattern_is_said_in_the_readers_language(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    (ws / ".paiignore").write_text("*.npy\n!\n")
    english = pai(env, "run", "--dry-run", "mnist.pai.json", cwd=ws)
    assert english.returncode == 1 and "! .paiignore:2: '!' is not a gitignore pattern (" in english.stdout, english.stdout
    chinese = {**env, "LC_ALL": "zh_CN.UTF-8"}
    shown = pai(chinese, "run", "--dry-run", "mnist.pai.json", cwd=ws)
    assert shown.returncode == 1 and "! .paiignore:2：'!' 不是 gitignore 模式（" in shown.stdout, shown.stdout
    refused = pai(chinese, "run", "mnist.pai.json", cwd=ws)
    assert refused.returncode == 1 and ".paiignore:2：'!' 不是 gitignore 模式（" in refused.stderr, refused.stderr


def test_names_go_into_urls_escaped_and_what_no_url_can_carry_is_refused(env):
    """`pai status ../../etc/passwd` once asked the cluster for /api/v1/user/etc/passwd."""
    asked = []

    def respond(method, path, body):
        asked.append(path)
        if method == "POST":
            return 200, {}, {"token": "t"}
        return 404, {}, {"code": "NoJobError", "message": "no such job"}

    with StandIn(respond) as server:
        pai(env, "cluster", "add", "esc", "--rest", server.url, "--webhdfs", server.url, "--user", "u")
        try:
            pai(env, "cluster", "login", "esc", "--password-stdin", stdin="pw\n")
            climbed = pai(env, "status", "../../etc/passwd", "--cluster", "esc")
            dots = pai(env, "stop", "..", "--cluster", "esc")
            raw = subprocess.run([sys.executable, "-m", "pai_lsp", "status", b"\xff-job", "--cluster", "esc"], env=env,
                                 capture_output=True, timeout=60)
        finally:
            pai(env, "cluster", "remove", "esc")
    assert (climbed.returncode, climbed.stderr) == (3, "pai status: the cluster answered 404 NoJobError: no such job\n")
    assert "/api/v1/user/u/jobs/..%2F..%2Fetc%2Fpasswd" in asked and not any("/etc/passwd" in p for p in asked)
    assert (dots.returncode, dots.stderr) == (1, "pai stop: '..' cannot be a job name: it would name another resource\n")
    assert raw.returncode == 1 and raw.stderr == b"pai status: b'\\xff-job' cannot be a job name: it is not UTF-8 text\n"


def test_cluster_add_says_when_it_makes_the_default_and_checks_what_it_is_given(env):
    def respond(method, path, body):
        return (200, {}, {"token": "t"}) if method == "POST" else (404, {}, {})

    with StandIn(respond) as server:
        where = ("--rest", server.url, "--webhdfs", server.url, "--user", "u", "--protocol", "1")
        try:
            first = pai(env, "cluster", "add", "first", *where)
            second = pai(env, "cluster", "add", "second", *where)
            chosen = pai(env, "cluster", "add", "third", *where, "--default")
        finally:
            for name in ("first", "second", "third"):
                pai(env, "cluster", "remove", name)
    said = ("{} is the default cluster now: jobs, submit and hdfs go there unless --cluster says "
            "(`pai cluster default local` goes back)")
    assert first.stdout.splitlines()[1:] == [said.format("first")]
    assert second.returncode == 0 and len(second.stdout.splitlines()) == 1
    assert chosen.stdout.splitlines()[1:] == [said.format("third")]
    assert json.loads(pai(env, "cluster", "list", "-o", "json").stdout)["default"] == "local"
    bad_name = pai(env, "cluster", "add", "bad name/ü", "--rest", "http://h:1", "--webhdfs", "http://h:1")
    assert (bad_name.returncode, bad_name.stderr) == (
        1, "pai cluster: 'bad name/ü' cannot name a cluster profile: use letters, digits, '.', '_' and '-'\n")
    bad_port = pai(env, "cluster", "add", "p", "--rest", "http://h::1", "--webhdfs", "http://h:1")
    assert bad_port.returncode == 1 and bad_port.stderr.startswith("pai cluster: --rest http://h::1: not a URL (")
    assert "InvalidURL" not in bad_port.stderr
    local = pai(env, "cluster", "remove", "local")
    assert (local.returncode, local.stderr) == (1, "pai cluster: local is the embedded local cluster, which is always there: it "
                                                   "cannot be removed (`pai cluster stop-local` stops it)\n")


def test_a_daemon_started_with_other_secret_settings_is_restarted(tmp_path):
    """`PAI_LSP_SECRETS=file` was ignored by a daemon already running: `cluster add` kept failing."""
    def respond(method, path, body):
        return (200, {}, {"token": "t"}) if method == "POST" else (404, {}, {})

    keyless = dict(isolated_env(tmp_path), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    keyless.pop("PAI_LSP_SECRETS")
    filed = dict(keyless, PAI_LSP_SECRETS="file")
    with StandIn(respond) as server:
        add = ("cluster", "add", "p", "--rest", server.url, "--webhdfs", server.url, "--user", "u", "--protocol", "1",
               "--password-stdin")
        try:
            refused = pai(keyless, *add, stdin="pw\n")
            assert refused.returncode == 2 and "set PAI_LSP_SECRETS=file" in refused.stderr, refused.stderr
            added = pai(filed, *add, stdin="pw\n")
        finally:
            stop_all(filed)
    assert added.returncode == 0, added.stderr
    assert added.stderr == "pai: restarting the pai daemon, which runs with other settings: PAI_LSP_SECRETS (unset → file)\n"
    assert json.loads((tmp_path / "config" / "pai-lsp" / "secrets.json").read_text())["p:u:password"] == "pw"


def test_ctrl_c_during_a_submit_says_what_it_cancelled(env, tmp_path):
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
                   {"pai.job.upload.include": ["**/*.py", "data/**"], "pai.job.upload.maxBytes": 1 << 30})
    (ws / "data").mkdir()
    for i in range(400):
        (ws / "data" / f"part{i:03d}.bin").write_bytes(os.urandom(256 * 1024))
    before = len(json.loads(pai(env, "jobs", "-o", "json").stdout)["jobs"])
    run = subprocess.Popen([sys.executable, "-m", "pai_lsp", "run", "mnist.pai.json"], env=env, cwd=ws, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    staging = Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "hdfs-staging"
    deadline = time.monotonic() + 60
    while not (staging.is_dir() and any(staging.iterdir())):
        assert time.monotonic() < deadline and run.poll() is None, "the upload did not start"
        time.sleep(0.01)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130 and out == "", err
    assert err.startswith("pai run: cancelled: nothing was submitted: upload to /") and err.count("\n") == 1, err
    assert "files not sent; nothing was changed at" in err
    time.sleep(1)
    assert len(json.loads(pai(env, "jobs", "-o", "json").stdout)["jobs"]) == before


def test_jobs_watch_prints_each_change_until_ctrl_c(env, tmp_path):
    ws = command_job(tmp_path, "nap.pai.json", "sleep 3")
    job = pai(env, "run", "nap.pai.json", cwd=ws).stdout.split()[1]
    watch = subprocess.Popen([sys.executable, "-m", "pai_lsp", "jobs", "--watch"], env=env, text=True, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    seen: list[str] = []
    deadline = time.monotonic() + 60
    while not any(line.split()[:2] == [job, "SUCCEEDED"] for line in seen):
        assert time.monotonic() < deadline, seen
        seen.append(watch.stdout.readline())
    watch.send_signal(signal.SIGINT)
    rest, err = watch.communicate(timeout=30)
    assert (watch.returncode, err) == (0, "")  # a watch ends with Ctrl-C: that is no failure
    states = [line.split()[1] for line in seen if line.startswith(job)]
    assert states[0] in ("WAITING", "RUNNING") and states[-1] == "SUCCEEDED"  # printed again when it changed (piped: below)
    assert sum(line.startswith("NAME ") for line in seen) >= 2

