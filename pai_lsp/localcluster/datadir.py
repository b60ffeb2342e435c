"""The local cluster's folders: its data folder (jobs, logs, HDFS files), private to the user, with a
lock that lets one cluster serve it at a time; and its secrets folder, kept outside the data folder.

A task's working folder lies inside the data folder, so nothing a task could reach by walking up
from `$PAI_WORK_DIR` may hold a secret: the token-signing key, the users' password hashes and the
`pai` client's password live in `$XDG_CONFIG_HOME/pai-lsp/local-clusters/<cluster id>/` (mode 700,
files 600). The cluster id is a random name stored in the data folder, so a moved data folder keeps
its secrets. (With the host runtime a task still runs as your OS user and can read any of your
files by absolute path: see the README's "Local cluster security".)
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from ..common.atomic import write_atomic
from ..common.folders import APP, config_dir, data_dir
from ..common.userlock import try_hold
from ..common.winnames import unfit_name
from .rest_errors import ClusterError

LOCK_FILE = "cluster.lock"
HOLDER_FILE = "cluster.json"  # who holds the lock: pid, then REST and WebHDFS
STOP_FILE = "stop-request"  # the pid of the cluster asked to stop (`request_stop`)
ID_FILE = "cluster-id"
LEGACY_SECRETS = ("users.json", "token-secret", "pai-client-password")


class DataDirBusy(Exception):
    """Another local cluster serves this data folder."""


def default_data_dir() -> Path:
    """`$PAI_LOCAL_CLUSTER_DIR`, else `$XDG_DATA_HOME/pai-lsp/local-cluster`: the same folder for
    `pai local-cluster …` and for the cluster `pai` starts on demand."""
    return Path(os.environ.get("PAI_LOCAL_CLUSTER_DIR") or data_dir() / "local-cluster")


def prepare(data_dir: Path) -> Path:
    """The data folder, created if needed and made private (700)."""
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(data_dir, 0o700)
    return data_dir


def child(parent: Path, name: str, what: str = "name") -> Path:
    """`parent / name` for a name that came from a request (a job's, a task role's): one path component
    that stays in `parent`. Empty, `.`, `..`, a `/` or a NUL would leave it or fail in the middle of
    the work, so they are refused (400) before any file is touched."""
    if name in ("", ".", "..") or "/" in name or "\0" in name:
        raise ClusterError(400, "InvalidParametersError", f"The {what} {name!r} cannot be used on the local cluster: "
                                                          "it names a folder there, so it is not empty, '.' or '..' and "
                                                          "holds no '/' or NUL.")
    if problem := unfit_name(name):
        raise ClusterError(400, "InvalidParametersError", f"The {what} {name!r} cannot be used on this local cluster: "
                                                          f"it names a folder there, and {problem}.")
    return parent / name


def secrets_dir(data_dir: Path, config_home: Path | None = None) -> Path:
    """The secrets folder of the cluster that owns `data_dir` (created 700; legacy secrets moved in).
    `config_home` stands for $XDG_CONFIG_HOME (for tools that look at another environment's cluster)."""
    prepare(data_dir)
    id_file = data_dir / ID_FILE
    if not id_file.exists():
        try:
            fd = os.open(id_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process named it first
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(secrets.token_hex(16))
    cluster_id = id_file.read_text(encoding="utf-8").strip()
    folder = (config_home / APP if config_home else config_dir()) / "local-clusters" / cluster_id
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    for name in LEGACY_SECRETS:  # kept in the data folder by earlier versions, where tasks could read them
        old = data_dir / name
        if old.exists() and not (folder / name).exists():
            os.replace(old, folder / name)
            os.chmod(folder / name, 0o600)
        elif old.exists():
            old.unlink()
    return folder


class DataDirLock:
    """An exclusive lock on the data folder for the life of one cluster process (the `filelock`
    package's primitive: `flock`, `LockFileEx` on Windows). Who holds it is written beside it
    (`cluster.json`: Windows locks the lock file's first byte against every read), so a second cluster
    can name the first when it refuses to start."""

    def __init__(self, data_dir: Path):
        self.folder = prepare(data_dir)
        self.path = self.folder / LOCK_FILE
        self._fd: int | None = None
        self._info: dict = {}

    def acquire(self) -> None:
        fd = try_hold(self.path)
        if fd is None:
            holder = _holder(self.folder)
            who = f"pid {holder.get('pid', '?')}" + (f", REST {holder['url']}" if holder.get("url") else "")
            raise DataDirBusy(f"another local cluster ({who}) already serves {self.folder}; "
                              "stop it first (`pai cluster stop-local`) or choose another --data-dir")
        self._fd = fd
        (self.folder / STOP_FILE).unlink(missing_ok=True)  # asked of an earlier cluster, not of this one
        self.describe(pid=os.getpid())

    def describe(self, **info) -> None:
        """Record who holds the lock (pid, then the URLs once the sockets are bound)."""
        if self._fd is None:
            return
        self._info.update(info)
        write_atomic(self.folder / HOLDER_FILE, json.dumps(self._info), private=True)

    def holder(self) -> dict:
        return _holder(self.folder)

    def release(self) -> None:
        if self._fd is not None:
            for name in (HOLDER_FILE, STOP_FILE):
                (self.folder / name).unlink(missing_ok=True)
            os.close(self._fd)  # closing releases the lock
            self._fd = None


def _holder(data_dir: Path) -> dict:
    """What the lock's holder wrote about itself ({} when nothing can be read). An older cluster wrote it
    in the lock file itself."""
    for name in (HOLDER_FILE, LOCK_FILE):
        try:
            return json.loads((data_dir / name).read_text(encoding="utf-8") or "{}")
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            return {}
    return {}


def serving(data_dir: Path) -> dict | None:
    """Who serves `data_dir` now (pid, url, hdfs, as the holder wrote them), or None when no cluster does."""
    path = data_dir / LOCK_FILE
    if not path.is_file():
        return None
    fd = try_hold(path)
    if fd is not None:
        os.close(fd)  # nobody held it; closing drops it again
        return None
    import psutil  # here: the launcher, on the client side, loads it only when it must

    holder = _holder(data_dir)
    pid = holder.get("pid")
    if isinstance(pid, int) and not psutil.pid_exists(pid):
        return None  # held only by another look like this one, while a dead cluster's description lingers
    return holder


def request_stop(data_dir: Path, pid: int) -> None:
    """Ask the cluster `pid` that serves `data_dir` to stop as Ctrl-C does (its tasks stopped, then it
    exits), where no signal can ask it (Windows: `os.kill` there only terminates). Only the user may
    write in the data folder, as only the user may signal their processes."""
    write_atomic(data_dir / STOP_FILE, str(pid), private=True)


def stop_requested(data_dir: Path) -> bool:
    """Whether this process was asked to stop (`request_stop`)."""
    try:
        return (data_dir / STOP_FILE).read_text(encoding="utf-8").strip() == str(os.getpid())
    except OSError:
        return False
