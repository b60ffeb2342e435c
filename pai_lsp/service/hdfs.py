"""The storage explorer's operations (ls, stat, du, mkdir, put, get, rm, mv, cat, tail) on any
`storage.base.Storage`: a cluster's HDFS (WebHDFS, or PaddlePaddle Cloud's PFS) or one of the storages
its jobs mount (Samba, Azure Blob, the local cluster's folders; `service/mounted_storages.py` opens them by
name). Only the `Storage` methods are used here.

Results are the API's classes (`pai_lsp/api.py`). Uploads never leave part of a file under its name
(`Storage.put`); downloads never do either, nor write outside their destination: a remote name with
`/`, `..` or a NUL in it is refused, not followed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat as stat_module
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from ..api import HdfsDuResult, HdfsEntry, HdfsListing, HdfsMoveResult, HdfsStatResult, HdfsTransferResult, HdfsUsage, PathResult
from ..common.atomic import atomic_writer
from ..common.winnames import unfit_name
from ..core.messages import Message, message
from ..errors import Exists, Interrupted, InvalidInput, NotFound, PaiError, PermissionDenied
from ..storage.base import Body, Cancel, Sent, Stat, Storage, partial, said_of
from ..storage.upload import STAGING, bounded

Progress = Callable[[int, int, int, int], None]  # bytes done, bytes total, files done, files total


def absolute(storage: Storage, path: str) -> str:
    """Relative paths are under the storage's home (`/user/<user>` on HDFS, `/pfs/<dc>/home/<user>` on
    PFS, `/` on a mounted storage).
    Every path of the explorer passes here: one that is not Unicode text (a name of bytes that are
    not UTF-8, as a shell may pass) can go into no URL, and is refused."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(message("hdfs.not-utf8", path=repr(path.encode("utf-8", "surrogateescape")),
                                   storage=storage.name)) from None
    if not path.startswith("/"):
        path = f"{storage.home.rstrip('/')}/{path}"
    return posixpath.normpath(path) if path != "/" else "/"


def entry(status: Stat, cls: type[HdfsEntry] = HdfsEntry, **more: str) -> HdfsEntry:
    """`more` overrides (`name`: its path from the folder listed, for `ls -R`)."""
    values = {"name": status.name, "type": "dir" if status.is_dir else "file", "size": status.size, "modified": status.modified,
              "permission": status.permission, "owner": status.owner, "group": status.group}
    return cls(**{**values, **more})


def existing(storage: Storage, path: str) -> Stat:
    status = storage.status(path)
    if status is None:
        raise storage.missing(path)
    return status


def ls(storage: Storage, path: str, recursive: bool = False) -> HdfsListing:
    """A folder's entries (with `recursive`, everything under it, each named by its path from
    the folder, a folder before what it holds); a file's own entry."""
    path = absolute(storage, path)
    status = existing(storage, path)
    if not status.is_dir:
        return HdfsListing(path=path, entries=[entry(status)])
    return HdfsListing(path=path, entries=[entry(s, name=name) for name, s in _walk(storage, path, "", recursive)])


def _walk(storage: Storage, folder: str, prefix: str, recursive: bool) -> Iterator[tuple[str, Stat]]:
    # Uploads in progress (or killed, until the next upload cleans them) are not the user's data.
    for child in storage.list(folder):
        if child.name == STAGING:
            continue
        name = posixpath.join(prefix, child.name) if prefix else child.name
        yield name, child
        if recursive and child.is_dir:
            yield from _walk(storage, posixpath.join(folder, child.name), name, recursive)


def du(storage: Storage, path: str, summary: bool = False) -> HdfsDuResult:
    """How many bytes and files a file or folder holds: one row for `path` with `summary`, else one
    for each entry of a folder (as `hdfs dfs -du [-s]`)."""
    path = absolute(storage, path)
    status = existing(storage, path)

    def usage(full: str, st: Stat) -> HdfsUsage:
        if not st.is_dir:
            return HdfsUsage(path=full, type="file", bytes=st.size, files=1, folders=0)
        files = folders = size = 0
        for _, child in _walk(storage, full, "", True):
            folders += child.is_dir
            files += not child.is_dir
            size += child.size
        return HdfsUsage(path=full, type="dir", bytes=size, files=files, folders=folders)

    if summary or not status.is_dir:
        rows = [usage(path, status)]
    else:
        rows = [usage(posixpath.join(path, child.name), child) for child in storage.list(path) if child.name != STAGING]
    return HdfsDuResult(path=path, entries=rows, bytes=sum(r.bytes for r in rows))


