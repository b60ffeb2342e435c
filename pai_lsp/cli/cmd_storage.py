"""`pai storage list|ls|stat|du|mkdir|cat|rm|mv|put|get`: the storages a cluster's jobs mount
(Kubernetes-era OpenPAI, the local cluster), through the daemon, with `hdfs dfs` habits: no overwrite
without -f, `-` for standard input and output, -R, -h, -o json. A path is `STORAGE:PATH` (PATH from
the storage's root; a `share: false` storage's root is your folder of it, as your jobs see it).

The file verbs are the daemon's `hdfs.*` with `storage` set: one command set over every storage.
"""

from __future__ import annotations

import argparse
import posixpath
import sys
from typing import Any

from .. import api
from ..core.messages import message
from ..daemon import client as daemon
from ..errors import InvalidInput
from .args import _, command, group, ngettext
from .output import add_output_option, human_size, print_json, visible

WHERE = "STORAGE:PATH, e.g. local:/code (PATH from the storage's root; `pai storage list` names the storages)"


def storage_paths(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    """Storage names (`name:`) until a `:` is typed, then the entries of the folder typed so far."""
    from .complete import _ask

    cluster = getattr(parsed_args, "cluster", None)
    if ":" not in prefix:
        answer = _ask(api.StorageList(cluster=cluster))
        return [f"{s.name}:/" for s in answer.storages] if answer else []
    name, _, path = prefix.partition(":")
    folder = posixpath.dirname(path) or "/"
    answer = _ask(api.HdfsList(path=folder, storage=name, cluster=cluster))
    if not answer:
        return []
    return [f"{name}:{posixpath.join(folder, e.name)}" + ("/" if e.type == "dir" else "") for e in answer.entries]


def _where(parser: argparse.ArgumentParser, name: str, help: str, **kwargs: Any) -> None:
    parser.add_argument(name, help=help, **kwargs).completer = storage_paths  # type: ignore[attr-defined]


def add_commands(sub) -> None:
    s = command(sub, "storage", "list the cluster's storages and move files in and out of them", [
        ("pai storage list", "the storages you may mount: type, server, read-only, mount path, default"),
        ("pai storage put -R code/ local:/code/", "upload a folder into the storage local"),
        ("pai storage cat local:/code/train.py", "print a file")],
        epilog="A job mounts a storage through extras.storages; it sees it at /mnt/<name>.")
    from .args import cluster_option as _cluster_option

    _cluster_option(s)
    ssub = group(s, "storage_command")
    human = {"action": "store_true", "help": "sizes as 4.9 K, 1.2 G (as hdfs dfs -h)"}
    add_output_option(command(ssub, "list", "the storages you may mount", [
        ("pai storage list", "name, type, server, read-only, mount path, default, share"),
        ("pai storage list -o json", "as JSON (never a credential)")]))
    p = command(ssub, "ls", "list a folder", [("pai storage ls local:/", "the storage's root"),
                                              ("pai storage ls -R -h local:/code", "everything under code")], add_help=False)
    p.add_argument("--help", action="help", help="show this help and exit")
    _where(p, "where", WHERE, metavar="STORAGE:PATH")
    p.add_argument("-R", "--recursive", action="store_true", help="everything under the folder too")
    p.add_argument("-h", "--human-readable", **human)
    add_output_option(p)
    p = command(ssub, "stat", "show one entry", [("pai storage stat local:/code/train.py", "")])
    _where(p, "where", WHERE, metavar="STORAGE:PATH")
    add_output_option(p)
    p = command(ssub, "du", "how much a file or folder holds", [("pai storage du -s -h local:/code", "one total")],
                add_help=False)
    p.add_argument("--help", action="help", help="show this help and exit")
    _where(p, "where", WHERE, metavar="STORAGE:PATH")
    p.add_argument("-s", "--summary", action="store_true", help="one total for PATH rather than a line for each entry in it")
    p.add_argument("-h", "--human-readable", **human)
    add_output_option(p)
    for op, helptext, example in (("mkdir", "make a folder (and parents)", "pai storage mkdir local:/data/raw"),
                                  ("cat", "print a file", "pai storage cat local:/code/train.py")):
        _where(command(ssub, op, helptext, [(example, "")]), "where", WHERE, metavar="STORAGE:PATH")
    p = command(ssub, "rm", "remove a file (a folder with -r)", [("pai storage rm -r local:/old", "a folder and all in it")])
    _where(p, "where", WHERE, metavar="STORAGE:PATH")
    p.add_argument("-r", "-R", "--recursive", action="store_true", help="remove a folder with everything in it")
    p = command(ssub, "mv", "move or rename within one storage", [("pai storage mv local:/code local:/code-v1", "")])
    _where(p, "src", "what to move: " + WHERE, metavar="SRC")
    _where(p, "dst", "where to, in the same storage", metavar="DST")
    p = command(ssub, "put", "upload a file or folder", [
        ("pai storage put train.py local:/code/", "into the folder code (made if missing)"),
        ("pai storage put -f train.py local:/code/train.py", "replacing the file there"),
        ("tar c src | pai storage put - local:/src.tar", "standard input as a file")])
    p.add_argument("local", metavar="LOCAL", help="a local file or folder; - reads standard input")
    _where(p, "where", "where to: " + WHERE + "; into it when it is a folder or ends with /", metavar="STORAGE:PATH")
    p.add_argument("-f", "--force", action="store_true", help="replace what is there already (as hdfs dfs -put -f)")
    p.add_argument("-R", "--recursive", action="store_true", help="(a folder is always put whole, as hdfs dfs -put does)")
    p = command(ssub, "get", "download a file or folder", [
        ("pai storage get local:/code/train.py", "into the current folder"),
        ("pai storage get local:/data.csv - | head", "to standard output")])
    _where(p, "where", "what to download: " + WHERE, metavar="STORAGE:PATH")
    p.add_argument("local", nargs="?", default=".", metavar="LOCAL",
                   help="where to (default: .): into it when it is a folder or ends with /; - writes standard output")
    p.add_argument("-f", "--force", action="store_true", help="replace what is there already (as hdfs dfs -get -f)")
    p.add_argument("-R", "--recursive", action="store_true", help="(a folder is always got whole, as hdfs dfs -get does)")


def split(where: str) -> tuple[str, str]:
    """`STORAGE:PATH` as (storage, absolute path); one line when it is not one."""
    name, colon, path = where.partition(":")
    if not colon or not name or "/" in name:
        raise InvalidInput(message("cli.storage-path", value=where))
    return name, "/" + path.lstrip("/")


def run(args: argparse.Namespace) -> int:
    from .cmd_daemon import restart_if_stale

    restart_if_stale()
    op, cluster = args.storage_command, args.cluster
    if op == "list":
        return _list(cluster, args.output)
    if op == "mv":
        (name, src), (other, dst) = split(args.src), split(args.dst)
        if other != name:
            raise InvalidInput(message("cli.storage-mv-across", src=args.src, dst=args.dst))
        moved = daemon.call_sync(api.HdfsMove(source=src, target=dst, storage=name, cluster=cluster))
        print(visible(_("moved {source} to {target}").format(source=f"{name}:{moved.source}", target=f"{name}:{moved.target}")))
        return 0
    name, path = split(args.where)
    if op == "cat" or (op == "get" and args.local == "-"):
        from .cmd_hdfs import cat_to_stdout

        return cat_to_stdout(path, cluster, name)
    if op == "put":
        return _put(args, cluster, name, path)
    if op == "get":
        from .args import local_path as _local
        from .output import bar_updater as _bar_updater
        from .output import progress_bar as _progress

        with _progress() as bar:
            got = daemon.call_sync(api.HdfsGet(local=_local(args.local), remote=path, storage=name, cluster=cluster,
                                               progress_token="cli", overwrite=args.force),
                                   _bar_updater(bar, bar.add_task("downloading", total=None)))
        print(visible(ngettext("downloaded {files} file, {bytes:,} bytes to {path}", "downloaded {files} files, {bytes:,} bytes to {path}",
                               got.files).format(files=got.files, bytes=got.bytes, path=got.path)))
        return 0
    params: api.Params = {
        "ls": lambda: api.HdfsList(path=path, storage=name, cluster=cluster, recursive=args.recursive),
        "stat": lambda: api.HdfsStat(path=path, storage=name, cluster=cluster),
        "du": lambda: api.HdfsDu(path=path, storage=name, cluster=cluster, summary=args.summary),
        "mkdir": lambda: api.HdfsMkdir(path=path, storage=name, cluster=cluster),
        "rm": lambda: api.HdfsRemove(path=path, storage=name, cluster=cluster, recursive=args.recursive),
    }[op]()
    result = daemon.call_sync(params)
    if getattr(args, "output", "text") == "json":
        print_json(result)
        return 0
    from .cmd_hdfs import ls_line, stat_line

    size = human_size if getattr(args, "human_readable", False) else str
    if op == "ls":
        for e in result.entries:
            print(visible(ls_line(e, size)))
    elif op == "du":
        for u in result.entries:
            print(visible(f"{size(u.bytes):>12}  {name}:{u.path}"))
    elif op == "stat":
        print(visible(stat_line(f"{name}:{result.path}", result)))
    else:
        print(visible((_("removed {path}") if op == "rm" else _("made {path}")).format(path=f"{name}:{result.path}")))
    return 0


def _list(cluster: str | None, output: str) -> int:
    answer = daemon.call_sync(api.StorageList(cluster=cluster))
    if output == "json":
        print_json(answer)
        return 0
    rows = [("NAME", "TYPE", "SERVER", "ACCESS", "MOUNT PATH", "DEFAULT", "SHARE")]
    rows += [(s.name, s.type or "(unbound)", s.server or "-", "ro" if s.read_only else "rw", s.mount_path,
              "yes" if s.default else "", "yes" if s.share else "no (your folder only)") for s in answer.storages]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print(visible("  ".join(cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)) + "  " + row[-1]))
    if not answer.storages:
        from ..core.messages import render
        from .output import terminal_locale

        print(visible(render("cli.no-storages", terminal_locale(), cluster=answer.cluster)), file=sys.stderr)
    return 0


def _put(args: argparse.Namespace, cluster: str | None, name: str, path: str) -> int:
    """A local file or folder, or standard input (`-`: spooled to a private temporary file, then put
    as a file named as PATH says)."""
    import tempfile

    from .args import local_path as _local
    from .output import bar_updater as _bar_updater
    from .output import progress_bar as _progress

    with tempfile.TemporaryDirectory(prefix="pai-put-") as folder:
        local = _local(args.local)
        if args.local == "-":
            from .cmd_hdfs import spool_stdin

            local = spool_stdin(folder, path)
        with _progress() as bar:
            put = daemon.call_sync(api.HdfsPut(local=local, remote=path, storage=name, cluster=cluster, progress_token="cli",
                                               overwrite=args.force),
                                   _bar_updater(bar, bar.add_task("uploading", total=None)))
    said = _("uploaded standard input, {bytes:,} bytes to {path}") if args.local == "-" else \
        ngettext("uploaded {files} file, {bytes:,} bytes to {path}", "uploaded {files} files, {bytes:,} bytes to {path}", put.files)
    print(visible(said.format(files=put.files, bytes=put.bytes, path=f"{name}:{put.path}")))
    return 0
