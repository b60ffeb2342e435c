"""A re-upload sends what changed and no more, and a codeDir never holds a mix of two uploads:
against a real local cluster over WebHDFS, with the client every command uses. The
changed files are written beside the code, then switched into it by renames while it is moved
aside: a job that looks then finds no code (and fails) rather than half of each upload."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pai_lsp.errors import NotFound
from pai_lsp.storage.upload import MANIFEST, STAGING, select, upload
from pai_lsp.storage.webhdfs import Hdfs

from .helpers.localcluster import USER, start_cluster, stop_cluster
from .helpers.paths import ROOT

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process

REMOTE = f"/user/{USER}/code"

OLD = {f"pkg{i % 4}/m{i % 3}/f{i}.py": f"print({i})\n".encode() for i in range(40)} | {"train.py": b"train()\n"}
NEW = {rel: data for rel, data in OLD.items() if not rel.startswith("pkg3/m0/") and rel != "pkg1/m1/f13.py"}
NEW |= {"train.py": b"train(epochs=2)\n", "pkg0/m0/f0.py": b"print('zero')\n", "new/deep/x.py": b"x = 1\n"}
SENT = {"train.py", "pkg0/m0/f0.py", "new/deep/x.py"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, starts_processes):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("cluster-config")))  # never the real ~/.config
        c = start_cluster(tmp_path_factory.mktemp("cluster"))
        try:
            yield c
        finally:
            stop_cluster(c)


def workspace(root: Path, files: dict[str, bytes]) -> list:
    """`root` holding exactly `files` (each written only when it differs), as `select` picks them."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    for path in [p for p in root.rglob("*") if p.is_file()]:
        if path.relative_to(root).as_posix() not in files:
            path.unlink()
    return select(root, ["**/*"], [])


def tree(storage: Hdfs, folder: str) -> dict[str, bytes] | None:
    """What a job's code fetch finds at `folder` (the manifest aside), or None when it is not there."""
    found: dict[str, bytes] = {}
    stack = [""]
    try:
        while stack:
            prefix = stack.pop()
            for entry in storage.list(f"{folder}/{prefix}".rstrip("/")):
                if entry.is_dir:
                    stack.append(f"{prefix}{entry.name}/")
                elif f"{prefix}{entry.name}" != MANIFEST:
                    found[f"{prefix}{entry.name}"] = storage.read(f"{folder}/{prefix}{entry.name}")
    except NotFound:
        return None
    return found


class Watched(Hdfs):
    """The WebHDFS client, with the codeDir read back (by a second client, as a starting job would
    read it) after every call that changes something; the calls wait meanwhile, so each reading
    sees one moment."""

    def __init__(self, url: str, remote: str):
        super().__init__(url, USER)
        self.reader, self.remote, self.seen, self.written = Hdfs(url, USER), remote, [], []
        self._lock = threading.RLock()

    def _then_look(self, call, *args, **kwargs):
        with self._lock:
            result = call(*args, **kwargs)
            self.seen.append(tree(self.reader, self.remote))
            return result

    def write(self, path, data, sent=None):
        self.written.append(path)
        return self._then_look(super().write, path, data, sent)

    def rename(self, src, dst):
        return self._then_look(super().rename, src, dst)

    def commit(self, temp, path):
        return self._then_look(super().commit, temp, path)

    def delete(self, path, recursive=False):
        return self._then_look(super().delete, path, recursive)

    def mkdir(self, path):
        return self._then_look(super().mkdir, path)


def staging_left(storage: Hdfs) -> list[str]:
    try:
        return [entry.name for entry in storage.list(f"/user/{USER}/{STAGING}")]
    except NotFound:
        return []


