"""`pai hdfs ls|stat|du|mkdir|cat|tail|rm|mv|put|get`: the cluster's HDFS (or PFS) through the daemon,
as `hdfs dfs` says it."""

from __future__ import annotations

import argparse
import posixpath
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import api
from ..daemon import client as daemon
from . import complete
from .args import _, cluster_option, command, group, local_path, ngettext
from .cmd_daemon import restart_if_stale
from .output import add_output_option, bar_updater, human_size, print_json, progress_bar, visible

STDOUT_PIECE = 1 << 20  # bytes of a file asked for at a time when it goes to standard output


def _hdfs_path(parser: argparse.ArgumentParser, name: str, help: str, **kwargs) -> None:
    parser.add_argument(name, help=help, **kwargs).completer = complete.hdfs_paths  # type: ignore[attr-defined]


HDFS_PATH = "an HDFS path: relative to /user/<you> (on PFS: your home there), or absolute"


def add_commands(sub) -> None:
    h = command(sub, "hdfs", "browse and move files on the cluster's HDFS", [
        ("pai hdfs ls", "your home, /user/<you>"),
        ("pai hdfs put model.pt models/", "upload into the folder models (made if missing)"),
        ("pai hdfs get models/model.pt -", "to standard output")],
        epilog="Options of `pai hdfs` (--cluster) go before or after the subcommand.")
    cluster_option(h)
    hsub = group(h, "hdfs_command")
    human = {"action": "store_true", "help": "sizes as 4.9 K, 1.2 G (as hdfs dfs -h)"}
    p = command(hsub, "ls", "list a folder", [
        ("pai hdfs ls", "your home"), ("pai hdfs ls -R -h code", "everything under code, sizes as 1.2 M"),
        ("pai hdfs ls / -o json", "as JSON")], add_help=False)
    p.add_argument("--help", action="help", help="show this help and exit")
    _hdfs_path(p, "path", HDFS_PATH + " (default: your home)", nargs="?", metavar="PATH")
    p.add_argument("-R", "--recursive", action="store_true", help="everything under the folder too")
    p.add_argument("-h", "--human-readable", **human)
    add_output_option(p)
    p = command(hsub, "stat", "show one entry", [("pai hdfs stat code/train.py", ""), ("pai hdfs stat code -o json", "")])
    _hdfs_path(p, "path", HDFS_PATH, metavar="PATH")
    add_output_option(p)
    p = command(hsub, "du", "how much a file or folder holds", [
        ("pai hdfs du -h", "each entry of your home, sizes as 1.2 G"), ("pai hdfs du -s code", "one total for code")],
        add_help=False)
    p.add_argument("--help", action="help", help="show this help and exit")
    _hdfs_path(p, "path", HDFS_PATH + " (default: your home)", nargs="?", metavar="PATH")
    p.add_argument("-s", "--summary", action="store_true", help="one total for PATH rather than a line for each entry in it")
    p.add_argument("-h", "--human-readable", **human)
    add_output_option(p)
    for op, helptext, example in (("mkdir", "make a folder (and parents)", "pai hdfs mkdir data/raw"),
                                  ("cat", "print a file", "pai hdfs cat code/train.py"),
                                  ("tail", "print the end of a file", "pai hdfs tail -c 4096 logs/run.log")):
        p = command(hsub, op, helptext, [(example, "")])
        _hdfs_path(p, "path", HDFS_PATH, metavar="PATH")
        if op == "tail":
            p.add_argument("-c", "--bytes", type=int, default=1024, help="how many bytes from the end (default: 1024)")
    p = command(hsub, "rm", "remove a file (a folder with -r)", [("pai hdfs rm -r old-code", "a folder and all in it")])
    _hdfs_path(p, "path", HDFS_PATH, metavar="PATH")
    p.add_argument("-r", "--recursive", action="store_true", help="remove a folder with everything in it")
    p = command(hsub, "mv", "move or rename", [("pai hdfs mv code code-v1", "")])
    _hdfs_path(p, "src", "what to move: " + HDFS_PATH, metavar="SRC")
    _hdfs_path(p, "dst", "where to: a new name, or a folder to move it into", metavar="DST")
    p = command(hsub, "put", "upload a file or folder", [
        ("pai hdfs put data.csv data/", "into the folder data (made if missing)"),
        ("pai hdfs put -f data.csv data/data.csv", "replacing the file there"),
        ("tar c src | pai hdfs put - src.tar", "standard input as a file")])
    p.add_argument("local", metavar="LOCAL", help="a local file or folder; - reads standard input")
    _hdfs_path(p, "remote", "where to: " + HDFS_PATH + "; into it when it is a folder or ends with /", metavar="REMOTE")
    p.add_argument("-f", "--force", action="store_true", help="replace what is there already (as hdfs dfs -put -f)")
    p = command(hsub, "get", "download a file or folder", [
        ("pai hdfs get data/data.csv", "into the current folder"),
        ("pai hdfs get -f code ./backup/", "into the folder backup (made if missing), replacing what is there"),
        ("pai hdfs get data/data.csv - | head", "to standard output")])
    _hdfs_path(p, "remote", "what to download: " + HDFS_PATH, metavar="REMOTE")
    p.add_argument("local", nargs="?", default=".", metavar="LOCAL",
                   help="where to (default: .): into it when it is a folder or ends with /; - writes standard output")
    p.add_argument("-f", "--force", action="store_true", help="replace what is there already (as hdfs dfs -get -f)")



def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    restart_if_stale()
    return cmd_hdfs(args)


