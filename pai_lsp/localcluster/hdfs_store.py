"""HDFS semantics over a local folder: what the WebHDFS routes call.

Paths are HDFS absolute paths ("/user/alice/x"). None can leave the folder: `..` is refused
outright (as HDFS does: "Invalid path name"), and symbolic links are never followed. Owners,
groups, modes, ACLs, replication and snapshot settings live in a small SQLite table beside the
folder; the files on disk are private to the cluster (600 / 700). Every operation is checked as
Hadoop's FSPermissionChecker checks it (`hdfs_acl.py`), with the cluster's own user as the
superuser. Snapshots are read-only hard-linked copies under `<dir>/.snapshot/<name>`: every
write replaces a file by rename, so a snapshot never sees later changes. Errors are
`HdfsException`s named and worded as Hadoop's.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import sqlite3
import stat
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..common.portable import windows_names
from ..common.winnames import unfit_name
from . import hdfs_acl as acls
from .hdfs_acl import ALL, EXECUTE, READ, READ_EXECUTE, STICKY, WRITE, Acl, AclEntry

ROOT_FILE_ID = 16385
BLOCK_SIZE = 134217728
CHECKSUM_BYTES_PER_CRC = 512
SUPERGROUP = "supergroup"
ANONYMOUS = "dr.who"  # Hadoop's static web user: who a request without user.name is
SNAPSHOT = ".snapshot"
UPLOAD_SUFFIX = ".pai-upload"
DEFAULT_REPLICATION = 1  # a one-node cluster (dfs.replication=1)
MAX_REPLICATION = 512
NO_ROW = (None,) * 7  # an inode without metadata of its own: the defaults
# Hadoop's limits on names and paths: dfs.namenode.fs-limits.max-component-length (bytes, FSDirectory) and
# NameNodeRpcServer's MAX_PATH_LENGTH (characters) and MAX_PATH_DEPTH for what create, mkdirs and rename make.
MAX_COMPONENT_BYTES = 255
MAX_PATH_LENGTH = 8000
MAX_PATH_DEPTH = 1000
MAX_DIRECTORY_ITEMS = 1024 * 1024  # dfs.namenode.fs-limits.max-directory-items (FSDirectory.verifyMaxDirItems)
# "This path and everything below it", answered by the index on `path`: "/a" itself, and the range
# "/a/" <= path < "/a0" ('0' follows '/'). Never `WHERE substr(path, …) = ?`, which reads every row.
SUBTREE = "(path = ? OR (path >= ? AND path < ?))"


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
        "AccessControlException": "org.apache.hadoop.security.AccessControlException",
        "AuthorizationException": "org.apache.hadoop.security.authorize.AuthorizationException",
        "AclException": "org.apache.hadoop.hdfs.protocol.AclException",
        "SnapshotException": "org.apache.hadoop.hdfs.protocol.SnapshotException",
        "SnapshotAccessControlException": "org.apache.hadoop.hdfs.protocol.SnapshotAccessControlException",
        "HadoopIllegalArgumentException": "org.apache.hadoop.HadoopIllegalArgumentException",
        "PathComponentTooLongException": "org.apache.hadoop.hdfs.protocol.FSLimitException$PathComponentTooLongException",
        "MaxDirectoryItemsExceededException":
            "org.apache.hadoop.hdfs.protocol.FSLimitException$MaxDirectoryItemsExceededException",
        "IOException": "java.io.IOException",
    }
    STATUS = {
        "FileNotFoundException": 404,
        "IllegalArgumentException": 400,
        "HadoopIllegalArgumentException": 400,
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
        return {"RemoteException": {"exception": self.exception, "javaClassName": java, "message": self.message}}


def not_found(path: str) -> HdfsException:
    return HdfsException("FileNotFoundException", f"File does not exist: {path}")


def denied(message: str) -> HdfsException:
    return HdfsException("AccessControlException", message)


@dataclass
class Inode:
    """One existing path with its metadata."""

    path: str
    local: Path
    st: os.stat_result
    owner: str
    group: str
    acl: Acl
    replication: int
    atime: int  # folders only: files use the file's own access time
    snapshottable: bool

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.st.st_mode)

    def describe(self) -> str:
        """`"/p":owner:group:drwxr-xr-x` as permission errors show an inode."""
        return f'"{self.path}":{self.owner}:{self.group}:{acls.mode_string(self.acl.mode, self.is_dir, self.acl.extended)}'


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


def _subtree(path: str) -> tuple[str, str, str]:
    """The values for `SUBTREE`: the path, and the bounds of the paths below it."""
    base = path.rstrip("/")
    return path, base + "/", base + "0"


def _acl_entries(text: str | None) -> list[AclEntry]:
    """The extended ACL entries kept in an inode's row."""
    return [acls.parse_spec(entry)[0] for entry in json.loads(text)] if text else []


def _count_children(local: Path) -> int:
    """A folder's entries as HDFS counts them (snapshots and uploads in flight are no children)."""
    try:
        with os.scandir(local) as entries:
            return sum(1 for e in entries if e.name != SNAPSHOT and not e.name.endswith(UPLOAD_SUFFIX))
    except OSError:
        return 0


class ChildCounts:
    """How many entries recently used folders hold (a folder's `childrenNum`, and Hadoop's limit on
    it), so that neither makes a big folder be read again for each file created in it. A folder is
    counted once, then kept exact by the store's own changes, each made while holding the store's
    lock. Folders inside snapshots (read-only) are counted afresh each time; at most KEEP are kept."""

    KEEP = 1024

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def of(self, path: str, local: Callable[[], Path]) -> int:
        """The count of the folder at `path` (found by `local` when it has to be counted)."""
        count = self._counts.get(path)
        if count is None:
            count = _count_children(local())
            if f"/{SNAPSHOT}" not in path:
                if len(self._counts) >= self.KEEP:
                    del self._counts[next(iter(self._counts))]  # the one counted longest ago
                self._counts[path] = count
        return count

    def add(self, path: str, delta: int) -> None:
        if path in self._counts:
            self._counts[path] += delta

    def forget(self, path: str) -> None:
        """`path` and every folder below it are gone or moved: their counts with them."""
        below = path.rstrip("/") + "/"
        for known in [k for k in self._counts if k == path or k.startswith(below)]:
            del self._counts[known]


