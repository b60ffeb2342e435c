"""The daemon and `pai` under hostile and unlucky input (issue 9): profiles changed or broken under
a running daemon, requests that are not JSON-RPC, huge lines, bytes that are not UTF-8, a daemon
killed mid-command, a local cluster stopped in between."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import StandIn
from .test_cli_jobs import env, pai  # noqa: F401  (the module-scoped environment fixture)


def fake_cluster(job: str):
    """A REST server and namenode whose only job and only file are named `job`."""

    def respond(method: str, path: str, body: bytes):
        if method == "POST" and path.startswith("/api/v1/token"):
            return 200, {}, {"token": f"token-of-{job}"}
        if path.startswith("/api/v1/user/u/jobs"):
            return 200, {}, [{"name": job, "state": "RUNNING", "createdTime": 1}]
        if "op=GETFILESTATUS" in path:
            return 200, {}, {"FileStatus": file_status("", "DIRECTORY")}
        if "op=LISTSTATUS" in path:
            return 200, {}, {"FileStatuses": {"FileStatus": [file_status(job, "FILE")]}}
        return 404, {}, {"code": "NotFound", "message": path}

    return respond


def file_status(name: str, kind: str) -> dict:
    return {"pathSuffix": name, "type": kind, "length": 0, "modificationTime": 0, "permission": "644",
            "owner": "u", "group": "g", "accessTime": 0, "blockSize": 0, "replication": 1}


def add_profile(env: dict, name: str, url: str) -> None:  # noqa: F811
    assert pai(env, "cluster", "add", name, "--rest", url, "--webhdfs", url, "--user", "u").returncode == 0
    assert pai(env, "cluster", "login", name, "--password-stdin", stdin="pw\n").returncode == 0


def test_a_running_daemon_follows_cluster_add_and_remove(env):  # noqa: F811
    with StandIn(fake_cluster("job-on-a")) as a, StandIn(fake_cluster("job-on-b")) as b:
        add_profile(env, "lab", a.url)
        try:
            assert "job-on-a" in pai(env, "jobs", "--cluster", "lab").stdout  # the daemon now keeps a session to a
            assert pai(env, "cluster", "remove", "lab").returncode == 0
            add_profile(env, "lab", b.url)
            jobs = pai(env, "jobs", "--cluster", "lab")
            assert "job-on-b" in jobs.stdout and "job-on-a" not in jobs.stdout, jobs.stderr
            listing = pai(env, "hdfs", "--cluster", "lab", "ls", "/")
            assert listing.stdout.split()[-1] == "job-on-b", listing.stderr
        finally:
            pai(env, "cluster", "remove", "lab")


BROKEN = {
    "garbage": (b"{clusters: nope", "is not valid JSON"),
    "a list": (b"[]", "[] is not of type 'object'"),
    "wrong types": (b'{"default": 3, "clusters": {}}', "at default: 3 is not of type 'string', 'null'"),
    "missing fields": (b'{"clusters": {"lab": {"user": "u"}}}', "at clusters/lab: 'rest_uri' is a required property"),
    "empty": (b"", "is empty"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\xff\xfe", "is not UTF-8 text"),
    "a folder": (None, "is a folder, not a file"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_profiles_file_is_one_line_and_never_overwritten(env, case):  # noqa: F811
    content, problem = BROKEN[case]
    path = Path(env["XDG_CONFIG_HOME"]) / "pai-lsp" / "clusters.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    try:
        for args in (["jobs"], ["cluster", "list"], ["cluster", "add", "x", "--rest", "http://h", "--webhdfs", "http://h"],
                     ["hdfs", "ls"]):
            result = pai(env, *args)
            assert result.returncode == 2, (args, result.stderr)
            assert result.stderr.startswith(f"pai {args[0]}: {path}") and result.stderr.count("\n") == 1, result.stderr
            assert problem in result.stderr and "Traceback" not in result.stderr
            assert path.is_dir() if content is None else path.read_bytes() == content
        assert pai(env, "jobs", "--cluster", "local").returncode == 0  # the local cluster needs no profiles
    finally:
        path.rmdir() if content is None else path.unlink()


def test_jobs_right_after_stop_local_starts_it_again(env, tmp_path):  # noqa: F811
    from .test_cli_jobs import command_job

    # A task that takes a while to stop keeps the old cluster (and its data folder) busy after STOP.
    ws = command_job(tmp_path, "slow.pai.json", "trap 'sleep 2' TERM INT; sleep 60 & wait; sleep 1")
    assert pai(env, "run", "slow.pai.json", cwd=ws).returncode == 0
    assert pai(env, "cluster", "stop-local").stdout == "stopped the local cluster\n"
    jobs = pai(env, "jobs")
    assert jobs.returncode == 0, jobs.stderr
    assert json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())["url"]


def test_callers_starting_at_once_share_one_daemon_and_one_local_cluster(tmp_path):
    """An editor loading its views sends several first requests at once."""
    import os
    import subprocess
    import sys

    import psutil

    fresh = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_STATE_HOME=str(tmp_path / "state"),
                 PAI_LOCAL_CLUSTER_DIR=str(tmp_path / "local"), PAI_LSP_SECRETS="file", LANG="C.UTF-8")
    callers = [subprocess.Popen([sys.executable, "-m", "pai_lsp", "jobs"], env=fresh, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for _ in range(6)]
    try:
        for caller in callers:
            out, err = caller.communicate(timeout=120)
            assert caller.returncode == 0, err

        def ours(*words: str) -> int:
            count = 0
            for process in psutil.process_iter(["cmdline"]):
                line = " ".join(process.info["cmdline"] or [])
                if all(w in line for w in words):
                    try:
                        count += process.environ().get("XDG_STATE_HOME") == fresh["XDG_STATE_HOME"]
                    except psutil.Error:
                        pass
            return count

        assert ours("pai_lsp", "daemon", "serve") == 1
        assert ours("pai_lsp", "local-cluster", fresh["PAI_LOCAL_CLUSTER_DIR"]) == 1
    finally:
        for command in (["daemon", "stop"], ["cluster", "stop-local"]):
            subprocess.run([sys.executable, "-m", "pai_lsp", *command], env=fresh, capture_output=True, timeout=60)


def test_hdfs_takes_the_cluster_before_or_after_the_operation(env):  # noqa: F811
    with StandIn(fake_cluster("file-on-lab")) as lab, StandIn(fake_cluster("file-on-other")) as other:
        add_profile(env, "other", other.url)  # the default one
        add_profile(env, "lab", lab.url)
        try:
            for args in (["hdfs", "ls", "/", "--cluster", "lab"], ["hdfs", "--cluster", "lab", "ls", "/"],
                         ["hdfs", "ls", "--cluster", "lab"]):
                listing = pai(env, *args)
                assert listing.returncode == 0, (args, listing.stderr)
                assert listing.stdout.split()[-1] == "file-on-lab"
            assert pai(env, "hdfs", "ls", "/").stdout.split()[-1] == "file-on-other"
        finally:
            pai(env, "cluster", "remove", "lab")
            pai(env, "cluster", "remove", "other")


def test_a_failed_job_shows_the_users_exit_code_first(env, tmp_path):  # noqa: F811
    from .test_cli_jobs import command_job

    ws = command_job(tmp_path, "fail.pai.json", "echo trying; exit 3")
    result = pai(env, "run", "fail.pai.json", "--follow", cwd=ws)
    job = result.stdout.split()[1]
    assert result.returncode == 1
    end = f"{job}: FAILED (exit code 3; cluster code 255: the user command exited with a non-zero code)"
    assert result.stderr.splitlines()[-1] == end
    assert pai(env, "status", job).stdout.splitlines()[0] == end
