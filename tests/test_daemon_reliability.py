"""The daemon and `pai` under hostile and unlucky input: profiles changed or broken under
a running daemon, requests that are not JSON-RPC, huge lines, bytes that are not UTF-8, a daemon
killed mid-command, a local cluster stopped in between."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pai_lsp.storage.upload import PATCH_MOVES

from .helpers.cli import command_job, pai
from .helpers.standin import StandIn

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster


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


def add_profile(env: dict, name: str, url: str) -> None:
    assert pai(env, "cluster", "add", name, "--rest", url, "--webhdfs", url, "--user", "u").returncode == 0
    assert pai(env, "cluster", "login", name, "--password-stdin", stdin="pw\n").returncode == 0


def test_a_running_daemon_follows_cluster_add_and_remove(env):
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
def test_a_broken_profiles_file_is_one_line_and_never_overwritten(env, case):
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


def test_jobs_right_after_stop_local_starts_it_again(env, tmp_path):
    # A task that takes a while to stop keeps the old cluster (and its data folder) busy after STOP.
    ws = command_job(tmp_path, "slow.pai.json", "trap 'sleep 2' TERM INT; sleep 60 & wait; sleep 1")
    assert pai(env, "run", "slow.pai.json", cwd=ws).returncode == 0
    assert pai(env, "cluster", "stop-local").stdout == "stopped the local cluster\n"
    jobs = pai(env, "jobs")
    assert jobs.returncode == 0, jobs.stderr
    assert json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())["url"]


def test_hdfs_takes_the_cluster_before_or_after_the_operation(env):
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


def test_a_failed_job_shows_the_users_exit_code_first(env, tmp_path):
    ws = command_job(tmp_path, "fail.pai.json", "echo trying; exit 3")
    result = pai(env, "run", "fail.pai.json", "--follow", cwd=ws)
    job = result.stdout.split()[1]
    assert result.returncode == 1
    end = f"{job}: FAILED (exit code 3; cluster code 255: the user command exited with a non-zero code)"
    assert result.stderr.splitlines()[-2] == end
    assert result.stderr.splitlines()[-1].startswith("why: Exited with code 3: ")  # and why, in one line
    assert pai(env, "status", job).stdout.splitlines()[0] == end


def test_bytes_that_are_not_utf8_arrive_exactly_even_split_across_reads(env, tmp_path):
    """Offsets count the bytes the task wrote; a character cut between two reads waits for its end,
    and bytes that are no character at all are passed on as they are."""
    writes = [b"\xe4\xb8", b"\xad\xe6\x96\x87 split\n", b"bad \xff\xfe end\n", b"\xe2\x82", b"A truncated\n", b"last \xf0\x9f\x98"]
    script = "; sleep 0.4; ".join("printf '" + "".join(f"\\{b:03o}" for b in w) + "'" for w in writes)
    ws = command_job(tmp_path, "bytes.pai.json", script)
    live = subprocess.run([sys.executable, "-m", "pai_lsp", "run", "bytes.pai.json", "--follow"], env=env, cwd=ws,
                          capture_output=True, timeout=120)
    assert live.returncode == 0, live.stderr
    job = live.stdout.split(b"\n", 1)[0].split()[1].decode()
    assert live.stdout.split(b"\n", 1)[1] == b"".join(writes)
    after = subprocess.run([sys.executable, "-m", "pai_lsp", "logs", job], env=env, capture_output=True, timeout=60)
    assert after.stdout == b"".join(writes)


def daemon_pid(env: dict) -> int:
    return int(pai(env, "daemon", "status").stdout.split("pid ")[1].split(",")[0])


def hdfs_files(env: dict, path: str) -> dict[str, bytes]:
    """Every file under `path` on the local cluster's HDFS, with its content (read 8 at a time)."""
    import getpass
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    hdfs = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())["hdfs"] + "/webhdfs/v1"
    user = {"user.name": getpass.getuser()}
    files, stack = [], [path]
    with httpx.Client(base_url=hdfs, follow_redirects=True, timeout=30) as http:
        while stack:
            folder = stack.pop()
            listing = http.get(folder, params={"op": "LISTSTATUS", **user})
            if listing.status_code == 404:
                continue
            for status in listing.json()["FileStatuses"]["FileStatus"]:
                full = f"{folder}/{status['pathSuffix']}"
                (stack if status["type"] == "DIRECTORY" else files).append(full)
        with ThreadPoolExecutor(8) as pool:
            contents = pool.map(lambda full: http.get(full, params={"op": "OPEN", **user}).content, files)
            return {full[len(path) + 1:]: data for full, data in zip(files, contents, strict=True)}


