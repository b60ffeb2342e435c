"""A cluster's NFS storage (an OpenPAI storage of type `nfs`: `data.server` and `data.path`, with the
volume's `mountOptions`) as a `Storage`, through `nfs-rs`, a user-space NFS client (NFSv3, v4.0,
v4.1; AUTH_SYS): no kernel mount, no root, nothing installed beside the wheel. Paths are the
storage's own (`/` is the exported folder, or the sub-path it was opened at, as a `share: false`
storage's `<user>/`).

Why this client: of the user-space NFS clients PyPI has, it is the one that is maintained, typed and
speaks NFSv4 (which a server without rpcbind, as a user-space ganesha on a free port, answers alone);
the SWIG `libnfs` binding is from 2016 and `anfs` speaks NFSv3 only. Its wheels are for Linux x86_64
and Python 3.11+: elsewhere an NFS storage is refused in one line (`available`).

NFSv4 is asked first, at the server's pseudo-root `/`, the export's path put before every path
(nfs-rs cannot name an export's own root, so the export is reached as a folder of the pseudo-root);
NFSv3 mounts the export itself, and is untried here: the tests' ganesha, on a free port without
rpcbind, answers NFSv4 only. The volume's mount options say the port (`port=`) and version
(`nfsvers=` / `vers=`) as they would for a kernel mount. A put is written under a temporary name and
switched in by one rename, which NFS makes replace the target in one step. NFS's AUTH_SYS has no
secret: the client says the process's numeric user and group, as a kernel mount does.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..core.messages import message
from ..errors import ServerError, Unsupported
from .base import CHUNK, Body, Sent, Stat, Storage, delete_walked, path_parts, pieces
from .http import at_storage, transport_error

TIMEOUT = 10  # seconds to connect
OPERATION_TIMEOUT = 120  # seconds one call may take (a write of `PIECE` bytes on a slow link included)
PIECE = 8 * CHUNK  # bytes per write call: nfs-rs sends up to 8 negotiated chunks of one call at once
PORT = 2049
RETRIES = 5  # tries of a call the server says may be made again
AGAIN = {"NFS4ERR_RETRY_UNCACHED_REP", "NFS4ERR_DELAY", "NFS4ERR_GRACE", "NFS3ERR_JUKEBOX"}
READ_ONLY = {errno.EROFS}
REFUSED = {errno.EACCES, errno.EPERM}


def available() -> bool:
    """Whether this machine has the NFS client (nfs-rs ships wheels for Linux x86_64, Python 3.11+)."""
    try:
        import nfs_rs  # noqa: F401
    except ImportError:
        return False
    return True


def mount_settings(options: Sequence[str] | None) -> tuple[int, str | None, bool]:
    """The port, the NFS version ("3", "4.0", "4.1"; None: v4 then v3) and whether to use an
    unprivileged source port, from a volume's kernel mount options (`port=`, `nfsvers=`/`vers=`,
    `noresvport`; the others are a kernel mount's business)."""
    port, version = PORT, None
    if sys.platform == "win32":
        noresvport = True
    else:
        noresvport = os.geteuid() != 0  # a source port below 1024 is root's
    for option in options or []:
        for part in str(option).replace("-o", " ").replace(",", " ").split():
            key, _, value = part.partition("=")
            if key == "port" and value.isdigit() and 0 < int(value) < 65536:
                port = int(value)
            elif key in ("nfsvers", "vers") and value:
                version = {"3": "3", "4": None, "4.0": "4.0"}.get(value, "4.1")
            elif key == "noresvport":
                noresvport = True
    return port, version, noresvport


