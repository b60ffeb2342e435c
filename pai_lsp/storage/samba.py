"""A cluster's Samba storage (an OpenPAI storage of type `samba`: `data.address` `//host/share`, with
the `username` and `password` the cluster returns) as a `Storage`, through `smbprotocol`'s SMB 2/3
client. Paths are the storage's own (`/` is the share's root, or the sub-path it was opened at, as a
`share: false` storage's `<user>/`).

A put is written under a temporary name and switched in by one rename that replaces the target
(SMB2's FileRenameInformation with ReplaceIfExists), as WebHDFS's rename2 does. The credentials live
in this object only, and no message says them.
"""

from __future__ import annotations

import contextlib
import errno
import posixpath
from collections.abc import Iterator
from typing import Any

import smbclient
from smbprotocol.exceptions import SMBException, SMBOSError, SMBResponseException
from smbprotocol.header import NtStatus

from ..core.messages import message
from ..errors import AuthFailed, ServerError
from . import smb_writes
from .base import Body, Sent, Stat, Storage, delete_walked, path_parts, pieces, read_pieces
from .http import at_storage, transport_error

TIMEOUT = 10  # seconds to connect
LOGIN_REFUSED = {NtStatus.STATUS_LOGON_FAILURE, NtStatus.STATUS_WRONG_PASSWORD, NtStatus.STATUS_PASSWORD_EXPIRED}


