"""Safe by default: what tasks inherit and can reach, who may do what in WebHDFS, tokens, file modes."""

from __future__ import annotations

import getpass
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ..helpers.localcluster import PASSWORD, USER, finished, job, log, login, own_cluster, role, secret_file, submit, wait_for
from ..helpers.webhdfs import hdfs, remote_exception

pytestmark = pytest.mark.subprocess  # local clusters and their tasks

SUPERUSER = getpass.getuser()  # the OS user the cluster runs as: HDFS's superuser


def test_tasks_get_a_clean_environment_and_no_path_to_the_clusters_secrets(tmp_path):
    env = {"PAI_TEST_CANARY": "cluster-only-value", "AWS_SECRET_ACCESS_KEY": "do-not-leak", "LC_TIME": "C"}
    with own_cluster(tmp_path / "clean", env=env) as cluster:
        bob = login(cluster.url, "bob")
        script = ("env; echo ===; cat $PAI_WORK_DIR/../../../../../token-secret 2>&1; "
                  "find $PAI_WORK_DIR/../../../../.. -name 'token-secret' -o -name 'users.json' -o -name 'pai-client-password'")
        with cluster.client(bob) as b:
            assert submit_as(b, "bob", job("peek", role("r", script), jobEnvs={"FROM_JOB": "yes"})).status_code == 201
            assert finished_as(b, "bob", "peek")["jobStatus"]["state"] == "SUCCEEDED"
            output = log_as(cluster, b, "bob", "peek")
    environment, _, probes = output.partition("===\n")
    names = {line.split("=", 1)[0] for line in environment.splitlines() if "=" in line}
    assert "PAI_TEST_CANARY" not in names and "AWS_SECRET_ACCESS_KEY" not in names
    assert {"PATH", "HOME", "LC_TIME", "PAI_JOB_NAME", "PAI_CURRENT_TASK_ROLE_NAME", "PAI_WORK_DIR", "FROM_JOB"} <= names
    assert "No such file" in probes and "token-secret" not in probes.replace("/token-secret: No such file", "")
    # The secrets exist, private to the user, outside the data folder.
    for name in ("token-secret", "users.json"):
        path = secret_file(cluster.data_dir, name)
        assert path.exists() and not path.is_relative_to(cluster.data_dir)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def submit_as(c: httpx.Client, user: str, body: dict) -> httpx.Response:
    return c.post(f"/api/v1/user/{user}/jobs", json=body)


def finished_as(c: httpx.Client, user: str, name: str) -> dict:
    return wait_for(lambda: (d := c.get(f"/api/v1/user/{user}/jobs/{name}").json())["jobStatus"]["state"]
                    in ("SUCCEEDED", "FAILED", "STOPPED") and d)


def log_as(cluster, c: httpx.Client, user: str, name: str) -> str:
    task = c.get(f"/api/v1/user/{user}/jobs/{name}").json()["taskRoles"]["r"]["taskStatuses"][0]
    uri = next(x["uri"] for x in c.get(task["containerLog"]).json()["locations"] if x["name"] == "stdout")
    return c.get(uri).text


def test_secrets_left_in_an_old_data_folder_move_out_of_it(tmp_path):
    data = tmp_path / "old"
    data.mkdir()
    (data / "token-secret").write_text("0123456789abcdef" * 4)
    with own_cluster(data) as cluster:
        assert not (data / "token-secret").exists() and not (data / "users.json").exists()
        assert secret_file(data, "token-secret").read_text() == "0123456789abcdef" * 4
        assert cluster.client().get("/api/v2/jobs").status_code == 200


