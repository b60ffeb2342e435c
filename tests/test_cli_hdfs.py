"""`pai hdfs …` against the local cluster's HDFS, and the same through the editor's commands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from .helpers.cli import on_a_terminal, pai, typed_on_a_terminal
from .helpers.standin import StandIn

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster


def test_put_ls_cat_tail_mv_get_rm(env, tmp_path):
    src = tmp_path / "data"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("hello\n")
    (src / "sub" / "b.bin").write_bytes(bytes(range(256)) * 10)
    assert pai(env, "hdfs", "mkdir", "explore").returncode == 0
    put = pai(env, "hdfs", "put", str(src), "explore")
    assert put.returncode == 0 and put.stdout.startswith("uploaded 2 files, 2,566 bytes to /user/")
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


def _user(env) -> str:
    return json.loads(pai(env, "hdfs", "stat", ".", "-o", "json").stdout)["path"].rsplit("/", 1)[1]


def test_nothing_is_replaced_without_f_and_a_trailing_slash_means_a_folder(env, tmp_path):
    """As `hdfs dfs`: put and get refuse to overwrite unless -f; `get f new/dir/` makes the folder
    dir and writes f into it, never a file named dir."""
    local = tmp_path / "f.txt"
    local.write_text("one\n")
    assert pai(env, "hdfs", "put", str(local), "safe/").returncode == 0  # into the folder safe, made for it
    home = f"/user/{_user(env)}"
    assert pai(env, "hdfs", "cat", "safe/f.txt").stdout == "one\n"
    local.write_text("two\n")
    again = pai(env, "hdfs", "put", str(local), "safe/f.txt")
    assert (again.returncode, again.stderr) == (1, f"pai hdfs: {home}/safe/f.txt exists already (-f replaces it)\n")
    into = pai(env, "hdfs", "put", str(local), "safe")  # into the existing folder: the same file
    assert into.returncode == 1 and "exists already" in into.stderr
    assert pai(env, "hdfs", "cat", "safe/f.txt").stdout == "one\n"
    assert pai(env, "hdfs", "put", "-f", str(local), "safe/f.txt").returncode == 0
    assert pai(env, "hdfs", "cat", "safe/f.txt").stdout == "two\n"
    local.write_text("mine\n")
    got = pai(env, "hdfs", "get", "safe/f.txt", str(local))
    assert (got.returncode, got.stderr) == (1, f"pai hdfs: {local} exists already (-f replaces it)\n")
    assert local.read_text() == "mine\n"
    assert pai(env, "hdfs", "get", "-f", "safe/f.txt", str(local)).returncode == 0 and local.read_text() == "two\n"
    folder = tmp_path / "new" / "dir"
    made = pai(env, "hdfs", "get", "safe/f.txt", str(folder) + "/")
    assert made.returncode == 0 and made.stdout == f"downloaded 1 file, 4 bytes to {folder / 'f.txt'}\n"
    assert folder.is_dir() and (folder / "f.txt").read_text() == "two\n"
    onto_file = pai(env, "hdfs", "get", "safe/f.txt", str(local) + "/")
    assert onto_file.returncode == 1 and f"{local} is a file, not a folder" in onto_file.stderr
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("a\n")
    assert pai(env, "hdfs", "put", str(tree), "safe").returncode == 0
    twice = pai(env, "hdfs", "put", str(tree), "safe")
    assert twice.returncode == 1 and f"{home}/safe/tree exists already" in twice.stderr
    assert pai(env, "hdfs", "rm", "-r", "safe").returncode == 0


def test_put_refuses_what_is_no_file_or_folder_and_mkdir_names_the_file_in_the_way(env, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    loop = tmp_path / "a"
    loop.symlink_to(tmp_path / "a")
    cases = {str(fifo): f"{fifo} is a FIFO (a named pipe), not a file or folder: nothing of a known size to upload",
             "/dev/zero": "/dev/zero is a device, not a file or folder: nothing of a known size to upload",
             str(loop): f"{loop}: a symbolic link that loops (it leads back to itself)"}
    for local, said in cases.items():
        result = pai(env, "hdfs", "put", local, "x")
        assert (result.returncode, result.stderr) == (1, f"pai hdfs: {said}\n"), result.stderr
    plain = tmp_path / "x.py"
    plain.write_text("print()\n")
    assert pai(env, "hdfs", "put", str(plain), "x.py").returncode == 0
    home = f"/user/{_user(env)}"
    over = pai(env, "hdfs", "mkdir", "x.py")
    assert (over.returncode, over.stderr) == (1, f"pai hdfs: {home}/x.py is a file: no folder can be made there\n")
    under = pai(env, "hdfs", "mkdir", "x.py/sub")
    assert under.stderr == f"pai hdfs: {home}/x.py is a file: no folder can be made in it ({home}/x.py/sub)\n"
    assert pai(env, "hdfs", "rm", "x.py").returncode == 0


def test_ls_recursive_du_and_sizes_for_people_and_json(env, tmp_path):
    src = tmp_path / "sized"
    (src / "deep").mkdir(parents=True)
    (src / "one.bin").write_bytes(b"x" * 5000)
    (src / "deep" / "two.bin").write_bytes(b"y" * 3 * 1024 * 1024)
    assert pai(env, "hdfs", "put", str(src), "sized").returncode == 0
    listing = pai(env, "hdfs", "ls", "-R", "-h", "sized").stdout.splitlines()
    assert [line.split()[-1] for line in listing] == ["deep", "deep/two.bin", "one.bin"]
    assert listing[1].split()[3:5] == ["3.0", "M"] and listing[2].split()[3:5] == ["4.9", "K"]
    du = pai(env, "hdfs", "du", "sized").stdout.splitlines()
    home = f"/user/{_user(env)}"
    assert [line.split() for line in du] == [[str(3 * 1024 * 1024), f"{home}/sized/deep"], ["5000", f"{home}/sized/one.bin"]]
    total = json.loads(pai(env, "hdfs", "du", "-s", "sized", "--json").stdout)
    assert total["entries"] == [{"path": f"{home}/sized", "type": "dir", "bytes": 3 * 1024 * 1024 + 5000, "files": 2, "folders": 1}]
    stat = json.loads(pai(env, "hdfs", "stat", "sized/one.bin", "-o", "json").stdout)
    assert stat["size"] == 5000 and stat["type"] == "file"
    listed = json.loads(pai(env, "hdfs", "ls", "sized", "-o", "json").stdout)
    assert [e["name"] for e in listed["entries"]] == ["deep", "one.bin"]
    assert pai(env, "hdfs", "rm", "-r", "sized").returncode == 0


def test_standard_input_and_output_as_dash(env, tmp_path):
    data = os.urandom(3 * 1024 * 1024 + 17)  # more than one piece of the daemon's answers
    put = subprocess.run([sys.executable, "-m", "pai_lsp", "hdfs", "put", "-", "piped.bin"], input=data, env=env,
                         capture_output=True, timeout=120)
    assert put.returncode == 0, put.stderr
    assert put.stdout.decode().startswith(f"uploaded standard input, {len(data):,} bytes to /user/")
    got = subprocess.run([sys.executable, "-m", "pai_lsp", "hdfs", "get", "piped.bin", "-"], env=env, capture_output=True,
                         timeout=120)
    assert got.returncode == 0 and got.stdout == data
    cat = subprocess.run([sys.executable, "-m", "pai_lsp", "hdfs", "cat", "piped.bin"], env=env, capture_output=True, timeout=120)
    assert cat.stdout == data
    head = subprocess.run(f"{sys.executable} -m pai_lsp hdfs cat piped.bin | head -c 10", shell=True, env=env,
                          capture_output=True, timeout=120)
    assert head.stdout == data[:10] and head.stderr == b""  # a reader that stops early is no error
    assert pai(env, "hdfs", "rm", "piped.bin").returncode == 0


def _until(check, what: str, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.01)
    return found


def _hdfs_names(env, folder: str) -> list[str]:
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    answer = httpx.get(f"{info['hdfs']}/webhdfs/v1{folder}?op=LISTSTATUS")
    return [s["pathSuffix"] for s in answer.json()["FileStatuses"]["FileStatus"]] if answer.status_code == 200 else []


def test_ctrl_c_stops_a_transfer_in_the_daemon_and_leaves_nothing_in_part(env, tmp_path):
    """Ctrl-C once exited 130 without a word while the daemon went on (a 400 MB file arrived in full
    afterwards, a 100 MB temporary file in the destination meanwhile)."""
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(400 * 1024 * 1024)
    home = f"/user/{_user(env)}"
    assert pai(env, "hdfs", "mkdir", "cut").returncode == 0
    put = subprocess.Popen([sys.executable, "-m", "pai_lsp", "hdfs", "put", str(big), "cut/"], env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    staging = Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "hdfs-staging"  # where the local cluster keeps a file while it arrives
    _until(lambda: staging.is_dir() and any(p.stat().st_size for p in staging.iterdir()), "the upload to start")
    put.send_signal(signal.SIGINT)
    out, err = put.communicate(timeout=60)
    assert (put.returncode, err, out) == (130, f"pai hdfs: cancelled: nothing was written to {home}/cut/big.bin\n", "")
    assert _hdfs_names(env, f"{home}/cut") == []
    time.sleep(2)
    assert _hdfs_names(env, f"{home}/cut") == [] and list(staging.iterdir()) == []  # not finished in the background either
    assert pai(env, "hdfs", "put", str(big), "cut/").returncode == 0
    dest = tmp_path / "dest"
    dest.mkdir()
    get = subprocess.Popen([sys.executable, "-m", "pai_lsp", "hdfs", "get", "cut/big.bin", str(dest)], env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _until(lambda: any(p.name.endswith(".tmp") for p in dest.iterdir()), "the download to start")
    get.send_signal(signal.SIGINT)
    out, err = get.communicate(timeout=60)
    assert (get.returncode, err, out) == (130, f"pai hdfs: cancelled: nothing was written to {dest / 'big.bin'}\n", "")
    time.sleep(1)
    assert list(dest.iterdir()) == []
    assert pai(env, "hdfs", "rm", "-r", "cut").returncode == 0


def test_the_progress_of_a_put_on_a_terminal_counts_its_bytes(env, tmp_path):
    """It once showed "0/? bytes" throughout."""
    import re

    big = tmp_path / "progress.bin"
    with open(big, "wb") as f:
        f.truncate(300 * 1024 * 1024)
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", on_a_terminal(env, "hdfs", "put", str(big), "progress.bin"))
    frames = re.findall(r"uploading\S* [^\r\n]*?([0-9.]+)/([0-9.?]+) (MB|bytes)", shown)
    assert any(total == "314.6" and 0 < float(done) < 314.6 for done, total, _ in frames), shown[-2000:]
    assert "uploaded 1 file, 314,572,800 bytes to /user/" in shown
    assert pai(env, "hdfs", "rm", "progress.bin").returncode == 0



def test_ctrl_c_typed_on_the_terminal_stops_a_put_and_says_so_on_a_line_of_its_own(env, tmp_path):
    """Ctrl-C from the terminal (SIGINT to the whole foreground group) while the progress bar shows:
    the upload stops in the daemon, nothing arrives, one line that the bar does not overwrite. Typed
    as the bar appeared, it once added Python's "coroutine 'call' was never awaited" warning."""
    import re

    big = tmp_path / "typed.bin"
    with open(big, "wb") as f:
        f.truncate(400 * 1024 * 1024)
    home = f"/user/{_user(env)}"
    staging = Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "hdfs-staging"
    assert pai(env, "hdfs", "mkdir", "typed").returncode == 0
    cancelled = f"pai hdfs: cancelled: nothing was written to {home}/typed/typed.bin"

    def said(shown: str) -> list[str]:
        """The lines as the terminal shows them: what follows the last carriage return of each."""
        return [line.split("\r")[-1] for line in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown).replace("\r\n", "\n").split("\n")]

    code, shown = typed_on_a_terminal(env, b"\x03", b"uploading", "hdfs", "put", str(big), "typed/")
    assert code == 130 and said(shown)[-2:] in (["pai hdfs: interrupted", ""], [cancelled, ""]), shown
    code, shown = typed_on_a_terminal(env, b"\x03", lambda _: staging.is_dir() and any(p.stat().st_size for p in staging.iterdir()),
                                      "hdfs", "put", str(big), "typed/")
    assert code == 130 and said(shown)[-2:] == [cancelled, ""], shown
    time.sleep(1)
    assert _hdfs_names(env, f"{home}/typed") == [] and list(staging.iterdir()) == []
    assert pai(env, "hdfs", "rm", "-r", "typed").returncode == 0
