"""`pai storage …` as a user runs it, against the real local cluster: the list agrees with the REST
answer, files go in and out of a storage (the local cluster's folders), a `share: false` storage is
the user's folder of it, a read-only one refuses writes in one line, and a storage's credentials are
never printed."""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import httpx
import pytest

from .helpers.cli import local_client_password, pai
from .helpers.configs import FIRST_RUN

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster

SMB_PASSWORD = "smb-secret-pw-do-not-print"


@pytest.fixture(scope="module")
def storages(env, tmp_path_factory):
    """The local cluster with three storages beside `local`: `homes` (share: false), `datasets`
    (read-only) and `smb` (a Samba storage whose credentials the cluster hands out)."""
    assert pai(env, "storage", "list").returncode == 0  # starts the cluster, which then reads the file below
    from pai_lsp.localcluster.datadir import secrets_dir

    data_dir = Path(env["PAI_LOCAL_CLUSTER_DIR"])
    folders = tmp_path_factory.mktemp("storage-folders")
    config = {"storages": {"homes": {"path": str(folders / "homes"), "share": False},
                           "datasets": {"path": str(folders / "datasets"), "readOnly": True},
                           "smb": {"type": "samba", "data": {"address": "//127.0.0.1/share"}, "secretName": "smbcreds"}},
              "groups": {"default": ["local", "homes", "datasets", "smb"]}}
    secrets = secrets_dir(data_dir, Path(env["XDG_CONFIG_HOME"])) / "storage-secrets.json"
    secrets.write_text(json.dumps({"smbcreds": {"username": "smbuser", "password": SMB_PASSWORD}}))
    (data_dir / "storages.json").write_text(json.dumps(config))
    (folders / "datasets").mkdir(parents=True)
    (folders / "datasets" / "given.csv").write_text("a,b\n")
    return folders


def rest(env) -> httpx.Client:
    url = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())["url"]
    token = httpx.post(f"{url}/api/v1/token", json={"username": getpass.getuser(),
                                                    "password": local_client_password(env)}).json()["token"]
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def test_the_list_agrees_with_the_clusters_answer(env, storages):
    listed = pai(env, "storage", "list", "-o", "json")
    assert listed.returncode == 0, listed.stderr
    mine = json.loads(listed.stdout)["storages"]
    with rest(env) as c:
        answer = c.get("/api/v2/storages").json()["storages"]
        details = {s["name"]: c.get(f"/api/v2/storages/{s['name']}").json() for s in answer}
    assert sorted((s["name"], s["default"], s["share"]) for s in mine) == sorted(
        (s["name"], s["default"], s.get("share", True)) for s in answer)
    for row in mine:
        detail = details[row["name"]]
        assert (row["type"], row["readOnly"], row["mountPath"]) == (detail["type"], detail["readOnly"], f"/mnt/{row['name']}")
    assert mine[0]["name"] == "local" and mine[0]["default"]  # the default storage first
    by_name = {s["name"]: s for s in mine}
    assert by_name["smb"]["server"] == "//127.0.0.1/share" and by_name["homes"]["server"] == str(storages / "homes")
    text = pai(env, "storage", "list").stdout.splitlines()
    assert text[0].split() == ["NAME", "TYPE", "SERVER", "ACCESS", "MOUNT", "PATH", "DEFAULT", "SHARE"]
    assert any(line.startswith("datasets ") and " ro " in line for line in text)


def test_credentials_are_never_printed(env, storages):
    with rest(env) as c:  # the cluster does hand them out (as the real server does)
        assert c.get("/api/v2/storages/smb").json()["data"]["password"] == SMB_PASSWORD
    listed = pai(env, "storage", "list", "-o", "json")
    assert SMB_PASSWORD not in listed.stdout + listed.stderr and "smbuser" not in listed.stdout
    failed = pai(env, "storage", "ls", "smb:/")  # no Samba server there: the failure names the share only
    assert failed.returncode != 0 and failed.stderr.count("\n") == 1
    assert SMB_PASSWORD not in failed.stdout + failed.stderr


def test_put_get_ls_round_trip_into_the_local_storage(env, storages, tmp_path):
    src = tmp_path / "code"
    (src / "pkg").mkdir(parents=True)
    (src / "train.py").write_text("print('hi')\n")
    (src / "pkg" / "model.bin").write_bytes(bytes(range(256)) * 8)
    put = pai(env, "storage", "put", str(src), "local:/round/")
    assert put.returncode == 0, put.stderr
    assert put.stdout.strip() == "uploaded 2 files, 2,060 bytes to local:/round/code"
    folder = Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "storages" / "local"
    assert (folder / "round" / "code" / "train.py").read_text() == "print('hi')\n"
    listing = pai(env, "storage", "ls", "-R", "local:/round").stdout.splitlines()
    assert [line.split()[-1] for line in listing] == ["code", "code/pkg", "code/pkg/model.bin", "code/train.py"]
    entries = json.loads(pai(env, "storage", "ls", "local:/round/code", "-o", "json").stdout)["entries"]
    assert [(e["name"], e["type"], e["size"]) for e in entries] == [("pkg", "dir", 0), ("train.py", "file", 12)]
    again = pai(env, "storage", "put", str(src / "train.py"), "local:/round/code/train.py")
    assert again.returncode != 0 and again.stderr.strip().endswith("exists already (-f replaces it)")
    (src / "train.py").write_text("print('v2')\n")
    assert pai(env, "storage", "put", "-f", str(src / "train.py"), "local:/round/code/train.py").returncode == 0
    assert pai(env, "storage", "cat", "local:/round/code/train.py").stdout == "print('v2')\n"
    assert pai(env, "storage", "put", "-", "local:/round/stdin.txt", stdin="from a pipe\n").returncode == 0
    assert pai(env, "storage", "get", "local:/round/stdin.txt", "-").stdout == "from a pipe\n"
    got = pai(env, "storage", "get", "local:/round/code", str(tmp_path / "back") + "/")
    assert got.returncode == 0, got.stderr
    assert (tmp_path / "back" / "code" / "pkg" / "model.bin").read_bytes() == bytes(range(256)) * 8
    assert pai(env, "storage", "mv", "local:/round/code", "local:/round/code-v1").returncode == 0
    refused = pai(env, "storage", "rm", "local:/round")
    assert refused.returncode == 1 and "is a folder: use -r" in refused.stderr
    assert pai(env, "storage", "rm", "-r", "local:/round").returncode == 0 and not (folder / "round").exists()