def test_data_files_are_private(cluster):
    with cluster.client() as c:
        submit(c, job("modes", role("r", "echo private")))
        finished(c, "modes")
    hdfs(cluster, "PUT", f"/user/{USER}/modes.txt", "CREATE", USER, b"x")
    assert stat.S_IMODE(cluster.data_dir.stat().st_mode) == 0o700
    for path in cluster.data_dir.rglob("*"):
        if "work" in path.relative_to(cluster.data_dir).parts or path.is_symlink():
            continue  # the task's own files follow the user's umask
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), f"{path} is {oct(mode)}"
    # The HDFS permission is kept apart from the private file on disk.
    assert hdfs(cluster, "GET", f"/user/{USER}/modes.txt", "GETFILESTATUS").json()["FileStatus"]["permission"] == "644"


def test_webhdfs_checks_permissions_as_hadoop_does(cluster):
    home = f"/user/{USER}"
    assert hdfs(cluster, "PUT", f"{home}/private.txt", "CREATE", USER, b"secret", permission="600").status_code == 201
    assert hdfs(cluster, "PUT", f"{home}/public.txt", "CREATE", USER, b"hello").status_code == 201
    # Anonymous (no user.name) and other users read only what "other" may read.
    assert hdfs(cluster, "GET", f"{home}/public.txt", "OPEN").content == b"hello"
    for who in (None, "bob"):
        refused = hdfs(cluster, "GET", f"{home}/private.txt", "OPEN", who)
        name = who or "dr.who"
        assert remote_exception(refused) == (403, "AccessControlException",
                                             f'Permission denied: user={name}, access=READ, inode="{home}/private.txt":{USER}:supergroup:-rw-------')
    assert hdfs(cluster, "GET", f"{home}/private.txt", "OPEN", USER).content == b"secret"
    # No overwriting, deleting, re-permissioning or re-owning what is not yours.
    overwrite = hdfs(cluster, "PUT", f"{home}/public.txt", "CREATE", "bob", b"mine now", overwrite="true")
    assert remote_exception(overwrite)[:2] == (403, "AccessControlException")
    wipe = hdfs(cluster, "DELETE", home, "DELETE", "bob", recursive="true")
    assert remote_exception(wipe) == (403, "AccessControlException",
                                      f'Permission denied: user=bob, access=WRITE, inode="/user":{SUPERUSER}:supergroup:drwxr-xr-x')
    lock_out = hdfs(cluster, "PUT", "/", "SETPERMISSION", "bob", permission="000")
    assert remote_exception(lock_out) == (403, "AccessControlException",
                                          "Permission denied. user=bob is not the owner of inode=/")
    steal = hdfs(cluster, "PUT", f"{home}/public.txt", "SETOWNER", USER, owner="bob")
    assert remote_exception(steal) == (403, "AccessControlException", "Non-super user cannot change owner")
    assert hdfs(cluster, "GET", f"{home}/public.txt", "OPEN", USER).content == b"hello"
    assert hdfs(cluster, "GET", "/", "GETFILESTATUS").json()["FileStatus"]["permission"] == "1777"
    # Impersonation is for the superuser only.
    doas = hdfs(cluster, "GET", f"{home}/private.txt", "OPEN", "bob", doas=USER)
    assert remote_exception(doas) == (403, "AuthorizationException", f"User: bob is not allowed to impersonate {USER}")
    assert hdfs(cluster, "GET", f"{home}/private.txt", "OPEN", SUPERUSER, doas=USER).content == b"secret"
    # The superuser may do anything.
    assert hdfs(cluster, "GET", f"{home}/private.txt", "OPEN", SUPERUSER).content == b"secret"


