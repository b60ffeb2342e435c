"""HDFS through WebHDFS: the `hdfs` package for browsing, the standard library's HTTP client for bulk writes.

Datanode redirects that name a host the user cannot reach (a common failure with real
clusters) can be rewritten to the configured WebHDFS host. A cluster that accepts no call without
credentials (the local cluster with `--private` or off loopback) gets the REST token as
`delegation=` once it has asked for it (`Delegation`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import requests
import requests.auth
from hdfs import HdfsError, InsecureClient

from ..errors import AuthFailed, InvalidInput, NotFound, PaiError, PermissionDenied, ServerError, Unreachable
from .keepalive import KeepAlive

CHUNK = 1 << 20  # bytes per read and send of a big file: memory stays bounded whatever the size


Token = Callable[[bool], str]  # the cluster's REST token; a fresh one (logged in again) when given True


class Delegation(requests.auth.AuthBase):
    """The cluster's REST token as WebHDFS's `delegation=`, sent only once a call was refused for
    want of credentials (a 401 with no `WWW-Authenticate` challenge: one names a scheme such as
    Kerberos's Negotiate that this token is not for). A Hadoop namenode with security off ignores
    the parameter, but HttpFS and a Kerberized namenode refuse a token they did not issue, and a
    bearer credential belongs in no URL that does not need it. A token refused once sent (expired,
    or the cluster's secret changed) is renewed: a call is sent again at most `TRIES` times (with
    the token, then with a renewed one, as when the token kept for the profile had expired)."""

    TRIES = 2

    def __init__(self, token: Token):
        self._token = token
        self._lock = threading.Lock()
        self.value: str | None = None  # sent with every call once the cluster asked for it

    def on(self, url: str) -> str:
        """`url` with the token in it (in place of any other), once the cluster asked for one."""
        if not self.value:
            return url
        parts = urlsplit(url)
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "delegation"]
        return urlunsplit(parts._replace(query=urlencode([*query, ("delegation", self.value)])))

    def retry(self, url: str, status: int, headers: Mapping[str, str], body: bytes) -> bool:
        """After an answer to a call to `url`: whether to send it again (`on(url)`), with the token."""
        sent = dict(parse_qsl(urlsplit(url).query)).get("delegation")
        asked = status == 401 and not headers.get("www-authenticate")
        if not asked and not (status == 403 and sent and _exception(body) in REFUSED):
            return False
        with self._lock:
            if self.value is None or self.value == sent:  # not already renewed by another thread's call
                self.value = self._token(sent is not None)
        return True

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.url = self.on(request.url or "")
        request.register_hook("response", self._again)
        return request

    def _again(self, response: requests.Response, **kwargs) -> requests.Response:
        """The `hdfs` package's call sent again with the token (as requests' digest auth answers a
        401). Only a refusal's body is read: a streamed file is left to its reader."""
        for _ in range(self.TRIES):
            if response.status_code not in (401, 403) or not self.retry(
                    response.request.url or "", response.status_code, response.headers, response.content):
                break
            response.close()
            again = response.request.copy()
            again.url = self.on(again.url or "")
            answer = response.connection.send(again, **kwargs)
            answer.history.append(response)
            answer.request = again
            response = answer
        return response


class Hdfs:
    def __init__(self, url: str, user: str, rewrite_datanodes: bool = True, token: Token | None = None):
        """`token`: the cluster's REST token, for a WebHDFS that requires it as `delegation=`."""
        self.url = url.rstrip("/")
        self.user = user
        self.home = f"/user/{user}"  # where relative paths start, as `hdfs dfs` has it
        self.rewrite = rewrite_datanodes
        self.delegation = Delegation(token) if token is not None else None
        session = requests.Session()
        session.auth = self.delegation
        session.hooks["response"].append(self._fix_redirect)
        self.client = InsecureClient(self.url, user=user, session=session)
        self.http = KeepAlive()  # bulk writes: see keepalive.py

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
        if response.status_code == 401:  # the `hdfs` package tells this apart only by its message
            raise AuthFailed(f"HDFS at {self.url} refused the credentials")
        if response.is_redirect and "location" in response.headers:
            response.headers["location"] = self.reachable(response.headers["location"])
        return response

    # -- errors ----------------------------------------------------------------------
    @contextlib.contextmanager
    def errors(self, path: str) -> Iterator[None]:
        try:
            yield
        except HdfsError as exc:
            raise classify(exc.exception, exc.message, path) from None
        except requests.ConnectionError:
            raise Unreachable(f"cannot reach HDFS at {self.url}") from None
        except requests.Timeout:
            raise Unreachable(f"HDFS at {self.url} did not answer in time") from None

    # -- browsing --------------------------------------------------------------------
    def status(self, path: str) -> dict | None:
        """The FileStatus, or None when nothing is there (any other failure is an error)."""
        try:
            with self.errors(path):
                return self.client.status(path)
        except NotFound:
            return None

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
    def read_into(self, path: str, out: BinaryIO) -> int:
        """Stream a file into `out` in bounded chunks (never whole in memory); the bytes written."""
        done = 0
        with self.errors(path), self.client.read(path, chunk_size=CHUNK) as chunks:
            for chunk in chunks:
                out.write(chunk)
                done += len(chunk)
        return done


    def write(self, path: str, data: bytes | Body, overwrite: bool = True) -> None:
        """One file in the two WebHDFS steps, on this thread's persistent connection. A `Body` is
        streamed from its file in bounded chunks."""
        query = urlencode({"op": "CREATE", "overwrite": "true" if overwrite else "false", "user.name": self.user})
        url = f"{self.url}/webhdfs/v1{quote(path)}?{query}"
        try:
            status, headers, body = self.http.request("PUT", sent := self.delegation.on(url) if self.delegation else url)
            for _ in range(Delegation.TRIES if self.delegation else 0):
                if not self.delegation.retry(sent, status, headers, body):
                    break
                status, headers, body = self.http.request("PUT", sent := self.delegation.on(url))
            if status >= 400:
                raise _remote_error(status, body, path)
            location = headers.get("location")
            if not location and body:
                location = json.loads(body).get("Location")
            if not location:
                raise ServerError(f"{path}: the namenode gave no datanode location")
            status, _, body = self.http.request("PUT", self.reachable(location), data, {"Content-Type": "application/octet-stream"})
            if status >= 400:
                raise _remote_error(status, body, path)
        except OSError as exc:  # refused, unresolvable host, reset
            raise Unreachable(f"cannot reach HDFS at {self.url} ({exc})") from None

    def download(self, path: str, local: Path, overwrite: bool = False) -> None:
        with self.errors(path):
            self.client.download(path, str(local), overwrite=overwrite, n_threads=4)


