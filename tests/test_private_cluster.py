"""A cluster whose WebHDFS takes no call without credentials (the local cluster `--private`, or off
loopback): `pai hdfs` and `pai submit` send the REST token as `delegation=<token>` once it asks, and
renew a kept token it refuses. A namenode that never asks never sees the token."""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import httpx
import pytest

from .helpers.cli import isolated_env, pai, workspace
from .helpers.localcluster import PASSWORD, USER, own_cluster
from .helpers.standin import StandIn

pytestmark = pytest.mark.subprocess  # a private local cluster and `pai`


@pytest.fixture
def private(env, tmp_path, monkeypatch):
    """A `--private` local cluster of the test's own, and the profile `private` for it (logged in)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cluster-config"))  # its secrets: never the real ~/.config
    with own_cluster(tmp_path / "private", "--private") as cluster:
        added = pai(env, "cluster", "add", "private", "--rest", cluster.url, "--webhdfs", cluster.hdfs_url, "--user", USER,
                    "--password-stdin", stdin=PASSWORD + "\n")
        assert added.returncode == 0, added.stderr
        try:
            yield cluster
        finally:
            pai(env, "cluster", "remove", "private")


def test_pai_hdfs_sends_the_token_a_private_cluster_asks_for(env, tmp_path, private):
    anonymous = httpx.get(f"{private.hdfs_url}/webhdfs/v1/user/{USER}", params={"op": "LISTSTATUS", "user.name": USER})
    assert anonymous.status_code == 401  # what the client is answered before it sends the token
    src = tmp_path / "data"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("hello\n")
    (src / "sub" / "b.bin").write_bytes(bytes(range(256)) * 40)
    assert pai(env, "hdfs", "--cluster", "private", "mkdir", "explore").returncode == 0
    put = pai(env, "hdfs", "--cluster", "private", "put", str(src), "explore")
    assert put.returncode == 0, put.stderr
    assert put.stdout.startswith(f"uploaded 2 files, 10,246 bytes to /user/{USER}/explore/data")
    listing = pai(env, "hdfs", "--cluster", "private", "ls", "explore/data")
    assert listing.returncode == 0, listing.stderr
    assert [line.split()[-1] for line in listing.stdout.splitlines()] == ["a.txt", "sub"]
    got = pai(env, "hdfs", "--cluster", "private", "get", "explore/data", str(tmp_path / "back"))
    assert got.returncode == 0, got.stderr
    assert (tmp_path / "back" / "a.txt").read_text() == "hello\n"
    assert (tmp_path / "back" / "sub" / "b.bin").read_bytes() == bytes(range(256)) * 40
    # The token kept for the profile has expired: WebHDFS refuses it, a new one is fetched, nothing asked.
    secrets = Path(env["XDG_CONFIG_HOME"]) / "pai-lsp" / "secrets.json"
    stored = json.loads(secrets.read_text())
    stored[f"private:{USER}:token"] = "expired.token.value"
    secrets.write_text(json.dumps(stored))
    cat = pai(env, "hdfs", "--cluster", "private", "cat", "explore/data/a.txt")
    assert (cat.returncode, cat.stdout) == (0, "hello\n"), cat.stderr
    assert json.loads(secrets.read_text())[f"private:{USER}:token"] != "expired.token.value"


def test_pai_submit_uploads_to_a_private_cluster(env, tmp_path, private):
    """The code goes up with the token and the job runs from it (tasks get no token: this one writes no outputs)."""
    ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    config = json.loads((ws / "mnist.pai.json").read_text())
    config["taskRoles"][0]["command"] = "cd $PAI_JOB_NAME && python3 train.py --epochs 3"
    (ws / "mnist.pai.json").write_text(json.dumps(config))
    result = pai(env, "submit", "--cluster", "private", "mnist.pai.json", "--follow", cwd=ws)
    assert result.returncode == 0, result.stderr
    job = result.stdout.splitlines()[0].split()[1]
    assert f"uploaded 1 file, 1,485 bytes to /{USER}/{job} (1 new or changed, 0 unchanged kept)" in result.stderr, result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("epoch")] == [
        "epoch 1/3 loss=1.3800", "epoch 2/3 loss=0.8280", "epoch 3/3 loss=0.4968"]
    assert f"{job}: SUCCEEDED" in result.stderr
    listing = pai(env, "hdfs", "--cluster", "private", "ls", f"/{USER}/{job}")
    assert listing.returncode == 0 and "train.py" in listing.stdout, listing.stderr


def test_a_namenode_that_never_asks_never_sees_the_token(env):
    """Security off, the token is never sent; a Kerberos challenge (401 Negotiate) is not answered
    with it either: one line, and no login to get a token for it."""
    seen: list[tuple[str, str]] = []
    directory = {"type": "DIRECTORY", "length": 0, "modificationTime": 0, "permission": "755", "owner": "u",
                 "group": "u", "pathSuffix": "", "accessTime": 0, "blockSize": 0, "childrenNum": 0, "fileId": 1,
                 "replication": 0}

    def respond(method, path, body):
        seen.append((method, path))
        if method == "POST":
            return 200, {}, {"token": "rest.token.value"}
        if "kerberos" in path:
            return 401, {"WWW-Authenticate": "Negotiate"}, b"<html>Authentication required</html>"
        if "GETFILESTATUS" in path:
            return 200, {}, {"FileStatus": directory}
        return 200, {}, {"FileStatuses": {"FileStatus": []}}

    with StandIn(respond) as server:
        pai(env, "cluster", "add", "open", "--rest", server.url, "--webhdfs", server.url, "--user", "u")
        pai(env, "cluster", "login", "open", "--password-stdin", stdin="pw\n")
        seen.clear()
        try:
            listed = pai(env, "hdfs", "--cluster", "open", "ls", "/data")
            kerberos = pai(env, "hdfs", "--cluster", "open", "ls", "/kerberos")
        finally:
            pai(env, "cluster", "remove", "open")
    assert (listed.returncode, listed.stderr) == (0, "")
    assert kerberos.returncode == 4 and kerberos.stderr.count("\n") == 1 and "refused the credentials" in kerberos.stderr
    assert seen and all(method != "POST" and "delegation" not in path for method, path in seen), seen


def test_pai_run_on_a_private_local_cluster_started_by_hand(tmp_path, monkeypatch):
    """`pai local-cluster serve --private` on the data folder `pai` uses: `pai run` uploads to it and
    `pai hdfs` browses it as on any other."""
    config_home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    with own_cluster(tmp_path / "local", "--private") as cluster:
        env = isolated_env(tmp_path / "home")
        env.update(XDG_CONFIG_HOME=str(config_home), PAI_LOCAL_CLUSTER_DIR=str(cluster.data_dir))
        ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/code")
        config = json.loads((ws / "mnist.pai.json").read_text())
        config["taskRoles"][0]["command"] = "cd code && python3 train.py --epochs 1"
        (ws / "mnist.pai.json").write_text(json.dumps(config))
        try:
            result = pai(env, "run", "mnist.pai.json", "--follow", cwd=ws)
            assert result.returncode == 0, result.stderr
            assert "epoch 1/1 loss=1.3800" in result.stdout and "uploaded 1 file," in result.stderr
            user = getpass.getuser()  # the local profile is the OS user
            listing = pai(env, "hdfs", "ls", f"/{user}/code")
            assert listing.returncode == 0 and "train.py" in listing.stdout, listing.stderr
        finally:
            pai(env, "daemon", "stop")
