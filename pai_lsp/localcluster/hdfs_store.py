"""HDFS semantics over a local folder: what the WebHDFS routes call.

Paths are HDFS absolute paths ("/user/alice/x"). None can leave the folder: `..` is refused
outright (as HDFS does: "Invalid path name"), and symbolic links are never followed. Owners
and groups live in a small SQLite table beside the folder; permissions and times are the
files' own. Errors are `HdfsException`s named and worded as Hadoop's.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT_FILE_ID = 16385
BLOCK_SIZE = 134217728
CHECKSUM_BYTES_PER_CRC = 512


@dataclass
class HdfsException(Exception):
    """A Hadoop RemoteException: `exception` is the simple Java class name."""

    exception: str
    message: str

    JAVA = {
        "FileNotFoundException": "java.io.FileNotFoundException",
        "IllegalArgumentException": "java.lang.IllegalArgumentException",
        "UnsupportedOperationException": "java.lang.UnsupportedOperationException",
        "SecurityException": "java.lang.SecurityException",
    }
    STATUS = {
        "FileNotFoundException": 404,
        "IllegalArgumentException": 400,
        "UnsupportedOperationException": 400,
        "SecurityException": 403,
        "AuthorizationException": 403,
    }

    @property
    def status(self) -> int:
        # Every other IOException is a 403 on a real namenode.
        return self.STATUS.get(self.exception, 403)

    def to_json(self) -> dict:
        java = self.JAVA.get(self.exception, f"org.apache.hadoop.fs.{self.exception}")
        if self.exception == "AccessControlException":
            java = "org.apache.hadoop.security.AccessControlException"
        return {"RemoteException": {"exception": self.exception, "javaClassName": java, "message": self.message}}


def not_found(path: str) -> HdfsException:
    return HdfsException("FileNotFoundException", f"File does not exist: {path}")


class HdfsStore:
    def __init__(self, root: Path, superuser: str):
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.superuser = superuser
        self._db_lock = threading.Lock()
        self._db = sqlite3.connect(root.parent / "hdfs-owners.sqlite3", check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS owners (path TEXT PRIMARY KEY, owner TEXT, grp TEXT)")

    # -- paths -----------------------------------------------------------------------
    @staticmethod
    def normalize(path: str) -> str:
        """The canonical HDFS path; `..` and NUL are refused, never resolved."""
        if not path.startswith("/"):
            path = "/" + path
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if any(p == ".." or "\x00" in p or ":" in p for p in parts):  # HDFS refuses ':' in names too
            raise HdfsException("IllegalArgumentException", f"Invalid path name {path}")
        return "/" + "/".join(parts)

    def local(self, path: str) -> Path:
        """The folder entry for an HDFS path, refusing any that passes through a symbolic link."""
        path = self.normalize(path)
        local = self.root.joinpath(*[p for p in path.split("/") if p])
        current = self.root
        for part in local.relative_to(self.root).parts:
            current = current / part
            if current.is_symlink():
                raise HdfsException("AccessControlException", f"Permission denied: {path} is a symbolic link outside HDFS")
        return local

    # -- status ----------------------------------------------------------------------
    def _owner(self, path: str) -> tuple[str, str]:
        with self._db_lock:
            row = self._db.execute("SELECT owner, grp FROM owners WHERE path = ?", (path,)).fetchone()
        return (row[0], row[1]) if row else (self.superuser, "supergroup")

    def set_owner_record(self, path: str, owner: str | None, group: str | None) -> None:
        current_owner, current_group = (owner, group) if owner and group else self._owner(path)
        with self._db_lock:
            self._db.execute("INSERT OR REPLACE INTO owners VALUES (?, ?, ?)", (path, owner or current_owner, group or current_group))

    def status(self, path: str, suffix: str = "") -> dict:
        path = self.normalize(path)
        local = self.local(path)
        try:
            st = local.lstat()
        except FileNotFoundError:
            raise not_found(path) from None
        except NotADirectoryError:
            raise not_found(path) from None
        return self._status(path, local, st, suffix)

    def _status(self, path: str, local: Path, st: os.stat_result, suffix: str) -> dict:
        is_dir = stat.S_ISDIR(st.st_mode)
        owner, group = self._owner(path)
        children = 0
        if is_dir:
            try:
                children = sum(1 for _ in os.scandir(local))
            except OSError:
                children = 0
        return {
            "accessTime": 0 if is_dir else int(st.st_atime * 1000),
            "blockSize": 0 if is_dir else BLOCK_SIZE,
            "childrenNum": children,
            "fileId": ROOT_FILE_ID if path == "/" else ROOT_FILE_ID + 1 + st.st_ino % 1_000_000_000,
            "group": group,
            "length": 0 if is_dir else st.st_size,
            "modificationTime": int(st.st_mtime * 1000),
            "owner": owner,
            "pathSuffix": suffix,
            "permission": format(stat.S_IMODE(st.st_mode), "o"),
            "replication": 0 if is_dir else 1,
            "storagePolicy": 0,
            "type": "DIRECTORY" if is_dir else "FILE",
        }

    def list(self, path: str, start_after: str | None = None, limit: int | None = None) -> tuple[list[dict], int]:
        """(statuses, remaining) of a directory's children sorted by name; a file lists itself."""
        path = self.normalize(path)
        local = self.local(path)
        try:
            st = local.lstat()
        except (FileNotFoundError, NotADirectoryError):
            raise HdfsException("FileNotFoundException", f"File {path} does not exist.") from None
        if not stat.S_ISDIR(st.st_mode):
            return [self._status(path, local, st, "")], 0
        entries = sorted(os.scandir(local), key=lambda e: e.name)
        if start_after is not None:
            entries = [e for e in entries if e.name > start_after]
        remaining = 0
        if limit is not None and len(entries) > limit:
            remaining = len(entries) - limit
            entries = entries[:limit]
        out = []
        for entry in entries:
            if entry.name.endswith(".pai-upload"):
                continue  # an upload still in flight is not visible yet
            child = path.rstrip("/") + "/" + entry.name
            out.append(self._status(child, Path(entry.path), entry.stat(follow_symlinks=False), entry.name))
        return out, remaining

    def content_summary(self, path: str) -> dict:
        path = self.normalize(path)
        local = self.local(path)
        if not local.exists():
            raise not_found(path)
        dirs, files, length = 0, 0, 0
        if local.is_dir():
            stack = [str(local)]
            while stack:
                dirs += 1
                with os.scandir(stack.pop()) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        elif not entry.name.endswith(".pai-upload"):
                            files += 1
                            length += entry.stat(follow_symlinks=False).st_size
        else:
            files, length = 1, local.stat().st_size
        return {"ContentSummary": {"directoryCount": dirs, "fileCount": files, "length": length, "quota": -1,
                                   "spaceConsumed": length, "spaceQuota": -1, "typeQuota": {}}}

    def checksum(self, path: str) -> dict:
        """MD5-of-0MD5-of-512CRC32C in Hadoop's shape; the digest is an MD5 of per-512-byte MD5s
        (a documented stand-in: the real one hashes CRC32C values)."""
        local = self._file(path)
        outer = hashlib.md5()
        with open(local, "rb") as f:
            while chunk := f.read(CHECKSUM_BYTES_PER_CRC * 1024):
                for i in range(0, len(chunk), CHECKSUM_BYTES_PER_CRC):
                    outer.update(hashlib.md5(chunk[i : i + CHECKSUM_BYTES_PER_CRC]).digest())
        hexed = format(CHECKSUM_BYTES_PER_CRC, "08x") + "0" * 16 + outer.hexdigest() + "0" * 8
        return {"FileChecksum": {"algorithm": "MD5-of-0MD5-of-512CRC32C", "bytes": hexed, "length": 28}}

    def _file(self, path: str) -> Path:
        path = self.normalize(path)
        local = self.local(path)
        if not local.exists():
            raise not_found(path)
        if local.is_dir():
            raise HdfsException("FileNotFoundException", f"Path is not a file: {path}")
        return local

    # -- reading ---------------------------------------------------------------------
    def open_range(self, path: str, offset: int, length: int | None) -> tuple[Path, int, int]:
        local = self._file(path)
        size = local.stat().st_size
        if offset < 0 or size > 0 and offset >= size and offset != 0:
            raise HdfsException("IOException", f"Offset={offset} out of the range [0, {size})")
        end = size if length is None else min(size, offset + max(length, 0))
        return local, offset, end

    # -- writing ---------------------------------------------------------------------
    def _ensure_parent(self, path: str) -> None:
        parent = self.local(path).parent
        probe = parent
        while probe != self.root and not probe.exists():
            probe = probe.parent
        if probe.exists() and not probe.is_dir():
            raise HdfsException("ParentNotDirectoryException", f"Parent path is not a directory: {self._hdfs(probe)}")

    def _hdfs(self, local: Path) -> str:
        return "/" + local.relative_to(self.root).as_posix() if local != self.root else "/"

    @contextmanager
    def writer(self, path: str, user: str, overwrite: bool, permission: int | None, append: bool = False) -> Iterator:
        """A file object for the new content: written under a temporary name and renamed into
        place only when complete, so a broken upload never leaves a half-written file."""
        path = self.normalize(path)
        local = self.local(path)
        if append:
            if not local.is_file():
                raise not_found(path)
        elif local.is_dir():
            raise HdfsException("FileAlreadyExistsException", f"{path} already exists as a directory")
        elif not overwrite and local.exists():
            raise HdfsException("FileAlreadyExistsException", f"{path} for client 127.0.0.1 already exists")
        elif not local.parent.is_dir():  # the common case, a folder that exists, costs one stat
            self._ensure_parent(path)
            self.mkdirs(self._hdfs(local.parent), user)
        temp = local.with_name(f".{local.name}.{os.getpid()}.{threading.get_ident()}.{time.monotonic_ns()}.pai-upload")
        if append:
            shutil.copyfile(local, temp)
        try:
            with open(temp, "ab" if append else "wb") as f:
                yield f
            os.chmod(temp, permission if permission is not None else (stat.S_IMODE(local.stat().st_mode) if append else 0o644))
            os.replace(temp, local)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        if not append:
            self.set_owner_record(path, user, "supergroup")
        os.utime(local.parent)

    def mkdirs(self, path: str, user: str, permission: int = 0o755) -> bool:
        path = self.normalize(path)
        local = self.local(path)
        if local.is_dir():
            return True
        self._ensure_parent(path + "/x") if local.exists() else self._ensure_parent(path)
        if local.exists():
            raise HdfsException("FileAlreadyExistsException", f"Path is not a directory: {path}")
        missing = []
        probe = local
        while not probe.exists():
            missing.append(probe)
            probe = probe.parent
        for folder in reversed(missing):
            folder.mkdir(mode=permission, exist_ok=True)
            os.chmod(folder, permission)
            self.set_owner_record(self._hdfs(folder), user, "supergroup")
        self._touch_parent(self._hdfs(missing[-1]) if missing else path)
        return True

    def rename(self, src: str, dst: str) -> bool:
        """Old-style rename: False, not an error, when it cannot happen."""
        src, dst = self.normalize(src), self.normalize(dst)
        s, d = self.local(src), self.local(dst)
        if src == "/" or not s.exists() and not s.is_symlink():
            return False
        if d.is_dir():
            d = d / s.name
            dst = self._hdfs(d)
        if d.exists() or not d.parent.is_dir() or (dst + "/").startswith(src + "/"):
            return False
        os.rename(s, d)
        with self._db_lock:
            self._db.execute("UPDATE owners SET path = ? || substr(path, ?) WHERE path = ? OR path LIKE ?",
                             (dst, len(src) + 1, src, src.replace("%", r"\%") + "/%"))
        self._touch_parent(src)
        self._touch_parent(dst)
        return True

    def delete(self, path: str, recursive: bool) -> bool:
        path = self.normalize(path)
        local = self.local(path)
        if not local.exists() and not local.is_symlink():
            return False
        if path == "/":
            raise HdfsException("AccessControlException", "Cannot delete the root directory")
        if local.is_dir() and not local.is_symlink():
            if any(os.scandir(local)) and not recursive:
                raise HdfsException("PathIsNotEmptyDirectoryException", f"`{path} is non empty': Directory is not empty")
            shutil.rmtree(local)
        else:
            local.unlink()
        with self._db_lock:
            self._db.execute("DELETE FROM owners WHERE path = ? OR path LIKE ?", (path, path + "/%"))
        self._touch_parent(path)
        return True

    def set_permission(self, path: str, permission: int) -> None:
        local = self._existing(path)
        os.chmod(local, permission)

    def set_owner(self, path: str, user: str, owner: str | None, group: str | None) -> None:
        self._existing(path)
        if owner and owner != self._owner(self.normalize(path))[0] and user != self.superuser:
            raise HdfsException("AccessControlException", "Non-super user cannot change owner")
        self.set_owner_record(self.normalize(path), owner, group)

    def set_times(self, path: str, mtime: int, atime: int) -> None:
        local = self._existing(path)
        st = local.stat()
        os.utime(local, ns=(st.st_atime_ns if atime == -1 else atime * 1_000_000, st.st_mtime_ns if mtime == -1 else mtime * 1_000_000))

    def _existing(self, path: str) -> Path:
        local = self.local(path)
        if not local.exists():
            raise not_found(self.normalize(path))
        return local

    def _touch_parent(self, path: str) -> None:
        parent = self.local(path).parent
        if parent.is_dir():
            os.utime(parent)