class HdfsStore:
    def __init__(self, root: Path, superuser: str, groups_of: Callable[[str], set[str]] | None = None):
        self.root = root
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Content on its way in is written under a short name of its own here (same file system, so it is
        # renamed into place), never beside its target: a 255-byte name plus a suffix would not fit.
        self.staging = root.with_name(root.name + "-staging")
        shutil.rmtree(self.staging, ignore_errors=True)  # left by a cluster that was killed mid-upload
        self.staging.mkdir(mode=0o700)
        self.name_limit, self.path_limit = _local_limits(root)
        self.superuser = superuser
        self.groups_of = groups_of or (lambda user: set())
        self.max_directory_items = MAX_DIRECTORY_ITEMS
        self._db_lock = threading.RLock()  # the namespace's lock: metadata rows, and the folders' entries with counts
        self._children = ChildCounts()
        self._db = sqlite3.connect(root.parent / "hdfs-owners.sqlite3", check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS inodes (path TEXT PRIMARY KEY, owner TEXT, grp TEXT, perm INTEGER, "
                         "replication INTEGER, atime INTEGER, acl TEXT, snapshottable INTEGER)")
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'owners'").fetchone():  # before permissions were kept
            self._db.execute("INSERT OR IGNORE INTO inodes (path, owner, grp) SELECT path, owner, grp FROM owners")
            self._db.execute("DROP TABLE owners")
        if self._row("/") is None:
            self._put("/", owner=superuser, grp=SUPERGROUP, perm=0o1777)  # anyone may create, only owners remove
        tmp = self.root / "tmp"
        if not tmp.exists():
            tmp.mkdir(mode=0o700)
            self._put("/tmp", owner=superuser, grp=SUPERGROUP, perm=0o1777)

    def close(self) -> None:
        """Let go of the metadata database (the store is not used after)."""
        with self._db_lock:
            self._db.close()

    # -- paths -----------------------------------------------------------------------
    @staticmethod
    def normalize(path: str) -> str:
        """The canonical HDFS path; `..` and NUL are refused, never resolved."""
        if not path.startswith("/"):
            path = "/" + path
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if any(p == ".." or "\x00" in p or ":" in p for p in parts):  # HDFS refuses ':' in names too
            raise HdfsException("IllegalArgumentException", f"Invalid path name {path}")
        if windows_names() and (unfit := next((p for p in parts if unfit_name(p)), None)):  # `..\\x` would leave the store
            raise HdfsException("IllegalArgumentException", f"Invalid path name {path}: {unfit!r} cannot be a file name on "
                                                            f"this local cluster's machine: {unfit_name(unfit)}")
        return "/" + "/".join(parts)

    def local(self, path: str) -> Path:
        """The folder entry for an HDFS path, refusing any that passes through a symbolic link. A path
        longer than this file system holds is returned as is: it never exists (`_check_new_path`)."""
        path = self.normalize(path)
        if path == "/":
            return self.root
        local = self.root / path[1:]
        if len(path.encode()) > self.path_limit:
            return local
        current = str(self.root)
        for part in path[1:].split("/"):
            if len(part.encode()) > self.name_limit:
                break  # nothing of that name can exist, nor below it
            current = os.path.join(current, part)
            if self._entry(path, current) is None:
                break  # nor below a name that does not exist
        return local

    @staticmethod
    def _entry(path: str, local: str) -> os.stat_result | None:
        """The entry at `local` (on the way to the HDFS path `path`) unless it is missing; a symbolic
        link is refused."""
        try:
            st = os.lstat(local)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP):
                return None
            raise
        if stat.S_ISLNK(st.st_mode):
            raise HdfsException("AccessControlException", f"Permission denied: {path} is a symbolic link outside HDFS")
        return st

    def _check_new_path(self, op: str, path: str) -> None:
        """What a path about to be made (by create, mkdirs, or a rename's destination) must respect:
        Hadoop's length and depth (NameNodeRpcServer.checkPathLength), its name length
        (FSDirectory.verifyMaxComponentLength), and what this machine's file system holds."""
        parts = [p for p in path.split("/") if p]
        too_long = f"{op}: Pathname too long.  Limit {MAX_PATH_LENGTH} characters, {MAX_PATH_DEPTH} levels"
        if len(path.encode("utf-16-le")) // 2 > MAX_PATH_LENGTH or len(parts) > MAX_PATH_DEPTH:
            raise HdfsException("IOException", too_long + ".")
        for index, part in enumerate(parts):
            size = len(part.encode())
            if size > self.name_limit:
                raise HdfsException("PathComponentTooLongException", f"The maximum path component name limit of {part} in "
                                    f"directory {'/' + '/'.join(parts[:index])} is exceeded: limit={self.name_limit} length={size}")
        if len(path.encode()) > self.path_limit:
            raise HdfsException("IOException", f"{too_long}, and {self.path_limit} bytes on this local cluster's file system.")

    def _temporary(self) -> Path:
        """A fresh name in the staging folder for content on its way into the store."""
        return self.staging / uuid.uuid4().hex

    def _hdfs(self, local: Path) -> str:
        return "/" + local.relative_to(self.root).as_posix() if local != self.root else "/"

    # -- metadata --------------------------------------------------------------------
    def _row(self, path: str) -> tuple | None:
        with self._db_lock:
            return self._db.execute("SELECT owner, grp, perm, replication, atime, acl, snapshottable FROM inodes WHERE path = ?",
                                    (path,)).fetchone()

    def _put(self, path: str, **fields) -> None:
        """Insert or update some columns of a path's row."""
        names = list(fields)
        with self._db_lock:
            self._db.execute(f"INSERT INTO inodes (path, {', '.join(names)}) VALUES (?{', ?' * len(names)}) "
                             f"ON CONFLICT(path) DO UPDATE SET {', '.join(f'{n} = excluded.{n}' for n in names)}",
                             (path, *fields.values()))

    def _forget(self, path: str) -> None:
        with self._db_lock:
            self._db.execute(f"DELETE FROM inodes WHERE {SUBTREE}", _subtree(path))

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """Several statements committed as one (one WAL write, not one per statement)."""
        with self._db_lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def children(self, inode: Inode) -> int:
        """How many entries the folder `inode` holds, as HDFS counts them."""
        with self._db_lock:
            return self._children.of(inode.path, lambda: inode.local)

    def _admit(self, folder: str) -> None:
        """Room for one more entry in `folder` (FSDirectory.verifyMaxDirItems); the caller holds the lock."""
        count = self._children.of(folder, lambda: self.local(folder))
        if count >= self.max_directory_items:
            raise HdfsException("MaxDirectoryItemsExceededException", f"The directory item limit of {folder} is exceeded: "
                                                                      f"limit={self.max_directory_items} items={count}")

    def _move_rows(self, src: str, dst: str) -> None:
        """The rows of `src` and below it become those of `dst` (which has none left)."""
        with self._transaction() as db:
            db.execute(f"DELETE FROM inodes WHERE {SUBTREE}", _subtree(dst))
            db.execute(f"UPDATE inodes SET path = ? || substr(path, ?) WHERE {SUBTREE}", (dst, len(src) + 1, *_subtree(src)))

    def _inode(self, path: str, local: Path, st: os.stat_result, row: tuple | None = None) -> Inode:
        """The inode at `path`; `row` is its metadata when the caller read it already."""
        row = row or self._row(path)
        owner, group, perm, replication, atime, acl_text, snapshottable = row or NO_ROW
        entries = _acl_entries(acl_text)
        mode = perm if perm is not None else stat.S_IMODE(st.st_mode)  # data kept before modes were recorded
        return Inode(path, local, st, owner or self.superuser, group or SUPERGROUP, Acl(mode, entries),
                     replication or DEFAULT_REPLICATION, atime or 0, bool(snapshottable))

    def _save_acl(self, path: str, acl: Acl) -> None:
        self._put(path, perm=acl.mode, acl=json.dumps([str(e) for e in acl.entries]) if acl.entries else None)

    def lookup(self, path: str) -> Inode | None:
        path = self.normalize(path)
        if path.endswith("/" + SNAPSHOT):
            return self._snapshot_root(path)
        local = self.local(path)
        try:
            st = local.lstat()
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG):
                return None
            raise
        return self._inode(path, local, st)

    def _existing(self, path: str) -> Inode:
        inode = self.lookup(path)
        if inode is None:
            raise not_found(self.normalize(path))
        return inode

    def _chain(self, path: str) -> list[Inode | None]:
        """The inodes of "/", "/a", "/a/b", … up to `path`; None from the first one missing. One walk
        down the path (one `lstat` a level), not one per ancestor."""
        parts = [p for p in path.split("/") if p]
        out: list[Inode | None] = [self.lookup("/")]
        current = str(self.root)
        for i, part in enumerate(parts):
            prefix = "/" + "/".join(parts[: i + 1])
            if SNAPSHOT in parts[: i + 1] or len(part.encode()) > self.name_limit:
                inode = self.lookup(prefix)  # in a snapshot, or a name that cannot exist: the general way
            else:
                current = os.path.join(current, part)
                st = self._entry(prefix, current)
                inode = None if st is None else self._inode(prefix, Path(current), st)
            out.append(inode)
            if inode is None:
                return out + [None] * (len(parts) - i - 1)
        return out

    # -- permissions (FSPermissionChecker.checkPermission) ----------------------------
    def is_superuser(self, user: str) -> bool:
        return user == self.superuser or SUPERGROUP in self.groups_of(user)

    def check(self, user: str, path: str, *, owner: bool = False, ancestor: int | None = None, parent: int | None = None,
              access: int | None = None, sub: int | None = None, ignore_empty: bool = False) -> None:
        """Raise AccessControlException unless `user` may do this to `path`: traverse every existing
        ancestor, then the sticky bit, the ancestor, parent and path access, the whole subtree, ownership."""
        if self.is_superuser(user):
            return
        chain = self._chain(self.normalize(path))
        groups = self.groups_of(user)
        last = chain[-1]
        ancestor_index = len(chain) - 2
        while ancestor_index >= 0 and chain[ancestor_index] is None:
            ancestor_index -= 1
        for inode in chain[: ancestor_index + 1]:
            self._require(inode, user, groups, EXECUTE)
        if parent is not None and parent & WRITE and len(chain) > 1 and last is not None:
            self._sticky(chain[-2], last, user)
        if ancestor is not None and len(chain) > 1:
            self._require(chain[ancestor_index], user, groups, ancestor)
        if parent is not None and len(chain) > 1:
            self._require(chain[-2], user, groups, parent)
        if access is not None:
            self._require(last, user, groups, access)
        if sub is not None and last is not None and last.is_dir:
            self._require_below(last, user, groups, sub, ignore_empty)
        if owner and last is not None and last.owner != user:
            raise denied(f"Permission denied. user={user} is not the owner of inode={last.path}")

    def _require(self, inode: Inode | None, user: str, groups: set[str], access: int) -> None:
        if inode is None or acls.permits(inode.acl, inode.owner, inode.group, user, groups, access):
            return
        raise denied(f"Permission denied: user={user}, access={acls.ACTION_NAMES[access]}, inode={inode.describe()}")

    def _sticky(self, parent: Inode | None, inode: Inode, user: str) -> None:
        if parent is None or not parent.acl.mode & STICKY or user in (parent.owner, inode.owner):
            return
        raise denied(f"Permission denied by sticky bit: user={user}, path={inode.describe()}, parent={parent.describe()}")

    def _require_below(self, top: Inode, user: str, groups: set[str], access: int, ignore_empty: bool) -> None:
        stack = [top]
        while stack:
            folder = stack.pop()
            children = [e for e in os.scandir(folder.local) if e.name != SNAPSHOT and not e.name.endswith(UPLOAD_SUFFIX)]
            if children or not ignore_empty:
                self._require(folder, user, groups, access)
            for entry in children:
                if entry.is_dir(follow_symlinks=False):
                    child = folder.path.rstrip("/") + "/" + entry.name
                    stack.append(self._inode(child, Path(entry.path), entry.stat(follow_symlinks=False)))

    def readable_tree(self, user: str, path: str, max_bytes: int) -> tuple[list[str], int] | None:
        """What `hdfs dfs -du -s` then `hdfs dfs -get` of the folder `path` read as `user`, checked as
        Hadoop checks them: every folder below must be listable (READ_EXECUTE, getContentSummary's
        subtree check), then every file readable (READ, each open's check); the first refusal raises.
        Returns the folders and files (relative paths, parents first) and their total size; None when
        `path` is no folder. The walk stops once the size passes `max_bytes` (the caller refuses such
        a folder: `codeDir=/` over a big store is not walked whole). Uploads in flight and snapshots are
        left out; symbolic links (which the store never follows) too."""
        path = self.normalize(path)
        self.check(user, path)
        top = self.lookup(path)
        if top is None or not top.is_dir:
            return None
        with self._db_lock:  # one query for the whole tree, not one per file
            rows = {row[0]: row[1:] for row in self._db.execute(
                f"SELECT path, owner, grp, perm, replication, atime, acl, snapshottable FROM inodes WHERE {SUBTREE}",
                _subtree(path))}
        check = not self.is_superuser(user)
        groups = self.groups_of(user)
        entries: list[str] = []
        files: list[Inode] = []
        total = 0
        stack = [(top, "")]
        while stack:
            folder, relative = stack.pop()
            if check:
                self._require(folder, user, groups, READ_EXECUTE)
            with os.scandir(folder.local) as children:
                for entry in sorted(children, key=lambda e: e.name):
                    if entry.name == SNAPSHOT or entry.name.endswith(UPLOAD_SUFFIX) or entry.is_symlink():
                        continue
                    child = folder.path.rstrip("/") + "/" + entry.name
                    inode = self._inode(child, Path(entry.path), entry.stat(follow_symlinks=False), rows.get(child) or NO_ROW)
                    entries.append(relative + entry.name)
                    if inode.is_dir:
                        stack.append((inode, relative + entry.name + "/"))
                        continue
                    files.append(inode)
                    total += inode.st.st_size
                    if total > max_bytes:
                        return entries, total
        for inode in files if check else ():
            self._require(inode, user, groups, READ)
        return entries, total

    def require_superuser(self, user: str) -> None:
        if not self.is_superuser(user):
            raise denied(f"Access denied for user {user}. Superuser privilege is required")

    # -- status ----------------------------------------------------------------------
    def status(self, user: str, path: str, suffix: str = "") -> dict:
        path = self.normalize(path)
        self.check(user, path)
        return self._status(self._existing(path), suffix)

    def _status(self, inode: Inode, suffix: str) -> dict:
        st = inode.st
        is_dir = inode.is_dir
        children = self.children(inode) if is_dir else 0
        out = {
            "accessTime": inode.atime if is_dir else int(st.st_atime * 1000),
            "blockSize": 0 if is_dir else BLOCK_SIZE,
            "childrenNum": children,
            "fileId": ROOT_FILE_ID if inode.path == "/" else ROOT_FILE_ID + 1 + st.st_ino % 1_000_000_000,
            "group": inode.group,
            "length": 0 if is_dir else st.st_size,
            "modificationTime": int(st.st_mtime * 1000),
            "owner": inode.owner,
            "pathSuffix": suffix,
            "permission": format(inode.acl.mode, "o"),
            "replication": 0 if is_dir else inode.replication,
            "storagePolicy": 0,
            "type": "DIRECTORY" if is_dir else "FILE",
        }
        if inode.acl.extended:
            out["aclBit"] = True
        if inode.snapshottable:
            out["snapshotEnabled"] = True
        return dict(sorted(out.items()))

    def list(self, user: str, path: str, start_after: str | None = None, limit: int | None = None) -> tuple[list[dict], int]:
        """(statuses, remaining) of a directory's children sorted by name; a file lists itself."""
        path = self.normalize(path)
        inode = self.lookup(path)
        if inode is not None and inode.is_dir:
            self.check(user, path, access=READ_EXECUTE)
        else:
            self.check(user, path)
        if inode is None:
            raise HdfsException("FileNotFoundException", f"File {path} does not exist.")
        if not inode.is_dir:
            return [self._status(inode, "")], 0
        if path.endswith("/" + SNAPSHOT) and not inode.local.exists():
            return [], 0  # a snapshottable folder without snapshots yet
        hidden = (SNAPSHOT,) if not path.endswith("/" + SNAPSHOT) else ()
        entries = sorted((e for e in os.scandir(inode.local) if e.name not in hidden and not e.name.endswith(UPLOAD_SUFFIX)),
                         key=lambda e: e.name)
        if start_after is not None:
            entries = [e for e in entries if e.name > start_after]
        remaining = 0
        if limit is not None and len(entries) > limit:
            remaining = len(entries) - limit
            entries = entries[:limit]
        out = []
        for entry in entries:
            child = path.rstrip("/") + "/" + entry.name
            out.append(self._status(self._inode(child, Path(entry.path), entry.stat(follow_symlinks=False)), entry.name))
        return out, remaining

    def content_summary(self, user: str, path: str) -> dict:
        path = self.normalize(path)
        self.check(user, path, sub=READ_EXECUTE)
        inode = self._existing(path)
        dirs, files, length, consumed = 0, 0, 0, 0
        if inode.is_dir:
            with self._db_lock:  # one query for the tree's replication factors, not one per file
                replication = dict(self._db.execute(
                    f"SELECT path, replication FROM inodes WHERE {SUBTREE} AND replication IS NOT NULL", _subtree(path)))
            stack = [(path, inode.local)]
            while stack:
                folder, local = stack.pop()
                dirs += 1
                with os.scandir(local) as entries:
                    for entry in entries:
                        if entry.name == SNAPSHOT or entry.name.endswith(UPLOAD_SUFFIX):
                            continue
                        child = folder.rstrip("/") + "/" + entry.name
                        if entry.is_dir(follow_symlinks=False):
                            stack.append((child, Path(entry.path)))
                        else:
                            files += 1
                            size = entry.stat(follow_symlinks=False).st_size
                            length += size
                            consumed += size * replication.get(child, DEFAULT_REPLICATION)
        else:
            files, length = 1, inode.st.st_size
            consumed = length * inode.replication
        return {"ContentSummary": {"directoryCount": dirs, "fileCount": files, "length": length, "quota": -1,
                                   "spaceConsumed": consumed, "spaceQuota": -1, "typeQuota": {}}}

    def checksum(self, user: str, path: str) -> dict:
        """MD5-of-0MD5-of-512CRC32C in Hadoop's shape; the digest is an MD5 of per-512-byte MD5s
        (a documented stand-in: the real one hashes CRC32C values)."""
        local = self._file(user, path)
        outer = hashlib.md5()
        with open(local, "rb") as f:
            while chunk := f.read(CHECKSUM_BYTES_PER_CRC * 1024):
                for i in range(0, len(chunk), CHECKSUM_BYTES_PER_CRC):
                    outer.update(hashlib.md5(chunk[i : i + CHECKSUM_BYTES_PER_CRC]).digest())
        hexed = format(CHECKSUM_BYTES_PER_CRC, "08x") + "0" * 16 + outer.hexdigest() + "0" * 8
        return {"FileChecksum": {"algorithm": "MD5-of-0MD5-of-512CRC32C", "bytes": hexed, "length": 28}}

    def _file(self, user: str, path: str) -> Path:
        path = self.normalize(path)
        self.check(user, path, access=READ)
        inode = self._existing(path)
        if inode.is_dir:
            raise HdfsException("FileNotFoundException", f"Path is not a file: {path}")
        return inode.local

    # -- reading ---------------------------------------------------------------------
    def open_range(self, user: str, path: str, offset: int, length: int | None) -> tuple[Path, int, int]:
        local = self._file(user, path)
        size = local.stat().st_size
        if offset < 0 or size > 0 and offset >= size and offset != 0:
            raise HdfsException("IOException", f"Offset={offset} out of the range [0, {size})")
        end = size if length is None else min(size, offset + max(length, 0))
        return local, offset, end

    # -- writing ---------------------------------------------------------------------
    def _writable(self, path: str) -> None:
        """Snapshots are read-only and `.snapshot` is a reserved name (HDFS's own rules)."""
        parts = path.split("/")
        if SNAPSHOT not in parts:
            return
        index = parts.index(SNAPSHOT)
        holder = self.lookup("/".join(parts[:index]) or "/")
        if holder is not None and holder.snapshottable:
            raise HdfsException("SnapshotAccessControlException", "Modification on a read-only snapshot is disallowed")
        raise HdfsException("HadoopIllegalArgumentException", f'"{SNAPSHOT}" is a reserved name.')

    def _ensure_parent(self, path: str) -> None:
        parent = self.local(path).parent
        probe = parent
        while probe != self.root and not probe.exists():
            probe = probe.parent
        if probe.exists() and not probe.is_dir():
            raise HdfsException("ParentNotDirectoryException", f"Parent path is not a directory: {self._hdfs(probe)}")

    def _new_inode(self, path: str, user: str, mode: int, is_dir: bool, replication: int | None = None) -> None:
        """Owner, group (the parent's, as in HDFS) and mode of a new path; a default ACL is inherited."""
        _, group, _, _, _, parent_acl, _ = self._row(_parent(path)) or NO_ROW  # its ACL's defaults are what is inherited
        acl = acls.inherit(Acl(mode, _acl_entries(parent_acl)), mode, is_dir)
        entries = json.dumps([str(e) for e in acl.entries]) if acl.entries else None
        with self._db_lock:  # one statement, one commit: a new inode has nothing below it (a delete or a rename took that)
            self._db.execute("INSERT OR REPLACE INTO inodes (path, owner, grp, perm, replication, acl) VALUES (?, ?, ?, ?, ?, ?)",
                             (path, user, group or SUPERGROUP, acl.mode, None if is_dir else replication, entries))

    @contextmanager
    def writer(self, user: str, path: str, overwrite: bool, permission: int | None, append: bool = False,
               replication: int | None = None) -> Iterator:
        """A file object for the new content: written under a temporary name and renamed into
        place only when complete, so a broken upload never leaves a half-written file."""
        path = self.normalize(path)
        self._writable(path)
        if not append:
            self._check_new_path("create", path)
        local = self.local(path)
        if append:
            self.check(user, path, access=WRITE)
            if not local.is_file():
                raise not_found(path)
        else:
            exists = os.path.lexists(local)
            if overwrite and exists:
                self.check(user, path, access=WRITE)
            self.check(user, path, ancestor=WRITE)
            if exists and local.is_dir():
                raise HdfsException("FileAlreadyExistsException", f"{path} already exists as a directory")
            if not overwrite and exists:
                raise HdfsException("FileAlreadyExistsException", f"{path} for client 127.0.0.1 already exists")
            if not local.parent.is_dir():  # the common case, a folder that exists, costs one stat
                self._ensure_parent(path)
                self.mkdirs(user, self._hdfs(local.parent))
            if not exists:
                with self._db_lock:  # refused before any byte is received, as a namenode refuses the create
                    self._admit(_parent(path))
        if replication is not None:
            _check_replication(replication, path)
        temp = self._temporary()
        if append:
            shutil.copyfile(local, temp)
        try:
            with open(temp, "ab" if append else "wb") as f:
                yield f
            if append:
                os.replace(temp, local)
            else:
                self._place(temp, local, path, user, 0o644 if permission is None else permission, replication)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise

    def _place(self, temp: Path, local: Path, path: str, user: str, mode: int, replication: int | None) -> None:
        """A finished file into its place with its metadata row, as one step for every other call (no
        one sees the file without its owner and mode), counted in its folder (checked once more:
        another create may have filled the folder while this one's content arrived)."""
        folder = _parent(path)
        with self._db_lock:
            new = not os.path.lexists(local)
            if new:
                self._admit(folder)
            os.replace(temp, local)
            if new:
                self._children.add(folder, 1)
            self._new_inode(path, user, mode, False, replication)

    # In-place writes, for PaddlePaddle Cloud's PFS (chunks written at offsets into a file first sized by
    # `touch`): a file shared with a snapshot (a hard link) is copied first, so the snapshot never changes.
    def touch(self, user: str, path: str, size: int) -> None:
        """A file of `size` bytes: created sparse (or emptied to that size) unless it has that size already."""
        path = self.normalize(path)
        local = self.local(path)
        if local.is_dir():
            raise HdfsException("FileAlreadyExistsException", f"{path} already exists as a directory")
        if local.is_file() and local.stat().st_size == size:
            self.check(user, path, access=WRITE)
            return
        with self.writer(user, path, overwrite=True, permission=None) as f:
            f.truncate(size)

    def write_at(self, user: str, path: str, offset: int, data: bytes) -> None:
        path = self.normalize(path)
        self._writable(path)
        self.check(user, path, access=WRITE)
        local = self._existing(path).local
        if local.stat().st_nlink > 1:
            temp = self._temporary()
            shutil.copyfile(local, temp)
            os.replace(temp, local)
        with open(local, "r+b") as f:
            f.seek(offset)
            f.write(data)

    def mkdirs(self, user: str, path: str, permission: int = 0o755) -> bool:
        path = self.normalize(path)
        self._writable(path)
        self._check_new_path("mkdirs", path)
        self.check(user, path)
        local = self.local(path)
        if local.is_dir():
            return True
        self._ensure_parent(path + "/x") if local.exists() else self._ensure_parent(path)
        if local.exists():
            if local.is_dir():
                return True  # made meanwhile by another call
            raise HdfsException("FileAlreadyExistsException", f"Path is not a directory: {path}")
        self.check(user, path, ancestor=WRITE)
        missing = []
        probe = local
        while not probe.exists():
            missing.append(probe)
            probe = probe.parent
        for folder in reversed(missing):
            made = self._hdfs(folder)
            with self._db_lock:  # the folder and its row at once: no call sees it without its owner and mode
                self._admit(_parent(made))
                try:
                    folder.mkdir(mode=0o700)
                except FileExistsError:
                    continue  # made at the same moment by another call, which records it
                self._children.add(_parent(made), 1)
                # Folders created on the way get the mode too, with u+wx so the next one can be made (as HDFS).
                self._new_inode(made, user, permission if folder == local else permission | 0o300, True)
        self._touch_parent(self._hdfs(missing[-1]) if missing else path)
        return True

    def rename(self, user: str, src: str, dst: str, overwrite: bool | None = None) -> bool:
        """Old-style rename (`overwrite` None): False, not an error, when it cannot happen; a folder
        destination receives the source. With `overwrite` True/False: rename2, errors as exceptions."""
        src, dst = self.normalize(src), self.normalize(dst)
        self._writable(src)
        self._writable(dst)
        self._check_new_path("rename", dst)
        s, d = self.local(src), self.local(dst)
        self.check(user, src, parent=WRITE)
        if overwrite is None:
            if d.is_dir():
                d = d / s.name
                dst = self._hdfs(d)
                self._check_new_path("rename", dst)
            self.check(user, dst, ancestor=WRITE)
            if src == "/" or not os.path.lexists(s):
                return False
            if d.exists() or not d.parent.is_dir() or (dst + "/").startswith(src + "/"):
                return False
            self._refuse_if_snapshots(src)
        else:
            self.check(user, dst, ancestor=WRITE)
            self._rename2_allowed(user, src, dst, s, d, overwrite)
        with self._db_lock:
            if _parent(src) != _parent(dst):  # FSDirRenameOp.verifyFsLimitsForRename
                self._admit(_parent(dst))
            replaced = os.path.lexists(d)
            if replaced:  # rename2 has checked it is a file or an empty folder
                shutil.rmtree(d) if d.is_dir() else d.unlink()
            os.rename(s, d)
            self._children.forget(src)
            self._children.forget(dst)
            self._children.add(_parent(src), -1)
            self._children.add(_parent(dst), 0 if replaced else 1)
            self._move_rows(src, dst)
        self._touch_parent(src)
        self._touch_parent(dst)
        return True

    def _rename2_allowed(self, user: str, src: str, dst: str, s: Path, d: Path, overwrite: bool) -> None:
        """FSDirRenameOp's checks for a rename with options, with Hadoop's messages."""
        if not os.path.lexists(s):
            raise HdfsException("FileNotFoundException", f"rename source {src} is not found.")
        if src == dst:
            raise HdfsException("FileAlreadyExistsException", f"The source {src} and destination {dst} are the same")
        if (dst + "/").startswith(src + "/"):
            raise HdfsException("IOException", f"Rename destination {dst} is a directory or file under source {src}")
        if not d.parent.exists():
            raise HdfsException("FileNotFoundException", f"rename destination parent {_parent(dst)} not found.")
        if not d.parent.is_dir():
            raise HdfsException("ParentNotDirectoryException", f"rename destination parent {_parent(dst)} is a file.")
        if d.exists():
            if not overwrite:
                raise HdfsException("FileAlreadyExistsException", f"rename destination {dst} already exists.")
            if d.is_dir() != s.is_dir():
                kind = "directories" if s.is_dir() else "files"
                raise HdfsException("IOException", f"Source {src} and destination {dst} must both be {kind}")
            if d.is_dir() and any(os.scandir(d)):
                raise HdfsException("IOException", f"rename destination directory is not empty: {dst}")
            self.check(user, dst, parent=WRITE)  # replacing what another user owns needs the sticky bit's consent
        self._refuse_if_snapshots(src)

    def delete(self, user: str, path: str, recursive: bool) -> bool:
        path = self.normalize(path)
        self._writable(path)
        local = self.local(path)
        self.check(user, path)
        if not os.path.lexists(local):
            return False
        if path == "/":
            raise HdfsException("AccessControlException", "Cannot delete the root directory")
        is_dir = local.is_dir() and not local.is_symlink()
        if is_dir and not recursive and any(e.name != SNAPSHOT for e in os.scandir(local)):
            raise HdfsException("PathIsNotEmptyDirectoryException", f"`{path} is non empty': Directory is not empty")
        self.check(user, path, parent=WRITE, sub=ALL, ignore_empty=True)
        if is_dir:
            self._refuse_if_snapshots(path)
        aside = self._temporary()
        with self._db_lock:  # gone from its folder at once; a big tree is removed from the staging folder after
            os.rename(local, aside) if is_dir else local.unlink()
            self._children.forget(path)
            self._children.add(_parent(path), -1)
            self._forget(path)
        if is_dir:
            shutil.rmtree(aside)
        self._touch_parent(path)
        return True

    def set_permission(self, user: str, path: str, permission: int) -> None:
        self._writable(path)
        self.check(user, path, owner=True)
        inode = self._existing(path)
        self._save_acl(inode.path, Acl(permission, inode.acl.entries))  # with an ACL, the group bits are its mask

    def set_owner(self, user: str, path: str, owner: str | None, group: str | None) -> None:
        self._writable(path)
        self.check(user, path, owner=True)
        inode = self._existing(path)
        if not self.is_superuser(user):
            if owner and owner != user:
                raise denied("Non-super user cannot change owner")
            if group and group not in self.groups_of(user):
                raise denied(f"User does not belong to {group}")
        self._put(inode.path, owner=owner or inode.owner, grp=group or inode.group)

    def set_times(self, user: str, path: str, mtime: int, atime: int) -> None:
        self._writable(path)
        self.check(user, path, access=WRITE)
        inode = self._existing(path)
        local = inode.local
        if inode.is_dir:
            if atime != -1:
                self._put(inode.path, atime=atime)
            if mtime != -1:
                os.utime(local, ns=(inode.st.st_atime_ns, mtime * 1_000_000))
            return
        if inode.st.st_nlink > 1:  # shared with a snapshot: the snapshot keeps its own times
            temp = self._temporary()
            shutil.copy2(local, temp)
            os.replace(temp, local)
        st = local.stat()
        os.utime(local, ns=(st.st_atime_ns if atime == -1 else atime * 1_000_000, st.st_mtime_ns if mtime == -1 else mtime * 1_000_000))

    def set_replication(self, user: str, path: str, replication: int) -> bool:
        path = self.normalize(path)
        self._writable(path)
        self.check(user, path, access=WRITE)
        inode = self.lookup(path)
        if inode is None or inode.is_dir:
            return False
        _check_replication(replication, path)
        self._put(path, replication=replication)
        return True

    def _touch_parent(self, path: str) -> None:
        parent = self.local(path).parent
        if parent.is_dir():
            os.utime(parent)

    # -- ACLs ------------------------------------------------------------------------
    def acl_status(self, user: str, path: str) -> dict:
        path = self.normalize(path)
        self.check(user, path)
        inode = self.lookup(path)
        if inode is None:
            raise HdfsException("FileNotFoundException", f"cannot find {path}")
        return {"AclStatus": {"entries": [str(e) for e in inode.acl.entries], "group": inode.group, "owner": inode.owner,
                              "permission": format(inode.acl.mode, "o"), "stickyBit": bool(inode.acl.mode & STICKY)}}

    def change_acl(self, user: str, path: str, op: str, spec: list[AclEntry]) -> None:
        """SETACL, MODIFYACLENTRIES, REMOVEACLENTRIES, REMOVEDEFAULTACL or REMOVEACL."""
        path = self.normalize(path)
        self._writable(path)
        self.check(user, path, owner=True)
        inode = self.lookup(path)
        if inode is None:
            raise HdfsException("FileNotFoundException", f"cannot find {path}")
        try:
            if op == "SETACL":
                acl = acls.replace(inode.acl, spec, inode.is_dir)
            elif op == "MODIFYACLENTRIES":
                acl = acls.modify(inode.acl, spec, inode.is_dir)
            elif op == "REMOVEACLENTRIES":
                acl = acls.remove_entries(inode.acl, spec, inode.is_dir)
            elif op == "REMOVEDEFAULTACL":
                acl = acls.remove_default(inode.acl)
            else:
                acl = acls.remove_all(inode.acl)
        except acls.AclError as exc:
            raise HdfsException("AclException", str(exc)) from None
        self._save_acl(path, acl)

    # -- snapshots -------------------------------------------------------------------
    def _snapshot_root(self, path: str) -> Inode | None:
        """`<dir>/.snapshot` of a snapshottable folder: the folder of its snapshots (maybe none yet)."""
        holder = self.lookup(_parent(path))
        if holder is None or not holder.snapshottable:
            return None
        return Inode(path, holder.local / SNAPSHOT, holder.st, holder.owner, holder.group, Acl(holder.acl.mode & 0o777),
                     DEFAULT_REPLICATION, 0, False)

    def _snapshottable(self, user: str, path: str) -> Inode:
        path = self.normalize(path)
        self.check(user, path, owner=True)
        inode = self._existing(path)
        if not inode.is_dir or not inode.snapshottable:
            raise HdfsException("SnapshotException", f"Directory is not a snapshottable directory: {path}")
        return inode

    def allow_snapshot(self, user: str, path: str) -> None:
        self.require_superuser(user)
        inode = self._folder(path)
        self._put(inode.path, snapshottable=1)

    def disallow_snapshot(self, user: str, path: str) -> None:
        self.require_superuser(user)
        inode = self._folder(path)
        if self._snapshots(inode):
            raise HdfsException("SnapshotException", f"The directory {inode.path} has snapshot(s). "
                                                     "Please redo the operation after removing all the snapshots.")
        self._put(inode.path, snapshottable=0)

    def _folder(self, path: str) -> Inode:
        path = self.normalize(path)
        inode = self.lookup(path)
        if inode is None:
            raise HdfsException("FileNotFoundException", f"Directory does not exist: {path}")
        if not inode.is_dir:
            raise HdfsException("PathIsNotDirectoryException", f"Path is not a directory: {path}")
        return inode

    @staticmethod
    def _snapshots(inode: Inode) -> list[str]:
        folder = inode.local / SNAPSHOT
        return sorted(os.listdir(folder)) if folder.is_dir() else []

    def create_snapshot(self, user: str, path: str, name: str | None) -> str:
        inode = self._snapshottable(user, path)
        name = name or time.strftime("s%Y%m%d-%H%M%S", time.localtime()) + f".{int(time.time() * 1000) % 1000:03d}"
        self._snapshot_name(name)
        if name in self._snapshots(inode):
            raise HdfsException("SnapshotException",
                                f'Failed to add snapshot: there is already a snapshot with the same name "{name}".')
        target = inode.local / SNAPSHOT / name
        target.parent.mkdir(mode=0o700, exist_ok=True)
        shutil.copytree(inode.local, target, symlinks=True, copy_function=_link_or_copy,
                        ignore=lambda folder, names: [n for n in names if n == SNAPSHOT or n.endswith(UPLOAD_SUFFIX)])
        prefix = inode.path.rstrip("/")
        snapshot_path = f"{prefix}/{SNAPSHOT}/{name}"
        with self._db_lock:
            rows = self._db.execute(f"SELECT * FROM inodes WHERE {SUBTREE}", _subtree(inode.path)).fetchall()
            for row in rows:
                rest = row[0][len(prefix):]
                if f"/{SNAPSHOT}/" in rest + "/":
                    continue
                self._db.execute("INSERT OR REPLACE INTO inodes VALUES (?, ?, ?, ?, ?, ?, ?, 0)", (snapshot_path + rest, *row[1:7]))
        return snapshot_path

    def delete_snapshot(self, user: str, path: str, name: str) -> None:
        inode = self._snapshottable(user, path)
        if name not in self._snapshots(inode):
            raise HdfsException("SnapshotException",
                                f"Cannot delete snapshot {name} from path {inode.path}: the snapshot does not exist.")
        shutil.rmtree(inode.local / SNAPSHOT / name)
        self._forget(f"{inode.path.rstrip('/')}/{SNAPSHOT}/{name}")
        if not self._snapshots(inode):
            (inode.local / SNAPSHOT).rmdir()

    def rename_snapshot(self, user: str, path: str, old: str, new: str) -> None:
        inode = self._snapshottable(user, path)
        existing = self._snapshots(inode)
        if old not in existing:
            raise HdfsException("SnapshotException", f"The snapshot {old} does not exist for directory {inode.path}")
        self._snapshot_name(new)
        if new in existing:
            raise HdfsException("SnapshotException", f"The snapshot {new} already exists for directory {inode.path}")
        os.rename(inode.local / SNAPSHOT / old, inode.local / SNAPSHOT / new)
        src, dst = f"{inode.path.rstrip('/')}/{SNAPSHOT}/{old}", f"{inode.path.rstrip('/')}/{SNAPSHOT}/{new}"
        self._move_rows(src, dst)

    @staticmethod
    def _snapshot_name(name: str) -> None:
        if not name or "/" in name or name in (".", "..", SNAPSHOT):
            raise HdfsException("HadoopIllegalArgumentException", f"Invalid snapshot name: {name}")

    def _refuse_if_snapshots(self, path: str) -> None:
        """A folder that holds snapshots (itself or below) cannot be deleted or moved away."""
        with self._db_lock:
            rows = self._db.execute(f"SELECT path FROM inodes WHERE snapshottable = 1 AND {SUBTREE}", _subtree(path)).fetchall()
        for (folder,) in rows:
            inode = self.lookup(folder)
            if inode is not None and self._snapshots(inode):
                raise HdfsException("SnapshotException", f"The directory {path} cannot be deleted since {folder} "
                                                         "is snapshottable and already has snapshots")

    # -- housekeeping ----------------------------------------------------------------
    def ensure_home(self, name: str) -> None:
        """`/user/<name>` owned by that user, as an HDFS administrator creates it."""
        if not (self.root / "user").is_dir():
            self.mkdirs(self.superuser, "/user", 0o755)
        home = f"/user/{name}"
        if not self.local(home).exists():
            self.mkdirs(self.superuser, home, 0o755)
            self._put(home, owner=name)


def _check_replication(replication: int, path: str) -> None:
    if replication < 1:
        raise HdfsException("IllegalArgumentException",
                            f'Invalid value for webhdfs parameter "replication": Invalid value: "{replication}" < 1')
    if replication > MAX_REPLICATION:
        raise HdfsException("IOException", f"Requested replication factor of {replication} exceeds maximum of "
                                           f"{MAX_REPLICATION} for {path} from 127.0.0.1")


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _local_limits(root: Path) -> tuple[int, int]:
    """(bytes in a name, bytes in an HDFS path) that the file system under `root` holds: Hadoop's
    255-byte names where it allows them, and what is left of PATH_MAX after the folder's own path."""
    try:
        name_max, path_max = os.pathconf(root, "PC_NAME_MAX"), os.pathconf(root, "PC_PATH_MAX")
    except (AttributeError, OSError, ValueError):  # no pathconf (Windows): the common limits
        name_max, path_max = 255, 4096
    return min(MAX_COMPONENT_BYTES, name_max), path_max - 1 - len(os.fsencode(root))