def cmd_hdfs(args: argparse.Namespace) -> int:
    op, cluster = args.hdfs_command, args.cluster
    if op in ("cat", "tail") or (op == "get" and args.local == "-"):
        return _hdfs_to_stdout(args)
    if op == "put" and args.local == "-":
        return _hdfs_put_stdin(args)
    params: api.Params = {
        "ls": lambda: api.HdfsList(path=args.path or "", cluster=cluster, recursive=args.recursive),
        "stat": lambda: api.HdfsStat(path=args.path, cluster=cluster),
        "du": lambda: api.HdfsDu(path=args.path or "", cluster=cluster, summary=args.summary),
        "mkdir": lambda: api.HdfsMkdir(path=args.path, cluster=cluster),
        "rm": lambda: api.HdfsRemove(path=args.path, recursive=args.recursive, cluster=cluster),
        "mv": lambda: api.HdfsMove(source=args.src, target=args.dst, cluster=cluster),
        "put": lambda: api.HdfsPut(local=local_path(args.local), remote=args.remote, progress_token="cli",
                                        cluster=cluster, overwrite=args.force),
        "get": lambda: api.HdfsGet(local=local_path(args.local), remote=args.remote, progress_token="cli",
                                        cluster=cluster, overwrite=args.force),
    }[op]()
    with progress_bar() as bar:
        result = daemon.call_sync(params, bar_updater(bar, bar.add_task("uploading" if op == "put" else "downloading", total=None)))
    if getattr(args, "output", "text") == "json":
        print_json(result)
        return 0
    size = human_size if getattr(args, "human_readable", False) else str
    if op == "ls":
        for e in result.entries:
            print(visible(ls_line(e, size)))
    elif op == "du":
        for e in result.entries:
            print(visible(f"{size(e.bytes):>12}  {e.path}"))
    elif op == "stat":
        print(visible(stat_line(result.path, result)))
    elif op in ("put", "get"):
        said = ngettext("uploaded {files} file, {bytes:,} bytes to {path}", "uploaded {files} files, {bytes:,} bytes to {path}",
                        result.files) if op == "put" else \
            ngettext("downloaded {files} file, {bytes:,} bytes to {path}", "downloaded {files} files, {bytes:,} bytes to {path}",
                     result.files)
        print(visible(said.format(files=result.files, bytes=result.bytes, path=result.path)))
    elif op == "mv":
        print(visible(_("moved {source} to {target}").format(source=result.source, target=result.target)))
    else:
        print(visible((_("removed {path}") if op == "rm" else _("made {path}")).format(path=result.path)))
    return 0


def _hdfs_to_stdout(args: argparse.Namespace) -> int:
    """`cat`, `tail` and `get REMOTE -`: the file to standard output, piece by piece (memory stays
    flat whatever its size)."""
    import base64

    path = args.path if args.hdfs_command != "get" else args.remote
    if args.hdfs_command == "tail":
        result = daemon.call_sync(api.HdfsTail(path=path, size=args.bytes, cluster=args.cluster))
        sys.stdout.buffer.write(base64.b64decode(result.data))
        sys.stdout.flush()
        return 0
    return cat_to_stdout(path, args.cluster)


def cat_to_stdout(path: str, cluster: str | None, storage: str | None = None) -> int:
    """A file (of HDFS, or of the cluster's `storage`) to standard output, piece by piece: memory stays
    flat whatever its size."""
    import base64

    offset = 0
    while True:
        piece = base64.b64decode(daemon.call_sync(api.HdfsCat(path=path, cluster=cluster, storage=storage, offset=offset,
                                                              length=STDOUT_PIECE)).data)
        sys.stdout.buffer.write(piece)
        sys.stdout.buffer.flush()
        offset += len(piece)
        if len(piece) < STDOUT_PIECE:
            return 0


def _hdfs_put_stdin(args: argparse.Namespace) -> int:
    """`put - REMOTE`: standard input, spooled to a private temporary file (the daemon reads files,
    and a pipe's size is known only at its end), then put as a file named as REMOTE says."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pai-put-") as folder:  # put into a folder (`-` to `data/`) as `stdin`
        spooled = spool_stdin(folder, args.remote)
        with progress_bar() as bar:
            result = daemon.call_sync(api.HdfsPut(local=str(spooled), remote=args.remote, progress_token="cli",
                                                       cluster=args.cluster, overwrite=args.force),
                                      bar_updater(bar, bar.add_task("uploading", total=None)))
    print(visible(_("uploaded standard input, {bytes:,} bytes to {path}").format(bytes=result.bytes, path=result.path)))
    return 0


def spool_stdin(folder: str, remote: str) -> str:
    """Standard input in a file of `folder` named as `remote`'s last part (`stdin` for a folder): the
    daemon reads files, and a pipe's size is known only at its end."""
    import shutil

    spooled = Path(folder) / (posixpath.basename(remote) or "stdin")
    with open(spooled, "wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
    return str(spooled)


def ls_line(e: Any, size: Callable[[int], str]) -> str:
    """One entry as `hdfs dfs -ls` shows it (`-` where a storage has no owner or time to say)."""
    kind = "d" if e.type == "dir" else "-"
    return (f"{kind}{mode(e.permission)} {(e.owner or '-'):10} {(e.group or '-'):12} {size(e.size):>12} "
            f"{when(e.modified, '%Y-%m-%d %H:%M')} {e.name}")


def stat_line(shown: str, result: Any) -> str:
    return (f"{shown}: {result.type}, {result.size} bytes, {mode(result.permission)} {result.owner or '-'}:{result.group or '-'}, "
            f"modified {when(result.modified, '%Y-%m-%d %H:%M:%S')}")


def when(ms: int | None, form: str) -> str:
    return time.strftime(form, time.localtime(ms / 1000)) if ms else "-"


def mode(octal: str | None) -> str:
    bits = int(octal or "0", 8)
    return "".join(ch if bits & (1 << (8 - i)) else "-" for i, ch in enumerate("rwxrwxrwx"))
