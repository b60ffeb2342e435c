"""HDFS through WebHDFS: the `hdfs` package for browsing, httpx for bulk writes.

Datanode redirects that name a host the user cannot reach (a common failure with real
clusters) can be rewritten to the configured WebHDFS host.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
import requests
from hdfs import HdfsError, InsecureClient

from ..clusters import PaiError


class Hdfs:
    def __init__(self, url: str, user: str, rewrite_datanodes: bool = True):
        self.url = url.rstrip("/")
        self.user = user
        self.rewrite = rewrite_datanodes
        session = requests.Session()
        session.hooks["response"].append(self._fix_redirect)
        self.client = InsecureClient(self.url, user=user, session=session)
        self._local = threading.local()

    # -- redirects -------------------------------------------------------------------
    def reachable(self, location: str) -> str:
        """`location` with its host:port replaced by the configured WebHDFS one, when rewriting is on."""
        if not self.rewrite:
            return location
        ours, theirs = urlsplit(self.url), urlsplit(location)
        if theirs.netloc == ours.netloc:
            return location
        return urlunsplit((ours.scheme, ours.netloc, theirs.path, theirs.query, theirs.fragment))

    def _fix_redirect(self, response: requests.Response, *args, **kwargs) -> requests.Response:
        if response.is_redirect and "location" in response.headers:
            response.headers["location"] = self.reachable(response.headers["location"])
        return response

    # -- errors ----------------------------------------------------------------------
    @contextlib.contextmanager
    def errors(self, path: str) -> Iterator[None]:
        try:
            yield
        except HdfsError as exc:
            raise _to_pai(str(exc), path) from None
        except (requests.ConnectionError, httpx.ConnectError):
            raise PaiError("unreachable", f"cannot reach HDFS at {self.url}") from None
        except (requests.Timeout, httpx.TimeoutException):
            raise PaiError("unreachable", f"HDFS at {self.url} did not answer in time") from None

    # -- browsing --------------------------------------------------------------------
    def status(self, path: str) -> dict | None:
        with self.errors(path):
            return self.client.status(path, strict=False)

    def list(self, path: str) -> list[dict]:
        with self.errors(path):
            return [dict(status, name=name) for name, status in self.client.list(path, status=True)]

    def mkdir(self, path: str) -> None:
        with self.errors(path):
            self.client.makedirs(path)

    def delete(self, path: str, recursive: bool = False) -> bool:
        with self.errors(path):
            return self.client.delete(path, recursive=recursive)

    def rename(self, src: str, dst: str) -> None:
        with self.errors(src):
            self.client.rename(src, dst)

    def content(self, path: str) -> dict:
        with self.errors(path):
            return self.client.content(path)

    def read(self, path: str, offset: int = 0, length: int | None = None) -> bytes:
        with self.errors(path), self.client.read(path, offset=offset, length=length) as reader:
            return reader.read()

    def walk(self, path: str) -> Iterator[tuple[str, list[str], list[tuple[str, dict]]]]:
        with self.errors(path):
            for folder, dirs, files in self.client.walk(path, status=True):
                yield folder[0] if isinstance(folder, tuple) else folder, [d[0] for d in dirs], files

    # -- writing ---------------------------------------------------------------------
    def _http(self) -> httpx.Client:
        client = getattr(self._local, "http", None)
        if client is None:
            client = self._local.http = httpx.Client(timeout=httpx.Timeout(120.0, connect=10.0))
        return client

    def write(self, path: str, data: bytes, overwrite: bool = True) -> None:
        """One file in the two WebHDFS steps, on this thread's persistent connection."""
        http = self._http()
        url = f"{self.url}/webhdfs/v1{quote(path)}"
        params = {"op": "CREATE", "overwrite": "true" if overwrite else "false", "user.name": self.user}
        with self.errors(path):
            step1 = http.put(url, params=params, follow_redirects=False)
            if step1.status_code >= 400:
                raise HdfsError(_remote_message(step1))
            location = step1.headers.get("location") or (step1.json().get("Location") if step1.content else None)
            if not location:
                raise HdfsError(f"the namenode gave no datanode location for {path}")
            step2 = http.put(self.reachable(location), content=data,
                             headers={"Content-Type": "application/octet-stream"})
            if step2.status_code >= 400:
                raise HdfsError(_remote_message(step2))

    def download(self, path: str, local: Path, overwrite: bool = False) -> None:
        with self.errors(path):
            self.client.download(path, str(local), overwrite=overwrite, n_threads=4)


def _remote_message(response: httpx.Response) -> str:
    try:
        return response.json()["RemoteException"]["message"]
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"


def _to_pai(message: str, path: str) -> PaiError:
    lowered = message.lower()
    if "does not exist" in lowered or "not found" in lowered:
        return PaiError("not-found", f"{path}: no such file or directory on HDFS")
    if "permission denied" in lowered or "accesscontrol" in lowered or "not allowed" in lowered:
        return PaiError("permission", f"{path}: permission denied on HDFS ({message})")
    if "authentication" in lowered:
        return PaiError("auth", f"HDFS refused the credentials ({message})")
    return PaiError("server", f"{path}: {message}")
