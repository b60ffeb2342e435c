"""A Kubernetes-era cluster's storage (a persistent volume a job mounts through `extras.storages`) as a
`Storage` this machine can read and fill, from what the cluster says of it
(`GET /api/v2/storages/:name`: `type`, `data` with the credentials, `readOnly`, `share`).

Each type goes through its protocol's own client, imported only when a storage of that type is
opened; the local cluster's own storages are folders of this machine
(`local_folder.py`), or servers it started on 127.0.0.1 (a port in the volume's `mountOptions`,
`port=N` as a kernel mount takes it; Azurite's endpoint in `data.endpoint`). A `share: false` storage is the user's folder of it (`<user>/`), as the job sees it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..core.messages import message
from ..errors import InvalidInput, Unsupported
from .base import Storage

REACHABLE = ("nfs", "samba", "azureBlob", "azureFile")  # the types this machine can open; the others are said so
# The local cluster's storages: type `unknown` (a folder, as a real server types a hostPath volume),
# with the one addition to the real server's answer, `data.path`, the folder on this machine.


def open_mounted(detail: Mapping[str, Any], user: str, *, endpoint: str | None = None, port: int | None = None) -> Storage:
    """The storage `detail` describes. `endpoint` / `port`: where its server answers when that is not
    what `data` says (Azurite's blob endpoint, a Samba server on another port)."""
    kind, data, name = detail.get("type"), detail.get("data") or {}, str(detail.get("name") or "")
    root = "" if detail.get("share", True) is not False else user
    options = detail.get("mountOptions") if isinstance(detail.get("mountOptions"), list) else None
    if kind == "nfs":
        from .nfs import Nfs, available, mount_settings, unavailable

        if not available():
            raise unavailable(name)
        nfs_port, version, noresvport = mount_settings(options)
        return Nfs(_required(data, "server", name), _required(data, "path", name), port=port or nfs_port, version=version,
                   noresvport=noresvport, root=root)
    if kind == "samba":
        from .samba import Samba

        port = port or _port_option(options)
        return Samba(_required(data, "address", name), data.get("username"), data.get("password"), root=root,
                     **({"port": port} if port else {}))
    if kind == "azureBlob":
        from .azure_blob import AzureBlob

        return AzureBlob(_required(data, "containerName", name), _required(data, "accountName", name),
                         key=data.get("accountKey"), sas=data.get("accountSASToken"),
                         endpoint=endpoint or _local_endpoint(data), root=root)
    if kind == "azureFile":
        from .azure_file import AzureFile

        return AzureFile(_required(data, "shareName", name), _required(data, "accountName", name), key=data.get("accountKey"),
                         endpoint=endpoint, root=root)
    path = data.get("path")
    if kind == "unknown" and isinstance(path, str) and os.path.isabs(path) and os.path.isdir(path):
        from .local_folder import LocalFolder

        return LocalFolder(path, root=root, read_only=detail.get("readOnly") is True)
    raise Unsupported(message("storage.type-unreachable", name=name, type=str(kind or "unknown"), types=", ".join(REACHABLE)))


def _required(data: Mapping[str, Any], key: str, name: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidInput(message("storage.detail-missing", name=name, key=key))
    return value


def _port_option(options: list | None) -> int | None:
    """The server's port from a volume's mount options (`port=4450`, as cifs takes it), if one is said."""
    for option in options or []:
        for part in str(option).replace(",", " ").split():
            key, _, value = part.partition("=")
            if key == "port" and value.isdigit() and 0 < int(value) < 65536:
                return int(value)
    return None


def _local_endpoint(data: Mapping[str, Any]) -> str | None:
    """The blob endpoint the local cluster adds to an Azure Blob storage it serves with Azurite
    (`data.endpoint`, an `http://127.0.0.1:port/account` URL): only a loopback URL is taken, so a
    real cluster's answer cannot point the client (and the account key) anywhere else."""
    value = data.get("endpoint")
    if isinstance(value, str) and (value.startswith("http://127.0.0.1:") or value.startswith("http://localhost:")):
        return value
    return None
