"""Where pai-lsp keeps its files (XDG folders, in one place) and how it writes them (whole or not at
all). Used by the client side and the local cluster alike."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

APP = "pai-lsp"


def _xdg(variable: str, *fallback: str) -> Path:
    return Path(os.environ.get(variable) or os.path.join(os.path.expanduser("~"), *fallback)) / APP


def config_dir() -> Path:
    """Cluster profiles, secrets kept in a file, the local cluster's secrets."""
    return _xdg("XDG_CONFIG_HOME", ".config")


def state_dir() -> Path:
    """The daemon's log and what it watches."""
    return _xdg("XDG_STATE_HOME", ".local", "state")


def data_dir() -> Path:
    """The local cluster's data (jobs, logs, HDFS files)."""
    return _xdg("XDG_DATA_HOME", ".local", "share")


def runtime_dir() -> Path:
    """The daemon's socket: `$XDG_RUNTIME_DIR/pai-lsp`, else the state folder (also when
    `XDG_STATE_HOME` is set, so an isolated environment never meets the user's daemon)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return Path(runtime) / APP if runtime and not os.environ.get("XDG_STATE_HOME") else state_dir()


def write_atomic(path: Path, data: str | bytes, private: bool = False) -> None:
    """Replace `path` with `data` whole: a reader, or a crash, sees the old content or the new, never
    half of one. `private`: readable by this user only (mode 600) from the first byte."""
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
            yield f
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
