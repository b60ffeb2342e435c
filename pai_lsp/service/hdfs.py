"""The HDFS explorer's operations (ls, stat, mkdir, put, get, rm, mv, cat, tail) on a cluster's
storage, whatever its kind (WebHDFS or PaddlePaddle Cloud's PFS): only `storage.base.Storage`'s
methods are used here.

Results are plain dicts for editor tree views. Uploads never leave part of a file under its name
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
from typing import TYPE_CHECKING

from ..errors import Exists, Interrupted, InvalidInput, NotFound, PaiError, PermissionDenied
from ..files import atomic_writer
from ..storage.base import Body, Cancel, Sent, Stat, Storage, partial, said_of
from ..storage.upload import STAGING, bounded

if TYPE_CHECKING:
    from ..clusters.backend import Backend


Progress = Callable[[int, int, int, int], None]  # bytes done, bytes total, files done, files total


def absolute(backend: Backend, path: str) -> str:
    """Relative paths are under the user's home (`/user/<user>` on HDFS, `/pfs/<dc>/home/<user>` on PFS).
    Every path of the explorer passes here: one that is not Unicode text (a name of bytes that are
    not UTF-8, as a shell may pass) can go into no URL, and is refused."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{path.encode('utf-8', 'surrogateescape')!r}: not UTF-8 text, which {backend.storage.name} "
                           "paths are") from None
    if not path.startswith("/"):
        path = f"{backend.storage.home}/{path}"
    return posixpath.normpath(path) if path != "/" else "/"


def entry(status: Stat, name: str | None = None) -> dict:
    return {"name": status.name if name is None else name, "type": "dir" if status.is_dir else "file", "size": status.size,
            "modified": status.modified, "permission": status.permission, "owner": status.owner, "group": status.group}


def existing(storage: Storage, path: str) -> Stat:
    status = storage.status(path)
    if status is None:
        raise storage.missing(path)
    return status


def ls(backend: Backend, path: str, recursive: bool = False) -> dict:
    """A folder's entries (with `recursive`, everything under it, each named by its path from
    the folder, a folder before what it holds); a file's own entry."""
    path = absolute(backend, path)
    status = existing(backend.storage, path)
    if not status.is_dir:
        return {"path": path, "entries": [entry(status)]}
    return {"path": path, "entries": [entry(s, name) for name, s in _walk(backend.storage, path, "", recursive)]}


def _walk(storage: Storage, folder: str, prefix: str, recursive: bool) -> Iterator[tuple[str, Stat]]:
    # Uploads in progress (or killed, until the next upload cleans them) are not the user's data.
    for child in storage.list(folder):
        if child.name == STAGING:
            continue
        name = posixpath.join(prefix, child.name) if prefix else child.name
        yield name, child
        if recursive and child.is_dir:
            yield from _walk(storage, posixpath.join(folder, child.name), name, recursive)


def du(backend: Backend, path: str, summary: bool = False) -> dict:
    """How many bytes and files a file or folder holds: one row for `path` with `summary`, else one
    for each entry of a folder (as `hdfs dfs -du [-s]`)."""
    path = absolute(backend, path)
    storage = backend.storage
    status = existing(storage, path)

    def usage(full: str, st: Stat) -> dict:
        if not st.is_dir:
            return {"path": full, "type": "file", "bytes": st.size, "files": 1, "folders": 0}
        files = folders = size = 0
        for _, child in _walk(storage, full, "", True):
            folders += child.is_dir
            files += not child.is_dir
            size += child.size
        return {"path": full, "type": "dir", "bytes": size, "files": files, "folders": folders}

    if summary or not status.is_dir:
        rows = [usage(path, status)]
    else:
        rows = [usage(posixpath.join(path, child.name), child) for child in storage.list(path) if child.name != STAGING]
    return {"path": path, "entries": rows, "bytes": sum(r["bytes"] for r in rows)}


def stat(backend: Backend, path: str) -> dict:
    path = absolute(backend, path)
    return {"path": path, **entry(existing(backend.storage, path)), "name": posixpath.basename(path) or "/"}


def mkdir(backend: Backend, path: str) -> dict:
    """A folder and those above it; a file in the way is named, whichever it is."""
    path = absolute(backend, path)
    above = path
    while above != "/":
        status = backend.storage.status(above)
        if status is not None:
            if not status.is_dir:
                raise InvalidInput(f"{above} is a file: no folder can be made " + ("there" if above == path else f"in it ({path})"))
            break
        above = posixpath.dirname(above)
    backend.storage.mkdir(path)
    return {"path": path}


def rm(backend: Backend, path: str, recursive: bool = False) -> dict:
    path = absolute(backend, path)
    if existing(backend.storage, path).is_dir and not recursive:
        raise InvalidInput(f"{path} is a folder: use -r to remove it with everything in it")
    backend.storage.delete(path, recursive=recursive)
    return {"path": path}


def mv(backend: Backend, src: str, dst: str) -> dict:
    src, dst = absolute(backend, src), absolute(backend, dst)
    existing(backend.storage, src)
    backend.storage.rename(src, dst)
    return {"from": src, "to": dst}


def cat(backend: Backend, path: str, offset: int = 0, length: int | None = None) -> bytes:
    path = absolute(backend, path)
    status = existing(backend.storage, path)
    if status.is_dir:
        raise InvalidInput(f"{path} is a folder, not a file")
    if status.size == 0 or offset >= status.size:
        return b""
    return backend.storage.read(path, offset=offset, length=length)


