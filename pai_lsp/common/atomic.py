"""Writing a file whole or not at all: a reader, or a crash, sees the old content or the new."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from . import winacl


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
