"""The local cluster's storages served through real servers it starts itself on 127.0.0.1: a Samba
storage (smbd) and an NFS storage (NFS-Ganesha) named `serve` in `storages.json`, reached by
`pai storage` through their protocols and mounted in a job that reads what was put; and storages
added on the command line (`--storage TYPE:NAME`), Azure Blob (Azurite) among them, whose REST
answers are the real server's per type, and whose servers end with the cluster."""

from __future__ import annotations

import getpass
import json
import os
import socket
from pathlib import Path

import httpx
import pytest

from .helpers.cli import local_client_password, pai
from .helpers.localcluster import own_cluster, wait_for
from .helpers.servers import AZURITE, missing

pytestmark = pytest.mark.subprocess


def needs_servers(*kinds: str) -> None:
    from pai_lsp.localcluster.storage_servers import ganesha_program, program

    if "samba" in kinds and program("smbd", "/usr/sbin/smbd") is None:
        missing("needs Samba's smbd (Debian: apt-get install samba)")
    if "nfs" in kinds and ganesha_program() is None:
        missing("needs NFS-Ganesha (Debian: apt-get install nfs-ganesha nfs-ganesha-vfs)")
    if "azureBlob" in kinds and not AZURITE.exists():
        missing("needs Azurite (cd tests/servers && npm ci)")
    if os.geteuid() != 0:
        missing("smbd and ganesha.nfsd serve Unix users' files, so they run as root here (as .ci/run does)")


@pytest.fixture(scope="module")
def served(env):
    """The cluster `pai` starts, with `smb` (Samba) and `team-nfs` (NFS) to serve beside `local`."""
    needs_servers("samba", "nfs")
    data_dir = Path(env["PAI_LOCAL_CLUSTER_DIR"])
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "storages.json").write_text(json.dumps(
        {"storages": {"smb": {"type": "samba", "serve": True}, "team-nfs": {"type": "nfs", "serve": True}}}))
    listed = pai(env, "storage", "list", "-o", "json")  # starts the cluster, which starts the servers
    assert listed.returncode == 0, listed.stderr
    return data_dir