def test_a_small_edit_sends_only_the_changed_files_and_no_job_ever_sees_a_mix(cluster, tmp_path):
    storage = Hdfs(cluster.hdfs_url, USER)
    first = upload(storage, workspace(tmp_path, OLD), REMOTE)
    assert (first.sent_files, first.unchanged_files) == (len(OLD), 0)
    assert tree(storage, REMOTE) == OLD

    watched = Watched(cluster.hdfs_url, REMOTE)
    again = upload(watched, workspace(tmp_path, NEW), REMOTE)
    assert (again.sent_files, again.changed_files, again.unchanged_files, again.removed_files) == \
        (3, 3, len(NEW) - 3, len(OLD) - len(NEW) + 1)
    assert sorted(p.rsplit(".pai-staging/", 1)[1].split("/", 1)[1] for p in watched.written) == sorted([*SENT, MANIFEST])
    assert again.sent_bytes == sum(len(NEW[rel]) for rel in SENT)
    # Every moment of the switch: the old tree whole, no tree, or the new tree whole; never a mix.
    assert all(seen in (OLD, None, NEW) for seen in watched.seen), [sorted(set(s or {}) ^ set(OLD)) for s in watched.seen]
    assert None in watched.seen and watched.seen[-1] == NEW
    assert tree(storage, REMOTE) == NEW and staging_left(storage) == []
    # The manifest it left is exact: nothing is sent the next time.
    assert upload(storage, workspace(tmp_path, NEW), REMOTE).sent_files == 0


def test_a_folder_not_as_the_last_upload_left_it_is_sent_whole(cluster, tmp_path):
    storage = Hdfs(cluster.hdfs_url, USER)
    remote = f"{REMOTE}-tampered"
    upload(storage, workspace(tmp_path, OLD), remote)
    storage.mkdir(f"{remote}/stray")  # a folder no upload made: the manifest no longer tells what is there
    again = upload(storage, workspace(tmp_path, NEW), remote)
    assert (again.sent_files, again.changed_files, again.resent_files, again.unchanged_files) == \
        (len(NEW), 3, len(NEW) - 3, 0)
    assert tree(storage, remote) == NEW


DYING = """
import os, signal, sys
from pathlib import Path
from pai_lsp.storage.upload import select, upload
from pai_lsp.storage.webhdfs import Hdfs

url, user, workspace, remote, at = sys.argv[1:6]
calls = 0

class Dying(Hdfs):
    def _count(self, result):
        global calls
        calls += 1
        if calls == int(at):
            os.kill(os.getpid(), signal.SIGKILL)  # killed as a daemon is: nothing more runs, nothing is cleaned
        return result

for name in ("write", "rename", "commit", "delete", "mkdir"):
    setattr(Dying, name, lambda self, *a, _m=getattr(Hdfs, name), **k: self._count(_m(self, *a, **k)))

upload(Dying(url, user), select(Path(workspace), ["**/*"], []), remote, threads=1)
print(calls)
"""


def dying_upload(cluster, ws: Path, remote: str, at: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", DYING, cluster.hdfs_url, USER, str(ws), remote, str(at)],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def test_a_killed_upload_leaves_the_old_tree_or_none_and_the_next_upload_recovers(cluster, tmp_path):
    storage = Hdfs(cluster.hdfs_url, USER)
    remote = f"{REMOTE}-killed"
    upload(storage, workspace(tmp_path, OLD), remote)
    whole = dying_upload(cluster, tmp_path, remote, 0) if workspace(tmp_path, NEW) else None
    assert whole.returncode == 0, whole.stderr
    calls = int(whole.stdout)  # how many changing calls one patch makes: it is killed after each in turn
    assert calls >= 8
    outcomes = set()
    for at in range(1, calls + 1):
        upload(storage, workspace(tmp_path, OLD), remote)
        assert tree(storage, remote) == OLD
        killed = dying_upload(cluster, tmp_path, remote, at) if workspace(tmp_path, NEW) else None
        assert killed.returncode == -9, (at, killed.stdout, killed.stderr)
        found = tree(storage, remote)
        assert found in (OLD, None, NEW), (at, sorted(set(found or {}) ^ set(OLD)))
        outcomes.add("old" if found == OLD else "none" if found is None else "new")
        recovered = upload(storage, workspace(tmp_path, NEW), remote)
        assert tree(storage, remote) == NEW, at
        assert staging_left(storage) == [], (at, recovered)
    assert outcomes == {"old", "none", "new"}