def hdfs_count(env: dict, path: str, what: str = "fileCount") -> int:
    """`fileCount` or `length` of everything under `path` (0 when it is not there)."""
    import getpass
    import http.client
    import urllib.parse

    hdfs = urllib.parse.urlsplit(json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())["hdfs"])
    connection = http.client.HTTPConnection(hdfs.netloc, timeout=10)
    try:
        connection.request("GET", f"/webhdfs/v1{path}?op=GETCONTENTSUMMARY&user.name={getpass.getuser()}")
        answer = connection.getresponse()
        body = answer.read()
    finally:
        connection.close()
    return json.loads(body)["ContentSummary"][what] if answer.status == 200 else 0


def code_workspace(tmp_path: Path, code_dir: str, files: int, text: str) -> Path:
    """A job whose workspace has `files` small Python files, all holding `text`."""
    ws = command_job(tmp_path, "code.pai.json", "ls $PAI_JOB_NAME | wc -l")
    config = json.loads((ws / "code.pai.json").read_text())
    config["codeDir"] = code_dir
    (ws / "code.pai.json").write_text(json.dumps(config))
    write_tree(ws, files, text)
    return ws


def write_tree(ws: Path, files: int, text: str, size: int = 2000) -> None:
    for i in range(files):
        folder = ws / "pkg" / f"m{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.py").write_text(f"{text} {i}\n" + "#" * size)


def kill_daemon_when(env: dict, arrived, timeout: float = 60) -> None:
    """SIGKILL the daemon as soon as `arrived()` is true (an upload is half-way)."""
    import os
    import signal
    import time

    pid = daemon_pid(env)
    deadline = time.monotonic() + timeout
    while not arrived():
        assert time.monotonic() < deadline, "the upload never got going"
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)


