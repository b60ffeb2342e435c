"""PaddlePaddle Cloud's file server (PFS, §A.14) and the Django server's simple file API (§A.13) over
the local cluster's HDFS store: `/pfs/<dc>/home/<user>/…` is `/user/<user>/…` there, and
`/pfs/<dc>/public/…` is `/public/…`, read-only. Replies as the Go server writes them: HTTP 200 and
`{"err": …, "results": …}`, Go's error strings included.
"""

from __future__ import annotations

import fnmatch
import hashlib
import posixpath
from pathlib import Path
from urllib.parse import parse_qs, urlencode

from ...common import multipart
from ..hdfs_store import HdfsException, HdfsStore
from .pods import home

MIN_CHUNK, MAX_CHUNK = 4096, 32 * 1024 * 1024
MAX_CHUNK_BODY = MAX_CHUNK + (1 << 20)  # a POSTed chunk with its multipart framing
MAX_FILE = 1 << 40
PUBLIC_READS = ("ls", "stat", "GetChunk")
EMPTY_MD5 = hashlib.md5(b"").hexdigest()


class PfsError(Exception):
    """An `err` string of the Go server."""


def clean(path: str) -> str:
    """Go's path.Clean of a trimmed path."""
    path = path.strip()
    cleaned = posixpath.normpath(path) if path else "."
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned


def validate(paths: list[str], user: str, command: str) -> None:
    """ValidatePfsPath: under /pfs/, the caller's own home, or public for reading."""
    if not paths:
        raise PfsError("not enough arguments")
    for path in paths:
        if not path.startswith("/pfs/"):
            raise PfsError(f"should be pfs path:{path}")
        parts = clean(path).split("/")
        if len(parts) >= 4 and parts[3] == "public":
            if command not in PUBLIC_READS:
                raise PfsError("public data supports only ls or stat command")
            continue
        if len(parts) < 5:
            raise PfsError("the path should be in format eg:/pf/datacentername/")
        if parts[4] != user:
            raise PfsError("what you request is unauthorized")


