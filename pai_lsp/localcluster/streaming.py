"""A piece of a file sent as an HTTP body in bounded chunks (job logs, WebHDFS OPEN): memory stays
at one chunk whatever the file's size."""

from __future__ import annotations

from collections.abc import Iterator
from os import PathLike

CHUNK = 1 << 20  # bytes read and sent at a time


def file_range(path: str | PathLike, start: int, length: int) -> Iterator[bytes]:
    """`length` bytes of a file from `start` (fewer if it is shorter). A plain iterator: Starlette
    runs it in its thread pool, so the event loop never waits on the disk."""
    with open(path, "rb") as f:
        f.seek(start)
        while length > 0:
            chunk = f.read(min(CHUNK, length))
            if not chunk:
                return
            length -= len(chunk)
            yield chunk
