"""HTTP/1.1 with the standard library's client on one kept-alive connection per thread and host.

For the calls made by the thousand (one file of an upload, one read of a followed log): per request
it costs much less CPU than httpx (bench/jobs.py, bench/daemon.py; docs/benchmarks.md). A connection the server
closed while idle is opened again once; one that failed mid-request is never reused.
"""

from __future__ import annotations

import http.client
import threading
from typing import Protocol
from urllib.parse import urlsplit

BLOCK = 1 << 20  # bytes per read of a streamed request body


class Rewindable(Protocol):
    """A request body that can be sent again from its start (`read` as a file's)."""

    size: int

    def rewind(self) -> None: ...

    def read(self, n: int = -1) -> bytes: ...


class KeepAlive:
    def __init__(self, timeout: float = 120.0):
        self.timeout = timeout
        self._local = threading.local()

    def _connection(self, scheme: str, netloc: str) -> http.client.HTTPConnection:
        pool = getattr(self._local, "pool", None)
        if pool is None:
            pool = self._local.pool = {}
        conn = pool.get((scheme, netloc))
        if conn is None:
            cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
            conn = pool[(scheme, netloc)] = cls(netloc, timeout=self.timeout, blocksize=BLOCK)
        return conn

    def close(self) -> None:
        """Close this thread's connections (another thread's close when that thread ends)."""
        for conn in getattr(self._local, "pool", {}).values():
            conn.close()
        self._local.pool = {}

    def _drop(self, scheme: str, netloc: str) -> None:
        conn = self._local.pool.pop((scheme, netloc), None)
        if conn is not None:
            conn.close()

    def request(self, method: str, url: str, body: bytes | Rewindable | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        """(status, headers with lower-case names, body). OSError when the host cannot be reached."""
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        headers = dict(headers or {})
        for attempt in (1, 2):
            conn = self._connection(parts.scheme, parts.netloc)
            if body is not None and not isinstance(body, bytes):
                body.rewind()
                headers["Content-Length"] = str(body.size)
                if hasattr(body, "connection"):
                    body.connection = conn  # so that a cancelled transfer can break it (`Body.abort`)
            try:
                conn.request(method, target, body=body if body is not None else b"" if method in ("PUT", "POST") else None,
                             headers=headers)
                response = conn.getresponse()
                return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self._drop(parts.scheme, parts.netloc)
                if attempt == 2:
                    raise
            except BaseException:  # the connection is mid-request: never reuse it
                self._drop(parts.scheme, parts.netloc)
                raise
        raise AssertionError("unreachable")
