"""The local cluster's storages: what a real cluster keeps as PersistentVolumeClaims and their volumes
(openpai-k8s.md §A.1-A.5), here a table read from `storages.json` in the data folder, with the group
ACLs that say who may use which (`storageConfigs`, whose first name is the group's default).

**The built-in storage `local`.** With nothing set up, the cluster has one storage, `local`: the folder
`<data dir>/storages/local`, default for every user (group `default`). It is a folder of this machine,
not a server, so the API calls its type `unknown`, the type the real server gives a hostPath or local
volume (the only truthful one of its types: there is no NFS or Samba server behind it). No user-space
file server is installed with pai-lsp to serve it through a protocol, and none is needed: the cluster
and its clients run on the same machine, so a client reads and writes the folder itself. Its path is
therefore added to `data` (`{"path": "/abs/folder"}`), where the real server sends `{}` for this type:
the one addition to the real server's answers, and the route a client takes into a local storage.
A task sees the folder at `mountPath` (`task_mounts.py`).

**More storages** (`storages.json`; read again whenever it changes, like the users file)::

    {"storages": {
        "homes":    {"path": "/srv/homes", "share": false},
        "datasets": {"path": "/srv/datasets", "readOnly": true},
        "smb":      {"path": "/srv/smb-share", "type": "samba", "data": {"address": "//127.0.0.1:4450/share"},
                     "secretName": "smbcreds", "mountOptions": ["vers=3.0"]},
        "pending":  {"bound": false}},
     "groups": {"default": ["local", "homes"], "ml": ["datasets", "smb"]}}

- `path`: the folder on this machine that holds the storage's files: what a task mounts (made when
  missing). A storage also served through a protocol (a Samba, NFS or Azurite server of this machine
  serving that folder) names its `type` and `data` as the real server answers them; without `path` a
  task cannot mount it, and a job that uses it is refused at submit.
- `serve: true` (type `samba`, `nfs` or `azureBlob`): the cluster starts that protocol's real server for it
  on 127.0.0.1 (`served_storages.py`), which fills `data`, `mountOptions` and the credentials; a Samba or NFS
  storage's folder is `path`, or `<data dir>/storages/<name>`. `pai local-cluster serve --storage TYPE:NAME`
  adds such a storage for one run, in group `default`.
- `readOnly`, `share` (false: each user sees only `<user>/` below the folder), `mountOptions`,
  `secretName`: as the real server reports them. `bound: false` is a claim with no volume yet: only
  its name and `share` are answered, and it is never listed nor mounted.
- Credentials are secrets and stay out of the data folder that tasks run in: `storage-secrets.json` in
  the cluster's secrets folder maps a `secretName` to the keys added to `data` (`{"smbcreds":
  {"username": "u", "password": "p"}}`), as the real server adds a Kubernetes secret's.
- `groups`: group name -> storage names; the first is that group's default. Without it, group `default`
  lists `local` then every storage of the file. `local` is always there unless the file names a
  storage `local` itself. A user belongs to `default` and to the groups of their `grouplist` in the
  users file.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .datadir import child, secrets_dir
from .rest_errors import ClusterError

CONFIG_FILE = "storages.json"
SECRETS_FILE = "storage-secrets.json"
BUILT_IN = "local"
DEFAULT_GROUP = "default"
# A claim's name is a Kubernetes object name: a DNS-1123 subdomain.
NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
TYPES = ("nfs", "azureFile", "azureBlob", "samba", "dshuttle", "other", "unknown")
SERVED_TYPES = ("samba", "nfs", "azureBlob")  # the types the cluster can start a server of (storage_servers.py)


class StorageConfigError(ValueError):
    """`storages.json` cannot be used: one line that says where and why."""


@dataclass
class Storage:
    name: str
    path: Path | None  # the folder that holds its files on this machine (None: nothing a task can mount)
    type: str = "unknown"
    data: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False
    share: bool = True
    mount_options: list[str] | None = None
    secret_name: str | None = None
    bound: bool = True
    serve: bool = False  # served by a server the cluster starts (storage_servers.py), which fills `data`

    @property
    def volume_name(self) -> str:
        return f"pv-{self.name}"

    def summary(self) -> dict:
        """The list item of `GET /api/v2/storages` (without `default`)."""
        return {"name": self.name, "share": self.share, "volumeName": self.volume_name}

    def detail(self, secrets: dict[str, dict]) -> dict:
        """`GET /api/v2/storages/:name`: credentials in `data`, as the real server returns them."""
        if not self.bound:
            return {"name": self.name, "share": self.share}
        data = dict(self.data)
        if self.type == "unknown" and self.path is not None:
            data = {"path": str(self.path)}
        if self.secret_name:
            data.update(secrets.get(self.secret_name) or {})
        out = {**self.summary(), "type": self.type, "data": data, "readOnly": self.read_only}
        if self.mount_options is not None and self.type != "azureFile":  # the server never sets them for Azure File
            out["mountOptions"] = list(self.mount_options)
        if self.secret_name:
            out["secretName"] = self.secret_name
        return out

    def source(self, user: str) -> Path | None:
        """The folder a task of `user` mounts: the storage's, or its `<user>/` when it is not shared."""
        if self.path is None:
            return None
        return self.path if self.share else child(self.path, user, "user name")


