"""`pai hdfs …` against the local cluster's HDFS, and the same through the editor's commands."""

from __future__ import annotations

from .helpers.cli import pai
from .helpers.standin import StandIn


def test_put_ls_cat_tail_mv_get_rm(env, tmp_path):
    src = tmp_path / "data"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("hello\n")
    (src / "sub" / "b.bin").write_bytes(bytes(range(256)) * 10)
    assert pai(env, "hdfs", "mkdir", "explore").returncode == 0
    put = pai(env, "hdfs", "put", str(src), "explore")
    assert put.returncode == 0 and put.stdout.startswith("uploaded 2 file(s), 2,566 bytes to /user/")
    listing = pai(env, "hdfs", "ls", "explore/data").stdout.splitlines()
    assert [line.split()[-1] for line in listing] == ["a.txt", "sub"]
    assert listing[0].startswith("-rw-r--r--") and listing[1].startswith("drwxr-xr-x")
    assert pai(env, "hdfs", "cat", "explore/data/a.txt").stdout == "hello\n"
    assert pai(env, "hdfs", "tail", "-c", "3", "explore/data/a.txt").stdout == "lo\n"
    assert "file, 6 bytes" in pai(env, "hdfs", "stat", "explore/data/a.txt").stdout
    assert pai(env, "hdfs", "mv", "explore/data/a.txt", "explore/data/c.txt").returncode == 0
    got = pai(env, "hdfs", "get", "explore/data", str(tmp_path / "back"))
    assert got.returncode == 0
    assert (tmp_path / "back" / "c.txt").read_text() == "hello\n"
    assert (tmp_path / "back" / "sub" / "b.bin").read_bytes() == bytes(range(256)) * 10
    refused = pai(env, "hdfs", "rm", "explore/data")
    assert refused.returncode == 1 and "is a folder: use -r" in refused.stderr
    assert pai(env, "hdfs", "rm", "-r", "explore/data").returncode == 0
    missing = pai(env, "hdfs", "cat", "explore/data/c.txt")
    assert missing.returncode == 3 and missing.stderr.endswith("no such file or directory on HDFS\n")


def test_downloads_refuse_names_that_escape(env, tmp_path):
    """A misbehaving server lists an entry named '../evil': nothing is written outside the destination."""
    status = {"type": "DIRECTORY", "length": 0, "modificationTime": 0, "permission": "755", "owner": "x", "group": "x",
              "pathSuffix": "", "accessTime": 0, "blockSize": 0, "childrenNum": 1, "fileId": 1, "replication": 0}

    def respond(method, path, body):
        if "GETFILESTATUS" in path:
            return 200, {}, {"FileStatus": status}
        return 200, {}, {"FileStatuses": {"FileStatus": [dict(status, type="FILE", length=4, pathSuffix="../evil")]}}

    with StandIn(respond) as server:
        pai(env, "cluster", "add", "evil", "--rest", server.url, "--webhdfs", server.url, "--user", "u")
        dest = tmp_path / "dest"
        dest.mkdir()
        result = pai(env, "hdfs", "--cluster", "evil", "get", "/folder", str(dest))
        pai(env, "cluster", "remove", "evil")
    assert result.returncode == 4 and "refusing to download a remote entry named '../evil'" in result.stderr
    assert not (tmp_path / "evil").exists() and list(dest.rglob("*")) == []


def test_hdfs_permission_denied_is_one_line(env):
    denied = {"RemoteException": {"exception": "AccessControlException",
                                  "javaClassName": "org.apache.hadoop.security.AccessControlException",
                                  "message": 'Permission denied: user=u, access=READ_EXECUTE, inode="/secret"'}}
    with StandIn(lambda method, path, body: (403, {}, denied)) as server:
        pai(env, "cluster", "add", "guarded", "--rest", server.url, "--webhdfs", server.url, "--user", "u")
        result = pai(env, "hdfs", "--cluster", "guarded", "ls", "/secret")
        pai(env, "cluster", "remove", "guarded")
    assert result.returncode == 4
    assert result.stderr.startswith("pai hdfs: /secret: permission denied on HDFS (Permission denied: user=u")
    assert result.stderr.count("\n") == 1


def test_a_daemon_error_is_said_in_the_terminals_language(env, tmp_path):
    """The daemon says a failure as a catalogue code (it serves an English terminal and a Chinese
    editor at once); `pai` says it in its own terminal's language, LANG."""
    assert pai(env, "hdfs", "mkdir", "said/folder").returncode == 0
    chinese = pai({**env, "LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "hdfs", "rm", "said")
    assert chinese.returncode == 1 and chinese.stderr.startswith("pai hdfs: ") and "是文件夹：请用 -r 连同其内容一起删除" in chinese.stderr
    english = pai({**env, "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "hdfs", "rm", "said")
    assert english.returncode == 1 and "is a folder: use -r to remove it with everything in it" in english.stderr
