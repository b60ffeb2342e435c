"""Names Windows cannot hold as themselves, where the local cluster (or a download) would turn them into
files: refused before any file is touched, as on Windows, with Windows' rules forced here
(PAI_LSP_WINDOWS_NAMES=1). There `..\\x` would leave the store, `a:b` write a hidden stream of `a`,
`x.` be the file `x`, and `nul.txt` be a device; on Linux they are ordinary names, and stay allowed."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from pai_lsp.common.winnames import unfit_on_windows
from pai_lsp.errors import PermissionDenied
from pai_lsp.service.hdfs import safe_name

from ..helpers.localcluster import job, own_cluster, role, submit
from ..helpers.webhdfs import hdfs, remote_exception

UNFIT = ["..\\..\\escaped.txt", "c:escaped.txt", "a?b", "x.", "trailing ", "nul", "aux.txt", "COM1.log", "LPT¹", "tab\tin"]
FIT = ["ok.txt", ".hidden", "com10", "console.log", "a b", "训练.py", "x.tar.gz"]


@pytest.mark.parametrize("name", UNFIT)
def test_names_windows_cannot_hold_are_known(name):
    assert unfit_on_windows(name)


@pytest.mark.parametrize("name", FIT)
def test_names_windows_holds_are_left_alone(name):
    assert unfit_on_windows(name) is None


def test_a_download_refuses_an_entry_windows_cannot_hold_as_itself(monkeypatch):
    monkeypatch.delenv("PAI_LSP_WINDOWS_NAMES", raising=False)
    assert [safe_name(n) for n in ("aux.txt", "x.", "a:b")] == ["aux.txt", "x.", "a:b"]  # ordinary names on Linux
    monkeypatch.setenv("PAI_LSP_WINDOWS_NAMES", "1")
    for name in ("aux.txt", "x.", "a:b"):
        with pytest.raises(PermissionDenied) as refused:
            safe_name(name)
        assert refused.value.message.startswith(f"refusing to download a remote entry named {name!r}: ")
        assert refused.value.message.endswith("; rename it on the cluster")


@pytest.mark.subprocess
def test_the_local_cluster_refuses_names_windows_cannot_hold_and_touches_no_file(tmp_path):
    data = tmp_path / "data"
    with own_cluster(data, env={"PAI_LSP_WINDOWS_NAMES": "1"}) as cluster:
        before = {p for p in tmp_path.rglob("*") if "staging" not in p.parts}
        for name in UNFIT:
            created = hdfs(cluster, "PUT", "/tmp/" + quote(name), "CREATE", user="alice", data=b"x")
            status, exception, message = remote_exception(created)
            assert (status, exception) == (400, "IllegalArgumentException"), (name, created.text)
            assert message.startswith("Invalid path name /tmp/"), message
            assert ":" in name or "cannot be a file name on this local cluster's machine" in message, message  # HDFS refuses ':' anyway
            made = hdfs(cluster, "PUT", f"/tmp/{quote(name)}/below", "MKDIRS", user="alice")
            assert remote_exception(made)[:2] == (400, "IllegalArgumentException"), (name, made.text)
        assert hdfs(cluster, "PUT", "/tmp/ok.txt", "CREATE", user="alice", data=b"x").status_code == 201
        renamed = hdfs(cluster, "PUT", "/tmp/ok.txt", "RENAME", user="alice", destination="/tmp/nul")
        assert remote_exception(renamed)[:2] == (400, "IllegalArgumentException")
        assert hdfs(cluster, "GET", "/tmp/ok.txt", "OPEN", user="alice").content == b"x"
        after = {p for p in tmp_path.rglob("*") if "staging" not in p.parts}
        assert {p.name for p in after - before} - {"hdfs-owners.sqlite3-wal", "hdfs-owners.sqlite3-shm"} <= {"ok.txt"}
        assert not any("escaped" in p.name for p in tmp_path.rglob("*"))
        # a job whose folder would be another's there (`x.` is `x`): refused before its folder is made
        with cluster.client() as c:
            refused = submit(c, job("dots.", role("r", "echo hi")))
            assert refused.status_code == 400 and "cannot be used on this local cluster" in refused.json()["message"], refused.text
            assert not any(p.name.endswith("dots.") for p in (data / "jobs").iterdir())
