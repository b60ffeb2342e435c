"""One storage suite: the same operations and failures against both kinds of storage the local
cluster serves — WebHDFS on its port (profile `local`, OpenPAI) and PaddlePaddle Cloud's PFS
through the PaddlePaddle API port (profile `local-paddle`) — through `pai hdfs` as users run it, and
through the `Storage` interface in-process."""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import posixpath
from pathlib import Path

import pytest

from pai_lsp.errors import InvalidInput, NotFound, PermissionDenied, Unsupported
from pai_lsp.storage.base import Body, Stat, Storage

from .helpers.cli import local_client_password, pai
from .helpers.proxy import CuttingProxy

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process

CLUSTERS = {"local": "HDFS", "local-paddle": "PFS"}
BIG = 3_000_000  # the size that broke `pai hdfs put` on PFS: more than one read of a streamed file


@pytest.fixture(params=list(CLUSTERS))
def cluster(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def storages(env):
    """Each profile's storage, in-process, on the same local cluster `pai` uses."""
    from pai_lsp.clusters.connect import connect

    with pytest.MonkeyPatch.context() as patch:
        for key in ("XDG_CONFIG_HOME", "PAI_LOCAL_CLUSTER_DIR", "XDG_STATE_HOME", "PAI_LSP_SECRETS"):
            patch.setenv(key, env[key])
        backends = {name: connect(name) for name in CLUSTERS}
        yield {name: backend.storage for name, backend in backends.items()}
        for backend in backends.values():
            backend.close()


@pytest.fixture
def storage(storages, cluster) -> Storage:
    return storages[cluster]


def run(env: dict, cluster: str, *args: str):
    return pai(env, "hdfs", "--cluster", cluster, *args)


def storage_home(env: dict, cluster: str) -> str:
    return run(env, cluster, "stat", ".").stdout.split(":")[0]


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


# -- through `pai hdfs` ---------------------------------------------------------------------------
def test_put_ls_stat_cat_tail_get_rm(env, tmp_path, cluster):
    src = tmp_path / "data"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("hello\n")
    (src / "sub" / "empty").write_bytes(b"")
    big = os.urandom(BIG)
    (src / "sub" / "big.bin").write_bytes(big)
    assert run(env, cluster, "mkdir", "suite").returncode == 0
    (tmp_path / "nothing-yet").mkdir()
    assert run(env, cluster, "put", str(tmp_path / "nothing-yet"), "suite").stdout.startswith("uploaded 0 files, 0 bytes")
    put = run(env, cluster, "put", str(src), "suite")
    assert put.returncode == 0, put.stderr
    assert put.stdout.startswith(f"uploaded 3 files, {BIG + 6:,} bytes to /") and put.stdout.rstrip().endswith("/suite/data")
    listing = run(env, cluster, "ls", "suite/data").stdout.splitlines()
    assert [line.split()[-1] for line in listing] == ["a.txt", "sub"]
    assert listing[0].startswith("-rw") and listing[1].startswith("dr")
    sizes = {line.split()[-1]: int(line.split()[-4]) for line in run(env, cluster, "ls", "suite/data/sub").stdout.splitlines()}
    assert sizes == {"big.bin": BIG, "empty": 0}
    assert run(env, cluster, "cat", "suite/data/a.txt").stdout == "hello\n"
    assert run(env, cluster, "tail", "-c", "3", "suite/data/a.txt").stdout == "lo\n"
    assert "file, 6 bytes" in run(env, cluster, "stat", "suite/data/a.txt").stdout
    got = run(env, cluster, "get", "suite/data", str(tmp_path / "back"))
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith(f"downloaded 3 files, {BIG + 6:,} bytes to ")
    assert (tmp_path / "back" / "a.txt").read_text() == "hello\n"
    assert (tmp_path / "back" / "sub" / "empty").read_bytes() == b""
    assert md5((tmp_path / "back" / "sub" / "big.bin").read_bytes()) == md5(big)
    one = run(env, cluster, "get", "suite/data/sub/big.bin", str(tmp_path / "one.bin"))
    assert one.returncode == 0, one.stderr
    assert md5((tmp_path / "one.bin").read_bytes()) == md5(big)
    refused = run(env, cluster, "rm", "suite/data")
    assert refused.returncode == 1 and "is a folder: use -r" in refused.stderr
    assert "nothing-yet" in run(env, cluster, "ls", "suite").stdout  # an empty folder is put too
    assert run(env, cluster, "rm", "-r", "suite").returncode == 0
    for op in ("cat", "ls", "get"):
        missing = run(env, cluster, op, "suite/data/a.txt", *([str(tmp_path / "nothing")] if op == "get" else []))
        assert missing.returncode == 3 and missing.stderr.count("\n") == 1
        assert missing.stderr.endswith(f"/suite/data/a.txt: no such file or directory on {CLUSTERS[cluster]}\n")
    assert not (tmp_path / "nothing").exists()


def test_get_a_file_and_put_a_big_one(env, tmp_path, cluster):
    """Commands that once failed: on PaddlePaddle Cloud `pai hdfs get f x` failed with an AttributeError
    and the put of a 3 MB file with a TypeError (after writing the file, sized, under its name)."""
    (tmp_path / "f").write_text("small\n")
    assert run(env, cluster, "put", str(tmp_path / "f"), "f").returncode == 0
    got = run(env, cluster, "get", "f", str(tmp_path / "x"))
    assert got.returncode == 0 and got.stderr == "", got.stderr
    assert (tmp_path / "x").read_text() == "small\n"
    big = os.urandom(BIG)
    (tmp_path / "big.bin").write_bytes(big)
    put = run(env, cluster, "put", str(tmp_path / "big.bin"), "big.bin")
    assert put.returncode == 0 and put.stderr == "", put.stderr
    assert run(env, cluster, "get", "big.bin", str(tmp_path / "back.bin")).returncode == 0
    assert md5((tmp_path / "back.bin").read_bytes()) == md5(big)
    assert run(env, cluster, "rm", "f").returncode == 0 and run(env, cluster, "rm", "big.bin").returncode == 0


def test_mv_moves_or_says_the_platform_cannot(env, tmp_path, cluster):
    (tmp_path / "f.txt").write_text("x")
    assert run(env, cluster, "put", str(tmp_path / "f.txt"), "moving.txt").returncode == 0
    moved = run(env, cluster, "mv", "moving.txt", "moved.txt")
    if CLUSTERS[cluster] == "HDFS":
        assert moved.returncode == 0 and moved.stdout.startswith("moved /")
        assert run(env, cluster, "cat", "moved.txt").stdout == "x"
        assert run(env, cluster, "rm", "moved.txt").returncode == 0
    else:
        assert moved.returncode == 1 and moved.stderr.count("\n") == 1
        assert "PFS) cannot rename or move files" in moved.stderr
        assert run(env, cluster, "cat", "moving.txt").stdout == "x"  # left as it was
        assert run(env, cluster, "rm", "moving.txt").returncode == 0


def test_the_root_is_browsable(env, cluster):
    """The editors' HDFS views start at `/` (and at the home folder)."""
    root = run(env, cluster, "ls", "/")
    assert root.returncode == 0, root.stderr
    assert {"HDFS": "user", "PFS": "pfs"}[CLUSTERS[cluster]] in [line.split()[-1] for line in root.stdout.splitlines()]
    stat = run(env, cluster, "stat", ".")
    assert stat.returncode == 0 and ": dir, " in stat.stdout


def test_a_put_cut_off_leaves_nothing_under_its_name(env, tmp_path, cluster):
    """The network breaks half-way through a 3 MB file: `pai hdfs put` fails in one line, and the
    cluster has no file under that name — nor a temporary one left over."""
    (tmp_path / "big.bin").write_bytes(os.urandom(BIG))
    assert run(env, cluster, "mkdir", "cut").returncode == 0  # (the local cluster runs from here on)
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    user = getpass.getuser()  # the local cluster's client user
    if CLUSTERS[cluster] == "HDFS":
        proxy = CuttingProxy(int(info["hdfs"].rsplit(":", 1)[1].split("/")[0]), budget=1_000_000, per_connection=True)
        added = pai(env, "cluster", "add", "cut", "--rest", info["url"], "--webhdfs", proxy.url, "--user", user, "--protocol", "1")
    else:
        proxy = CuttingProxy(int(info["paddle"].rsplit(":", 1)[1].split("/")[0]), budget=1_000_000, per_connection=True)
        added = pai(env, "cluster", "add", "cut", "--kind", "paddlecloud", "--rest", proxy.url, "--datacenter", "local",
                    "--user", user, "--password-stdin", stdin=local_client_password(env) + "\n")
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "a.txt").write_text("a\n")
    (tmp_path / "folder" / "big.bin").write_bytes(os.urandom(BIG))
    try:
        assert added.returncode == 0, added.stderr
        failed = pai(env, "hdfs", "--cluster", "cut", "put", str(tmp_path / "big.bin"), "cut/big.bin")
        failed_folder = pai(env, "hdfs", "--cluster", "cut", "put", str(tmp_path / "folder"), "cut")
    finally:
        pai(env, "cluster", "remove", "cut")
        proxy.close()
    assert proxy.cuts and failed.returncode != 0 and failed.stderr.count("\n") == 1, failed.stderr
    assert failed.stderr.startswith("pai hdfs: cannot talk to ") and "the connection broke" in failed.stderr
    gone = run(env, cluster, "stat", "cut/big.bin")
    assert gone.returncode == 3, gone.stdout
    assert failed_folder.returncode == 7 and failed_folder.stderr.count("\n") == 1, failed_folder.stderr
    left = [line.split()[-1] for line in run(env, cluster, "ls", "cut").stdout.splitlines()]
    if CLUSTERS[cluster] == "HDFS":  # a new folder is renamed into place whole, or not at all
        assert left == [] and failed_folder.stderr.endswith(f"the put of folder stopped; nothing was written to "
                                                           f"{storage_home(env, cluster)}/cut/folder\n")
        assert run(env, cluster, "stat", "cut/folder").returncode == 3
    else:  # (no rename on PFS) file by file: those that arrived are whole, the cut one is gone
        assert left in ([], ["folder"]) and " not uploaded to " in failed_folder.stderr
        assert run(env, cluster, "stat", "cut/folder/big.bin").returncode == 3
        assert run(env, cluster, "cat", "cut/folder/a.txt").stdout in ("", "a\n")
    assert run(env, cluster, "rm", "-r", "cut").returncode == 0


