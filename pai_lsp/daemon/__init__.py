"""The job daemon: one per user, reached only by that user (a Unix socket only they can open, or
loopback TCP with a secret only they can read: `transport.py`), speaking JSON-RPC 2.0 (one JSON
object per line). It owns cluster sessions, uploads and job watchers; the CLI and the language
server are its clients. See docs/protocol.md.
"""

from __future__ import annotations

from pathlib import Path

from ..files import runtime_dir, state_dir
from .transport import endpoint_name


def endpoint_path() -> Path:
    """Where clients find the daemon: its socket, or (tcp) its endpoint file."""
    folder = runtime_dir()
    return folder / endpoint_name(folder)


def lock_path() -> Path:
    """Held by the serving daemon for its whole life."""
    return runtime_dir() / "daemon.lock"


__all__ = ["endpoint_path", "lock_path", "state_dir"]
