"""Reading a job config file from disk, for `pai check` and for submitting.

Only regular files of bounded size: `/dev/zero`, a FIFO or a terminal never end, and a
multi-gigabyte file is no job config (the largest real ones, 10,000 task roles, are ~4 MB).
"""

from __future__ import annotations

import stat
from pathlib import Path

from ..core.messages import Message, message

MAX_CONFIG_BYTES = 64 * 1024 * 1024


class UnreadableConfig(ValueError):
    """Why a config file cannot be read (`no such file`, `not a regular file`, …): `said`, a catalogue
    message or the OS's own words, for whoever shows it in the reader's language."""

    def __init__(self, said: str | Message):
        super().__init__(str(said))
        self.said = said


def read_config(path: Path) -> str:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableConfig(message("config.directory" if stat.S_ISDIR(info.st_mode) else "config.not-regular"))
        with path.open("rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise UnreadableConfig(message("config.no-file")) from None
    except OSError as exc:
        raise UnreadableConfig(exc.strerror or str(exc)) from None
    return decode_config(data)


def decode_config(data: bytes) -> str:
    """A job config's bytes as text (as read from a file, or from standard input for `pai check -`)."""
    if len(data) > MAX_CONFIG_BYTES:
        raise UnreadableConfig(message("config.too-large", limit=MAX_CONFIG_BYTES // (1024 * 1024)))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableConfig(message("config.not-utf8")) from None
