"""The HDFS explorer's operations (ls, stat, mkdir, put, get, rm, mv, cat, tail) on a connection.

Results are plain dicts for editor tree views. Downloads never write outside their
destination: a remote name with `/`, `..` or a NUL in it is refused, not followed.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidInput, NotFound, PermissionDenied
from ..files import atomic_writer
from ..storage.upload import STAGING, bounded, send_file

if TYPE_CHECKING:
    from ..clusters.backend import Backend


Progress = Callable[[int, int, int, int], None]


def absolute(backend: Backend, path: str) -> str:
    """Relative paths are under the user's home (`/user/<user>` on HDFS, `/pfs/<dc>/home/<user>` on PFS)."""
    if not path.startswith("/"):
        path = f"{backend.storage.home}/{path}"
    return posixpath.normpath(path) if path != "/" else "/"


def entry(name: str, status: dict) -> dict:
    return {"name": name, "type": "dir" if status["type"] == "DIRECTORY" else "file", "size": status["length"],
            "modified": status["modificationTime"], "permission": status["permission"], "owner": status["owner"],
            "group": status["group"]}


def ls(backend: Backend, path: str) -> dict:
    path = absolute(backend, path)
    status = backend.storage.status(path)
    if status is None:
        raise NotFound(f"{path}: no such file or directory on HDFS")
    if status["type"] != "DIRECTORY":
        return {"path": path, "entries": [entry(posixpath.basename(path), status)]}
    # Uploads in progress (or killed, until the next upload cleans them) are not the user's data.
    return {"path": path, "entries": [entry(s["name"], s) for s in backend.storage.list(path) if s["name"] != STAGING]}


def stat(backend: Backend, path: str) -> dict:
    path = absolute(backend, path)
    status = backend.storage.status(path)
    if status is None:
        raise NotFound(f"{path}: no such file or directory on HDFS")
    return {"path": path, **entry(posixpath.basename(path) or "/", status)}


def mkdir(backend: Backend, path: str) -> dict:
    path = absolute(backend, path)
    backend.storage.mkdir(path)
    return {"path": path}


def rm(backend: Backend, path: str, recursive: bool = False) -> dict:
    path = absolute(backend, path)
    status = backend.storage.status(path)
    if status is None:
        raise NotFound(f"{path}: no such file or directory on HDFS")
    if status["type"] == "DIRECTORY" and not recursive:
        raise InvalidInput(f"{path} is a folder: use -r to remove it with everything in it")
    backend.storage.delete(path, recursive=recursive)
    return {"path": path}


def mv(backend: Backend, src: str, dst: str) -> dict:
    src, dst = absolute(backend, src), absolute(backend, dst)
    if backend.storage.status(src) is None:
        raise NotFound(f"{src}: no such file or directory on HDFS")
    backend.storage.rename(src, dst)
    return {"from": src, "to": dst}


def cat(backend: Backend, path: str, offset: int = 0, length: int | None = None) -> bytes:
    path = absolute(backend, path)
    status = backend.storage.status(path)
    if status is None:
        raise NotFound(f"{path}: no such file or directory on HDFS")
    if status["type"] == "DIRECTORY":
        raise InvalidInput(f"{path} is a folder, not a file")
    if status["length"] == 0 or offset >= status["length"]:
        return b""
    return backend.storage.read(path, offset=offset, length=length)


def tail(backend: Backend, path: str, size: int = 1024) -> bytes:
    status = stat(backend, path)
    return cat(backend, path, max(0, status["size"] - size))


def put(backend: Backend, local: Path, remote: str, progress: Progress | None = None, threads: int = 8) -> dict:
    """A file or a folder (recursively); into `remote` when that is an existing folder. Files are
    streamed, a few at a time, so memory stays flat whatever their size and number."""
    remote = absolute(backend, remote)
    if not local.exists():
        raise NotFound(f"{local}: no such local file or folder")
    target = backend.storage.status(remote)
    if target is not None and target["type"] == "DIRECTORY":
        remote = posixpath.join(remote, local.name)
    files = [(local, remote)] if local.is_file() else [
        (p, posixpath.join(remote, p.relative_to(local).as_posix())) for p in sorted(local.rglob("*")) if p.is_file()]
    total = sum(p.stat().st_size for p, _ in files)
    done = [0, 0]
    for _, sent in bounded(lambda pair: send_file(backend.storage, str(pair[0]), pair[1]), files, threads):
        done[0] += sent["size"]
        done[1] += 1
        if progress:
            progress(done[0], total, done[1], len(files))
    return {"path": remote, "files": len(files), "bytes": done[0]}


def safe_name(name: str) -> str:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise PermissionDenied(f"refusing to download a remote entry named {name!r}: it would land outside the destination")
    return name


def get(backend: Backend, remote: str, local: Path, progress: Progress | None = None) -> dict:
    """A file or a folder (recursively) to `local` (into it, when it is an existing folder)."""
    remote = absolute(backend, remote)
    status = backend.storage.status(remote)
    if status is None:
        raise NotFound(f"{remote}: no such file or directory on HDFS")
    if local.is_dir():
        local = local / safe_name(posixpath.basename(remote) or "root")
    root = local.resolve()
    plan: list[tuple[str, Path, int]] = []

    def collect(rpath: str, lpath: Path, st: dict) -> None:
        if st["type"] != "DIRECTORY":
            plan.append((rpath, lpath, st["length"]))
            return
        for child in backend.storage.list(rpath):
            name = safe_name(child["name"])
            target = lpath / name
            if not str(target.resolve()).startswith(str(root)):
                raise PermissionDenied(f"refusing to write {target}: outside {root}")
            collect(posixpath.join(rpath, name), target, child)

    collect(remote, local, status)
    total = sum(size for _, _, size in plan)
    done = [0, 0]
    for rpath, lpath, size in plan:
        lpath.parent.mkdir(parents=True, exist_ok=True)
        # Streamed (memory stays flat whatever the size); a broken download never leaves half a file under the real name.
        with atomic_writer(lpath) as out:
            if size:
                backend.storage.read_into(rpath, out)
        done[0] += size
        done[1] += 1
        if progress:
            progress(done[0], total, done[1], len(plan))
    if status["type"] == "DIRECTORY":
        local.mkdir(parents=True, exist_ok=True)
    return {"path": str(local), "files": len(plan), "bytes": total}