def test_a_share_false_storage_is_your_folder_of_it(env, storages, tmp_path):
    (storages / "homes" / "bob").mkdir(parents=True)
    (storages / "homes" / "bob" / "secret.txt").write_text("bob's")
    (tmp_path / "mine.txt").write_text("mine")
    assert pai(env, "storage", "put", str(tmp_path / "mine.txt"), "homes:/").returncode == 0
    assert (storages / "homes" / getpass.getuser() / "mine.txt").read_text() == "mine"
    listed = pai(env, "storage", "ls", "homes:/").stdout.splitlines()
    assert [line.split()[-1] for line in listed] == ["mine.txt"]
    escape = pai(env, "storage", "cat", "homes:/../bob/secret.txt")  # `..` above the root is the root, as in a shell
    assert escape.returncode == 3 and escape.stderr.endswith("/bob/secret.txt: no such file or directory on the local storage\n")
    assert "bob's" not in escape.stdout


def test_a_read_only_storage_refuses_writes_in_one_line(env, storages, tmp_path):
    assert pai(env, "storage", "cat", "datasets:/given.csv").stdout == "a,b\n"
    (tmp_path / "x.txt").write_text("x")
    for args in (("put", str(tmp_path / "x.txt"), "datasets:/"), ("mkdir", "datasets:/new"), ("rm", "datasets:/given.csv"),
                 ("mv", "datasets:/given.csv", "datasets:/moved.csv")):
        refused = pai(env, "storage", *args)
        assert refused.returncode == 4 and refused.stderr == (
            "pai storage: storage datasets is read-only: jobs mount it read-only, and pai writes nothing to it\n"), args
    assert sorted(p.name for p in (storages / "datasets").iterdir()) == ["given.csv"]


def test_bad_storage_paths_are_one_line(env, storages):
    bare = pai(env, "storage", "ls", "code")
    assert bare.returncode == 1 and bare.stderr.startswith("pai storage: code: say a storage path as STORAGE:PATH")
    unknown = pai(env, "storage", "ls", "nosuch:/")
    assert unknown.returncode != 0 and "Storage nosuch is not found" in unknown.stderr and unknown.stderr.count("\n") == 1
    across = pai(env, "storage", "mv", "local:/a", "homes:/a")
    assert across.returncode == 1 and "in different storages" in across.stderr
    paddle = pai(env, "storage", "list", "--cluster", "local-paddle")
    assert paddle.returncode == 1 and paddle.stderr == (
        "pai storage: local-paddle is a PaddlePaddle Cloud cluster: it has no storages (its files are on PFS: pai hdfs)\n")


def test_a_first_run_v2_job_gets_its_code_through_the_default_storage(env, storages, tmp_path):
    """The most natural v2 job (no codeDir, `python3 train.py`): the dry run shows what is added to
    it, and `pai run --follow` uploads train.py into the default storage, mounts it, and prints
    train.py's output; the file on disk is unchanged."""
    (tmp_path / "train.py").write_text("import sys\nprint('hello from train.py', sys.argv[0])\n")
    (tmp_path / "job.pai.yaml").write_text(FIRST_RUN)
    dry = pai(env, "run", "job.pai.yaml", "--dry-run", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert "extras.storages entry for local (mounted at /mnt/local)" in dry.stdout
    job = dry.stdout.split("name: ")[1].split()[0]
    assert f"to local:/{getpass.getuser()}~" in dry.stdout
    assert "extras:\n  storages:\n  - name: local\n" in dry.stdout
    assert f"    - cd /mnt/local/{getpass.getuser()}~{job}\n    - python3 train.py\n" in dry.stdout
    ran = pai(env, "run", "job.pai.yaml", "--follow", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "hello from train.py train.py" in ran.stdout
    name = ran.stdout.split("submitted ")[1].split()[0]
    folder = f"{getpass.getuser()}~{name}"
    assert f"1 file → storage local:/{folder}, mounted at /mnt/local (the job runs in /mnt/local/{folder})" in ran.stderr
    assert (Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "storages" / "local" / folder / "train.py").is_file()
    assert (tmp_path / "job.pai.yaml").read_text() == FIRST_RUN


def test_bash_completes_storage_names_then_their_paths(env, storages):
    from .helpers.cli import complete

    assert pai(env, "storage", "mkdir", "local:/completed/sub").returncode == 0
    assert "local:/" in complete(env, "pai storage ls ")
    # bash breaks words at ':', so what it offers is the part after it
    assert "/completed/" in complete(env, "pai storage ls local:/")
    assert complete(env, "pai storage ls local:/completed/") == ["/completed/sub/"]
