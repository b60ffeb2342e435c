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