def test_the_root_is_world_writable_with_the_sticky_bit(cluster):
    assert hdfs(cluster, "PUT", "/demo/code", "MKDIRS", "bob").json() == {"boolean": True}
    assert hdfs(cluster, "PUT", "/Users/alice", "MKDIRS", USER).json() == {"boolean": True}
    assert hdfs(cluster, "GET", "/demo", "GETFILESTATUS").json()["FileStatus"]["owner"] == "bob"
    for attempt in (hdfs(cluster, "DELETE", "/demo", "DELETE", USER, recursive="true"),
                    hdfs(cluster, "PUT", "/demo", "RENAME", USER, destination="/mine")):
        code, exception, message = remote_exception(attempt)
        assert (code, exception) == (403, "AccessControlException")
        assert message.startswith(f'Permission denied by sticky bit: user={USER}, path="/demo":bob:supergroup:drwxr-xr-x, '
                                  f'parent="/":{SUPERUSER}:supergroup:drwxrwxrwt')
    assert hdfs(cluster, "PUT", "/demo", "RENAME", "bob", destination="/demo2").json() == {"boolean": True}
    assert hdfs(cluster, "DELETE", "/demo2", "DELETE", "bob", recursive="true").json() == {"boolean": True}
    # /tmp too, as on a real cluster; every user has a home of their own.
    assert hdfs(cluster, "GET", "/tmp", "GETFILESTATUS").json()["FileStatus"]["permission"] == "1777"
    assert hdfs(cluster, "GET", "/user/bob", "GETFILESTATUS").json()["FileStatus"]["owner"] == "bob"


def test_the_rest_token_is_a_webhdfs_delegation_token(cluster):
    bob = login(cluster.url, "bob")
    written = hdfs(cluster, "PUT", "/user/bob/by-token.txt", "CREATE", data=b"x", delegation=bob)
    assert written.status_code == 201
    assert hdfs(cluster, "GET", "/user/bob/by-token.txt", "GETFILESTATUS").json()["FileStatus"]["owner"] == "bob"
    mismatch = hdfs(cluster, "GET", "/user/bob/by-token.txt", "GETFILESTATUS", USER, delegation=bob)
    assert remote_exception(mismatch) == (403, "SecurityException", f"Usernames not matched: name={USER} != expected=bob")
    forged = hdfs(cluster, "GET", "/", "GETFILESTATUS", delegation=bob[:-2] + "xx")
    assert remote_exception(forged)[:2] == (403, "SecurityException")


def test_private_requires_a_token_for_reading_too(tmp_path, cluster):
    with cluster.client() as c:
        submit(c, job("open-read", role("r", "true")))
    # The YARN-era server lets anyone read the job list, details, config and SSH info: so does the default.
    for path in ("/api/v1/jobs", f"/api/v1/user/{USER}/jobs", f"/api/v1/user/{USER}/jobs/open-read",
                 f"/api/v1/user/{USER}/jobs/open-read/config", "/api/v1/virtual-clusters"):
        assert httpx.get(cluster.url + path).status_code == 200, path
    with own_cluster(tmp_path / "private", "--private") as private:
        with private.client() as c:
            submit(c, job("closed", role("r", "true")))
            finished(c, "closed")
            for path in ("/api/v1/jobs", f"/api/v1/user/{USER}/jobs/closed", f"/api/v1/user/{USER}/jobs/closed/config",
                         f"/api/v1/user/{USER}/jobs/closed/ssh", "/api/v1/virtual-clusters"):
                guest = httpx.get(private.url + path)
                assert (guest.status_code, guest.json()["code"]) == (401, "UnauthorizedUserError"), path
                assert c.get(path).status_code in (200, 404), path
        anonymous = httpx.get(f"{private.hdfs_url}/webhdfs/v1/?op=LISTSTATUS&user.name={USER}")
        assert anonymous.status_code == 401
        assert "delegation" in anonymous.json()["RemoteException"]["message"]
        with_token = httpx.get(f"{private.hdfs_url}/webhdfs/v1/", params={"op": "LISTSTATUS", "delegation": private.token})
        assert with_token.status_code == 200
        assert httpx.get(f"{private.url}/api/v2/info").status_code == 200  # health checks stay open


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10"])
def test_a_host_other_machines_can_reach_needs_allow_remote(tmp_path, host):
    run = subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(tmp_path / "d"),
                          "--host", host, "--port", "0"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().endswith("(then every REST and WebHDFS call needs a token)")
    assert "--allow-remote" in run.stderr and "Traceback" not in run.stderr


def test_loopback_names_are_recognised():
    from pai_lsp.localcluster.asgi import is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.1.2.3")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("10.0.0.1")
    assert not is_loopback("no-such-host.invalid")


