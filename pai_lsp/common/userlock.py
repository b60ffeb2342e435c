"""One process (or thread) at a time: a lock on a file, for what must exist once per user — the
daemon, the local cluster's start. The `filelock` package's native primitive (`flock` on Unix,
`LockFileEx` on Windows) on a descriptor we own, so the lock lives exactly as long as the
descriptor: closing it, or the process ending, releases it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _open(path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def try_hold(path: Path) -> int | None:
    """Take the lock without waiting; the open descriptor holds it until it is closed (or the
    process ends). None when someone else holds it."""
    from filelock import lock_descriptor  # here: `pai` commands that take no lock do not load it

    fd = _open(path)
    try:
        if lock_descriptor(fd, blocking=False):
            return fd
    except BaseException:
        os.close(fd)
        raise
    os.close(fd)
    return None


@contextmanager
def held(path: Path) -> Iterator[None]:
    """Wait for the lock, hold it for the block."""
    from filelock import lock_descriptor

    fd = _open(path)
    try:
        lock_descriptor(fd, blocking=True)
        yield
    finally:
        os.close(fd)  # closing releases the lock
