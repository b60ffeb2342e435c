"""WebHDFS rules a namenode enforces on names, paths and a sticky folder, with its RemoteExceptions
(never a 500): FSPermissionChecker's sticky bit, FSDirectory's component length, NameNodeRpcServer's
path length and depth."""

from __future__ import annotations

import getpass

import pytest

from ..helpers.localcluster import USER
from ..helpers.webhdfs import hdfs, remote_exception

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process

SUPERUSER = getpass.getuser()
HOME = f"/user/{USER}"


def test_sticky_tmp_protects_files_from_deletion_and_renaming_not_from_their_own_write_bits(cluster):
    """Hadoop checks the sticky bit for a delete or a rename (parent WRITE), not for CREATE with
    overwrite=true, which needs WRITE on the file itself (FSDirWriteFileOp.resolvePathForStartFile):
    a file alice leaves writable by others (666) may be replaced by bob, who then owns the new file."""
    for name, mode in (("shared.txt", "666"), ("mine.txt", "644"), ("keep.txt", "666")):
        assert hdfs(cluster, "PUT", f"/tmp/{name}", "CREATE", USER, b"alice's", permission=mode).status_code == 201
    refused = hdfs(cluster, "PUT", "/tmp/mine.txt", "CREATE", "bob", b"bob's", overwrite="true")
    assert remote_exception(refused) == (403, "AccessControlException",
                                         f'Permission denied: user=bob, access=WRITE, inode="/tmp/mine.txt":{USER}:supergroup:-rw-r--r--')
    sticky = f'parent="/tmp":{SUPERUSER}:supergroup:drwxrwxrwt'
    for attempt in (hdfs(cluster, "DELETE", "/tmp/keep.txt", "DELETE", "bob"),
                    hdfs(cluster, "PUT", "/tmp/keep.txt", "RENAME", "bob", destination="/tmp/bobs.txt")):
        assert remote_exception(attempt) == (403, "AccessControlException", "Permission denied by sticky bit: user=bob, "
                                             f'path="/tmp/keep.txt":{USER}:supergroup:-rw-rw-rw-, {sticky}')
    # Replacing by a rename is refused too (Hadoop itself checks only the destination's ancestor there).
    assert hdfs(cluster, "PUT", "/tmp/bobs.txt", "CREATE", "bob", b"bob's").status_code == 201
    over = hdfs(cluster, "PUT", "/tmp/bobs.txt", "RENAME", "bob", destination="/tmp/keep.txt", renameoptions="OVERWRITE")
    assert remote_exception(over)[:2] == (403, "AccessControlException") and "sticky bit" in remote_exception(over)[2]
    for name in ("mine.txt", "keep.txt"):
        assert hdfs(cluster, "GET", f"/tmp/{name}", "OPEN", USER).content == b"alice's"
    # The overwrite Hadoop allows: a new file, owned by its writer.
    assert hdfs(cluster, "PUT", "/tmp/shared.txt", "CREATE", "bob", b"bob's", overwrite="true").status_code == 201
    status = hdfs(cluster, "GET", "/tmp/shared.txt", "GETFILESTATUS").json()["FileStatus"]
    assert (status["owner"], status["permission"]) == ("bob", "644")
    assert hdfs(cluster, "GET", "/tmp/shared.txt", "OPEN").content == b"bob's"


def test_names_up_to_255_bytes_work_and_longer_ones_get_hadoops_limit(cluster):
    for length in (209, 230, 255):
        name = "n" * length
        created = hdfs(cluster, "PUT", f"{HOME}/{name}", "CREATE", USER, b"x" * length)
        assert created.status_code == 201, created.text
        assert hdfs(cluster, "GET", f"{HOME}/{name}", "OPEN", USER).content == b"x" * length
        assert hdfs(cluster, "POST", f"{HOME}/{name}", "APPEND", USER, b"y").status_code == 200
        assert hdfs(cluster, "PUT", f"{HOME}/{name}", "CREATE", USER, b"z", overwrite="true").status_code == 201
        assert hdfs(cluster, "PUT", f"{HOME}/d{name[1:]}", "MKDIRS", USER).json() == {"boolean": True}
    listed = [s["pathSuffix"] for s in hdfs(cluster, "GET", HOME, "LISTSTATUS", USER).json()["FileStatuses"]["FileStatus"]]
    assert "n" * 255 in listed and not [n for n in listed if n.startswith(".")]  # no temporary name is left or shown
    for name, length in (("n" * 256, 256), ("名" * 86, 258)):
        expected = (403, "PathComponentTooLongException",
                    f"The maximum path component name limit of {name} in directory {HOME} is exceeded: limit=255 length={length}")
        assert remote_exception(hdfs(cluster, "PUT", f"{HOME}/{name}", "CREATE", USER, b"x")) == expected
        assert remote_exception(hdfs(cluster, "PUT", f"{HOME}/{name}/sub", "MKDIRS", USER)) == expected
        assert remote_exception(hdfs(cluster, "PUT", f"{HOME}/{'n' * 255}", "RENAME", USER, destination=f"{HOME}/{name}")) == expected
        missing = hdfs(cluster, "GET", f"{HOME}/{name}", "GETFILESTATUS", USER)
        assert remote_exception(missing) == (404, "FileNotFoundException", f"File does not exist: {HOME}/{name}")
        assert hdfs(cluster, "DELETE", f"{HOME}/{name}", "DELETE", USER).json() == {"boolean": False}
    java = hdfs(cluster, "PUT", f"{HOME}/{'n' * 256}", "MKDIRS", USER).json()["RemoteException"]["javaClassName"]
    assert java == "org.apache.hadoop.hdfs.protocol.FSLimitException$PathComponentTooLongException"


def test_paths_deeper_or_longer_than_hadoop_allows_are_refused_in_one_line(cluster):
    deep = HOME + "/d" * 3000
    for op, method, data in (("MKDIRS", "PUT", None), ("CREATE", "PUT", b"x")):
        refused = hdfs(cluster, method, deep, op, USER, data)
        assert remote_exception(refused) == (403, "IOException",
                                             f"{op.lower()}: Pathname too long.  Limit 8000 characters, 1000 levels.")
    assert hdfs(cluster, "PUT", f"{HOME}/src.txt", "CREATE", USER, b"x").status_code == 201
    moved = hdfs(cluster, "PUT", f"{HOME}/src.txt", "RENAME", USER, destination=deep)
    assert remote_exception(moved) == (403, "IOException", "rename: Pathname too long.  Limit 8000 characters, 1000 levels.")
    assert remote_exception(hdfs(cluster, "GET", deep, "GETFILESTATUS", USER))[:2] == (404, "FileNotFoundException")
    # Hadoop's limits allow paths longer than this machine's file system holds: those get the same answer, with its limit.
    wide = HOME + ("/" + "w" * 250) * 20
    refused = hdfs(cluster, "PUT", wide, "MKDIRS", USER)
    code, exception, message = remote_exception(refused)
    assert (code, exception) == (403, "IOException")
    assert message.startswith("mkdirs: Pathname too long.  Limit 8000 characters, 1000 levels, and ") and message.endswith(
        " bytes on this local cluster's file system.")
    assert remote_exception(hdfs(cluster, "GET", wide, "LISTSTATUS", USER))[:2] == (404, "FileNotFoundException")
    assert hdfs(cluster, "GET", HOME, "GETFILESTATUS", USER).status_code == 200
