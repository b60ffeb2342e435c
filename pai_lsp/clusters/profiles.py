"""Cluster profiles (the user's config dir) and their secrets (the OS keyring).

The profile `local` always exists: it is the embedded local cluster, started on demand. Its
password is created by pai and kept with the local cluster's own data (readable only by the
user), since both live on this machine. Other clusters' passwords and tokens go to the OS
keyring; on a machine without one, `PAI_LSP_SECRETS=file` stores them in `secrets.json` in the
config dir (mode 600) — an explicit choice, never a silent fallback.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
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

    def remove(self, name: str) -> None:
        if name not in self.clusters:
            raise ConfigError(f"no cluster named {name!r}")
        del self.clusters[name]
        if self.default == name:
            self.default = next(iter(self.clusters), None)
        self.save()


def read_profiles(path: Path) -> dict:
    """The checked content of `clusters.json` ({} when there is none), or ConfigError naming the
    file and what is wrong with it."""
    if not path.exists() and not path.is_symlink():
        return {}
    fix = "fix it, or move it away to start with no profiles"
    if path.is_dir():
        raise ConfigError(f"{path} is a folder, not a file of cluster profiles: {fix}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if not raw.strip():
        raise ConfigError(f"{path} is empty, not a JSON object of cluster profiles: {fix}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text (a binary file?): {fix}") from None
    except ValueError as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}): {fix}") from None
    _validate(data, path)
    return data


def _validate(data: object, path: Path) -> None:
    from jsonschema import Draft202012Validator

    from ..core.schema import schema_path

    schema = json.loads(schema_path().with_name("pai-cluster.schema.json").read_text())
    error = next(iter(Draft202012Validator(schema).iter_errors(data)), None)
    if error is not None:
        where = "/".join(map(str, error.absolute_path))
        message = error.message if len(error.message) <= 160 else error.message[:150] + "…"
        raise ConfigError(f"{path}: {'at ' + where + ': ' if where else ''}{message} "
                          f"(see schemas/pai-cluster.schema.json): fix it, or move it away to start with no profiles")


def resolve(name: str | None) -> str:
    """The profile a request means (absent: the default one, else `local`). Naming `local` needs no
    profiles file, so the local cluster works whatever state that file is in."""
    return LOCAL if name == LOCAL else Profiles().resolve(name)


# -- the local cluster, on demand ------------------------------------------------------
def local_profile(start: bool = True) -> Profile:
    """The running local cluster (started when needed), as a profile with its credentials ready.
    Callers that race (several editor views at once, several daemons) start one cluster: the
    check-and-start holds a lock, and a cluster still shutting down is waited for."""
    data = local_data_dir()
    state = data / "server.json"
    info = _running_cluster(state)
    if info is not None:
        return _profile_of(info)
    if not start:
        raise Unreachable("the local cluster is not running")
    data.mkdir(parents=True, exist_ok=True)
    with _locked(data / ".start.lock"):
        info = _running_cluster(state)
        if info is None:
            info = _start_local(data, state)
    return _profile_of(info)


def _running_cluster(state: Path) -> dict | None:
    """server.json's cluster when it answers, else None (after waiting for one that is stopping)."""
    try:
        info = json.loads(state.read_text())
    except (OSError, ValueError):
        return None
    deadline = time.monotonic() + 10
    while True:
        if _alive(info["url"]):
            return info
        pid = info.get("pid")
        # Not answering but still there: busy, or shutting down (it holds the data folder until it exits).
        if not isinstance(pid, int) or not _process_runs(pid) or time.monotonic() > deadline:
            return None
        time.sleep(0.1)


def _start_local(data: Path, state: Path) -> dict:
    _ensure_local_user(data)
    extra = shlex.split(os.environ.get("PAI_LOCAL_CLUSTER_ARGS", ""))  # e.g. "--cpus 64" for benchmarks
    with open(data / "server.log", "ab") as log:
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
    return info


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock between processes (released when the holder exits, however it exits)."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _process_runs(pid: int) -> bool:
    """Whether `pid` is a live process (an exited one nobody reaped yet counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_exit(pid: int | None, seconds: float) -> bool:
    """Wait up to `seconds` for process `pid` to exit; whether it did."""
    if not isinstance(pid, int) or pid <= 0:
        return True
    deadline = time.monotonic() + seconds
    while _process_runs(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


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
    """Stop the local cluster and wait until it has exited (its tasks stopped, its data folder
    free), so a command right after can start it again."""
    state = local_data_dir() / "server.json"
    try:
        info = json.loads(state.read_text())
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        info = {}
    pid = info.get("pid")
    if isinstance(pid, int) and pid > 0:
        try:
            os.kill(pid, signal.SIGINT)  # the cluster stops its tasks and exits
        except (ProcessLookupError, PermissionError):
            pass
        if not _wait_exit(pid, 20):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            _wait_exit(pid, 5)
    state.unlink(missing_ok=True)
    return True