def stat(storage: Storage, path: str) -> HdfsStatResult:
    path = absolute(storage, path)
    return entry(existing(storage, path), HdfsStatResult, path=path, name=posixpath.basename(path) or "/")


def mkdir(storage: Storage, path: str) -> PathResult:
    """A folder and those above it; a file in the way is named, whichever it is."""
    path = absolute(storage, path)
    above = path
    while above != "/":
        status = storage.status(above)
        if status is not None:
            if not status.is_dir:
                raise InvalidInput(message("hdfs.mkdir-over-file", path=above) if above == path
                                   else message("hdfs.mkdir-in-file", above=above, path=path))
            break
        above = posixpath.dirname(above)
    storage.mkdir(path)
    return PathResult(path=path)


def rm(storage: Storage, path: str, recursive: bool = False) -> PathResult:
    path = absolute(storage, path)
    if existing(storage, path).is_dir and not recursive:
        raise InvalidInput(message("hdfs.rm-folder", path=path))
    storage.delete(path, recursive=recursive)
    return PathResult(path=path)


def mv(storage: Storage, src: str, dst: str) -> HdfsMoveResult:
    src, dst = absolute(storage, src), absolute(storage, dst)
    existing(storage, src)
    storage.rename(src, dst)
    return HdfsMoveResult(source=src, target=dst)


def cat(storage: Storage, path: str, offset: int = 0, length: int | None = None) -> bytes:
    path = absolute(storage, path)
    status = existing(storage, path)
    if status.is_dir:
        raise InvalidInput(message("hdfs.not-a-file", path=path))
    if status.size == 0 or offset >= status.size:
        return b""
    return storage.read(path, offset=offset, length=length)


def tail(storage: Storage, path: str, size: int = 1024) -> bytes:
    status = stat(storage, path)
    return cat(storage, path, max(0, status.size - size))


class Tally:
    """A transfer's bytes and files done so far, counted from several threads (each file's bytes as
    they go) and told to `progress` about every half percent, and at the end of each file. Once
    `cancelled` is set (Ctrl-C, the editor's Cancel), the next piece moved raises `Stopped`, so
    every transfer stops within a piece and cleans up as after any failure."""

    def __init__(self, progress: Progress | None, total: int, files: int, cancelled: threading.Event | None = None):
        self.progress, self.total, self.files, self.cancelled = progress, total, files, cancelled
        self.done_bytes = self.done_files = self.told = 0
        self.moving: dict[str, int] = {}  # file -> bytes of it done, while it moves
        self.lock = threading.Lock()

    def _tell(self, force: bool) -> None:
        now = self.done_bytes + sum(self.moving.values())
        if self.progress is not None and (force or now - self.told >= self.total / 200):
            self.told = now
            self.progress(now, self.total, self.done_files, self.files)

    def check(self) -> None:
        if self.cancelled is not None and self.cancelled.is_set():
            raise Stopped(message("jobs.cancelled-upload"))

    @contextlib.contextmanager
    def sending(self, body: Body) -> Iterator[None]:
        """While `body` is sent, a cancel breaks its connection too: a transfer waiting for an
        answer (the last bytes still on their way over a slow link) stops at once."""
        if isinstance(self.cancelled, Cancel):
            self.cancelled.on_set(body.abort)
        yield

    def on(self, name: str) -> Sent:
        def moved(n: int) -> None:
            self.check()
            with self.lock:
                self.moving[name] = n
                self._tell(False)

        return moved

    def finished(self, name: str, size: int) -> None:
        with self.lock:
            self.moving.pop(name, None)
            self.done_bytes += size
            self.done_files += 1
            self._tell(True)