def test_daemon_killed_during_run_is_one_line_and_the_submit_resumes(env, tmp_path):
    import getpass

    user = getpass.getuser()
    ws = code_workspace(tmp_path, f"$PAI_DEFAULT_FS_URI/{user}/resume/code", 1000, "v1")  # killed after 200 arrived
    pai(env, "jobs")  # the daemon runs
    run = subprocess.Popen([sys.executable, "-m", "pai_lsp", "run", "code.pai.json"], cwd=ws, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kill_daemon_when(env, lambda: hdfs_count(env, f"/{user}/resume") > 200)
    out, err = run.communicate(timeout=180)
    assert run.returncode == 0, err
    assert "Traceback" not in err and "ConnectionError" not in err
    lines = err.splitlines()
    assert len(lines) == 3, err + (Path(env["XDG_STATE_HOME"]) / "pai-lsp" / "daemon.log").read_text()[-3000:]
    assert lines[0] == "pai run: the pai daemon stopped while submitting; a new one takes over where it stopped (the job is submitted once)"
    assert lines[1].startswith(f"removed an unfinished earlier upload to /{user}/resume/code (/{user}/resume/.pai-staging/code.")
    assert lines[2].startswith("uploaded 1001 files, ") and "(1001 new or changed, 0 unchanged kept)" in lines[2]
    job = out.split()[1]
    assert [line.split()[0] for line in pai(env, "jobs").stdout.splitlines()].count(job) == 1  # submitted once
    files = hdfs_files(env, f"/{user}/resume")
    assert sorted(files) == sorted(["code/.pai-manifest.json", "code/train.py", *(f"code/pkg/m{i % 10}/f{i}.py" for i in range(1000)),
                                    f".pai-records/{job}.json"])  # (its submission record, beside the code)
    assert ".pai-staging" not in pai(env, "hdfs", "ls", f"/{user}/resume").stdout


WHOLE = PATCH_MOVES + 100  # files all changed: more than a patch moves, so the new tree is sent whole and swapped in


def test_a_killed_reupload_leaves_the_old_tree_whole_and_is_cleaned_up_next_time(env, tmp_path):
    import getpass

    user = getpass.getuser()
    ws = code_workspace(tmp_path, f"$PAI_DEFAULT_FS_URI/{user}/atomic/code", WHOLE, "v1")
    assert pai(env, "run", "code.pai.json", cwd=ws).returncode == 0
    before = hdfs_files(env, f"/{user}/atomic/code")
    write_tree(ws, WHOLE, "v2", size=2100)  # each file 100 bytes longer: the bytes on HDFS grow as they arrive
    run = subprocess.Popen([sys.executable, "-m", "pai_lsp", "run", "code.pai.json"], cwd=ws, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    baseline = hdfs_count(env, f"/{user}/atomic", "length")
    try:
        kill_daemon_when(env, lambda: hdfs_count(env, f"/{user}/atomic", "length") > baseline + 200 * 100)
    finally:
        run.kill()  # and the caller: nobody resumes this one
        run.wait()
    assert hdfs_files(env, f"/{user}/atomic/code") == before  # whole, and still the old tree
    listing = pai(env, "hdfs", "ls", f"/{user}/atomic").stdout.split()
    assert listing[-1] == "code" and not any("pai-" in word for word in listing if word != ".pai-records")  # (the records)
    again = pai(env, "run", "code.pai.json", cwd=ws)
    assert again.returncode == 0, again.stderr
    assert again.stderr.startswith(f"removed an unfinished earlier upload to /{user}/atomic/code")
    after = hdfs_files(env, f"/{user}/atomic/code")
    assert {rel for rel, data in after.items() if rel.startswith("pkg/") and not data.startswith(b"v2 ")} == set()
    assert sorted(after) == sorted(before)
    records = hdfs_count(env, f"/{user}/atomic/.pai-records")  # each run's submission record
    assert records == 2 and hdfs_count(env, f"/{user}/atomic") == len(after) + records  # nothing else left beside it


def test_anything_on_the_socket_gets_a_json_rpc_answer_and_no_line_is_too_long(env, tmp_path):
    from .helpers.daemon import open_endpoint

    pai(env, "jobs")  # the daemon runs
    with open_endpoint(env) as sock:
        answers = sock.makefile("rb")

        def ask(line: bytes):
            sock.sendall(line + b"\n")
            return json.loads(answers.readline())

        assert [a["error"]["code"] for a in ask(b"[1,2]")] == [-32600, -32600]
        for request in (b"5", b'"x"', b"[]", b"null", b'{"id": 3}'):
            answer = ask(request)
            assert answer["error"]["code"] == -32600 and answer["id"] == (3 if b"3" in request else None), request
        assert ask(b"{nope")["error"]["code"] == -32700
        assert ask(b'{"jsonrpc": "2.0", "id": 4, "method": "no.such"}')["error"]["code"] == -32601
        assert ask(b'{"jsonrpc": "2.0", "id": 5, "method": "status", "params": {"job": 5}}')["error"]["code"] == -32602
        batch = ask(b'[{"jsonrpc": "2.0", "id": 6, "method": "ping"}, {"jsonrpc": "2.0", "method": "ping"}, 7]')
        assert [a.get("id") for a in batch] == [6, None] and "pid" in batch[0]["result"]
        huge = json.dumps({"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {"pad": "x" * (8 << 20)}}).encode()
        assert ask(huge)["result"]["pid"] > 0  # an 8 MB request line
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(range(256)) * (96 << 12))  # 24 MiB: its base64 answer is a 32 MiB line
    assert pai(env, "hdfs", "put", str(big), "/tmp/big.bin").returncode == 0
    cat = subprocess.run([sys.executable, "-m", "pai_lsp", "hdfs", "cat", "/tmp/big.bin"], env=env, capture_output=True,
                         timeout=120)
    assert cat.returncode == 0, cat.stderr
    assert cat.stdout == big.read_bytes()
