"""WebHDFS client behaviour against misbehaving real-world namenodes (stand-in servers on 127.0.0.1)."""

from __future__ import annotations

from pai_lsp.storage.upload import _filter, glob_regex, matcher
from pai_lsp.storage.webhdfs import Hdfs

from .helpers.standin import StandIn


def test_datanode_redirect_to_an_internal_host_is_rewritten():
    received = {}

    def respond(method, path, body):
        if "datanode=true" not in path:
            # What real clusters do: redirect to a datanode name only their own network resolves.
            return 307, {"Location": f"http://datanode-7.cluster.internal:50075{path}&datanode=true"}, b""
        received[path.split("?")[0]] = body
        return 201, {}, b""

    with StandIn(respond) as server:
        hdfs = Hdfs(server.url, "alice")
        hdfs.write("/user/alice/x.txt", b"payload")
        assert received == {"/webhdfs/v1/user/alice/x.txt": b"payload"}
        assert hdfs.reachable("http://datanode-7.cluster.internal:50075/webhdfs/v1/a?op=OPEN") == \
            f"{server.url}/webhdfs/v1/a?op=OPEN"


def test_vscode_glob_semantics():
    cases = {
        "**/*.py": (["a.py", "x/y/b.py"], ["a.pyc", "a.py/b", "x/y.txt"]),
        "src/**/*.{sh,cfg}": (["src/a.sh", "src/x/y/b.cfg"], ["a.sh", "src/a.py", "lib/src/a.sh"]),
        "*.md": (["README.md"], ["docs/a.md"]),
        "data/[!t]*.csv": (["data/a.csv"], ["data/train.csv", "data/x/a.csv"]),
        "**/node_modules/**": (["node_modules/a.js", "x/node_modules/b/c.js"], ["node_modules_x/a.js"]),
        "?.txt": (["a.txt"], ["ab.txt", "a/b.txt"]),
    }
    for glob, (yes, no) in cases.items():
        m = matcher([glob])
        assert _filter("\n".join(yes + no), m) == yes, (glob, glob_regex(glob))
    negated = matcher(["**/*.py", "!**/test_*"])
    assert _filter("a.py\nsrc/test_a.py\ntest_b.py\nsrc/b.py", negated) == ["a.py", "src/b.py"]


def test_hdfs_errors_are_classified_by_the_remote_exception_not_its_wording():
    """Hadoop names its exception (`RemoteException.exception`): that decides, not the message text."""
    from pai_lsp.errors import AuthFailed, NotFound, PermissionDenied, ServerError

    def remote(status, exception, message):
        return status, {}, {"RemoteException": {"exception": exception, "javaClassName": f"x.{exception}", "message": message}}

    answers = {
        "/missing": remote(404, "FileNotFoundException", "File /missing does not exist."),
        "/denied": remote(403, "AccessControlException", "Permission denied: user=alice"),
        "/odd": remote(500, "IOException", "Permission denied is not what this is; File not found either"),
        "/stranger": remote(403, "SecurityException", "Failed to obtain user group information"),
        "/login": (401, {}, b"Unauthorized"),
    }
    with StandIn(lambda method, path, body: answers[path.split("?")[0].removeprefix("/webhdfs/v1")]) as server:
        hdfs = Hdfs(server.url, "alice")
        assert hdfs.status("/missing") is None
        for path, error in (("/denied", PermissionDenied), ("/odd", ServerError), ("/stranger", AuthFailed),
                            ("/login", AuthFailed)):
            try:
                hdfs.list(path)
            except error as exc:
                assert "\n" not in exc.message
            else:
                raise AssertionError(f"{path} did not raise {error.__name__}")
        for path, error in (("/denied", PermissionDenied), ("/missing", NotFound), ("/login", AuthFailed)):
            try:
                hdfs.write(path, b"x")
            except error:
                pass
            else:
                raise AssertionError(f"write {path} did not raise {error.__name__}")


class HadoopLike:
    """A namenode and datanode in memory that keep files as Hadoop does: a file exists under the
    name it was created with from its first byte, and what arrived before a broken upload stays
    there. `rename2`: whether RENAME honours `renameoptions=OVERWRITE` (a namenode) or ignores it
    and refuses to replace (HttpFS)."""

    def __init__(self, rename2: bool = True):
        self.files: dict[str, bytes] = {}
        self.rename2 = rename2

    def respond(self, method: str, url: str, body: bytes):
        from urllib.parse import parse_qs, unquote, urlsplit

        parts = urlsplit(url)
        path, query = unquote(parts.path).removeprefix("/webhdfs/v1"), {k: v[-1] for k, v in parse_qs(parts.query).items()}
        op = query.get("op")
        if op == "CREATE" and "datanode" not in query:
            return 307, {"Location": f"{url}&datanode=true"}, b""
        if op == "CREATE":
            self.files[path] = body  # all that arrived, even when the upload broke off
            return 201, {}, b""
        if op == "GETFILESTATUS":
            if path not in self.files:
                return 404, {}, {"RemoteException": {"exception": "FileNotFoundException", "message": f"File does not exist: {path}"}}
            return 200, {}, {"FileStatus": {"type": "FILE", "length": len(self.files[path]), "modificationTime": 0,
                                            "permission": "644", "owner": "alice", "group": "g", "pathSuffix": ""}}
        if op == "DELETE":
            return 200, {}, {"boolean": self.files.pop(path, None) is not None}
        if op == "RENAME":
            destination = query["destination"]
            if destination in self.files and not (self.rename2 and query.get("renameoptions") == "OVERWRITE"):
                return 200, {}, {"boolean": False}
            self.files[destination] = self.files.pop(path)
            return 200, {}, b"" if self.rename2 and "renameoptions" in query else {"boolean": True}
        return 400, {}, {"RemoteException": {"exception": "IllegalArgumentException", "message": f"unknown op {op}"}}


class Shrinking:
    """A local file that is 2 MB long although 3 MB were announced: the upload breaks off."""

    name = "shrinking.bin"

    def __init__(self):
        import io

        self.data = io.BytesIO(b"n" * 2_000_000)

    def read(self, n: int = -1) -> bytes:
        return self.data.read(n)

    def seek(self, offset: int) -> None:
        self.data.seek(offset)


def test_a_broken_put_leaves_no_part_of_the_file_under_its_name_on_a_real_namenode():
    """A Hadoop namenode keeps what arrived under the name the client created: so a put creates a
    temporary name and renames it into place (replacing the old file in one step, or on HttpFS,
    which ignores the rename's OVERWRITE, by moving the old one aside first)."""
    import pytest

    from pai_lsp.errors import InvalidInput
    from pai_lsp.storage.base import Body

    for rename2 in (True, False):
        hadoop = HadoopLike(rename2)
        with StandIn(hadoop.respond) as server:
            hdfs = Hdfs(server.url, "alice")
            hdfs.put("/user/alice/model.bin", b"version 1")
            with pytest.raises(InvalidInput, match="^shrinking.bin got shorter"), Body(Shrinking(), 3_000_000, digest=None) as body:
                hdfs.put("/user/alice/model.bin", body)
            assert hadoop.files == {"/user/alice/model.bin": b"version 1"}, rename2  # the old one, whole; no leftover
            hdfs.put("/user/alice/model.bin", b"version 2")
            assert hadoop.files == {"/user/alice/model.bin": b"version 2"}, rename2