class Nfs(Storage):
    name = "NFS"

    def __init__(self, server: str, export: str, *, port: int = PORT, version: str | None = None,
                 noresvport: bool = True, root: str = "", home: str = "/", timeout: int = TIMEOUT):
        """`server`, `export`: the storage's `data.server` and `data.path`; `version`: "3", "4.0" or
        "4.1" (None: NFSv4, else NFSv3); `root`: a sub-path every path is under."""
        self.server, self.port, self.version, self.noresvport, self.timeout = server, port, version, noresvport, timeout
        self.export = path_parts(export, self.name)
        self.root = path_parts(root, self.name)
        self.home = home
        self.what = at_storage(self.name, f"{server}:/{'/'.join(self.export)}")
        self._client: Any = None
        self._prefix: list[str] = []  # the export's path from where the client is mounted
        self._guard = threading.Lock()

    # -- the connection --------------------------------------------------------------------
    def _connected(self) -> Any:
        with self._guard:
            if self._client is None:
                self._client, self._prefix = self._connect()
            return self._client

    def _connect(self) -> tuple[Any, list[str]]:
        from nfs_rs import Client, NfsConnectionError, NfsError, NfsNotFoundError, NfsTimeoutError

        host = f"[{self.server}]" if ":" in self.server else self.server
        options = {"nfs_port": self.port, "noresvport": self.noresvport, "connect_timeout": self.timeout,
                   "operation_timeout": OPERATION_TIMEOUT}
        tries = [(self.version, [])] if self.version == "3" else [(self.version, self.export)]
        if self.version is None:
            tries.append(("3", []))
        failure: BaseException | None = None
        for version, prefix in tries:
            mounted = "" if prefix else "/".join(self.export)
            versions = [version] if version else ["4.1", "4.0"]
            try:
                return Client.connect(f"nfs://{host}/{mounted}", versions=versions, **options), list(prefix)
            except (NfsError, OSError) as exc:
                if failure is not None:  # NFSv3 after NFSv4: what NFSv4 said is the failure to tell
                    break
                if not isinstance(exc, NfsError) or isinstance(exc, (NfsConnectionError, NfsTimeoutError)) or _no_answer(exc):
                    raise transport_error(exc, self.what) from None
                failure = exc
        if isinstance(failure, NfsNotFoundError):
            raise self.missing("/") from None
        raise _said(failure or RuntimeError("no NFS version answered"), "/", self.name) from None

    def _call(self, what: str | Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A call of the client (a method's name) or of a file of it (a bound method), made again after a pause when
        the server said "again" (NFS4ERR_DELAY, NFS4ERR_GRACE) or answered the client's own resend of
        it with NFS4ERR_RETRY_UNCACHED_REP, not saying whether the first send was done. Every call
        here may be made twice, but a removal or rename whose first send was done finds its source
        gone the second time: that is its success."""
        from nfs_rs import NfsError, NfsNotFoundError, OperationOutcome

        client = self._connected()
        call = getattr(client, what) if isinstance(what, str) else what
        resent = False
        for attempt in range(RETRIES):
            try:
                return call(*args, **kwargs)
            except NfsNotFoundError:
                if resent and what in ("unlink", "rmdir") or resent and what == "rename" and client.exists(args[1]):
                    return None
                raise
            except NfsError as exc:
                again = exc.outcome == OperationOutcome.SAFE_TO_RETRY or str(exc.code_name or "") in AGAIN
                if not again or attempt == RETRIES - 1:
                    raise
                resent = resent or exc.outcome != OperationOutcome.SAFE_TO_RETRY
                time.sleep(0.02 * 2 ** attempt)
        return None

    def _path(self, path: str) -> str:
        self._connected()
        return "/".join([*self._prefix, *self.root, *path_parts(path, self.name)])

    @contextlib.contextmanager
    def _errors(self, path: str) -> Iterator[None]:
        """NFS's failures as ours: a missing path `NotFound`, a refused one or a read-only file system
        `PermissionDenied`, no answer `Unreachable`; the server's own wording after the path."""
        from nfs_rs import NfsConnectionError, NfsError, NfsNotFoundError, NfsPermissionError, NfsTimeoutError

        try:
            yield
        except NfsNotFoundError:
            raise self.missing(path) from None
        except (NfsConnectionError, NfsTimeoutError) as exc:
            raise transport_error(exc, self.what) from None
        except NfsError as exc:
            if _no_answer(exc):
                raise transport_error(exc, self.what) from None
            code = getattr(exc, "errno", None)
            if isinstance(exc, NfsPermissionError) or code in REFUSED or "ERR_ACCESS" in str(exc.code_name or ""):
                raise self.denied(path, message("storage.access-denied")) from None
            if code in READ_ONLY or "ERR_ROFS" in str(exc.code_name or ""):
                raise self.denied(path, message("storage.read-only-fs")) from None
            raise _said(exc, path, self.name) from None

    # -- browsing --------------------------------------------------------------------------------
    def status(self, path: str) -> Stat | None:
        with self._errors(path):
            full = self._path(path)
            if not full:  # the pseudo-root itself, which no path names
                self._call("fs_stat")
                return Stat("", True, 0, 0, "755", "", "")
            from nfs_rs import NfsNotFoundError

            try:
                info = self._call("stat", full)
            except NfsNotFoundError:
                return None
        return _stat(posixpath.basename(path.rstrip("/")), info)

    def list(self, path: str) -> list[Stat]:
        with self._errors(path):
            full = self._path(path)
            entries = [_stat(entry.name, entry.info) for entry in self._call(lambda: list(self._connected().scandir(full)))
                       if entry.name not in (".", "..")]
        return sorted(entries, key=lambda s: s.name)

    def mkdir(self, path: str) -> None:
        with self._errors(path):
            self._make_folders(self._path(path))

    def _make_folders(self, full: str) -> None:
        """`mkdir -p` below the export: the folders above it are the server's pseudo file system,
        which answers "read-only" rather than "exists" to a mkdir (so nfs-rs's `parents` cannot be used)."""
        from nfs_rs import NfsNotFoundError

        if len(full.split("/")) <= len(self._prefix) or not full:
            return
        try:
            self._call("mkdir", full, exist_ok=True)
        except NfsNotFoundError:
            self._make_folders(posixpath.dirname(full))
            self._call("mkdir", full, exist_ok=True)

    def delete(self, path: str, recursive: bool = False) -> bool:
        with self._errors(path):
            return delete_walked(self, path, recursive, lambda p: self._call("unlink", self._path(p)),
                                 lambda p: self._call("rmdir", self._path(p)))

    def rename(self, src: str, dst: str) -> None:
        with self._errors(src):
            self._call("rename", self._path(src), self._path(dst))

    # -- reading ---------------------------------------------------------------------------------
    def stream(self, path: str, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
        with self._errors(path), self._call("open", self._path(path), "rb") as f:
            at, left = offset, length
            while left is None or left > 0:
                piece = self._call(f.read_at, at, CHUNK if left is None else min(CHUNK, left))
                if not piece:
                    return
                at += len(piece)
                if left is not None:
                    left -= len(piece)
                yield piece

    # -- writing ---------------------------------------------------------------------------------
    def write(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        if isinstance(data, Body):
            data.rewind()
        done, batch = 0, bytearray()
        with self._errors(path), self._created(path) as f:
            # read `CHUNK` at a time (as every storage reads a local file), sent `PIECE` at a time
            for piece in pieces(data, CHUNK):
                batch += piece
                if len(batch) >= PIECE:
                    done += self._call(f.write_at, batch, done)
                    batch.clear()
                    if sent is not None:
                        sent(done)
            if batch or done == 0:
                done += self._call(f.write_at, batch, done) if batch else 0
                if sent is not None:
                    sent(done)

    @contextlib.contextmanager
    def _created(self, path: str) -> Iterator[Any]:
        """The file opened for writing, its folders made first when missing (as WebHDFS's CREATE does,
        and as Kubernetes makes a `share: false` user's folder at the first mount)."""
        from nfs_rs import NfsNotFoundError

        full = self._path(path)
        try:
            f = self._call("open", full, "wb")
        except NfsNotFoundError:
            self._make_folders(posixpath.dirname(full))
            f = self._call("open", full, "wb")
        with f:
            yield f

    def commit(self, temp: str, path: str) -> None:
        """One rename, which replaces what is at `path` (a folder there is refused)."""
        self.rename(temp, path)

    def close(self) -> None:
        with self._guard:
            client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()


def _stat(name: str, info: Any) -> Stat:
    from nfs_rs import FileType

    is_dir = info.type == FileType.DIRECTORY
    owner, group = (str(getattr(info, key, "") or "").partition("@")[0] for key in ("owner", "group"))
    return Stat(name, is_dir, 0 if is_dir else int(info.size), int(info.mtime) // 1_000_000, format(info.mode & 0o777, "o"),
                owner or str(info.uid), group or str(info.gid))


NO_ANSWER = ("Connection refused", "Connection reset", "No route to host", "Network is unreachable", "timed out")


def _no_answer(exc: BaseException) -> bool:
    """Whether an RPC failure is the server not answering (nfs-rs says a refused connection of a
    version it tried after another as an RPC error, with the OS's words)."""
    return any(words in str(exc) for words in NO_ANSWER)


def _said(exc: BaseException, path: str, storage: str) -> ServerError:
    """Any other NFS failure, in one line about the path."""
    why = str(getattr(exc, "message", "") or exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ServerError(message("storage.failed", path=path, storage=storage, why=why))


def unavailable(name: str) -> Unsupported:
    return Unsupported(message("storage.nfs-client-missing", name=name))