class Body:
    """A local file sent as a request body in `CHUNK`-sized reads and hashed on the way, so a file is
    read once to be both sent and fingerprinted. The hashing runs in a thread of its own beside
    the sending (both release the GIL), so it costs no time on a big file. Sent again from its start
    when a kept-alive connection has to be reopened; use it as a context manager."""

    AHEAD = 4  # pieces that may wait for the hasher

    def __init__(self, file: BinaryIO, size: int, digest: str | None = "sha256"):
        """`digest` None: sent without hashing."""
        self.file, self.size, self.digest = file, size, digest
        self.hash = hashlib.new(digest) if digest else None
        self.sent = 0
        self._hasher = ThreadPoolExecutor(1, thread_name_prefix="pai-hash")
        self._pending: deque[Future] = deque()

    def __enter__(self) -> Body:
        return self

    def __exit__(self, *exc) -> None:
        self._hasher.shutdown(wait=True, cancel_futures=True)

    def _settle(self, keep: int = 0) -> None:
        while len(self._pending) > keep:
            self._pending.popleft().result()

    def rewind(self) -> None:
        self._settle()
        self.file.seek(0)
        self.hash, self.sent = hashlib.new(self.digest) if self.digest else None, 0

    def read(self, n: int = -1) -> bytes:
        left = self.size - self.sent
        chunk = self.file.read(left if n < 0 else min(n, left)) if left > 0 else b""
        if left > 0 and not chunk:
            raise InvalidInput(f"{getattr(self.file, 'name', 'a file')} got shorter while it was uploaded: upload again")
        if chunk and self.hash is not None:
            self._pending.append(self._hasher.submit(self.hash.update, chunk))
            self._settle(self.AHEAD)
        self.sent += len(chunk)
        return chunk

    def hexdigest(self) -> str:
        """The hash of what was sent (once the hasher has caught up)."""
        self._settle()
        return self.hash.hexdigest() if self.hash is not None else ""

    def __len__(self) -> int:
        return self.size


def _exception(body: bytes) -> str | None:
    """The Java exception's simple name in a WebHDFS error answer."""
    try:
        return json.loads(body)["RemoteException"]["exception"]
    except (ValueError, KeyError, TypeError):
        return None


def _remote_error(status: int, body: bytes, path: str) -> PaiError:
    """A WebHDFS error answer (a `RemoteException`) as ours."""
    if status == 401:
        return AuthFailed(f"HDFS refused the credentials (HTTP {status})")
    try:
        remote = json.loads(body)["RemoteException"]
        return classify(remote.get("exception"), remote["message"], path)
    except (ValueError, KeyError, TypeError):
        return classify(None, f"HTTP {status}", path)


# Hadoop's exception names (RemoteException.exception; `HdfsError.exception` in the `hdfs` package).
NOT_FOUND = {"FileNotFoundException"}
DENIED = {"AccessControlException", "AuthorizationException"}
REFUSED = {"SecurityException", "AuthenticationException"}


def classify(exception: str | None, message: str, path: str) -> PaiError:
    if exception in NOT_FOUND:
        return NotFound(f"{path}: no such file or directory on HDFS")
    if exception in DENIED:
        return PermissionDenied(f"{path}: permission denied on HDFS ({message})")
    if exception in REFUSED:
        return AuthFailed(f"HDFS refused the credentials ({message})")
    return ServerError(f"{path}: {message}")