# -- through the interface -------------------------------------------------------------------------
def test_the_interface_does_the_same_on_both(storage, tmp_path):
    folder = f"{storage.home}/iface"
    storage.mkdir(f"{folder}/deep/er")
    deep = storage.status(f"{folder}/deep")
    assert isinstance(deep, Stat) and (deep.name, deep.is_dir, deep.size, deep.owner) == ("deep", True, 0, storage.user)
    storage.put(f"{folder}/small.txt", b"0123456789")
    data = os.urandom(BIG)
    (tmp_path / "big.bin").write_bytes(data)
    told: list[int] = []
    with open(tmp_path / "big.bin", "rb") as f, Body(f, BIG, digest=None) as body:
        storage.put(f"{folder}/big.bin", body, told.append)
    assert told == sorted(told) and told[-1] == BIG and len(told) >= 1
    status = storage.status(f"{folder}/big.bin")
    assert (status.name, status.is_dir, status.size, status.owner) == ("big.bin", False, BIG, storage.user)
    assert [(s.name, s.is_dir) for s in storage.list(folder)] == [("big.bin", False), ("deep", True), ("small.txt", False)]
    pieces = list(storage.stream(f"{folder}/big.bin"))
    assert b"".join(pieces) == data and max(map(len, pieces)) <= 4 << 20
    assert storage.read(f"{folder}/small.txt", offset=3, length=4) == b"3456"
    assert storage.read(f"{folder}/big.bin", offset=BIG - 5) == data[-5:]
    storage.put(f"{folder}/small.txt", b"replaced")  # over a file: replaced whole
    assert storage.read(f"{folder}/small.txt") == b"replaced"
    assert storage.delete(f"{folder}/small.txt") is True
    assert storage.status(f"{folder}/small.txt") is None
    assert storage.delete(folder, recursive=True) is True and storage.status(folder) is None


