"""The local cluster's HDFS store costs what an operation touches, not what is stored:
every query its namespace operations run is answered through the index on `path` (SQLite's
EXPLAIN QUERY PLAN shows no `SCAN inodes`), a create runs as many SQLite instructions in a store of
thousands of files as in an empty one, Hadoop's max-directory-items limit holds, and the children
counts kept for it stay exact. In-process: the store is driven through its own methods."""

from __future__ import annotations

import getpass
import os
import random

import pytest

from pai_lsp.localcluster.hdfs_store import HdfsException, HdfsStore

ME = getpass.getuser()


@pytest.fixture
def store(tmp_path):
    return HdfsStore(tmp_path / "hdfs", ME, groups_of=lambda user: set())


def _fill(store: HdfsStore, folder: str, files: int) -> None:
    for i in range(files):
        with store.writer(ME, f"{folder}/d{i % 40}/f{i}", False, None) as f:
            f.write(b"x")


class Statements:
    """Every SQL statement the store runs (with its values), and the SQLite instructions it costs."""

    def __init__(self, store: HdfsStore):
        self.store, self.sql, self.steps = store, [], 0

    def _step(self) -> int:
        self.steps += 1
        return 0

    def __enter__(self) -> Statements:
        self.store._db.set_trace_callback(self.sql.append)
        self.store._db.set_progress_handler(self._step, 1)
        return self

    def __exit__(self, *exc) -> None:
        self.store._db.set_trace_callback(None)
        self.store._db.set_progress_handler(None, 1)

    def scans(self) -> list[str]:
        out = []
        for sql in self.sql:
            if sql.split()[0].upper() not in ("SELECT", "INSERT", "UPDATE", "DELETE"):
                continue  # BEGIN, COMMIT, PRAGMA
            plan = self.store._db.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
            out += [f"{sql} -> {row[3]}" for row in plan if row[3].startswith("SCAN")]
        return out


def test_no_namespace_operation_reads_the_whole_table(store):
    """create, mkdirs, rename (file and folder, old-style and rename2), delete (file and folder), list,
    stat, content summary, the codeDir walk and snapshots, each checked by SQLite's own plan."""
    _fill(store, "/user/a/tree", 60)
    store.allow_snapshot(ME, "/user/a")
    operations = [
        lambda: _fill(store, "/user/a/new", 3),
        lambda: store.mkdirs(ME, "/user/a/m/n/o"),
        lambda: store.rename(ME, "/user/a/new/d0/f0", "/user/a/moved"),
        lambda: store.rename(ME, "/user/a/new", "/user/a/m/n/o/new", overwrite=False),
        lambda: store.rename(ME, "/user/a/m", "/user/a/m2"),
        lambda: store.delete(ME, "/user/a/moved", recursive=False),
        lambda: store.delete(ME, "/user/a/m2", recursive=True),
        lambda: store.list(ME, "/user/a/tree/d1"),
        lambda: store.status(ME, "/user/a/tree/d1/f1"),
        lambda: store.status(ME, "/user/a/tree"),
        lambda: store.content_summary(ME, "/user/a/tree"),
        lambda: store.readable_tree("bob", "/user/a/tree", 10**9),
        lambda: store.create_snapshot(ME, "/user/a", "s1"),
        lambda: store.rename_snapshot(ME, "/user/a", "s1", "s2"),
        lambda: store.delete_snapshot(ME, "/user/a", "s2"),
    ]
    for operation in operations:
        with Statements(store) as statements:
            operation()
        assert statements.sql, "the store ran no query: this test would prove nothing"
        assert statements.scans() == []


@pytest.mark.slow  # fills a store on purpose: the full suite runs it, `-m unit` stays quick
def test_a_create_costs_the_same_in_a_full_store_as_in_an_empty_one(store):
    """SQLite instructions per create (deterministic, unlike time): 200 files stored against 4,000."""
    def per_create(folder: str) -> float:
        with Statements(store) as statements:
            _fill(store, folder, 20)
        return statements.steps / 20

    _fill(store, "/seed", 200)
    small = per_create("/probe1")
    _fill(store, "/seed2", 3800)
    big = per_create("/probe2")
    assert big <= small * 1.2, (small, big)


