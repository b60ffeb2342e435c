"""The job daemon: one per user, reached only by that user (a Unix socket only they can open, or
loopback TCP with a secret only they can read: `transport.py`), speaking JSON-RPC 2.0 (one JSON
object per line). It owns cluster sessions, uploads and job watchers; the CLI and the language
server are its clients. See docs/protocol.md.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..common.folders import config_dir, data_dir, runtime_dir, state_dir
from .transport import endpoint_name


def endpoint_path() -> Path:
    """Where clients find the daemon: its socket, or (tcp) its endpoint file."""
    folder = runtime_dir()
    return folder / endpoint_name(folder)


def lock_path() -> Path:
    """Held by the serving daemon for its whole life."""
    return runtime_dir() / "daemon.lock"


def settings() -> dict[str, str | None]:
    """What decides which secrets and profiles a daemon reads: a daemon started with other values
    than a command's would read others (`pai` restarts it, saying so)."""
    return {"PAI_LSP_SECRETS": os.environ.get("PAI_LSP_SECRETS") or None,
            "PYTHON_KEYRING_BACKEND": os.environ.get("PYTHON_KEYRING_BACKEND") or None,
            "profiles folder": str(config_dir()),
            "local cluster folder": os.environ.get("PAI_LOCAL_CLUSTER_DIR") or str(data_dir() / "local-cluster")}


__all__ = ["config_dir", "endpoint_path", "lock_path", "settings", "state_dir"]
