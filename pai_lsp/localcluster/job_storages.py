"""What a v2 job's `extras.storages` becomes at submit, as the real server decides it
(openpai-k8s.md §A.6; rest-server `models/v2/job/k8s.js`, `put`): the deprecated `teamwise_storage`
runtime plugin mapped into it, `[]` filled with the caller's default storages, a name outside the
caller's permitted bound storages refused (404 `NoStorageError`, even for one that exists), `share` and
`readOnly` overwritten from the server. The job's stored config is left as it was sent: this is only
what its tasks mount. JavaScript's own failures on values no client writes are the server's 500s.
"""

from __future__ import annotations

from typing import Any

from .rest_errors import ClusterError
from .storages import Storages

PLUGINS = "com.microsoft.pai.runtimeplugin"


def _failed(message: str) -> ClusterError:
    """A TypeError the server does not catch: its error handler's 500."""
    return ClusterError(500, "UnknownError", message)


def _truthy(value: Any) -> bool:
    """JavaScript's truthiness ([] and {} are true)."""
    return value is not None and value is not False and value != 0 and value != "" and not (
        isinstance(value, float) and value != value)


def _iterate(value: Any, what: str) -> list:
    """`for (const x of value)`."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return list(value)
    raise _failed(f"{what} is not iterable")


def requested(extras: Any) -> list | None:
    """The storage entries the server works on: `extras.storages`, or what the deprecated
    `teamwise_storage` plugin maps to when `extras.storages` is absent or falsy (a later teamwise entry
    wins); None when the job asks for no storage."""
    if not isinstance(extras, dict):
        return None
    storages = extras.get("storages")
    if not _truthy(storages) and PLUGINS in extras:
        for plugin in _iterate(extras[PLUGINS], f"config.extras['{PLUGINS}']"):
            if plugin is None:
                raise _failed("Cannot read property 'plugin' of null")
            if not isinstance(plugin, dict) or plugin.get("plugin") != "teamwise_storage":
                continue
            parameters = plugin.get("parameters") if "parameters" in plugin else None
            if "parameters" in plugin and parameters is None:
                raise _failed("Cannot read property 'storageConfigNames' of null")
            names = parameters.get("storageConfigNames") if isinstance(parameters, dict) else None
            if _truthy(names):
                if not isinstance(names, list):
                    raise _failed("plugin.parameters.storageConfigNames.map is not a function")
                storages = [{"name": name} for name in names]
            else:
                storages = []
    if not _truthy(storages):
        return None
    return storages if isinstance(storages, list) else _iterate(storages, "config.extras.storages")


def effective(extras: Any, user: str, groups: set[str], table: Storages) -> list[dict]:
    """The storages the job's tasks mount, each `{name, mountPath, share, readOnly}`; ClusterError as the
    server answers (404 NoStorageError for a name the user may not use). Entries without a name are
    skipped, as the server skips them."""
    entries = requested(extras)
    if entries is None:
        return []
    if not entries:  # "my default storages"
        entries = [{"name": name} for name in (s["name"] for s in table.listed(groups, default_only=True))]
    else:
        permitted = {s["name"] for s in table.listed(groups)}
        for entry in entries:
            if entry is None:
                raise _failed("Cannot read property 'name' of null")
            name = entry.get("name") if isinstance(entry, dict) else None
            if _truthy(name) and js_string(name) not in permitted:
                raise ClusterError(404, "NoStorageError", f"Storage {js_string(name)} is not found.")
    out = []
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not _truthy(name):
            continue
        name = js_string(name)
        storage = table.get(name)
        assert storage is not None  # permitted and bound: it exists
        mount_path = entry.get("mountPath") if _truthy(entry.get("mountPath")) else f"/mnt/{name}"
        out.append({"name": name, "mountPath": mount_path if isinstance(mount_path, str) else js_string(mount_path),
                    "share": storage.share, "readOnly": storage.read_only})
    return out


def duplicated(storages: list[dict]) -> str:
    """Why Kubernetes refuses the job's pod when a storage is listed twice (two volumes `<name>-volume`), or ""."""
    names = [s["name"] for s in storages]
    twice = sorted({n for n in names if names.count(n) > 1})
    if not twice:
        return ""
    return (f"Storage {twice[0]} is listed more than once in extras.storages: the task's pod would have two volumes "
            f"named {twice[0]}-volume, which Kubernetes refuses.")


def js_string(value: Any) -> str:
    """String(value) for what a name or path may be in YAML (a number, a boolean)."""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
