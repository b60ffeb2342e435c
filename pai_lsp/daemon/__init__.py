"""The job daemon: one per user, on a Unix socket only that user can open, speaking JSON-RPC 2.0
(one JSON object per line). It owns cluster sessions, uploads and job watchers; the CLI and the
language server are its clients. See docs/protocol.md.
"""

from __future__ import annotations

import os
from pathlib import Path


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "pai-lsp"


def socket_path() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(runtime) / "pai-lsp" if runtime and not os.environ.get("XDG_STATE_HOME") else state_dir()
    return folder / "daemon.sock"