class Storages:
    """The table and the ACLs, read again from the data folder whenever the file changes."""

    def __init__(self, data_dir: Path, added: dict[str, Storage] | None = None):
        """`added`: storages given on the command line (`--storage TYPE:NAME`), beside the file's."""
        self.data_dir = data_dir
        self.added = dict(added or {})
        self.served: dict[str, dict] = {}  # name -> what its server's start says: data, mountOptions, secret
        self.path = data_dir / CONFIG_FILE
        self.secrets_path = secrets_dir(data_dir) / SECRETS_FILE
        self._stamp: tuple | None = ()
        self._table: dict[str, Storage] = {}
        self._groups: dict[str, list[str]] = {}
        self._refresh(strict=True)

    # -- reading ---------------------------------------------------------------------
    def _refresh(self, strict: bool = False) -> None:
        stamp = _stamp(self.path)
        if stamp == self._stamp:
            return
        try:
            table, groups = self._read()
        except StorageConfigError as exc:
            if strict:
                raise
            print(f"pai local-cluster: {exc}; the storages stay as they were", file=sys.stderr, flush=True)
            self._stamp = stamp
            return
        self._table, self._groups, self._stamp = table, groups, stamp

    def _read(self) -> tuple[dict[str, Storage], dict[str, list[str]]]:
        config: dict = {}
        if self.path.exists():
            try:
                config = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise StorageConfigError(f"{self.path}: {exc}") from None
            if not isinstance(config, dict):
                raise StorageConfigError(f"{self.path}: an object with `storages` and `groups` is expected")
        entries = config.get("storages") or {}
        if not isinstance(entries, dict):
            raise StorageConfigError(f"{self.path}: `storages` is an object, storage name -> its settings")
        table = {}
        if BUILT_IN not in entries:
            table[BUILT_IN] = Storage(BUILT_IN, self.data_dir / "storages" / BUILT_IN)
        for name, entry in entries.items():
            table[name] = _storage(self.path, name, entry)
        for name, storage in self.added.items():
            if name in table:
                raise StorageConfigError(f"--storage {storage.type}:{name}: {self.path} names a storage {name} too")
            table[name] = storage
        for storage in table.values():
            if storage.serve and storage.path is None and storage.type != "azureBlob":  # Azurite keeps its own files
                storage.path = self.data_dir / "storages" / storage.name
        groups = config.get("groups")
        if groups is None:
            groups = {DEFAULT_GROUP: [BUILT_IN, *(n for n in entries if n != BUILT_IN)] if BUILT_IN in table else list(entries)}
        if not isinstance(groups, dict) or not all(isinstance(v, list) and all(isinstance(n, str) for n in v)
                                                   for v in groups.values()):
            raise StorageConfigError(f"{self.path}: `groups` is an object, group name -> a list of storage names")
        if self.added:  # the command line's storages are everyone's (group `default`), after its others
            groups.setdefault(DEFAULT_GROUP, [])
            groups[DEFAULT_GROUP] = [*groups[DEFAULT_GROUP], *(n for n in self.added if n not in groups[DEFAULT_GROUP])]
        for storage in table.values():
            if storage.path is not None and storage.bound:
                try:
                    storage.path.mkdir(mode=0o700, parents=True, exist_ok=True)
                except OSError as exc:
                    raise StorageConfigError(f"storage {storage.name}: its folder {storage.path} cannot be made: "
                                             f"{exc.strerror or exc}") from None
        return table, {k: list(v) for k, v in groups.items()}

    def secrets(self) -> dict[str, dict]:
        """Credentials by secret name (kept outside the data folder tasks run in); those of the servers
        the cluster started live in its memory only."""
        try:
            value = json.loads(self.secrets_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            value = {}
        found = {k: v for k, v in value.items() if isinstance(v, dict)} if isinstance(value, dict) else {}
        return {**found, **{f"{name}-credentials": served["secret"] for name, served in self.served.items()
                            if served.get("secret")}}

    def to_serve(self) -> list[Storage]:
        """The storages whose server the cluster starts (`serve`), bound ones only."""
        self._refresh()
        return [s for s in self._table.values() if s.serve and s.bound]

    # -- who may use what --------------------------------------------------------------
    def get(self, name: str) -> Storage | None:
        self._refresh()
        return self._table.get(name)

    def permitted(self, groups: set[str]) -> list[str]:
        """The names the ACLs of these groups (and `default`'s) grant: their `storageConfigs` united."""
        self._refresh()
        names: list[str] = []
        for group in self._member_of(groups):
            names += [n for n in self._groups[group] if n not in names]
        return names

    def defaults(self, groups: set[str]) -> list[str]:
        """The first of each group's `storageConfigs`."""
        self._refresh()
        names: list[str] = []
        for group in self._member_of(groups):
            first = self._groups[group][:1]
            names += [n for n in first if n not in names]
        return names

    def _member_of(self, groups: set[str]) -> list[str]:
        return [g for g in self._groups if g == DEFAULT_GROUP or g in groups]

    def listed(self, groups: set[str], default_only: bool = False) -> list[dict]:
        """`GET /api/v2/storages[?default=true]`: the bound storages the user may use, in name order
        (Kubernetes' list order), each with `default`."""
        self._refresh()
        defaults = set(self.defaults(groups))
        wanted = defaults if default_only else set(self.permitted(groups))
        return [{**s.summary(), "default": True if default_only else s.name in defaults}
                for name, s in sorted(self._table.items()) if s.bound and name in wanted]

    def detail(self, name: str, user: str, groups: set[str]) -> dict:
        """`GET /api/v2/storages/:name`: 404 for a name that does not exist, then 403 for one the user may
        not use (whether it is bound or not)."""
        storage = self.get(name)
        if storage is None:
            raise ClusterError(404, "NoStorageError", f"Storage {name} is not found.")
        if name not in self.permitted(groups):
            raise ClusterError(403, "ForbiddenUserError", f"User {user} is not allowed to access {name}.")
        return self.served_as(storage).detail(self.secrets())

    def served_as(self, storage: Storage) -> Storage:
        """`storage` with what its server's start says (`data`, `mountOptions`, the secret's name), when
        the cluster serves it."""
        served = self.served.get(storage.name) if storage.serve else None
        if not served:
            return storage
        from dataclasses import replace

        return replace(storage, data={**storage.data, **served["data"]}, mount_options=served.get("mountOptions"),
                       secret_name=f"{storage.name}-credentials" if served.get("secret") else storage.secret_name)

    # -- the deprecated storage-plugin routes (§A.5) -------------------------------------
    def legacy_configs(self, groups: set[str]) -> list[dict]:
        """`/api/v2/storage/config` items: the permitted bound storages in the old plugin's shape."""
        return [{"name": s["name"], "default": s["default"], "servers": [s["volumeName"]],
                 "mountInfos": [{"mountPoint": f"/mnt/{s['name']}", "path": "" if s["share"] else "${PAI_USER_NAME}",
                                 "server": s["volumeName"], "permission": "rw"}]} for s in self.listed(groups)]

    def legacy_servers(self, groups: set[str]) -> list[dict]:
        """`/api/v2/storage/server` items, named by volume."""
        secrets, out = self.secrets(), []
        for item in self.listed(groups):
            storage = self._table[item["name"]]
            out.append({"spn": storage.volume_name, "type": storage.type.lower(),
                        "data": _legacy_data(self.served_as(storage).detail(secrets)), "extension": {}})
        return out


def _legacy_data(detail: dict) -> dict:
    """The old plugin's `data` for a storage's detail (the real server's `storage-deprecated.js`)."""
    kind, data = detail.get("type", "").lower(), detail.get("data") or {}
    if kind == "nfs":
        return {"address": data.get("server"), "rootPath": data.get("path")}
    if kind == "samba":
        host, _, share = str(data.get("address", "")).removeprefix("//").partition("/")
        return {"address": host, "rootPath": share, "userName": data.get("username"), "password": data.get("password"),
                "domain": ""}
    if kind == "azurefile":
        return {"dataStore": f"{data.get('accountName')}.file.core.windows.net", "fileShare": data.get("shareName"),
                "accountName": data.get("accountName"), "key": data.get("accountKey")}
    if kind == "azureblob":
        return {"dataStore": "", "containerName": data.get("containerName"), "accountName": data.get("accountName"),
                "key": data.get("accountKey")}
    return {}


def _storage(config: Path, name: str, entry: Any) -> Storage:
    """One entry of `storages.json`, checked."""
    where = f"{config}: storage {name!r}"
    if not isinstance(name, str) or len(name) > 253 or not NAME.match(name):
        raise StorageConfigError(f"{where}: a storage's name is lower-case letters, digits, '-' and '.' "
                                 "(a Kubernetes object name)")
    if not isinstance(entry, dict):
        raise StorageConfigError(f"{where}: its settings are an object")
    unknown = set(entry) - {"path", "type", "data", "readOnly", "share", "mountOptions", "secretName", "bound", "serve"}
    if unknown:
        raise StorageConfigError(f"{where}: unknown setting {sorted(unknown)[0]!r}")
    path = entry.get("path")
    if path is not None and (not isinstance(path, str) or not os.path.isabs(path)):
        raise StorageConfigError(f"{where}: `path` is the absolute path of a folder on this machine")
    kind = entry.get("type", "unknown")
    if kind not in TYPES:
        raise StorageConfigError(f"{where}: `type` is one of {', '.join(TYPES)}")
    for key, kind_of in (("data", dict), ("readOnly", bool), ("share", bool), ("secretName", str), ("bound", bool),
                         ("serve", bool)):
        if key in entry and not isinstance(entry[key], kind_of):
            raise StorageConfigError(f"{where}: `{key}` is {'an object' if kind_of is dict else kind_of.__name__}")
    options = entry.get("mountOptions")
    if options is not None and not (isinstance(options, list) and all(isinstance(o, str) for o in options)):
        raise StorageConfigError(f"{where}: `mountOptions` is a list of strings")
    if entry.get("serve") and kind not in SERVED_TYPES:
        raise StorageConfigError(f"{where}: `serve` starts a server of type {', '.join(SERVED_TYPES)}, not {kind}")
    return Storage(name, Path(path) if path else None, kind, dict(entry.get("data") or {}), entry.get("readOnly", False),
                   entry.get("share", True), options, entry.get("secretName"), entry.get("bound", True),
                   entry.get("serve", False))


def _stamp(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)
