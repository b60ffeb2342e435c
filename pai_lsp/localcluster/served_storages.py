"""The local cluster's storages served through their own protocols: for each storage marked `serve`
(in `storages.json`, or `--storage TYPE:NAME` on the command line) the cluster starts the real server
of its type on 127.0.0.1 (storage_servers.py) and answers for it what a real cluster answers for such
a volume (openpai-k8s.md §A.4): a Samba storage `//127.0.0.1/<name>` with a user name and password,
an NFS storage `127.0.0.1:/<name>`, an Azure Blob storage a container of an account with its key.
The port, which a real cluster's volume does not need, is in its `mountOptions` (`port=N`, as the
kernel's cifs and nfs mounts take it); Azurite's endpoint is the one addition to `data`
(`data.endpoint`, an `http://127.0.0.1:N/<account>` URL). The credentials are made at each start and
live in the cluster's memory only.

What a task sees at its `mountPath` is the folder the server serves, bind-mounted (task_mounts.py),
not a cifs or NFS mount of the server: the same files, reached without the protocol. Azurite keeps
blobs in a database of its own, so an Azure Blob storage has no folder to mount: a job that uses one
is refused at submit in one line (task_mounts.py), and its files are reached through the API.
"""

from __future__ import annotations

import contextlib
import getpass
import secrets
import shutil
import tempfile
from pathlib import Path

from .storage_servers import Running, ServerError, account_key, start_azurite, start_nfs, start_samba
from .storages import Storage, Storages

ACCOUNT = "localcluster"  # the Azurite account the cluster's Azure Blob storages are containers of


def container_name(storage: str) -> str:
    """An Azure container name for a storage name (3-63 of lower-case letters, digits and '-')."""
    name = storage.replace(".", "-")
    return name if 3 <= len(name) <= 63 else f"pai-{name}"[:63]


class ServedStorages:
    """The servers of the storages marked `serve`, started together and stopped together."""

    def __init__(self, data_dir: Path, table: Storages, azurite: str | None = None):
        self.data_dir, self.table, self.azurite = data_dir, table, azurite
        self.running: list[Running] = []

    def start(self) -> list[str]:
        """Start a server of each type that a storage needs; one line per storage served (for the
        banner). `ServerError` (everything started so far stopped again) when one cannot start."""
        wanted = self.table.to_serve()
        try:
            return [*self._samba([s for s in wanted if s.type == "samba"]), *self._nfs([s for s in wanted if s.type == "nfs"]),
                    *self._azure_blob([s for s in wanted if s.type == "azureBlob"])]
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for server in self.running:
            with contextlib.suppress(Exception):
                server.stop()
        self.running.clear()
        self.table.served.clear()

    def _folder(self, kind: str) -> Path:
        folder = self.data_dir / "storage-servers" / kind
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return folder

    def _samba(self, storages: list[Storage]) -> list[str]:
        if not storages:
            return []
        user, password = getpass.getuser(), secrets.token_urlsafe(18)
        # smbd's state (its password database holds a hash of the password) in a private folder of a
        # short path, as its sockets need, removed when it stops
        folder = Path(tempfile.mkdtemp(prefix="pai-smbd-"))
        try:
            server = start_samba(folder, {s.name: (_folder_of(s), s.read_only) for s in storages}, user, password)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        server.scratch = folder
        self.running.append(server)
        for s in storages:
            self.table.served[s.name] = {"data": {"address": f"//127.0.0.1/{s.name}"}, "mountOptions": [f"port={server.port}"],
                                         "secret": {"username": user, "password": password}}
        return [f"{s.name} (Samba //127.0.0.1/{s.name}, port {server.port})" for s in storages]

    def _nfs(self, storages: list[Storage]) -> list[str]:
        if not storages:
            return []
        server = start_nfs(self._folder("nfs"), {s.name: (_folder_of(s), s.read_only) for s in storages})
        self.running.append(server)
        for s in storages:
            self.table.served[s.name] = {"data": {"server": "127.0.0.1", "path": f"/{s.name}"},
                                         "mountOptions": [f"port={server.port}", "nfsvers=4.1"]}
        return [f"{s.name} (NFS 127.0.0.1:/{s.name}, port {server.port})" for s in storages]

    def _azure_blob(self, storages: list[Storage]) -> list[str]:
        if not storages:
            return []
        key = account_key()
        server = start_azurite(self._folder("azurite"), ACCOUNT, key, self.azurite)
        self.running.append(server)
        endpoint = f"http://127.0.0.1:{server.port}/{ACCOUNT}"
        _make_containers(endpoint, key, [container_name(s.name) for s in storages])
        for s in storages:
            self.table.served[s.name] = {"data": {"containerName": container_name(s.name), "endpoint": endpoint},
                                         "secret": {"accountName": ACCOUNT, "accountKey": key}}
        return [f"{s.name} (Azure Blob {endpoint}/{container_name(s.name)})" for s in storages]


def _folder_of(storage: Storage) -> Path:
    assert storage.path is not None  # a served Samba or NFS storage's folder (storages.py gives it one)
    return storage.path


def _make_containers(endpoint: str, key: str, names: list[str]) -> None:
    """The containers, made through Azurite's own API (the Azure SDK, as a user's tool would)."""
    from azure.core.exceptions import AzureError, ResourceExistsError
    from azure.storage.blob import BlobServiceClient

    service = BlobServiceClient(endpoint, credential={"account_name": ACCOUNT, "account_key": key})
    try:
        for name in names:
            with contextlib.suppress(ResourceExistsError):
                service.create_container(name)
    except AzureError as exc:
        raise ServerError(f"Azurite did not make the container: {str(exc).splitlines()[0]}") from None
    finally:
        service.close()