def test_the_same_failures_on_both(storage, storages):
    missing = f"{storage.home}/no/such"
    assert storage.status(missing) is None
    for call in (lambda: storage.list(missing), lambda: storage.read(missing), lambda: list(storage.stream(missing))):
        with pytest.raises(NotFound, match=f"^{missing}: no such file or directory on {storage.name}$"):
            call()
    if storage.name == "HDFS":  # another user of the cluster, in this user's home
        from pai_lsp.storage.webhdfs import Hdfs

        stranger, forbidden = Hdfs(storage.url, "mallory"), f"{storage.home}/planted"
    else:  # another user's home on PFS; the public data is read-only for everyone
        stranger, forbidden = storage, f"/pfs/{storage.datacenter}/home/mallory/planted"
        with pytest.raises(PermissionDenied, match="read-only public data"):
            storage.put(f"{storage.public}/planted", b"x")
    with pytest.raises(PermissionDenied, match=f"^{forbidden}: permission denied on {storage.name} "):
        stranger.put(forbidden, b"x")
    with pytest.raises(PermissionDenied):
        stranger.mkdir(forbidden)
    storage.put(f"{storage.home}/renamed-from", b"r")
    if storage.name == "HDFS":
        storage.rename(f"{storage.home}/renamed-from", f"{storage.home}/renamed-to")
        assert storage.read(f"{storage.home}/renamed-to") == b"r"
        storage.delete(f"{storage.home}/renamed-to")
    else:
        with pytest.raises(Unsupported, match="cannot rename"):
            storage.rename(f"{storage.home}/renamed-from", f"{storage.home}/renamed-to")
        assert isinstance(Unsupported("x"), InvalidInput)  # the daemon's clients read it as `invalid`
        storage.delete(f"{storage.home}/renamed-from")


