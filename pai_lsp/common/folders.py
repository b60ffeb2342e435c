"""Where pai-lsp keeps its files (per-OS folders, in one place) and how it writes them (whole or not
at all). Used by the client side and the local cluster alike.

The folders: `$XDG_CONFIG_HOME` / `$XDG_STATE_HOME` / `$XDG_DATA_HOME` when set, on every OS (an
explicit choice, and how tests and scripts isolate a set-up); else on Linux and other Unixes the XDG
defaults (`~/.config/pai-lsp`, `~/.local/state/pai-lsp`, `~/.local/share/pai-lsp`); on macOS and
Windows the OS's own convention (platformdirs: `~/Library/Application Support/pai-lsp`,
`%LOCALAPPDATA%\\pai-lsp`) — unless an earlier pai-lsp already keeps files in the XDG default there,
which then stays in use: nobody's files are moved silently.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Literal

from . import portable, winacl

APP = "pai-lsp"
Kind = Literal["config", "state", "data"]
_XDG: dict[str, tuple[str, tuple[str, ...]]] = {  # kind -> (variable, default under the home folder)
    "config": ("XDG_CONFIG_HOME", (".config",)),
    "state": ("XDG_STATE_HOME", (".local", "state")),
    "data": ("XDG_DATA_HOME", (".local", "share")),
}
OWN_CONVENTION = ("win32", "darwin")  # OSes whose folders come from platformdirs


def user_dir(kind: Kind, platform: str = sys.platform) -> Path:
    """pai-lsp's folder of this `kind` on `platform` (a `sys.platform` value; another one than this
    machine's only to test the conventions)."""
    variable, default = _XDG[kind]
    if value := os.environ.get(variable):
        return Path(value) / APP
    xdg = Path(os.path.expanduser("~"), *default) / APP
    if platform not in OWN_CONVENTION or xdg.is_dir():
        return xdg
    if platform == "win32":
        from platformdirs.windows import Windows as Convention
    else:
        from platformdirs.macos import MacOS as Convention
    dirs = Convention(appname=APP, appauthor=False)
    return Path({"config": dirs.user_config_dir, "state": dirs.user_state_dir, "data": dirs.user_data_dir}[kind])


_DEVICES = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", *(f"{port}{n}" for port in ("COM", "LPT") for n in "0123456789¹²³")}


def unfit_on_windows(name: str) -> str | None:
    """Why Windows cannot hold a file named `name` (one path component) as that very file, or None.
    There a `\\` separates folders (`..\\x` leaves the folder), `c:x` names another drive, `a:b` a
    hidden stream of `a`, a trailing dot or space is dropped (`a.` is `a`) and `nul.txt` is a device."""
    if any(c in '<>:"/\\|?*' or ord(c) < 32 for c in name):
        return 'it holds one of \\ / : * ? " < > | or a control character, which Windows keeps out of names'
    if name != name.rstrip(". "):
        return "it ends with a dot or a space, which Windows drops"
    if name.split(".", 1)[0].rstrip(" ").upper() in _DEVICES:
        return "it is the name of a device on Windows"
    return None


def unfit_name(name: str) -> str | None:
    """`unfit_on_windows` where names must suit Windows (portable.windows_names); None elsewhere,
    where only `/` and NUL are kept out of names (callers refuse those, `.` and `..` themselves)."""
    return unfit_on_windows(name) if portable.windows_names() else None


def config_dir() -> Path:
    """Cluster profiles, secrets kept in a file, the local cluster's secrets."""
    return user_dir("config")


def state_dir() -> Path:
    """The daemon's log, its endpoint and what it watches."""
    return user_dir("state")


def data_dir() -> Path:
    """The local cluster's data (jobs, logs, HDFS files)."""
    return user_dir("data")


def runtime_dir() -> Path:
    """The daemon's endpoint: `$XDG_RUNTIME_DIR/pai-lsp`, else the state folder (also when
    `XDG_STATE_HOME` is set, so an isolated environment never meets the user's daemon)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return Path(runtime) / APP if runtime and not os.environ.get("XDG_STATE_HOME") else state_dir()


def write_atomic(path: Path, data: str | bytes, private: bool = False) -> None:
    """Replace `path` with `data` whole: a reader, or a crash, sees the old content or the new, never
    half of one. `private`: readable by this user only from the first byte — mode 600 where files have
    modes; on Windows, where they have none, an ACL of its own: the user, SYSTEM and the administrators
    (winacl.py)."""
    with atomic_writer(path, private) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


@contextlib.contextmanager
def atomic_writer(path: Path, private: bool = False) -> Iterator[BinaryIO]:
    """`write_atomic` for content written in pieces (a download streamed to disk): the file appears
    under its name only when the block ends without an error."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            if private and sys.platform == "win32":
                winacl.restrict(temp)  # still empty: nothing secret was readable under the folder's ACL
            yield f
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