def test_users_added_while_running_can_log_in_at_once(cluster):
    added = subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(cluster.data_dir), "users", "add",
                            "carol", "--password-stdin"], input=PASSWORD + "\n", text=True, capture_output=True)
    assert added.returncode == 0, added.stderr
    token = httpx.post(f"{cluster.url}/api/v1/token", json={"username": "carol", "password": PASSWORD})
    assert token.status_code == 200 and token.json()["user"] == "carol"
    with cluster.client(token.json()["token"]) as c:
        assert c.get("/api/v2/users/carol").json()["username"] == "carol"
    assert hdfs(cluster, "GET", "/user/carol", "GETFILESTATUS").json()["FileStatus"]["owner"] == "carol"


@pytest.mark.parametrize("authorization", ["Bearer tökén", "Bearer a.b.ç", "Bearer \u00ff.\u00ff.\u00ff"])
def test_a_non_ascii_token_is_refused_not_a_crash(cluster, authorization):
    response = httpx.get(f"{cluster.url}/api/v2/jobs", headers={"Authorization": authorization.encode("latin-1")})
    assert (response.status_code, response.json()) == (401, {"code": "UnauthorizedUserError", "message": "Your token is invalid."})


def test_malformed_ranges_get_the_log_servers_answers(cluster):
    with cluster.client() as c:
        submit(c, job("ranged", role("r", "printf 0123456789")))
        finished(c, "ranged")
        task = c.get(f"/api/v1/user/{USER}/jobs/ranged").json()["taskRoles"]["r"]["taskStatuses"][0]
        uri = next(x["uri"] for x in c.get(task["containerLog"]).json()["locations"] if x["name"] == "stdout")
        cases = {"bytes=abc-": (416, b""), "bytes=-abc": (416, b""), "bytes=5-2": (416, b""), "bytes=20-": (416, b""),
                 "bytes=2-4": (206, b"234"), "bytes=7-": (206, b"789"), "bytes=-3": (206, b"789"),
                 "bytes=-50": (206, b"0123456789"), "bytes=3": (206, b"3456789"), "bytes=3-100": (206, b"3456789"),
                 "items=1-2": (200, b"0123456789"), "bytes0-1": (200, b"0123456789"), "bytes=0-1,4-5": (200, b"0123456789")}
        for header, (status, body) in cases.items():
            response = c.get(uri, headers={"Range": header})
            assert (response.status_code, response.content) == (status, body), header
            if status == 416:
                assert response.headers["content-range"] == "bytes */10"
        assert log(cluster, c, "ranged", "r") == "0123456789"


def test_work_dirs_keep_the_users_umask(tmp_path, cluster):
    with cluster.client() as c:
        submit(c, job("umask", role("r", "touch made; stat -c %a made")))
        assert finished(c, "umask")["jobStatus"]["state"] == "SUCCEEDED"
        expected = format(0o666 & ~_current_umask(), "o")
        assert log(cluster, c, "umask", "r").strip() == expected


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_secrets_dir_never_lies_inside_the_data_dir(tmp_path):
    from pai_lsp.localcluster.datadir import secrets_dir

    data = tmp_path / "x"
    folder = secrets_dir(data)
    assert not Path(folder).is_relative_to(data) and (data / "cluster-id").exists()
    assert secrets_dir(data) == folder  # stable for the same data folder


def test_users_add_and_pai_share_one_data_folder(tmp_path):
    """`pai local-cluster users add` without --data-dir writes where `pai` starts its cluster."""
    folder = tmp_path / "shared-local"
    env = dict(os.environ, PAI_LOCAL_CLUSTER_DIR=str(folder))
    added = subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "users", "add", "dora", "--password-stdin"],
                           input=PASSWORD + "\n", text=True, capture_output=True, env=env)
    assert added.returncode == 0, added.stderr
    assert (folder / "cluster-id").exists()
    assert "dora" in secret_file(folder, "users.json").read_text()