def test_a_failed_put_leaves_nothing_under_its_name(storage, tmp_path):
    """The local file gets shorter while it is sent (3 MB announced, 2 MB there): the put fails
    with a clear error and no part of it is under its name — a file that was there is either kept
    as it was (WebHDFS: the new one is renamed into place only when whole) or removed (PFS, which
    cannot rename: it is written in place, and removed when the put fails)."""
    folder = f"{storage.home}/failing"
    storage.mkdir(folder)
    (tmp_path / "short.bin").write_bytes(os.urandom(2_000_000))
    for before in (None, b"the previous version"):
        target = f"{folder}/file.bin"
        if before is not None:
            storage.put(target, before)
        with open(tmp_path / "short.bin", "rb") as f, Body(f, BIG, digest=None) as body:
            with pytest.raises(InvalidInput, match="got shorter while it was uploaded"):
                storage.put(target, body)
        after = storage.status(target)
        if after is not None:
            assert storage.name == "HDFS" and storage.read(target) == before
        else:
            assert before is None or storage.name == "PFS"
        assert [s.name for s in storage.list(folder)] == ([posixpath.basename(target)] if after else [])
    storage.delete(folder, recursive=True)


def test_a_put_on_pfs_that_cannot_even_remove_its_part_says_what_is_left(storages):
    """PFS cannot rename, so a file is written under its own name: when the server is gone for good
    half-way (no connection gets through to remove the part either), the error says what is left."""
    from pai_lsp.errors import Interrupted
    from pai_lsp.storage.pfs import Pfs

    pfs = storages["local-paddle"]
    port = int(pfs.url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
    proxy = CuttingProxy(port, budget=1_000_000)
    cut = Pfs(proxy.url + "/api/v1/pfs", pfs.user, pfs.datacenter, pfs._authorization, pfs._renew)
    target = f"{pfs.home}/stranded.bin"
    try:
        with pytest.raises(Interrupted) as stopped:
            cut.put(target, os.urandom(BIG))
    finally:
        cut.close()
        proxy.close()
    assert f"; {target} holds part of the file and could not be removed (" in stopped.value.message
    assert stopped.value.message.endswith(f"remove it with `pai hdfs rm {target}`, or put it again")
    assert pfs.status(target) is not None  # as said: PFS kept it
    pfs.delete(target)
