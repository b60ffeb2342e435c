"""A storage that is a folder of this machine, as a `Storage`: the local cluster's storages (type
`unknown` with `data.path`, the folder its tasks mount), read and filled with no server between.

The same promises as the storages reached through a protocol: a put is written under a temporary
name beside its target and renamed into place once whole (`os.replace`, one step on every OS);
hostile names (`..`, `\\`, NUL) are refused by `base.path_parts` before any file work, and a
symbolic link inside the folder that leads out of it is refused rather than followed. A
`share: false` storage is its `<user>/` sub-folder, made on first use as Kubernetes makes a
sub-path; a read-only storage refuses every write here as its tasks' read-only mount does.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import shutil
import stat as stat_module
import sys
from collections.abc import Iterator
from pathlib import Path

from ..core.messages import message
from ..errors import InvalidInput, PaiError, ServerError
from .base import CHUNK, Body, Sent, Stat, Storage, path_parts, pieces, read_pieces


class LocalFolder(Storage):
    name = message("storage.local")

    def __init__(self, folder: Path | str, *, root: str = "", read_only: bool = False, home: str = "/"):
        """`folder`: the storage's folder on this machine; `root`: a sub-path every path is under (a
        `share: false` storage's `<user>`)."""
        self.base = Path(folder)
        self.top = self.base.joinpath(*path_parts(root, self.name))
        self.read_only, self.home = read_only, home
        if not read_only and self.top != self.base and self.base.is_dir():
            with contextlib.suppress(OSError):
                self.top.mkdir(exist_ok=True)

    def _local(self, path: str) -> Path:
        """The file of this machine at storage path `path`, never outside the storage's folder."""
        local = self.top.joinpath(*path_parts(path, self.name))
        real, top = os.path.realpath(local), os.path.realpath(self.top)
        if real != top and not real.startswith(top + os.sep):
            raise self.denied(path, message("storage.link-out"))
        return local

    def _writable(self, path: str) -> Path:
        if self.read_only:
            raise self.denied(path, message("storage.local-read-only"))
        return self._local(path)

    @contextlib.contextmanager
    def _errors(self, path: str) -> Iterator[None]:
        """The OS's failures as ours, said of the storage path (never of the folder behind it)."""
        try:
            yield
        except PaiError:
            raise
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                raise self.missing(path) from None
            if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise self.denied(path, exc.strerror or message("storage.access-denied")) from None
            raise ServerError(message("storage.failed", path=path, storage=self.name,
                                      why=exc.strerror or type(exc).__name__)) from None

    # -- browsing --------------------------------------------------------------------------------
    def status(self, path: str) -> Stat | None:
        local = self._local(path)
        try:
            return _stat(posixpath.basename(path.rstrip("/")), local.stat())
        except FileNotFoundError:
            return None
        except OSError:
            with self._errors(path):
                raise

    def list(self, path: str) -> list[Stat]:
        local = self._local(path)
        with self._errors(path), os.scandir(local) as entries:
            found = []
            for entry in entries:
                with contextlib.suppress(FileNotFoundError):  # gone since it was listed
                    found.append(_stat(entry.name, entry.stat()))
        return sorted(found, key=lambda s: s.name)

    def mkdir(self, path: str) -> None:
        local = self._writable(path)
        with self._errors(path):
            local.mkdir(parents=True, exist_ok=True)

    def delete(self, path: str, recursive: bool = False) -> bool:
        local = self._writable(path)
        found = self.status(path)
        if found is None:
            return False
        with self._errors(path):
            if not found.is_dir or local.is_symlink():
                local.unlink()
            elif recursive:
                shutil.rmtree(local)
            else:
                local.rmdir()
        return True

    def rename(self, src: str, dst: str) -> None:
        """Refused when something is at `dst` already (as `hdfs dfs -mv` is), never replacing it."""
        old, new = self._writable(src), self._writable(dst)
        if self.status(src) is None:
            raise self.missing(src)
        if self.status(dst) is not None:
            raise InvalidInput(message("hdfs.mv-refused", src=src, dst=dst))
        with self._errors(src):
            new.parent.mkdir(parents=True, exist_ok=True)
            os.rename(old, new)

    # -- reading ---------------------------------------------------------------------------------
    def stream(self, path: str, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
        local = self._local(path)
        with self._errors(path), open(local, "rb") as f:
            yield from read_pieces(f, offset, length)

    # -- writing ---------------------------------------------------------------------------------
    def write(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        local = self._writable(path)
        if isinstance(data, Body):
            data.rewind()
        done = 0
        with self._errors(path):
            local.parent.mkdir(parents=True, exist_ok=True)
            with open(local, "wb") as out:
                for piece in pieces(data, CHUNK):
                    out.write(piece)
                    done += len(piece)
                    if sent is not None and not isinstance(data, Body):
                        sent(done)
        if sent is not None and isinstance(data, Body):
            sent(data.size)

    def commit(self, temp: str, path: str) -> None:
        """A file takes the place of `path` in one `os.replace` (a folder there is refused); a folder
        written whole goes in by renames (`Storage.replace`)."""
        old, new = self._writable(temp), self._writable(path)
        if old.is_dir():
            self.replace(temp, path)
            return
        with self._errors(path):
            os.replace(old, new)

    def close(self) -> None:
        """Nothing kept open."""


def _stat(name: str, result: os.stat_result) -> Stat:
    is_dir = stat_module.S_ISDIR(result.st_mode)
    return Stat(name, is_dir, 0 if is_dir else result.st_size, int(result.st_mtime * 1000),
                format(result.st_mode & 0o777, "o"), _owner(result.st_uid), _group(result.st_gid))


def _owner(uid: int) -> str:
    """The user's name, as `ls -l` shows it (the number where the OS has no such table: Windows)."""
    if sys.platform == "win32":
        return str(uid)
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _group(gid: int) -> str:
    if sys.platform == "win32":
        return str(gid)
    import grp

    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)
