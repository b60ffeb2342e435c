"""The one storage interface: what the HDFS explorer (`service/hdfs.py`), the code upload and the
job commands ask of a cluster's file system, whatever its kind. WebHDFS (`webhdfs.Hdfs`) and
PaddlePaddle Cloud's file server (`pfs.Pfs`) implement it; both fail with the same `errors.py`
classes (a missing path is `NotFound`, a refused one `PermissionDenied`, an operation the platform
does not have `Unsupported`), their messages naming the storage (`name`).

An abstract class, not a protocol: a storage that misses a method fails when it is made, not when a
user first reaches the method (as PFS once did with `read_into`).
"""

from __future__ import annotations

import contextlib
import hashlib
import posixpath
import secrets
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import BinaryIO, ClassVar

from ..core.messages import Message, message
from ..errors import Interrupted, InvalidInput, NotFound, PaiError, PermissionDenied

CHUNK = 1 << 20  # bytes per read of a streamed file: memory stays bounded whatever its size
PARTIAL = "._COPYING_"  # what a file is called while it is written (Hadoop's `hdfs dfs -put` says it so)

Sent = Callable[[int], None]  # bytes of one file sent so far


@dataclass(frozen=True, slots=True)
class Stat:
    """One entry of a storage: what `ls` shows of it."""

    name: str  # the last part of its path ("" for the root)
    is_dir: bool
    size: int  # bytes (0 for a folder)
    modified: int  # milliseconds since the epoch
    permission: str  # octal, as `hdfs dfs -ls` reads it ("755")
    owner: str
    group: str


