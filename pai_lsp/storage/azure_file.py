"""A cluster's Azure File storage (an OpenPAI storage of type `azureFile`: `data.shareName`, with the
`accountName` and `accountKey` the cluster returns) as a `Storage`, through Microsoft's
`azure-storage-file-share`. Paths are the share's (`/` is its root, or the sub-path it was opened
at, as a `share: false` storage's `<user>/`).

An Azure file share has real folders and a rename that replaces its target in one call
(`rename_file(..., overwrite=True)`), so a put is written under a temporary name and switched in,
as on HDFS and Samba. No emulator of Azure File exists (Azurite has none): what needs a real share
is said in docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Iterator
from typing import Any

from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
from azure.storage.fileshare import ShareClient

from ..core.messages import message
from ..errors import InvalidInput
from .azure_errors import azure_errors
from .base import CHUNK, Body, Sent, Stat, Storage, delete_walked, path_parts, pieces
from .http import at_storage

TIMEOUT = 10  # seconds to connect


def file_url(account: str, endpoint: str | None = None) -> str:
    return endpoint.rstrip("/") if endpoint else f"https://{account}.file.core.windows.net"


class AzureFile(Storage):
    name = "Azure File"

    def __init__(self, share: str, account: str, *, key: str | None = None, sas: str | None = None,
                 endpoint: str | None = None, root: str = "", home: str = "/"):
        url = file_url(account, endpoint)
        credential: Any = {"account_name": account, "account_key": key} if key else sas
        self.client = ShareClient(url, share, credential=credential, connection_timeout=TIMEOUT, retry_total=1)
        self.root = path_parts(root, self.name)
        self.home = home
        self.what = at_storage(self.name, f"{url}/{share}")

    def _path(self, path: str) -> str:
        return "/".join([*self.root, *path_parts(path, self.name)])

    def _errors(self, path: str) -> contextlib.AbstractContextManager[None]:
        return azure_errors(self, path, self.what)

    # -- browsing --------------------------------------------------------------------------------
    def status(self, path: str) -> Stat | None:
        name = self._path(path)
        if not name:
            return Stat("", True, 0, 0, "755", "", "")
        with self._errors(path):
            with contextlib.suppress(ResourceNotFoundError):
                props = self.client.get_file_client(name).get_file_properties()
                return _stat(posixpath.basename(name), False, props.size, props.last_modified)
            with contextlib.suppress(ResourceNotFoundError):
                props = self.client.get_directory_client(name).get_directory_properties()
                return _stat(posixpath.basename(name), True, 0, props.last_modified)
        return None

    def list(self, path: str) -> list[Stat]:
        with self._errors(path):
            items = self.client.get_directory_client(self._path(path) or None).list_directories_and_files()
            return sorted((_stat(item.name, item.is_directory, item.get("size") or 0, item.get("last_modified"))
                           for item in items), key=lambda s: s.name)

    def mkdir(self, path: str) -> None:
        parts = path_parts(path, self.name)
        with self._errors(path):
            for depth in range(1, len(parts) + 1):
                with contextlib.suppress(HttpResponseError):  # ResourceAlreadyExists
                    self.client.get_directory_client("/".join([*self.root, *parts[:depth]])).create_directory()
        if (found := self.status(path)) is None or not found.is_dir:
            raise InvalidInput(message("hdfs.mkdir-over-file", path=path))

    def delete(self, path: str, recursive: bool = False) -> bool:
        with self._errors(path):
            return delete_walked(self, path, recursive, lambda p: self.client.get_file_client(self._path(p)).delete_file(),
                                 lambda p: self.client.get_directory_client(self._path(p)).delete_directory())

    def rename(self, src: str, dst: str) -> None:
        found = self.status(src)
        if found is None:
            raise self.missing(src)
        with self._errors(src):
            if found.is_dir:
                self.client.get_directory_client(self._path(src)).rename_directory(self._path(dst))
            else:
                self.client.get_file_client(self._path(src)).rename_file(self._path(dst))

    # -- reading ---------------------------------------------------------------------------------
    def stream(self, path: str, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
        with self._errors(path):
            client = self.client.get_file_client(self._path(path))
            if offset >= client.get_file_properties().size or length == 0:
                return
            for chunk in client.download_file(offset=offset, length=length, max_concurrency=1).chunks():
                for at in range(0, len(chunk), CHUNK):
                    yield chunk[at:at + CHUNK]

    # -- writing ---------------------------------------------------------------------------------
    def write(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        """The file created at its full size, then filled range by range (Azure File's own way)."""
        if isinstance(data, Body):
            data.rewind()
        size, done = len(data), 0
        with self._errors(path):
            client = self.client.get_file_client(self._path(path))
            client.create_file(size)
            for piece in pieces(data, CHUNK):
                client.upload_range(piece, done, len(piece))
                done += len(piece)
                if sent is not None and not isinstance(data, Body):
                    sent(done)
        if sent is not None and isinstance(data, Body):
            sent(data.size)

    def commit(self, temp: str, path: str) -> None:
        """One rename that replaces what is at `path`."""
        with self._errors(path):
            self.client.get_file_client(self._path(temp)).rename_file(self._path(path), overwrite=True)

    def close(self) -> None:
        self.client.close()


def _stat(name: str, is_dir: bool, size: int, modified: Any) -> Stat:
    stamp = int(modified.timestamp() * 1000) if modified is not None else 0
    return Stat(name, is_dir, 0 if is_dir else size, stamp, "755" if is_dir else "644", "", "")
