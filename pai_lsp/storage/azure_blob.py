"""A cluster's Azure Blob storage (an OpenPAI storage of type `azureBlob`: `data.containerName`, with
the `accountName` and `accountKey` or `accountSASToken` the cluster returns) as a `Storage`, through
Microsoft's `azure-storage-blob`. Paths are the container's (`/` is its root, or the sub-path it was
opened at, as a `share: false` storage's `<user>/`).

A container has no folders, only names with `/` in them: a folder is what names share as a prefix,
and an empty one is a zero-byte blob with `hdi_isfolder: true` in its metadata, as blobfuse (which
mounts the container in the job) and Azure's own tools make and read it. A blob appears whole or not
at all (its blocks are committed in one call), so a put writes the file under its own name: there is
no temporary file to leave behind. A rename is a copy the service makes itself, then a delete: a
folder's rename costs a request per blob (sent THREADS at a time), not its bytes.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from azure.core.exceptions import ResourceNotFoundError
from azure.storage.blob import ContainerClient

from ..core.messages import message
from ..errors import InvalidInput, ServerError
from .azure_errors import azure_errors
from .base import CHUNK, Body, Sent, Stat, Storage, path_parts, pieces
from .http import at_storage

FOLDER = {"hdi_isfolder": "true"}
TIMEOUT = 10  # seconds to connect
COPY_WAIT = 600  # seconds a server-side copy (a rename's first half) may take
THREADS = 8  # blobs copied or removed at once in a folder's rename or removal


def account_url(account: str, endpoint: str | None = None) -> str:
    """Where an account's blobs are served: Azure's public endpoint, unless the cluster's storage (or
    a test, with Azurite) names another."""
    return endpoint.rstrip("/") if endpoint else f"https://{account}.blob.core.windows.net"


class AzureBlob(Storage):
    name = "Azure Blob"
    folder_renames = False  # a blob container has no folders: a rename is a copy and a delete per blob

    def __init__(self, container: str, account: str, *, key: str | None = None, sas: str | None = None,
                 endpoint: str | None = None, root: str = "", home: str = "/"):
        url = account_url(account, endpoint)
        credential: Any = {"account_name": account, "account_key": key} if key else sas
        self.client = ContainerClient(url, container, credential=credential, connection_timeout=TIMEOUT)
        self.root = path_parts(root, self.name)
        self.home = home
        self.what = at_storage(self.name, f"{url}/{container}")

    def _blob(self, path: str) -> str:
        return "/".join([*self.root, *path_parts(path, self.name)])

    def _errors(self, path: str) -> contextlib.AbstractContextManager[None]:
        return azure_errors(self, path, self.what)

    # -- browsing --------------------------------------------------------------------------------
    def status(self, path: str) -> Stat | None:
        name = self._blob(path)
        if not name:
            return Stat("", True, 0, 0, "755", "", "")
        with self._errors(path):
            with contextlib.suppress(ResourceNotFoundError):
                props = self.client.get_blob_client(name).get_blob_properties()
                return _stat(name, props)
            for _ in self.client.list_blobs(name_starts_with=name + "/", results_per_page=1):
                return Stat(name.rsplit("/", 1)[-1], True, 0, 0, "755", "", "")
        return None

    def list(self, path: str) -> list[Stat]:
        name = self._blob(path)
        prefix = name + "/" if name else ""
        found = self.status(path) if name else Stat("", True, 0, 0, "755", "", "")
        if found is None:
            raise self.missing(path)
        if not found.is_dir:
            return [found]
        entries: dict[str, Stat] = {}
        with self._errors(path):
            for item in self.client.walk_blobs(name_starts_with=prefix, delimiter="/", include=["metadata"]):
                child = item.name[len(prefix):].rstrip("/")
                if not child:
                    continue
                if item.name.endswith("/"):  # a prefix: a folder of named blobs
                    entries.setdefault(child, Stat(child, True, 0, 0, "755", "", ""))
                else:
                    entries[child] = _stat(child, item)
        return sorted(entries.values(), key=lambda s: s.name)

    def mkdir(self, path: str) -> None:
        parts = [p for p in path.split("/") if p]
        with self._errors(path):
            for depth in range(1, len(parts) + 1):
                folder = "/" + "/".join(parts[:depth])
                found = self.status(folder)
                if found is not None and not found.is_dir:
                    raise InvalidInput(message("hdfs.mkdir-over-file", path=folder))
                if found is None:
                    self.client.upload_blob(self._blob(folder), b"", metadata=FOLDER, overwrite=True)

    def delete(self, path: str, recursive: bool = False) -> bool:
        found = self.status(path)
        if found is None:
            return False
        name = self._blob(path)
        with self._errors(path):
            if found.is_dir:
                below = [b.name for b in self.client.list_blobs(name_starts_with=name + "/")]
                if below and not recursive:
                    raise InvalidInput(message("hdfs.rm-folder", path=path))
                self._each(self._delete_blob, sorted(below, key=len, reverse=True))
            with contextlib.suppress(ResourceNotFoundError):
                self.client.delete_blob(name)  # the file, or the folder's own marker
        return True

    def rename(self, src: str, dst: str) -> None:
        found = self.status(src)
        if found is None:
            raise self.missing(src)
        old, new = self._blob(src), self._blob(dst)
        with self._errors(src):
            names = [b.name for b in self.client.list_blobs(name_starts_with=old + "/")] if found.is_dir else []
            self._each(lambda name: self._copy_if_there(name, new + name[len(old):]), [old, *names])
            self._each(self._delete_blob, sorted(names, key=len, reverse=True))
            self._delete_blob(old)  # the folder's own marker (or the file) last

    def _each(self, act: Callable[[str], None], names: list[str]) -> None:
        """`act` on every blob, THREADS at a time: a folder's rename or removal is a request per blob,
        and one after another 5,000 of them took minutes. The first failure is raised."""
        if len(names) < 2:
            for name in names:
                act(name)
            return
        with ThreadPoolExecutor(max_workers=min(THREADS, len(names))) as pool:
            for _ in pool.map(act, names):
                pass

    def _copy_if_there(self, src: str, dst: str) -> None:
        with contextlib.suppress(ResourceNotFoundError):  # gone meanwhile: nothing to carry
            self._copy(src, dst)

    def _delete_blob(self, name: str) -> None:
        with contextlib.suppress(ResourceNotFoundError):
            self.client.delete_blob(name)

    def _copy(self, src: str, dst: str) -> None:
        """One blob copied under another name by the service itself (no byte of it through this
        machine), its metadata with it: a folder stays one. Waited for: Azure may copy in the background."""
        source = self.client.get_blob_client(src)
        target = self.client.get_blob_client(dst)
        copy = target.start_copy_from_url(source.url)
        deadline = time.monotonic() + COPY_WAIT
        status = copy.get("copy_status")
        while status == "pending" and time.monotonic() < deadline:
            time.sleep(0.05)
            status = target.get_blob_properties().copy.status
        if status != "success":
            raise ServerError(message("storage.failed", path=src, storage=self.name, why=f"copy {status}"))

    # -- reading ---------------------------------------------------------------------------------
    def stream(self, path: str, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
        name = self._blob(path)
        with self._errors(path):
            size = self.client.get_blob_client(name).get_blob_properties().size
            if offset >= size or length == 0:
                return
            downloader = self.client.download_blob(name, offset=offset, length=length, max_concurrency=1)
            for chunk in downloader.chunks():
                for at in range(0, len(chunk), CHUNK):
                    yield chunk[at:at + CHUNK]

    # -- writing ---------------------------------------------------------------------------------
    def write(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        size = len(data)
        if isinstance(data, Body):
            data.rewind()
        done = 0

        def counted() -> Iterator[bytes]:
            nonlocal done
            for piece in pieces(data, CHUNK):
                done += len(piece)
                if sent is not None and not isinstance(data, Body):
                    sent(done)
                yield piece

        with self._errors(path):
            self.client.upload_blob(self._blob(path), counted(), length=size, overwrite=True, max_concurrency=1)
        if sent is not None and isinstance(data, Body):
            sent(data.size)

    def put(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        """Under its own name: a blob is seen whole or not at all (committed in one call)."""
        self.write(path, data, sent)

    def close(self) -> None:
        self.client.close()


def _stat(name: str, props: Any) -> Stat:
    folder = (props.metadata or {}).get("hdi_isfolder") == "true"
    modified = int(props.last_modified.timestamp() * 1000) if props.last_modified else 0
    return Stat(name.rsplit("/", 1)[-1], folder, 0 if folder else props.size, modified, "755" if folder else "644", "", "")
