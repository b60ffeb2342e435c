"""Cluster profiles (the user's config dir) and their secrets (the OS keyring).

The profile `local` always exists: it is the embedded local cluster, started on demand by its
launcher, which also gives pai a user there (the password kept with the cluster's own secrets,
readable only by the user). Other clusters' passwords and tokens go to the OS
keyring; on a machine without one, `PAI_LSP_SECRETS=file` stores them in `secrets.json` in the
config dir (mode 600) — an explicit choice, never a silent fallback.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..common.atomic import write_atomic
from ..common.folders import config_dir
from ..core.messages import message
from ..errors import ConfigError, InvalidInput, Unreachable

KEYRING_SERVICE = "pai-lsp"
LOCAL = "local"
LOCAL_PADDLE = "local-paddle"  # the same local cluster, through its PaddlePaddle Cloud API
LOCALS = (LOCAL, LOCAL_PADDLE)
NAME = re.compile(r"[A-Za-z0-9_.-]+")  # a profile's name (as schemas/pai-cluster.schema.json has it)
PFS_PATH = "/api/v1/pfs"  # where PFS is under a PaddlePaddle Cloud endpoint (deployments may differ: §A.14)


@dataclass
class Profile:
    name: str
    rest_uri: str
    webhdfs_uri: str
    user: str
    kind: str = "openpai"  # the name of its kind's record in clusters/kinds.py
    protocol: int = 1
    datacenter: str | None = None  # PaddlePaddle Cloud: the datacenter's name (`/pfs/<datacenter>/…`)

    @property
    def storage_uri(self) -> str:
        """WebHDFS for OpenPAI, PFS for PaddlePaddle Cloud (kept in `webhdfs_uri`)."""
        return self.webhdfs_uri

    def to_json(self) -> dict:
        data = asdict(self)
        if data["datacenter"] is None:
            del data["datacenter"]
        return data


# -- secrets ---------------------------------------------------------------------------
def _secret_file() -> Path:
    return config_dir() / "secrets.json"


def set_secret(key: str, value: str) -> None:
    if os.environ.get("PAI_LSP_SECRETS") == "file":
        data = json.loads(_secret_file().read_text(encoding="utf-8")) if _secret_file().exists() else {}
        data[key] = value
        write_atomic(_secret_file(), json.dumps(data), private=True)
        return
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, key, value)
    except Exception:  # noqa: BLE001 - every backend failure means the same to the user
        raise ConfigError(message("clusters.no-keyring", file=str(_secret_file()))) from None


def secret_store() -> str:
    """Where secrets go on this machine, in words: the file (PAI_LSP_SECRETS=file) or the OS keyring."""
    if os.environ.get("PAI_LSP_SECRETS") == "file":
        return f"{_secret_file()} (PAI_LSP_SECRETS=file)"
    try:
        import keyring

        return f"the OS keyring ({getattr(keyring.get_keyring(), 'name', 'keyring')})"
    except Exception:  # noqa: BLE001
        return "the OS keyring"


def delete_secret(key: str) -> None:
    """Forget a secret; one that was never stored is no error."""
    if os.environ.get("PAI_LSP_SECRETS") == "file":
        data = json.loads(_secret_file().read_text(encoding="utf-8")) if _secret_file().exists() else {}
        if data.pop(key, None) is not None:
            write_atomic(_secret_file(), json.dumps(data), private=True)
        return
    try:
        import keyring

        keyring.delete_password(KEYRING_SERVICE, key)
    except Exception:  # noqa: BLE001 - not there, or no keyring: nothing to forget
        pass


def secret_key(profile: Profile, what: str) -> str:
    """The keyring key of a profile's `password` or (OpenPAI) `token`."""
    return f"{profile.name}:{profile.user}:{what}"


def get_secret(key: str) -> str | None:
    if os.environ.get("PAI_LSP_SECRETS") == "file":
        data = json.loads(_secret_file().read_text(encoding="utf-8")) if _secret_file().exists() else {}
        return data.get(key)
    try:
        import keyring

        return keyring.get_password(KEYRING_SERVICE, key)
    except Exception:  # noqa: BLE001
        return None