class Pfs:
    def __init__(self, store: HdfsStore):
        self.store = store
        if store.lookup("/public") is None:
            store.mkdirs(store.superuser, "/public", 0o755)  # public data: readable by all, written by the admin

    # -- paths ---------------------------------------------------------------------------
    @staticmethod
    def to_hdfs(path: str) -> str:
        parts = clean(path).split("/")
        if len(parts) >= 4 and parts[3] == "public":
            return "/" + "/".join(["public", *parts[4:]])
        return "/".join([home(parts[4]), *parts[5:]]).rstrip("/") or "/"

    @staticmethod
    def to_pfs(hdfs_path: str, like: str) -> str:
        """An HDFS path back in the form of the PFS path `like` came in."""
        parts = clean(like).split("/")
        if len(parts) >= 4 and parts[3] == "public":
            return "/".join(parts[:3]) + "/" + hdfs_path.lstrip("/")
        return "/".join(parts[:5]) + hdfs_path[len(home(parts[4])):]

    def _call(self, op: str, path: str, fn, *args):
        try:
            return fn(*args)
        except HdfsException as exc:
            if exc.exception == "FileNotFoundException":
                raise PfsError(f"{op} {path}: no such file or directory") from None
            if "AccessControl" in exc.exception:
                raise PfsError(f"{op} {path}: permission denied") from None
            raise PfsError(f"{op} {path}: {exc.message}") from None

    def _status(self, user: str, path: str, op: str = "stat") -> dict:
        return self._call(op, path, self.store.status, self.store.superuser if self._public(path) else user, self.to_hdfs(path))

    @staticmethod
    def _public(path: str) -> bool:
        parts = clean(path).split("/")
        return len(parts) >= 4 and parts[3] == "public"

    def _glob(self, user: str, path: str) -> list[str]:
        """filepath.Glob: the pattern's last part matched in its folder (the path itself when no pattern)."""
        if not any(ch in path for ch in "*?["):
            try:
                self._status(user, path)
            except PfsError:
                return []
            return [path]
        folder, pattern = posixpath.split(clean(path))
        try:
            children = self._list(user, folder)
        except PfsError:
            return []
        return sorted(posixpath.join(folder, c["pathSuffix"]) for c in children if fnmatch.fnmatchcase(c["pathSuffix"], pattern))

    def _list(self, user: str, path: str) -> list[dict]:
        who = self.store.superuser if self._public(path) else user
        return self._call("open", path, lambda: self.store.list(who, self.to_hdfs(path))[0])

    @staticmethod
    def _result(path: str, status: dict) -> dict:
        return {"Path": path, "ModTime": status["modificationTime"] * 1_000_000, "Size": status["length"],
                "IsDir": status["type"] == "DIRECTORY"}

    # -- commands ------------------------------------------------------------------------
    def ls(self, user: str, args: list[str], recursive: bool) -> list[dict]:
        validate(args, user, "ls")
        results: list[dict] = []
        for arg in args:
            matched = self._glob(user, arg)
            if not matched:
                raise PfsError("no such file or directory")
            for path in matched:
                status = self._status(user, path, "lstat")
                if status["type"] != "DIRECTORY":
                    results.append(self._result(path, status))
                    continue
                stack = [path]
                while stack:
                    folder = stack.pop(0)
                    for child in self._list(user, folder):
                        child_path = posixpath.join(folder, child["pathSuffix"])
                        results.append(self._result(child_path, child))
                        if recursive and child["type"] == "DIRECTORY":
                            stack.append(child_path)
        return results

    def stat(self, user: str, path: str) -> dict:
        validate([path], user, "stat")
        return self._result(path, self._status(user, path))

    def mkdir(self, user: str, paths: list[str]) -> list[dict]:
        validate(paths, user, "mkdir")
        out = []
        for path in paths:
            target = self.to_hdfs(path)
            node = self.store.lookup(target)
            if node is not None and not node.is_dir:
                raise PfsError("already exist")
            self._call("mkdir", path, self.store.mkdirs, user, target, 0o700)
            out.append({"path": path})
        return out

    def touch(self, user: str, path: str, size: int) -> dict:
        validate([path], user, "touch")
        if size < 0 or size > MAX_FILE:
            raise PfsError(f"bad file size:{size}")
        target = self.to_hdfs(path)
        node = self.store.lookup(target)
        if node is not None and node.is_dir:
            raise PfsError("directory already exist")
        parent = self.store.lookup(posixpath.dirname(target))
        if parent is None or not parent.is_dir:
            raise PfsError(f"open {path}: no such file or directory")
        self._call("open", path, self.store.touch, user, target, size)
        return {"path": path}

    def rm(self, user: str, paths: list[str], recursive: bool) -> list[dict]:
        validate(paths, user, "rm")
        out = []
        for pattern in paths:
            for path in self._glob(user, pattern):
                status = self._status(user, path)
                if status["type"] == "DIRECTORY" and not recursive:
                    raise PfsError(f"can't del directory:{path}")
                self._call("remove", path, self.store.delete, user, self.to_hdfs(path), True)
                out.append({"path": path})
        return out

    def chunk_meta(self, user: str, path: str, offset: int, size: int) -> dict:
        validate([path], user, "GetChunkMeta")
        if size < MIN_CHUNK or size > MAX_CHUNK:
            raise PfsError("chunksize error")
        data = self.read(user, path, offset, size)
        return {"offset": offset, "checksum": hashlib.md5(data).hexdigest(), "len": len(data)}

    def locate(self, user: str, path: str, offset: int, size: int) -> tuple[Path, int]:
        """The file holding a chunk and the chunk's length (shorter at the end of the file)."""
        _seekable(path, offset)
        who = self.store.superuser if self._public(path) else user
        local, start, end = self._call("open", path, self.store.open_range, who, self.to_hdfs(path), 0, None)
        return local, max(0, min(size, end - offset))

    def read(self, user: str, path: str, offset: int, size: int) -> bytes:
        local, length = self.locate(user, path, offset, size)
        with open(local, "rb") as f:
            f.seek(offset)
            return f.read(length)

    def write(self, user: str, path: str, offset: int, data: bytes) -> None:
        validate([path], user, "PostChunk")
        _seekable(path, offset)
        self._call("open", path, self.store.write_at, user, self.to_hdfs(path), offset, data)


def _seekable(path: str, offset: int) -> None:
    """The Go server seeks to the offset first: a negative one is its `Seek` error."""
    if offset < 0:
        raise PfsError(f"seek {path}: invalid argument")


def chunk_param(text: str) -> tuple[str, int, int]:
    """ParseChunkParam of a part's file name or a query: (path, offset, size)."""
    values = parse_qs(text, keep_blank_values=True)
    if not values.get("path") or not values.get("offset") or not values.get("chunksize"):
        raise PfsError("parse json error")
    try:
        offset = int(values["offset"][0])
    except ValueError:
        raise PfsError("parse json error") from None
    try:
        size = int(values["chunksize"][0])
    except ValueError:
        raise PfsError("chunksize error") from None
    return values["path"][0], offset, size


def chunk_frame(path: str, offset: int, size: int) -> tuple[bytes, bytes, str]:
    """(what comes before the chunk's bytes, what comes after, Content-Type) of a GetChunk answer, so
    the bytes can be streamed from the file between them."""
    name = urlencode({"chunksize": size, "offset": offset, "path": path})
    empty, content_type = multipart.encode("chunk", name, b"")
    tail = f"\r\n--{multipart.boundary_of(content_type)}--\r\n".encode()
    return empty[: -len(tail)], tail, content_type