def tail(backend: Backend, path: str, size: int = 1024) -> bytes:
    status = stat(backend, path)
    return cat(backend, path, max(0, status["size"] - size))


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
            raise Stopped("cancelled")

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
            raise NotFound(f"{local}: a symbolic link to nothing") from None
        raise NotFound(f"{local}: no such local file or folder") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InvalidInput(f"{local}: a symbolic link that loops (it leads back to itself)") from None
        raise InvalidInput(f"{local}: {exc.strerror or exc}") from None
    if stat_module.S_ISREG(mode):
        return "file"
    if stat_module.S_ISDIR(mode):
        return "dir"
    what = ("a FIFO (a named pipe)" if stat_module.S_ISFIFO(mode) else "a device" if stat_module.S_ISCHR(mode)
            or stat_module.S_ISBLK(mode) else "a socket" if stat_module.S_ISSOCK(mode) else "no regular file")
    raise InvalidInput(f"{local} is {what}, not a file or folder: nothing of a known size to upload")


def names_folder(path: str) -> bool:
    """A path that ends with a separator means a folder, as in `hdfs dfs` and cp: `x/` is never a file named x."""
    return path.endswith(("/", os.sep)) and path.strip("/" + os.sep) != ""


def put(backend: Backend, local: Path, remote: str, progress: Progress | None = None, threads: int = 8,
        overwrite: bool = False, cancelled: threading.Event | None = None) -> dict:
    """A file or a folder (recursively); into `remote` when that is an existing folder or ends with
    `/` (a folder made if need be). Something already there is replaced only with `overwrite`
    (`hdfs dfs -put -f`). Files are streamed, a few at a time, so memory stays flat whatever their
    size and number; each appears under its name whole or not at all. A folder that is new there
    is written whole under a temporary name and renamed into place in one step (where the storage
    can rename), so it too appears whole or not at all, for one rename instead of one a file.
    `cancelled` stops it within a piece: nothing is left in part."""
    storage = backend.storage
    into = names_folder(remote)
    remote = absolute(backend, remote)
    local = Path(local)
    kind = _local_kind(local)
    target = storage.status(remote)
    if into and target is not None and not target.is_dir:
        raise InvalidInput(f"{remote} is a file, not a folder to put {local.name} into")
    if into or (target is not None and target.is_dir):
        remote = posixpath.join(remote, local.name)
        target = storage.status(remote)
    if target is not None:
        if not overwrite:
            raise Exists(f"{remote} exists already")
        if target.is_dir != (kind == "dir"):
            raise InvalidInput(f"{remote} is a {'folder' if target.is_dir else 'file'}; {local} is not: it cannot replace it")
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
        reason = "cancelled" if stopped else said_of(exc, root, remote).message
        if whole:
            raise Interrupted(f"{reason}: the put of {local.name} stopped; nothing was written to {remote}") from None
        if len(files) == 1:
            if stopped:
                kept = " (what was there is as it was)" if target is not None else ""
                raise Interrupted(f"cancelled: nothing was written to {remote}{kept}") from None
            raise said_of(exc, root, remote) from None
        raise Interrupted(f"{reason}: put stopped with {len(files) - tally.done_files} of {len(files)} file(s) not "
                          f"uploaded to {remote} (those uploaded are in place; none is there in part)") from None
    return {"path": remote, "files": len(files), "bytes": tally.done_bytes}


def safe_name(name: str) -> str:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise PermissionDenied(f"refusing to download a remote entry named {name!r}: it would land outside the destination")
    return name


def get(backend: Backend, remote: str, local: Path | str, progress: Progress | None = None, overwrite: bool = False,
        cancelled: threading.Event | None = None) -> dict:
    """A file or a folder (recursively) to `local` (into it, when it is an existing folder or ends
    with `/`: a folder made if need be). Something already there is replaced only with `overwrite`
    (`hdfs dfs -get -f`). Each file appears whole or not at all; `cancelled` stops it within a piece."""
    storage = backend.storage
    into = names_folder(str(local))
    local = Path(local)
    remote = absolute(backend, remote)
    status = existing(storage, remote)
    if into and local.exists() and not local.is_dir():
        raise InvalidInput(f"{local} is a file, not a folder to download into")
    if into or local.is_dir():
        local.mkdir(parents=True, exist_ok=True)
        local = local / safe_name(posixpath.basename(remote) or "root")
    if local.exists() or local.is_symlink():
        if not overwrite:
            raise Exists(f"{local} exists already")
        if local.is_dir() != status.is_dir:
            raise InvalidInput(f"{local} is a {'folder' if local.is_dir() else 'file'}; {remote} is not: it cannot replace it")
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
                raise PermissionDenied(f"refusing to write {target}: outside {root}")
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
            raise Interrupted(f"cancelled: nothing was written to {local}") from None
        raise Interrupted(f"cancelled: {tally.done_files} of {len(plan)} file(s) downloaded to {local} "
                          "(each whole; none is there in part)") from None
    if status.is_dir:
        local.mkdir(parents=True, exist_ok=True)
    return {"path": str(local), "files": len(plan), "bytes": tally.done_bytes}
