"""The storages a cluster's jobs mount (Kubernetes-era OpenPAI, the local cluster), for the explorer
and the terminal: the list a person reads (`listing`), and one storage opened by name for the file
verbs of `service/hdfs.py` (`opened`), or the cluster's HDFS (PFS) when no name is given.

What the cluster says of a storage includes its credentials (`GET /api/v2/storages/:name`): they go
from that answer into the storage client's memory and nowhere else: not into a result, an error, a
log or a file. A storage is opened for one request and closed after it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..api import StorageInfo, StorageListResult
from ..core.messages import message
from ..errors import PermissionDenied
from ..storage.mounted import open_mounted

if TYPE_CHECKING:
    from ..clusters.backend import Backend
    from ..storage.base import Storage


def mount_path(name: str) -> str:
    """Where a job that names the storage without a `mountPath` sees it (the server's default)."""
    return f"/mnt/{name}"


def server_of(detail: Mapping[str, Any]) -> str:
    """Where a storage's files are, from the type's own `data` keys (never a credential)."""
    data = detail.get("data") if isinstance(detail.get("data"), dict) else {}
    kind = detail.get("type")
    if kind == "nfs":
        return f"{data.get('server', '')}:{data.get('path', '')}".strip(":")
    if kind == "samba":
        return str(data.get("address") or "")
    if kind in ("azureBlob", "azureFile"):
        container = data.get("containerName") or data.get("shareName") or ""
        return "/".join(str(part) for part in (data.get("accountName"), container) if part)
    if kind == "dshuttle":
        return str(data.get("dshuttlePath") or "")
    return str(data.get("path") or "")  # the local cluster's folders


def listing(backend: Backend) -> StorageListResult:
    """Each storage the user may mount, default ones first, with its type, server and read-only
    from its detail."""
    rows = []
    for item in backend.storages():
        detail = backend.storage_detail(item["name"])
        rows.append(StorageInfo(name=item["name"], type=detail.get("type"), server=server_of(detail),
                                read_only=detail.get("readOnly") is True, mount_path=mount_path(item["name"]),
                                default=item.get("default") is True, share=item.get("share", True) is not False))
    rows.sort(key=lambda row: (not row.default, row.name))
    return StorageListResult(cluster=backend.profile.name, storages=rows)


@contextlib.contextmanager
def opened(backend: Backend, name: str | None, write: bool = False) -> Iterator[Storage]:
    """The storage `name` of the cluster (its `<user>/` when not shared), closed after; the cluster's
    HDFS (PFS) when `name` is None. `write`: refused in one line when the storage is read-only."""
    if name is None:
        yield backend.storage
        return
    detail = backend.storage_detail(name)
    if write and detail.get("readOnly") is True:
        raise PermissionDenied(message("storage.read-only", name=name))
    storage = open_mounted(detail, backend.profile.user)
    del detail  # (its credentials live on in the storage client only)
    try:
        yield storage
    finally:
        storage.close()