def test_a_daemon_error_is_said_in_the_terminals_language(env, tmp_path):
    """The daemon says a failure as a catalogue code (it serves an English terminal and a Chinese
    editor at once); `pai` says it in its own terminal's language, LANG."""
    assert pai(env, "hdfs", "mkdir", "said/folder").returncode == 0
    chinese = pai({**env, "LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "hdfs", "rm", "said")
    assert chinese.returncode == 1 and chinese.stderr.startswith("pai hdfs: ") and "是文件夹：请用 -r 连同其内容一起删除" in chinese.stderr
    english = pai({**env, "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "hdfs", "rm", "said")
    assert english.returncode == 1 and "is a folder: use -r to remove it with everything in it" in english.stderr


def test_a_file_name_with_terminal_escapes_is_listed_with_them_made_visible(env):
    """Another user names a file in the shared /tmp with escape sequences (a window title, a clear
    screen): `pai hdfs ls`, `stat` and `du` show them as `ls -b` does; `-o json` gives the name exactly."""
    assert pai(env, "hdfs", "ls", "/").returncode == 0  # the local cluster is up
    hdfs = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())["hdfs"]
    name = "x\x1b]0;pwned\x07\x1b[2J\u009bz\nfake.txt"
    created = httpx.put(f"{hdfs}/webhdfs/v1/tmp/{quote(name)}", content=b"boo",
                        params={"op": "CREATE", "user.name": "mallory", "datanode": "true"})
    assert created.status_code < 300, created.text
    shown = "x\\033]0;pwned\\a\\033[2J\\233z\\nfake.txt"
    for words in (["ls", "/tmp"], ["stat", f"/tmp/{name}"], ["du", "/tmp"]):
        result = pai(env, "hdfs", *words)
        assert result.returncode == 0, result.stderr
        assert shown in result.stdout and "\x1b" not in result.stdout and "\x07" not in result.stdout, result.stdout
    exact = json.loads(pai(env, "hdfs", "ls", "/tmp", "-o", "json").stdout)
    assert name in [e["name"] for e in exact["entries"]]
    raw = pai(env, "hdfs", "cat", f"/tmp/{name}")  # contents, asked for: as they are
    assert raw.stdout == "boo"
    missing = pai(env, "hdfs", "stat", f"/tmp/{name}\x1b[31m")  # an error naming the path says it visibly too
    assert missing.returncode == 3 and "\x1b" not in missing.stderr and "\\033[31m" in missing.stderr
