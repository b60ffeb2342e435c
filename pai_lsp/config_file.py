"""Reading a job config file from disk, for `pai check` and for submitting.

Only regular files of bounded size: `/dev/zero`, a FIFO or a terminal never end, and a
multi-gigabyte file is no job config (the largest real ones, 10,000 task roles, are ~4 MB).
"""

from __future__ import annotations

import stat
from pathlib import Path

MAX_CONFIG_BYTES = 64 * 1024 * 1024


class UnreadableConfig(ValueError):
    """Why a config file cannot be read, in words (`no such file`, `not a regular file`, …)."""


def read_config(path: Path) -> str:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableConfig("is a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file")
        with path.open("rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise UnreadableConfig("no such file") from None
    except OSError as exc:
        raise UnreadableConfig(exc.strerror or str(exc)) from None
    return decode_config(data)


def decode_config(data: bytes) -> str:
    """A job config's bytes as text (as read from a file, or from standard input for `pai check -`)."""
    if len(data) > MAX_CONFIG_BYTES:
        raise UnreadableConfig(f"larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MB: not a job config")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableConfig("not UTF-8 text") from None
