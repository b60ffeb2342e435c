"""Cluster profiles (the user's config dir) and their secrets (the OS keyring).

The profile `local` always exists: it is the embedded local cluster, started on demand. Its
password is created by pai and kept with the local cluster's own data (readable only by the
user), since both live on this machine. Other clusters' passwords and tokens go to the OS
keyring; on a machine without one, `PAI_LSP_SECRETS=file` stores them in `secrets.json` in the
config dir (mode 600) — an explicit choice, never a silent fallback.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from ..errors import ConfigError, Unreachable

KEYRING_SERVICE = "pai-lsp"
LOCAL = "local"


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "pai-lsp"


def local_data_dir() -> Path:
    from ..localcluster.server import default_data_dir

    return Path(os.environ.get("PAI_LOCAL_CLUSTER_DIR") or default_data_dir())


@dataclass
class Profile:
    name: str
    rest_uri: str
    webhdfs_uri: str
    user: str
    kind: str = "openpai"  # "openpai" | "scm"
    protocol: int = 1

    def to_json(self) -> dict:
        return asdict(self)


# -- secrets ---------------------------------------------------------------------------
def _secret_file() -> Path:
    return config_dir() / "secrets.json"


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temp, path)


def set_secret(key: str, value: str) -> None:
    if os.environ.get("PAI_LSP_SECRETS") == "file":
        data = json.loads(_secret_file().read_text()) if _secret_file().exists() else {}
        data[key] = value
        _write_private(_secret_file(), json.dumps(data))
        return
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, key, value)
    except Exception:  # noqa: BLE001 - every backend failure means the same to the user
        raise ConfigError("no OS keyring is available to keep the password: install one (e.g. gnome-keyring), "
                                 f"or set PAI_LSP_SECRETS=file to keep secrets in {_secret_file()} (mode 600)") from None


def delete_secret(key: str) -> None:
    """Forget a secret; one that was never stored is no error."""
    if os.environ.get("PAI_LSP_SECRETS") == "file":
        data = json.loads(_secret_file().read_text()) if _secret_file().exists() else {}
        if data.pop(key, None) is not None:
            _write_private(_secret_file(), json.dumps(data))
        return
    try:
        import keyring

        keyring.delete_password(KEYRING_SERVICE, key)
    except Exception:  # noqa: BLE001 - not there, or no keyring: nothing to forget
        pass


def get_secret(key: str) -> str | None:
    if os.environ.get("PAI_LSP_SECRETS") == "file":
        data = json.loads(_secret_file().read_text()) if _secret_file().exists() else {}
        return data.get(key)
    try:
        import keyring

        return keyring.get_password(KEYRING_SERVICE, key)
    except Exception:  # noqa: BLE001
        return None


# -- profiles --------------------------------------------------------------------------
class Profiles:
    def __init__(self, path: Path | None = None):
        self.path = path or config_dir() / "clusters.json"
        data = json.loads(self.path.read_text()) if self.path.exists() else {}
        self.default = data.get("default")
        self.clusters = {name: Profile(name=name, **{k: v for k, v in p.items() if k != "name"})
                         for name, p in (data.get("clusters") or {}).items()}

    def save(self) -> None:
        data = {"default": self.default, "clusters": {n: {k: v for k, v in p.to_json().items() if k != "name"}
                                                      for n, p in self.clusters.items()}}
        _validate(data)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_suffix(".tmp")
        temp.write_text(json.dumps(data, indent=2))
        os.replace(temp, self.path)

    def names(self) -> list[str]:
        return [LOCAL, *self.clusters]

    def resolve(self, name: str | None) -> str:
        name = name or self.default or LOCAL
        if name != LOCAL and name not in self.clusters:
            raise ConfigError(f"no cluster named {name!r}: see `pai cluster list`")
        return name

    def add(self, profile: Profile) -> None:
        if profile.name == LOCAL:
            raise ConfigError("the name 'local' is the embedded local cluster; choose another")
        self.clusters[profile.name] = profile
        if self.default is None:
            self.default = profile.name
        self.save()

    def set_default(self, name: str) -> None:
        self.default = None if name == LOCAL else self.resolve(name)
        self.save()

    def remove(self, name: str) -> None:
        if name not in self.clusters:
            raise ConfigError(f"no cluster named {name!r}")
        del self.clusters[name]
        if self.default == name:
            self.default = next(iter(self.clusters), None)
        self.save()


def _validate(data: dict) -> None:
    from jsonschema import Draft202012Validator

    from ..core.schema import schema_path

    schema = json.loads(schema_path().with_name("pai-cluster.schema.json").read_text())
    error = next(iter(Draft202012Validator(schema).iter_errors(data)), None)
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "profiles"
        raise ConfigError(f"invalid cluster profile ({where}): {error.message}")


# -- the local cluster, on demand ------------------------------------------------------
def local_profile(start: bool = True) -> Profile:
    """The running local cluster (started when needed), as a profile with its credentials ready."""
    data = local_data_dir()
    state = data / "server.json"
    if state.exists():
        info = json.loads(state.read_text())
        if _alive(info["url"]):
            return _profile_of(info)
    if not start:
        raise Unreachable("the local cluster is not running")
    _ensure_local_user(data)
    data.mkdir(parents=True, exist_ok=True)
    log = open(data / "server.log", "ab")
    extra = shlex.split(os.environ.get("PAI_LOCAL_CLUSTER_ARGS", ""))  # e.g. "--cpus 64" for benchmarks
    process = subprocess.Popen(
        [sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(data), "--port", "0", *extra],
        stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True, text=True)
    line = process.stdout.readline() if process.stdout else ""
    if "REST " not in line:
        raise Unreachable(f"the local cluster did not start: see {data / 'server.log'}")
    url = line.split("REST ")[1].split()[0]
    info = {"url": url, "hdfs": line.split("WebHDFS ")[1].split()[0].removesuffix("/webhdfs/v1"), "pid": process.pid}
    _write_private(state, json.dumps(info))
    deadline = time.monotonic() + 10
    while not _alive(url):
        if time.monotonic() > deadline:
            raise Unreachable(f"the local cluster at {url} does not answer")
        time.sleep(0.05)
    return _profile_of(info)


def _profile_of(info: dict) -> Profile:
    import getpass

    return Profile(LOCAL, info["url"], info["hdfs"], getpass.getuser(), "openpai", 1)


def _alive(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/v2/info", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _ensure_local_user(data: Path) -> None:
    import getpass

    from ..localcluster.auth import Users

    data.mkdir(parents=True, exist_ok=True)
    users = Users(data)
    user = getpass.getuser()
    secret = _local_password_file(data)
    if user in users.users and secret.exists():
        return
    password = secrets.token_urlsafe(16)
    users.add(user, password, admin=True)
    _write_private(secret, password)


def _local_password_file(data: Path) -> Path:
    """Beside the local cluster's own secrets, outside the data folder its tasks run in."""
    from ..localcluster.datadir import secrets_dir

    return secrets_dir(data) / "pai-client-password"


def local_password() -> str | None:
    path = _local_password_file(local_data_dir())
    return path.read_text().strip() if path.exists() else None


def stop_local() -> bool:
    state = local_data_dir() / "server.json"
    if not state.exists():
        return False
    info = json.loads(state.read_text())
    try:
        os.kill(info["pid"], 2)  # SIGINT: the cluster stops its tasks and exits
    except (ProcessLookupError, PermissionError):
        pass
    state.unlink(missing_ok=True)
    return True
