"""`pai hdfs …` against the local cluster's HDFS, and the same through the editor's commands."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from .test_cli_jobs import env, pai  # noqa: F401  (the module-scoped environment fixture)


def test_put_ls_cat_tail_mv_get_rm(env, tmp_path):  # noqa: F811
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


def test_downloads_refuse_names_that_escape(env, tmp_path):  # noqa: F811
    """A misbehaving server lists an entry named '../evil': nothing is written outside the destination."""

    class Evil(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server API
            status = {"type": "DIRECTORY", "length": 0, "modificationTime": 0, "permission": "755", "owner": "x",
                      "group": "x", "pathSuffix": "", "accessTime": 0, "blockSize": 0, "childrenNum": 1, "fileId": 1,
                      "replication": 0}
            if "GETFILESTATUS" in self.path:
                body = {"FileStatus": status}
            else:
                body = {"FileStatuses": {"FileStatus": [dict(status, type="FILE", length=4, pathSuffix="../evil")]}}
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        pai(env, "cluster", "add", "evil", "--rest", url, "--webhdfs", url, "--user", "u")
        dest = tmp_path / "dest"
        dest.mkdir()
        result = pai(env, "hdfs", "--cluster", "evil", "get", "/folder", str(dest))
        assert result.returncode == 4 and "refusing to download a remote entry named '../evil'" in result.stderr
        assert not (tmp_path / "evil").exists() and list(dest.rglob("*")) == []
    finally:
        pai(env, "cluster", "remove", "evil")
        server.shutdown()


def test_hdfs_permission_denied_is_one_line(env):  # noqa: F811
    class Guarded(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server API
            body = json.dumps({"RemoteException": {"exception": "AccessControlException",
                                                   "javaClassName": "org.apache.hadoop.security.AccessControlException",
                                                   "message": "Permission denied: user=u, access=READ_EXECUTE, inode=\"/secret\""}})
            self.send_response(403)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Guarded)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        pai(env, "cluster", "add", "guarded", "--rest", url, "--webhdfs", url, "--user", "u")
        result = pai(env, "hdfs", "--cluster", "guarded", "ls", "/secret")
        assert result.returncode == 4
        assert result.stderr.startswith("pai hdfs: /secret: permission denied on HDFS (Permission denied: user=u")
        assert result.stderr.count("\n") == 1
    finally:
        pai(env, "cluster", "remove", "guarded")
        server.shutdown()