class Storage(ABC):
    """A cluster's file system. Paths are absolute posix paths; `home` is where relative ones start."""

    name: ClassVar[str | Message]  # the storage's name in messages: "HDFS", "PFS", the local storage
    renames: ClassVar[bool] = True  # whether it can rename (PFS cannot: `rename` refuses with Unsupported)
    folder_renames: ClassVar[bool] = True  # whether renaming a folder is one step, not a copy per file
    home: str

    # -- browsing --------------------------------------------------------------------------------
    @abstractmethod
    def status(self, path: str) -> Stat | None:
        """The entry at `path`, or None when nothing is there (any other failure is an error)."""

    @abstractmethod
    def list(self, path: str) -> list[Stat]:
        """The entries of a folder, by name. `NotFound` when there is no such folder."""

    @abstractmethod
    def mkdir(self, path: str) -> None:
        """A folder and the folders above it (as `mkdir -p`)."""

    @abstractmethod
    def delete(self, path: str, recursive: bool = False) -> bool:
        """Remove a file (a folder with everything in it when `recursive`); whether anything was there."""

    @abstractmethod
    def rename(self, src: str, dst: str) -> None:
        """Move `src` to `dst`; `Unsupported` where the platform cannot."""

    def content(self, path: str) -> dict[str, int]:
        """What a folder holds, as WebHDFS's ContentSummary counts it: `fileCount`, `length` (bytes)
        and `directoryCount` (the folder itself included). Walked here; a storage that can say it in
        one request (WebHDFS) does."""
        files = length = 0
        folders, todo = 1, [path]
        while todo:
            folder = todo.pop()
            for entry in self.list(folder):
                if entry.is_dir:
                    folders += 1
                    todo.append(posixpath.join(folder, entry.name))
                else:
                    files, length = files + 1, length + entry.size
        return {"fileCount": files, "length": length, "directoryCount": folders}

    # -- reading ---------------------------------------------------------------------------------
    @abstractmethod
    def stream(self, path: str, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
        """The bytes of a file from `offset` on (at most `length`), in pieces of bounded size."""

    def read(self, path: str, offset: int = 0, length: int | None = None) -> bytes:
        return b"".join(self.stream(path, offset, length))

    # -- writing ---------------------------------------------------------------------------------
    @abstractmethod
    def write(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        """A whole file at `path` (replacing one there), written under that very name as it
        arrives: a failure can leave part of it there. Users' files go through `put`."""

    def put(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        """A whole file at `path`, or nothing: it is written under a temporary name beside it and
        renamed into place once whole (`commit`); a failure removes the temporary file."""
        temp = partial(path)
        try:
            self.write(temp, data, sent)
            self.commit(temp, path)
        except BaseException as exc:
            with contextlib.suppress(PaiError, OSError):
                self.delete(temp)
            if isinstance(exc, PaiError):
                raise said_of(exc, temp, path) from None
            raise

    def commit(self, temp: str, path: str) -> None:
        """A file written whole under `temp` takes the place of `path` (a storage may do it in one step)."""
        self.replace(temp, path)

    def replace(self, src: str, dst: str) -> None:
        """`src` becomes `dst` by renames only: whatever was at `dst` is moved aside first and
        removed after, and put back if `src` cannot take its place. `dst` never holds a part of `src`."""
        if self.status(dst) is None:
            self.rename(src, dst)
            return
        aside = f"{src}.old"
        self.rename(dst, aside)
        try:
            self.rename(src, dst)
        except PaiError:
            self.rename(aside, dst)
            raise
        with contextlib.suppress(PaiError):
            self.delete(aside, recursive=True)

    @abstractmethod
    def close(self) -> None:
        """Let go of the connections it keeps."""

    # -- errors, said the same way by every storage ---------------------------------------------
    def missing(self, path: str) -> NotFound:
        return missing(path, self.name)

    def denied(self, path: str, why: str | Message) -> PermissionDenied:
        return denied(path, self.name, why)


def missing(path: str, storage: str | Message) -> NotFound:
    return NotFound(message("storage.missing", path=path, storage=storage))


def denied(path: str, storage: str | Message, why: str | Message) -> PermissionDenied:
    return PermissionDenied(message("storage.denied", path=path, storage=storage, why=why))


def path_parts(path: str, storage: str | Message) -> list[str]:
    """The names along an absolute storage path, refused before any file work when one could leave
    the folder the storage was opened at (`..`) or means something else to the server (a `\\`, NUL)."""
    parts = [p for p in path.split("/") if p and p != "."]
    if any(p == ".." or "\\" in p or "\0" in p for p in parts):
        raise InvalidInput(message("storage.bad-path", path=path, storage=storage))
    return parts


def partial(path: str) -> str:
    """The temporary name beside `path` that a file (or folder) is written under until it is whole."""
    folder, name = posixpath.split(path)
    return posixpath.join(folder, f"{name}.{secrets.token_hex(4)}{PARTIAL}")


def said_of(exc: PaiError, temp: str, path: str) -> PaiError:
    """`exc` said of the `path` the user named rather than the temporary name it was written under."""
    return exc.replaced(temp, path) if temp in exc.message else exc


class Cancel(threading.Event):
    """A transfer's "stop now" (Ctrl-C, the editor's Cancel), set from another thread: besides
    what a `threading.Event` does, setting it runs the callbacks registered with `on_set`, which
    break waits no piece of the transfer would end (a request whose answer is slow to come)."""

    def __init__(self) -> None:
        super().__init__()
        self._callbacks: list[Callable[[], None]] = []
        self._guard = threading.Lock()

    def set(self) -> None:
        with self._guard:
            super().set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            with contextlib.suppress(Exception):
                callback()

    def on_set(self, callback: Callable[[], None]) -> None:
        with self._guard:
            if not self.is_set():
                self._callbacks.append(callback)
                return
        callback()


class Body:
    """A local file sent as a request body in `CHUNK`-sized reads, hashed on the way (so a file is
    read once to be both sent and fingerprinted) and counted (`on_sent`, for progress). The hashing
    runs in a thread of its own beside the sending (both release the GIL), so it costs no time on a
    big file. Sent again from its start when a request has to be sent again (`rewind`); use it as a
    context manager."""

    AHEAD = 4  # pieces that may wait for the hasher

    def __init__(self, file: BinaryIO, size: int, digest: str | None = "sha256"):
        """`digest` None: sent without hashing."""
        self.file, self.size, self.digest = file, size, digest
        self.hash = hashlib.new(digest) if digest else None
        self.sent = 0
        self.on_sent: Sent | None = None  # told the bytes read so far, by a storage that streams the body as it reads it
        self.aborted = False
        self._hasher = ThreadPoolExecutor(1, thread_name_prefix="pai-hash")
        self._pending: deque[Future] = deque()

    def __enter__(self) -> Body:
        return self

    def __exit__(self, *exc) -> None:
        self._hasher.shutdown(wait=True, cancel_futures=True)

    def _settle(self, keep: int = 0) -> None:
        while len(self._pending) > keep:
            self._pending.popleft().result()

    def rewind(self) -> None:
        self._settle()
        self.file.seek(0)
        self.hash, self.sent = hashlib.new(self.digest) if self.digest else None, 0

    def read(self, n: int = -1) -> bytes:
        if self.aborted:
            raise Interrupted(message("jobs.cancelled-upload"))
        left = self.size - self.sent
        name = getattr(self.file, "name", "a file")
        try:
            chunk = self.file.read(left if n < 0 else min(n, left)) if left > 0 else b""
        except OSError as exc:  # the local disk, not the network: said as such
            raise InvalidInput(message("upload.unreadable", name=str(name), why=exc.strerror or str(exc))) from None
        if left > 0 and not chunk:
            raise InvalidInput(message("upload.shrank", name=str(name)))
        if chunk and self.hash is not None:
            self._pending.append(self._hasher.submit(self.hash.update, chunk))
            self._settle(self.AHEAD)
        self.sent += len(chunk)
        if chunk and self.on_sent is not None:
            self.on_sent(self.sent)
        return chunk

    def abort(self) -> None:
        """Stop sending this body (from another thread): its next piece is not read but fails, which
        ends the request and drops its connection (never reused half-sent)."""
        self.aborted = True

    def hexdigest(self) -> str:
        """The hash of what was sent (once the hasher has caught up)."""
        self._settle()
        return self.hash.hexdigest() if self.hash is not None else ""

    def __len__(self) -> int:
        return self.size


def read_pieces(f: BinaryIO, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
    """An open file's bytes from `offset` on (at most `length`), `CHUNK` at a time."""
    f.seek(offset)
    left = length
    while left is None or left > 0:
        chunk = f.read(CHUNK if left is None else min(CHUNK, left))
        if not chunk:
            return
        if left is not None:
            left -= len(chunk)
        yield chunk


def delete_walked(storage: Storage, path: str, recursive: bool, remove_file: Callable[[str], None],
                  remove_folder: Callable[[str], None]) -> bool:
    """`Storage.delete` on a storage that removes one entry at a time: a folder's entries first
    (when `recursive`; else an empty folder only, as the server refuses another)."""
    found = storage.status(path)
    if found is None:
        return False
    if not found.is_dir:
        remove_file(path)
        return True
    if recursive:
        for entry in storage.list(path):
            delete_walked(storage, posixpath.join(path, entry.name), True, remove_file, remove_folder)
    remove_folder(path)
    return True


def pieces(data: bytes | Body, size: int) -> Iterator[bytes]:
    """`data` in pieces of `size` bytes (the last one shorter), read from a `Body` as they are needed."""
    if isinstance(data, bytes):
        for offset in range(0, len(data), size):
            yield data[offset:offset + size]
        return
    while piece := data.read(size):
        yield piece