def test_hadoops_max_directory_items_limit(store):
    store.max_directory_items = 3
    store.mkdirs(ME, "/full")
    for name in ("a", "b"):
        with store.writer(ME, f"/full/{name}", False, None) as f:
            f.write(b"x")
    store.mkdirs(ME, "/full/c")
    full = ("MaxDirectoryItemsExceededException", "The directory item limit of /full is exceeded: limit=3 items=3")
    for attempt in (lambda: store.writer(ME, "/full/d", False, None).__enter__(),
                    lambda: store.mkdirs(ME, "/full/d"),
                    lambda: store.mkdirs(ME, "/full/d/e"),
                    lambda: store.rename(ME, "/other", "/full/d")):
        store.mkdirs(ME, "/other")
        with pytest.raises(HdfsException) as refused:
            attempt()
        assert (refused.value.exception, refused.value.message) == full
        assert refused.value.status == 403
        assert refused.value.to_json()["RemoteException"]["javaClassName"] == \
            "org.apache.hadoop.hdfs.protocol.FSLimitException$MaxDirectoryItemsExceededException"
    assert sorted(os.listdir(store.local("/full"))) == ["a", "b", "c"]
    with store.writer(ME, "/full/a", True, None) as f:  # replacing a file adds no item
        f.write(b"y")
    store.rename(ME, "/full/a", "/full/a2")  # nor does a rename within the folder
    store.delete(ME, "/full/b", recursive=False)
    with store.writer(ME, "/full/d", False, None) as f:
        f.write(b"z")
    assert store.status(ME, "/full")["childrenNum"] == 3


@pytest.mark.slow  # 400 random changes on purpose: the full suite runs it, `-m unit` stays quick
def test_children_counts_stay_exact_through_every_change(store):
    """Random creates, overwrites, mkdirs, renames and deletes: childrenNum is always what the folder holds."""
    rng = random.Random(22)
    folders = ["/r", "/r/a", "/r/b", "/r/a/c"]
    for folder in folders:
        store.mkdirs(ME, folder)
    for step in range(400):
        folder = rng.choice(folders)
        name = f"{folder}/n{rng.randrange(6)}"
        kind = rng.randrange(5)
        try:
            if kind == 0:
                with store.writer(ME, name, rng.random() < 0.5, None) as f:
                    f.write(b"x")
            elif kind == 1:
                store.mkdirs(ME, name)
            elif kind == 2:
                store.rename(ME, name, f"{rng.choice(folders)}/n{rng.randrange(6)}")
            elif kind == 3:
                store.delete(ME, name, recursive=rng.random() < 0.5)
            else:
                store.rename(ME, name, f"{rng.choice(folders)}/n{rng.randrange(6)}", overwrite=True)
        except HdfsException:
            pass
        for checked in folders:
            local = store.local(checked)
            if local.is_dir():
                assert store.status(ME, checked)["childrenNum"] == len(os.listdir(local)), (step, checked)


@pytest.mark.slow  # 600 calls from 8 threads on purpose: the full suite runs it, `-m unit` stays quick
def test_creates_and_mkdirs_at_once_in_new_folders_all_succeed(store):
    """WebHDFS serves calls from several threads: two making the same new folder at once both succeed
    (the second finds it made), a folder is never seen before its owner and mode are recorded (alice
    could not write into it), and the counts stay exact."""
    from concurrent.futures import ThreadPoolExecutor

    store.ensure_home("alice")

    def work(i: int) -> None:
        if i % 3 == 0:
            assert store.mkdirs("alice", f"/user/alice/c/d{i % 7}/sub")
        else:
            with store.writer("alice", f"/user/alice/c/d{i % 7}/e{i % 2}/f{i}", False, None) as f:
                f.write(b"x")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(work, range(600)))
    for d in range(7):
        folder = f"/user/alice/c/d{d}"
        assert store.status(ME, folder)["childrenNum"] == len(os.listdir(store.local(folder))) == 3
        assert store.status(ME, folder)["owner"] == "alice"
    assert store.status(ME, "/user/alice/c")["childrenNum"] == 7
