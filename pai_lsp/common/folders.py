"""Where pai-lsp keeps its files: the per-OS folders, in one place. Used by the client side and the
local cluster alike (how a file is written whole is `atomic.py`; which names a file may have, `winnames.py`).

The folders: `$XDG_CONFIG_HOME` / `$XDG_STATE_HOME` / `$XDG_DATA_HOME` when set, on every OS (an
explicit choice, and how tests and scripts isolate a set-up); else on Linux and other Unixes the XDG
defaults (`~/.config/pai-lsp`, `~/.local/state/pai-lsp`, `~/.local/share/pai-lsp`); on macOS and
Windows the OS's own convention (platformdirs: `~/Library/Application Support/pai-lsp`,
`%LOCALAPPDATA%\\pai-lsp`) — unless an earlier pai-lsp already keeps files in the XDG default there,
which then stays in use: nobody's files are moved silently.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Literal

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