class Stopped(Interrupted):
    """A transfer stopped on request; said again by its caller with what was and was not written."""


def _local_kind(local: Path) -> str:
    """What a local path is, for a transfer: "file", "dir", or a clear refusal."""
    try:
        mode = os.stat(local).st_mode
    except FileNotFoundError:
        if os.path.islink(local):
            raise NotFound(message("hdfs.dangling-link", path=str(local))) from None
        raise NotFound(message("hdfs.no-local", path=str(local))) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InvalidInput(message("hdfs.link-loop", path=str(local))) from None
        raise InvalidInput(message("hdfs.local-error", path=str(local), reason=exc.strerror or str(exc))) from None
    if stat_module.S_ISREG(mode):
        return "file"
    if stat_module.S_ISDIR(mode):
        return "dir"
    what = ("hdfs.kind-fifo" if stat_module.S_ISFIFO(mode) else "hdfs.kind-device" if stat_module.S_ISCHR(mode)
            or stat_module.S_ISBLK(mode) else "hdfs.kind-socket" if stat_module.S_ISSOCK(mode) else "hdfs.kind-special")
    raise InvalidInput(message("hdfs.not-regular", path=str(local), what=message(what)))


def names_folder(path: str) -> bool:
    """A path that ends with a separator means a folder, as in `hdfs dfs` and cp: `x/` is never a file named x."""
    return path.endswith(("/", os.sep)) and path.strip("/" + os.sep) != ""


def put(storage: Storage, local: Path, remote: str, progress: Progress | None = None, threads: int = 8,
        overwrite: bool = False, cancelled: threading.Event | None = None) -> HdfsTransferResult:
    """A file or a folder (recursively); into `remote` when that is an existing folder or ends with
    `/` (a folder made if need be). Something already there is replaced only with `overwrite`
    (`hdfs dfs -put -f`). Files are streamed, a few at a time, so memory stays flat whatever their
    size and number; each appears under its name whole or not at all. A folder that is new there
    is written whole under a temporary name and renamed into place in one step (where the storage
    can rename), so it too appears whole or not at all, for one rename instead of one a file.
    `cancelled` stops it within a piece: nothing is left in part."""
    into = names_folder(remote)
    remote = absolute(storage, remote)
    local = Path(local)
    kind = _local_kind(local)
    target = storage.status(remote)
    if into and target is not None and not target.is_dir:
        raise InvalidInput(message("hdfs.put-into-file", remote=remote, name=local.name))
    if into or (target is not None and target.is_dir):
        remote = posixpath.join(remote, local.name)
        target = storage.status(remote)
    if target is not None:
        if not overwrite:
            raise Exists(message("hdfs.exists", path=remote))
        if target.is_dir != (kind == "dir"):
            raise InvalidInput(message("hdfs.cannot-replace-folder" if target.is_dir else "hdfs.cannot-replace-file",
                                      target=remote, source=str(local)))
    whole = kind == "dir" and target is None and storage.renames
    root = partial(remote) if whole else remote
    files = [(local, root)] if kind == "file" else [
        (p, posixpath.join(root, p.relative_to(local).as_posix())) for p in sorted(local.rglob("*")) if p.is_file()]
    tally = Tally(progress, sum(p.stat().st_size for p, _ in files), len(files), cancelled)
    send_one = storage.write if whole else storage.put

    def send(pair: tuple[Path, str]) -> int:
        path, target = pair
        tally.check()
        with open(path, "rb") as f, Body(f, os.fstat(f.fileno()).st_size, digest=None) as body, tally.sending(body):
            send_one(target, body, tally.on(target))
            return body.size

    try:
        if kind == "dir":
            storage.mkdir(root)  # (an empty folder is put too)
        elif into:
            storage.mkdir(posixpath.dirname(remote))
        for (_, target), size in bounded(send, files, threads):
            tally.finished(target, size)
        tally.check()
        if whole:
            storage.mkdir(posixpath.dirname(remote))
            storage.commit(root, remote)
    except BaseException as exc:
        if whole:
            with contextlib.suppress(PaiError, OSError):
                storage.delete(root, recursive=True)
        if not isinstance(exc, PaiError):
            raise
        stopped = isinstance(exc, Stopped) or (cancelled is not None and cancelled.is_set())  # (a broken connection too)
        reason: Message | str = message("jobs.cancelled-upload") if stopped else said_of(exc, root, remote).said
        if whole:
            raise Interrupted(message("hdfs.put-stopped-whole", reason=reason, name=local.name, remote=remote)) from None
        if len(files) == 1:
            if stopped:
                raise Interrupted(message("hdfs.put-cancelled-kept" if target is not None else "hdfs.put-cancelled",
                                          remote=remote)) from None
            raise said_of(exc, root, remote) from None
        raise Interrupted(message("hdfs.put-stopped", reason=reason, left=len(files) - tally.done_files, total=len(files),
                                  remote=remote)) from None
    return HdfsTransferResult(path=remote, files=len(files), bytes=tally.done_bytes)


