"""The HDFS explorer's operations (ls, stat, mkdir, put, get, rm, mv, cat, tail) on a cluster's
storage, whatever its kind (WebHDFS or PaddlePaddle Cloud's PFS): only `storage.base.Storage`'s
methods are used here.

Results are the API's classes (`pai_lsp/api.py`). Uploads never leave part of a file under its name
(`Storage.put`); downloads never do either, nor write outside their destination: a remote name with
`/`, `..` or a NUL in it is refused, not followed.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..api import HdfsEntry, HdfsListing, HdfsMoveResult, HdfsStatResult, HdfsTransferResult, PathResult
from ..core.messages import message
from ..errors import Interrupted, InvalidInput, NotFound, PaiError, PermissionDenied
from ..files import atomic_writer, unfit_name
from ..storage.base import Body, Sent, Stat, Storage, partial, said_of
from ..storage.upload import STAGING, bounded

if TYPE_CHECKING:
    from ..clusters.backend import Backend


Progress = Callable[[int, int, int, int], None]  # bytes done, bytes total, files done, files total


def absolute(backend: Backend, path: str) -> str:
    """Relative paths are under the user's home (`/user/<user>` on HDFS, `/pfs/<dc>/home/<user>` on PFS)."""
    if not path.startswith("/"):
        path = f"{backend.storage.home}/{path}"
    return posixpath.normpath(path) if path != "/" else "/"


def entry(status: Stat, cls: type[HdfsEntry] = HdfsEntry, **more: str) -> HdfsEntry:
    values = {"name": status.name, "type": "dir" if status.is_dir else "file", "size": status.size, "modified": status.modified,
              "permission": status.permission, "owner": status.owner, "group": status.group}
    return cls(**{**values, **more})


def existing(storage: Storage, path: str) -> Stat:
    status = storage.status(path)
    if status is None:
        raise storage.missing(path)
    return status


def ls(backend: Backend, path: str) -> HdfsListing:
    path = absolute(backend, path)
    status = existing(backend.storage, path)
    if not status.is_dir:
        return HdfsListing(path=path, entries=[entry(status)])
    # Uploads in progress (or killed, until the next upload cleans them) are not the user's data.
    return HdfsListing(path=path, entries=[entry(s) for s in backend.storage.list(path) if s.name != STAGING])


def stat(backend: Backend, path: str) -> HdfsStatResult:
    path = absolute(backend, path)
    return entry(existing(backend.storage, path), HdfsStatResult, path=path, name=posixpath.basename(path) or "/")


def mkdir(backend: Backend, path: str) -> PathResult:
    path = absolute(backend, path)
    backend.storage.mkdir(path)
    return PathResult(path=path)


def rm(backend: Backend, path: str, recursive: bool = False) -> PathResult:
    path = absolute(backend, path)
    if existing(backend.storage, path).is_dir and not recursive:
        raise InvalidInput(message("hdfs.rm-folder", path=path))
    backend.storage.delete(path, recursive=recursive)
    return PathResult(path=path)


def mv(backend: Backend, src: str, dst: str) -> HdfsMoveResult:
    src, dst = absolute(backend, src), absolute(backend, dst)
    existing(backend.storage, src)
    backend.storage.rename(src, dst)
    return HdfsMoveResult(source=src, target=dst)


def cat(backend: Backend, path: str, offset: int = 0, length: int | None = None) -> bytes:
    path = absolute(backend, path)
    status = existing(backend.storage, path)
    if status.is_dir:
        raise InvalidInput(message("hdfs.not-a-file", path=path))
    if status.size == 0 or offset >= status.size:
        return b""
    return backend.storage.read(path, offset=offset, length=length)


def tail(backend: Backend, path: str, size: int = 1024) -> bytes:
    status = stat(backend, path)
    return cat(backend, path, max(0, status.size - size))


