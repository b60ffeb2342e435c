"""The job daemon: one per user, on a Unix socket only that user can open, speaking JSON-RPC 2.0
(one JSON object per line). It owns cluster sessions, uploads and job watchers; the CLI and the
language server are its clients. See docs/protocol.md.
"""

from __future__ import annotations

from pathlib import Path

from ..files import runtime_dir, state_dir


def socket_path() -> Path:
    return runtime_dir() / "daemon.sock"


__all__ = ["socket_path", "state_dir"]