# -- profiles --------------------------------------------------------------------------
class Profiles:
    """The profiles in `clusters.json`, read afresh each time one is made (the daemon makes one per
    request, so `pai cluster add/remove` apply at once). A file that cannot be read as profiles is
    refused with one line naming it and what is wrong, and is never overwritten."""

    def __init__(self, path: Path | None = None):
        self.path = path or config_dir() / "clusters.json"
        data = read_profiles(self.path)
        self.default = data.get("default")
        self.clusters = {name: Profile(name=name, **p) for name, p in (data.get("clusters") or {}).items()}

    def save(self) -> None:
        data = {"default": self.default, "clusters": {n: {k: v for k, v in p.to_json().items() if k != "name"}
                                                      for n, p in self.clusters.items()}}
        _validate(data, self.path)
        write_atomic(self.path, json.dumps(data, indent=2))

    def names(self) -> list[str]:
        return [*LOCALS, *self.clusters]

    def resolve(self, name: str | None) -> str:
        name = name or self.default or LOCAL
        if name not in LOCALS and name not in self.clusters:
            raise ConfigError(message("clusters.no-such", name=name))
        return name

    @staticmethod
    def check_name(name: str) -> None:
        if name in LOCALS:
            raise ConfigError(message("clusters.local-name", name=name))
        if not NAME.fullmatch(name):
            raise InvalidInput(message("clusters.bad-name", name=name))

    def add(self, profile: Profile) -> None:
        self.check_name(profile.name)
        self.clusters[profile.name] = profile
        if self.default is None:
            self.default = profile.name
        self.save()

    def set_default(self, name: str) -> None:
        self.default = None if name == LOCAL else self.resolve(name)
        self.save()

    def remove(self, name: str) -> None:
        if name in LOCALS:
            raise InvalidInput(message("clusters.local-not-removable", name=name))
        if name not in self.clusters:
            raise ConfigError(message("clusters.no-such", name=name))
        del self.clusters[name]
        if self.default == name:
            self.default = next(iter(self.clusters), None)
        self.save()


def read_profiles(path: Path) -> dict:
    """The checked content of `clusters.json` ({} when there is none), or ConfigError naming the
    file and what is wrong with it."""
    if not path.exists() and not path.is_symlink():
        return {}
    fix = message("profiles.fix")
    if path.is_dir():
        raise ConfigError(message("profiles.folder", path=str(path), fix=fix))
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(message("file.unreadable", path=str(path), why=exc.strerror or str(exc))) from None
    if not raw.strip():
        raise ConfigError(message("profiles.empty", path=str(path), fix=fix))
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(message("profiles.not-utf8", path=str(path), fix=fix)) from None
    except ValueError as exc:
        raise ConfigError(message("profiles.not-json", path=str(path), why=str(exc), fix=fix)) from None
    _validate(data, path)
    return data


@cache
def _validator() -> Any:
    """Built once: `clusters.json` is read (and checked) on every daemon request."""
    from jsonschema import Draft202012Validator

    from ..core.schema import load_schema

    return Draft202012Validator(load_schema("pai-cluster.schema.json"))


def _validate(data: object, path: Path) -> None:
    error = next(iter(_validator().iter_errors(data)), None)
    if error is not None:
        where = "/".join(map(str, error.absolute_path))
        why = error.message if len(error.message) <= 160 else error.message[:150] + "…"
        raise ConfigError(message("profiles.invalid", path=str(path), where=message("profiles.at", where=where) if where else "",
                                  why=why, fix=message("profiles.fix")))


def resolve(name: str | None) -> str:
    """The profile a request means (absent: the default one, else `local`). Naming `local` needs no
    profiles file, so the local cluster works whatever state that file is in."""
    return name if name in LOCALS else Profiles().resolve(name)


# -- the local cluster, on demand ------------------------------------------------------
def local_profile(start: bool = True) -> Profile:
    """The running local cluster (started when needed), as a profile; its launcher is the one part
    of the local cluster the client side uses."""
    from ..localcluster import launcher

    try:
        running = launcher.ensure_running(start)
    except launcher.LaunchError as exc:
        raise Unreachable(str(exc)) from None
    return Profile(LOCAL, running.url, running.hdfs, running.user, "openpai", 1)


def local_paddle_profile(start: bool = True) -> Profile:
    """The running local cluster's PaddlePaddle Cloud API, as a profile (datacenter `local`)."""
    from ..localcluster import launcher

    try:
        running = launcher.ensure_running(start)
    except launcher.LaunchError as exc:
        raise Unreachable(str(exc)) from None
    if not running.paddle:
        raise Unreachable(message("clusters.local-no-paddle"))
    return Profile(LOCAL_PADDLE, running.paddle, running.paddle + PFS_PATH, running.user, "paddlecloud", 1, "local")


def local_password() -> str | None:
    from ..localcluster import launcher

    return launcher.client_password()


def stop_local() -> bool:
    from ..localcluster import launcher

    return launcher.stop()