class Tally:
    """A transfer's bytes and files done so far, counted from several threads (each file's bytes as
    they go) and told to `progress` about every half percent, and at the end of each file."""

    def __init__(self, progress: Progress | None, total: int, files: int):
        self.progress, self.total, self.files = progress, total, files
        self.done_bytes = self.done_files = self.told = 0
        self.moving: dict[str, int] = {}  # file -> bytes of it done, while it moves
        self.lock = threading.Lock()

    def _tell(self, force: bool) -> None:
        now = self.done_bytes + sum(self.moving.values())
        if self.progress is not None and (force or now - self.told >= self.total / 200):
            self.told = now
            self.progress(now, self.total, self.done_files, self.files)

    def on(self, name: str) -> Sent:
        def moved(n: int) -> None:
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


def put(backend: Backend, local: Path, remote: str, progress: Progress | None = None, threads: int = 8) -> HdfsTransferResult:
    """A file or a folder (recursively); into `remote` when that is an existing folder. Files are
    streamed, a few at a time, so memory stays flat whatever their size and number; each appears
    under its name whole or not at all. A folder that is new there is written whole under a
    temporary name and renamed into place in one step (where the storage can rename), so it too
    appears whole or not at all, for one rename instead of one a file."""
    storage = backend.storage
    remote = absolute(backend, remote)
    if not local.exists():
        raise NotFound(message("hdfs.no-local", path=str(local)))
    target = storage.status(remote)
    if target is not None and target.is_dir:
        remote = posixpath.join(remote, local.name)
        target = storage.status(remote)
    whole = local.is_dir() and target is None and storage.renames
    root = partial(remote) if whole else remote
    files = [(local, root)] if local.is_file() else [
        (p, posixpath.join(root, p.relative_to(local).as_posix())) for p in sorted(local.rglob("*")) if p.is_file()]
    tally = Tally(progress, sum(p.stat().st_size for p, _ in files), len(files))
    send_one = storage.write if whole else storage.put

    def send(pair: tuple[Path, str]) -> int:
        path, target = pair
        with open(path, "rb") as f, Body(f, os.fstat(f.fileno()).st_size, digest=None) as body:
            send_one(target, body, tally.on(target))
            return body.size

    try:
        if local.is_dir():
            storage.mkdir(root)  # (an empty folder is put too)
        for (_, target), size in bounded(send, files, threads):
            tally.finished(target, size)
        if whole:
            storage.mkdir(posixpath.dirname(remote))
            storage.commit(root, remote)
    except BaseException as exc:
        if whole:
            with contextlib.suppress(PaiError, OSError):
                storage.delete(root, recursive=True)
        if not isinstance(exc, PaiError):
            raise
        exc = said_of(exc, root, remote)
        if len(files) == 1:
            raise exc from None
        if whole:
            raise Interrupted(message("hdfs.put-stopped-whole", reason=exc.said, name=local.name, remote=remote)) from None
        raise Interrupted(message("hdfs.put-stopped", reason=exc.said, left=len(files) - tally.done_files, total=len(files),
                                  remote=remote)) from None
    return HdfsTransferResult(path=remote, files=len(files), bytes=tally.done_bytes)


def safe_name(name: str) -> str:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise PermissionDenied(message("hdfs.unsafe-name", name=name))
    if problem := unfit_name(name):
        raise PermissionDenied(message("hdfs.unfit-name", name=name, problem=problem))
    return name


def get(backend: Backend, remote: str, local: Path, progress: Progress | None = None) -> HdfsTransferResult:
    """A file or a folder (recursively) to `local` (into it, when it is an existing folder)."""
    storage = backend.storage
    remote = absolute(backend, remote)
    status = existing(storage, remote)
    if local.is_dir():
        local = local / safe_name(posixpath.basename(remote) or "root")
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
    tally = Tally(progress, sum(size for _, _, size in plan), len(plan))
    for rpath, lpath, size in plan:
        lpath.parent.mkdir(parents=True, exist_ok=True)
        # Streamed (memory stays flat whatever the size); a broken download never leaves half a file under the real name.
        moved, done = tally.on(rpath), 0
        with atomic_writer(lpath) as out:
            for piece in storage.stream(rpath) if size else ():
                out.write(piece)
                done += len(piece)
                moved(done)
        tally.finished(rpath, done)
    if status.is_dir:
        local.mkdir(parents=True, exist_ok=True)
    return HdfsTransferResult(path=str(local), files=len(plan), bytes=tally.done_bytes)
