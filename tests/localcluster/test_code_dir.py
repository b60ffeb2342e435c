"""A job's codeDir is copied into each task as the job's user would fetch it on the real platform
(`hdfs dfs -du -s` then `hdfs dfs -get`, run as that user): with HDFS's permission checks, and only
up to the platform's 200,000,000 bytes."""

from __future__ import annotations

import httpx
import pytest

from ..helpers.localcluster import USER, job, login, role, wait_for
from ..helpers.webhdfs import hdfs

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process

PRIVATE = f"/user/{USER}/private"


def _submit(c: httpx.Client, user: str, body: dict) -> None:
    response = c.post(f"/api/v1/user/{user}/jobs", json=body)
    assert response.status_code == 201, response.text


def _finished(c: httpx.Client, user: str, name: str) -> dict:
    return wait_for(lambda: (d := c.get(f"/api/v1/user/{user}/jobs/{name}").json())["jobStatus"]["state"]
                    in ("SUCCEEDED", "FAILED", "STOPPED") and d)


def _stdout(c: httpx.Client, user: str, name: str) -> str:
    task = c.get(f"/api/v1/user/{user}/jobs/{name}").json()["taskRoles"]["r"]["taskStatuses"][0]
    locations = c.get(task["containerLog"]).json().get("locations") or []
    uri = next((x["uri"] for x in locations if x["name"] == "stdout"), None)
    return c.get(uri).text if uri else ""


def _alices_private_folder(cluster) -> None:
    assert hdfs(cluster, "PUT", PRIVATE, "MKDIRS", USER, permission="700").status_code == 200
    assert hdfs(cluster, "PUT", f"{PRIVATE}/secret.txt", "CREATE", USER, b"alice's secret", permission="600").status_code == 201
    assert hdfs(cluster, "PUT", f"/user/{USER}/open", "MKDIRS", USER, permission="755").status_code == 200
    assert hdfs(cluster, "PUT", f"/user/{USER}/open/run.py", "CREATE", USER, b"print('hi')", permission="644").status_code == 201
    assert hdfs(cluster, "PUT", f"/user/{USER}/open/key.txt", "CREATE", USER, b"alice's key", permission="600").status_code == 201


def test_code_dir_is_read_with_the_job_users_permissions(cluster):
    _alices_private_folder(cluster)
    bob = login(cluster.url, "bob")
    fs = cluster.hdfs_url.replace("http://", "hdfs://")
    cases = {  # codeDir: what Hadoop says when bob fetches it
        f"{fs}{PRIVATE}": f'Permission denied: user=bob, access=READ_EXECUTE, inode="{PRIVATE}":{USER}:supergroup:drwx------',
        f"{PRIVATE}/inner": f'Permission denied: user=bob, access=EXECUTE, inode="{PRIVATE}":{USER}:supergroup:drwx------',
        f"{fs}/user/{USER}/open": f'Permission denied: user=bob, access=READ, inode="/user/{USER}/open/key.txt":{USER}:supergroup:-rw-------',
        "/": f'Permission denied: user=bob, access=READ_EXECUTE, inode="{PRIVATE}":{USER}:supergroup:drwx------',
    }
    with cluster.client(bob) as b:
        for i, code_dir in enumerate(cases):
            _submit(b, "bob", job(f"peek{i}", role("r", "cat */secret.txt */key.txt; ls -R"), codeDir=code_dir))
        for i, (code_dir, denial) in enumerate(cases.items()):
            done = _finished(b, "bob", f"peek{i}")
            status = done["jobStatus"]
            assert status["state"] == "FAILED", code_dir
            assert denial in status["appExitDiagnostics"], (code_dir, status)
            assert "secret" not in _stdout(b, "bob", f"peek{i}") and "key" not in _stdout(b, "bob", f"peek{i}")
        # Nothing of alice's reached bob's task folders.
        for path in (cluster.data_dir / "jobs").rglob("*"):
            assert path.name not in ("secret.txt", "key.txt"), path
    # Alice reads her own code as before.
    with cluster.client() as a:
        _submit(a, USER, job("mine", role("r", "cat private/secret.txt"), codeDir=f"{fs}{PRIVATE}"))
        assert _finished(a, USER, "mine")["jobStatus"]["state"] == "SUCCEEDED"
        assert _stdout(a, USER, "mine") == "alice's secret"


def test_a_code_dir_over_the_platforms_limit_fails_the_job_uncopied(cluster):
    big = cluster.data_dir / "hdfs" / "user" / "bob" / "big"  # test setup straight into the store: a sparse file
    big.mkdir(parents=True)
    (big / "run.py").write_text("print('small')\n")
    with open(big / "weights.bin", "wb") as f:
        f.truncate(200_000_001)
    bob = login(cluster.url, "bob")
    with cluster.client(bob) as b:
        _submit(b, "bob", job("toobig", role("r", "ls big"), codeDir="$PAI_DEFAULT_FS_URI/user/bob/big"))
        status = _finished(b, "bob", "toobig")["jobStatus"]
    assert status["state"] == "FAILED"
    assert "/user/bob/big is larger than 200MB (the platform's limit for codeDir is 200000000 bytes)" in status["appExitDiagnostics"]
    assert not [p for p in (cluster.data_dir / "jobs").rglob("weights.bin")]