def rest(env) -> httpx.Client:
    url = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())["url"]
    token = httpx.post(f"{url}/api/v1/token", json={"username": getpass.getuser(),
                                                    "password": local_client_password(env)}).json()["token"]
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def listens(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def port_of(detail: dict) -> int:
    return int(next(o for o in detail["mountOptions"] if o.startswith("port=")).split("=")[1])


JOB = """protocolVersion: 2
name: {name}
type: job
prerequisites:
  - {{name: img, type: dockerimage, uri: ubuntu}}
taskRoles:
  main:
    instances: 1
    dockerImage: img
    resourcePerInstance: {{cpu: 1, memoryMB: 256, gpu: 0}}
    commands:
      - cat {path}
extras:
  storages:
    - {{name: {storage}, mountPath: {mount}}}
"""


def run_job(c: httpx.Client, name: str, storage: str, mount: str, path: str) -> tuple[str, str]:
    sent = c.post("/api/v2/jobs", content=JOB.format(name=name, storage=storage, mount=mount, path=path).encode(),
                  headers={"Content-Type": "text/yaml"})
    assert sent.status_code == 202, sent.text
    framework = f"{getpass.getuser()}~{name}"
    state = wait_for(lambda: (s := c.get(f"/api/v2/jobs/{framework}").json()["jobStatus"]["state"])
                     in ("SUCCEEDED", "FAILED", "STOPPED") and s, timeout=60)
    logs = c.get(f"/api/v2/jobs/{framework}/attempts/0/taskRoles/main/taskIndex/0/attempts/0/logs").json()
    return state, c.get(next(loc["uri"] for loc in logs["locations"] if loc["name"] == "all")).text


def test_the_served_storages_are_listed_with_their_servers(env, served):
    mine = {s["name"]: s for s in json.loads(pai(env, "storage", "list", "-o", "json").stdout)["storages"]}
    assert (mine["smb"]["type"], mine["smb"]["server"]) == ("samba", "//127.0.0.1/smb")
    assert (mine["team-nfs"]["type"], mine["team-nfs"]["server"]) == ("nfs", "127.0.0.1:/team-nfs")
    assert mine["local"]["default"] and mine["local"]["type"] == "unknown"  # the default storage, as before
    with rest(env) as c:
        smb, nfs = c.get("/api/v2/storages/smb").json(), c.get("/api/v2/storages/team-nfs").json()
    assert smb["data"]["address"] == "//127.0.0.1/smb" and smb["data"]["username"] == getpass.getuser()
    assert len(smb["data"]["password"]) >= 20 and smb["secretName"] == "smb-credentials" and listens(port_of(smb))
    assert nfs["data"] == {"server": "127.0.0.1", "path": "/team-nfs"} and "nfsvers=4.1" in nfs["mountOptions"]
    assert listens(port_of(nfs)) and "secretName" not in nfs
    listed = pai(env, "storage", "list")
    assert smb["data"]["password"] not in listed.stdout + listed.stderr


@pytest.mark.parametrize("storage", ["smb", "team-nfs"])
def test_put_through_the_protocol_and_a_job_sees_the_file(env, served, storage, tmp_path):
    (tmp_path / "hello.txt").write_text(f"hello through {storage}\n")
    put = pai(env, "storage", "put", str(tmp_path / "hello.txt"), f"{storage}:/inbox/")
    assert put.returncode == 0, put.stderr
    assert (served / "storages" / storage / "inbox" / "hello.txt").read_text() == f"hello through {storage}\n"
    listing = pai(env, "storage", "ls", f"{storage}:/inbox")
    assert listing.returncode == 0 and listing.stdout.split()[-1] == "hello.txt"
    again = pai(env, "storage", "put", str(tmp_path / "hello.txt"), f"{storage}:/inbox/hello.txt")
    assert again.returncode != 0 and again.stderr.strip().endswith("exists already (-f replaces it)")
    assert not [p for p in (served / "storages" / storage / "inbox").iterdir() if p.name != "hello.txt"]
    with rest(env) as c:
        state, log = run_job(c, f"reads-{storage}", storage, f"/mnt/{storage}", f"/mnt/{storage}/inbox/hello.txt")
    assert state == "SUCCEEDED", log
    assert f"hello through {storage}" in log


def test_storages_on_the_command_line_are_served_until_the_cluster_ends(tmp_path):
    """`--storage samba:smb --storage azureBlob:blobs`: the answers are the real server's per type (an
    Azure Blob storage a container of an account with its key), the files go through Azurite's API,
    a job cannot mount a blob container here (said in one line), and the servers end with the cluster."""
    needs_servers("samba", "azureBlob")
    from pai_lsp.storage.mounted import open_mounted

    with own_cluster(tmp_path / "cluster", "--storage", "samba:smb", "--storage", "azureBlob:blobs") as cluster:
        with cluster.client() as c:
            names = [s["name"] for s in c.get("/api/v2/storages").json()["storages"]]
            assert names == ["blobs", "local", "smb"]
            blob, smb = c.get("/api/v2/storages/blobs").json(), c.get("/api/v2/storages/smb").json()
            assert blob["type"] == "azureBlob" and blob["secretName"] == "blobs-credentials"
            assert blob["data"]["containerName"] == "blobs" and blob["data"]["accountName"] == "localcluster"
            assert blob["data"]["endpoint"].startswith("http://127.0.0.1:") and len(blob["data"]["accountKey"]) > 40
            store = open_mounted(blob, "alice")
            try:
                store.put("/data/x.csv", b"a,b\n")
                assert store.read("/data/x.csv") == b"a,b\n" and [s.name for s in store.list("/data")] == ["x.csv"]
            finally:
                store.close()
            refused = c.post("/api/v2/jobs", content=JOB.format(name="blobjob", storage="blobs", mount="/mnt/blobs",
                                                                  path="/mnt/blobs/data/x.csv").encode(),
                             headers={"Content-Type": "text/yaml"})
            assert refused.status_code in (202, 400)
            text = refused.text if refused.status_code == 400 else json.dumps(
                wait_for(lambda: (j := c.get("/api/v2/jobs/alice~blobjob").json())["jobStatus"]["state"] == "FAILED" and j))
            assert "Azurite" in text and "database of its own" in text
            ports = [port_of(smb), int(blob["data"]["endpoint"].split(":")[2].split("/")[0])]
            assert all(listens(p) for p in ports)
    assert wait_for(lambda: not any(listens(p) for p in ports), timeout=20)


def test_a_storage_type_the_cluster_cannot_serve_is_one_line(tmp_path):
    import subprocess
    import sys

    refused = subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(tmp_path / "cluster"),
                              "--port", "0", "--storage", "dshuttle:cache"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == ("pai local-cluster: --storage dshuttle:cache: give TYPE:NAME, TYPE one of samba, nfs, "
                              "azureBlob and NAME a new storage name (lower-case letters, digits, '-' and '.')\n")