class Samba(Storage):
    name = "Samba"

    def __init__(self, address: str, username: str | None, password: str | None, *, port: int = 445,
                 root: str = "", home: str = "/", timeout: int = TIMEOUT):
        """`address`: `//host/share` as the cluster gives it; `root`: a sub-path every path is under
        (a `share: false` storage is the user's folder of the share)."""
        host, _, share = address.lstrip("/\\").replace("\\", "/").partition("/")
        self.host, self.share, self.port = host, share.strip("/"), port
        self.root = path_parts(root, self.name)
        self.home = home
        self.what = at_storage(self.name, f"//{host}/{self.share}")
        self._cache: dict[str, Any] = {}  # this storage's connections, closed with it
        self._session = {"username": username, "password": password, "port": port, "connection_timeout": timeout,
                         "connection_cache": self._cache}

    def _unc(self, path: str) -> str:
        parts = [*self.root, *path_parts(path, self.name)]
        return "\\\\" + "\\".join([self.host, self.share, *parts])

    @contextlib.contextmanager
    def _errors(self, path: str) -> Iterator[None]:
        """SMB's failures as ours: a missing path `NotFound`, a refused one `PermissionDenied`, no
        answer `Unreachable`; the share's own wording after the path it concerns."""
        try:
            yield
        except (SMBOSError, SMBResponseException) as exc:
            status = getattr(exc, "ntstatus", None) or getattr(exc, "status", None)
            if status in LOGIN_REFUSED:
                raise AuthFailed(message("storage.login-refused", what=self.what)) from None
            if status == NtStatus.STATUS_ACCESS_DENIED or getattr(exc, "errno", None) in (errno.EACCES, errno.EPERM):
                raise self.denied(path, message("storage.access-denied")) from None
            if getattr(exc, "errno", None) == errno.ENOENT:
                raise self.missing(path) from None
            raise _said(exc, path, self.name) from None
        except (SMBException, OSError, ValueError) as exc:
            if isinstance(exc, OSError) or "connect" in str(exc).lower():
                raise transport_error(exc, self.what) from None
            raise _said(exc, path, self.name) from None

    # -- browsing --------------------------------------------------------------------------------
    def status(self, path: str) -> Stat | None:
        with contextlib.suppress(type(self.missing(path))), self._errors(path):
            return _stat(posixpath.basename(path.rstrip("/")), smbclient.stat(self._unc(path), **self._session))
        return None

    def list(self, path: str) -> list[Stat]:
        with self._errors(path):
            # what the listing itself says of each entry: one round trip for the folder (an entry's own
            # `stat()` would open a session on port 445, whatever port this storage uses)
            entries = [_entry(entry.name, entry.smb_info) for entry in smbclient.scandir(self._unc(path), **self._session)
                       if entry.name not in (".", "..")]
        return sorted(entries, key=lambda s: s.name)

    def mkdir(self, path: str) -> None:
        with self._errors(path):
            smbclient.makedirs(self._unc(path), exist_ok=True, **self._session)

    def delete(self, path: str, recursive: bool = False) -> bool:
        with self._errors(path):
            return delete_walked(self, path, recursive, lambda p: smbclient.remove(self._unc(p), **self._session),
                                 lambda p: smbclient.rmdir(self._unc(p), **self._session))

    def rename(self, src: str, dst: str) -> None:
        with self._errors(src):
            smbclient.rename(self._unc(src), self._unc(dst), **self._session)

    # -- reading ---------------------------------------------------------------------------------
    def stream(self, path: str, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
        with self._errors(path), smbclient.open_file(self._unc(path), mode="rb", **self._session) as f:
            yield from read_pieces(f, offset, length)

    # -- writing ---------------------------------------------------------------------------------
    def write(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        """A small file in one round trip, a big one with several writes in flight (`smb_writes`);
        its folders are made first when missing (as WebHDFS's CREATE does, and as Kubernetes makes a
        `share: false` user's folder at the first mount)."""
        if isinstance(data, Body):
            data.rewind()
        with self._errors(path):
            try:
                self._write(path, data, sent)
            except SMBOSError as exc:
                if exc.errno != errno.ENOENT:
                    raise
                smbclient.makedirs(self._unc(posixpath.dirname(path)), exist_ok=True, **self._session)
                if isinstance(data, Body):
                    data.rewind()
                self._write(path, data, sent)
        if sent is not None and isinstance(data, Body):
            sent(data.size)

    def _write(self, path: str, data: bytes | Body, sent: Sent | None) -> None:
        unc = self._unc(path)
        tree, name = smb_writes.opened_tree(unc, self._session)
        if isinstance(data, bytes) and len(data) <= smb_writes.small_limit(tree):
            smb_writes.write_whole(tree, name, unc, data)
            if sent is not None:
                sent(len(data))
            return
        written = sent if sent is not None and not isinstance(data, Body) else None
        smb_writes.write_pieces(tree, name, unc, pieces(data, smb_writes.piece_size(tree)), written)

    def commit(self, temp: str, path: str) -> None:
        """One rename that replaces what is at `path` (a folder there is refused, as rename2 does)."""
        with self._errors(path):
            smbclient.replace(self._unc(temp), self._unc(path), **self._session)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            smbclient.reset_connection_cache(fail_on_error=False, connection_cache=self._cache)


DIRECTORY, READ_ONLY = 0x10, 0x1  # SMB's file attributes


def _stat(name: str, result: Any) -> Stat:
    return _made(name, result.st_file_attributes, result.st_size, int(result.st_mtime * 1000))


def _entry(name: str, info: Any) -> Stat:
    return _made(name, info.file_attributes, info.end_of_file, int(info.last_write_time.timestamp() * 1000))


def _made(name: str, attributes: int, size: int, modified: int) -> Stat:
    """An SMB entry as `ls` shows it: SMB has no owners or modes to show, only read-only or not."""
    is_dir = bool(attributes & DIRECTORY)
    permission = "755" if is_dir else "444" if attributes & READ_ONLY else "644"
    return Stat(name, is_dir, 0 if is_dir else size, modified, permission, "", "")


def _said(exc: BaseException, path: str, storage: str) -> ServerError:
    """Any other SMB failure, in one line about the path (never the session's credentials)."""
    why = getattr(exc, "why", None) or getattr(exc, "strerror", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
    return ServerError(message("storage.failed", path=path, storage=storage, why=why))