def safe_name(name: str) -> str:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise PermissionDenied(message("hdfs.unsafe-name", name=name))
    if problem := unfit_name(name):
        raise PermissionDenied(message("hdfs.unfit-name", name=name, problem=problem))
    return name


def get(storage: Storage, remote: str, local: Path | str, progress: Progress | None = None, overwrite: bool = False,
        cancelled: threading.Event | None = None) -> HdfsTransferResult:
    """A file or a folder (recursively) to `local` (into it, when it is an existing folder or ends
    with `/`: a folder made if need be). Something already there is replaced only with `overwrite`
    (`hdfs dfs -get -f`). Each file appears whole or not at all; `cancelled` stops it within a piece."""
    into = names_folder(str(local))
    local = Path(local)
    remote = absolute(storage, remote)
    status = existing(storage, remote)
    if into and local.exists() and not local.is_dir():
        raise InvalidInput(message("hdfs.get-into-file", path=str(local)))
    if into or local.is_dir():
        local.mkdir(parents=True, exist_ok=True)
        local = local / safe_name(posixpath.basename(remote) or "root")
    if local.exists() or local.is_symlink():
        if not overwrite:
            raise Exists(message("hdfs.exists", path=str(local)))
        if local.is_dir() != status.is_dir:
            raise InvalidInput(message("hdfs.cannot-replace-folder" if local.is_dir() else "hdfs.cannot-replace-file",
                                      target=str(local), source=remote))
    root = local.resolve()
    plan: list[tuple[str, Path, int]] = []

    def collect(rpath: str, lpath: Path, st: Stat) -> None:
        if not st.is_dir:
            plan.append((rpath, lpath, st.size))
            return
        for child in storage.list(rpath):
            name = safe_name(child.name)
            target = lpath / name
            if not str(target.resolve()).startswith(str(root)):
                raise PermissionDenied(message("hdfs.outside", target=str(target), root=str(root)))
            collect(posixpath.join(rpath, name), target, child)

    collect(remote, local, status)
    tally = Tally(progress, sum(size for _, _, size in plan), len(plan), cancelled)
    try:
        for rpath, lpath, size in plan:
            tally.check()
            lpath.parent.mkdir(parents=True, exist_ok=True)
            # Streamed (memory stays flat whatever the size); a broken download never leaves half a file under the real name.
            moved, done = tally.on(rpath), 0
            with atomic_writer(lpath) as out:
                for piece in storage.stream(rpath) if size else ():
                    out.write(piece)
                    done += len(piece)
                    moved(done)
            tally.finished(rpath, done)
    except Stopped:
        if len(plan) == 1 and not status.is_dir:
            raise Interrupted(message("hdfs.get-cancelled", path=str(local))) from None
        raise Interrupted(message("hdfs.get-stopped", done=tally.done_files, total=len(plan), path=str(local))) from None
    if status.is_dir:
        local.mkdir(parents=True, exist_ok=True)
    return HdfsTransferResult(path=str(local), files=len(plan), bytes=tally.done_bytes)
