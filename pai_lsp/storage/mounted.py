"""A Kubernetes-era cluster's storage (a persistent volume a job mounts through `extras.storages`) as a
`Storage` this machine can read and fill, from what the cluster says of it
(`GET /api/v2/storages/:name`: `type`, `data` with the credentials, `readOnly`, `share`).

Each type goes through its protocol's own client, imported only when a storage of that type is
opened; the local cluster's own storages are folders of this machine
(`local_folder.py`). A `share: false` storage is the user's folder of it (`<user>/`), as the job sees it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..core.messages import message
from ..errors import InvalidInput, Unsupported
from .base import Storage

REACHABLE = ("samba", "azureBlob", "azureFile")  # the types this machine can open; the others are said so
# The local cluster's storages: type `unknown` (a folder, as a real server types a hostPath volume),
# with the one addition to the real server's answer, `data.path`, the folder on this machine.


def open_mounted(detail: Mapping[str, Any], user: str, *, endpoint: str | None = None, port: int | None = None) -> Storage:
    """The storage `detail` describes. `endpoint` / `port`: where its server answers when that is not
    what `data` says (Azurite's blob endpoint, a Samba server on another port)."""
    kind, data, name = detail.get("type"), detail.get("data") or {}, str(detail.get("name") or "")
    root = "" if detail.get("share", True) is not False else user
    if kind == "samba":
        from .samba import Samba

        return Samba(_required(data, "address", name), data.get("username"), data.get("password"), root=root,
                     **({"port": port} if port else {}))
    if kind == "azureBlob":
        from .azure_blob import AzureBlob

        return AzureBlob(_required(data, "containerName", name), _required(data, "accountName", name),
                         key=data.get("accountKey"), sas=data.get("accountSASToken"), endpoint=endpoint, root=root)
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
