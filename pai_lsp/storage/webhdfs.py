"""HDFS through WebHDFS, as a `Storage`: the `hdfs` package for browsing, the standard library's HTTP
client for bulk writes (and the renames that commit them).

Datanode redirects that name a host the user cannot reach (a common failure with real
clusters) can be rewritten to the configured WebHDFS host. A cluster that accepts no call without
credentials (the local cluster with `--private` or off loopback) gets the REST token as
`delegation=` once it has asked for it (`Delegation`). Every failure, whichever client met it, is
said by `http.py`.
"""

from __future__ import annotations

import contextlib
import json
import posixpath
import threading
from collections.abc import Callable, Iterator, Mapping
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

import requests
import requests.auth
from hdfs import HdfsError, InsecureClient

from ..core.messages import message
from ..errors import InvalidInput, NotFound, ServerError
from .base import CHUNK, Body, Sent, Stat, Storage
from .http import REFUSED, at_storage, failures, remote_error, remote_exception, storage_error
from .keepalive import KeepAlive

TIMEOUT = (10.0, 120.0)  # seconds to connect, and to wait for each answer or piece of one

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
        if not asked and not (status == 403 and sent and (remote_exception(body) or (None, ""))[0] in REFUSED):
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


class Hdfs(Storage):
    name = "HDFS"

    def __init__(self, url: str, user: str, rewrite_datanodes: bool = True, token: Token | None = None,
                 timeout: tuple[float, float] = TIMEOUT):
        """`token`: the cluster's REST token, for a WebHDFS that requires it as `delegation=`."""
        self.url = url.rstrip("/")
        self.what = at_storage("HDFS", self.url)
        self.user = user
        self.home = f"/user/{user}"  # where relative paths start, as `hdfs dfs` has it
        self.rewrite = rewrite_datanodes
        self.delegation = Delegation(token) if token is not None else None
        self.session = requests.Session()
        self.session.auth = self.delegation
        self.session.hooks["response"].append(self._answered)
        self.client = InsecureClient(self.url, user=user, session=self.session, timeout=timeout)
        self.http = KeepAlive(timeout[1])  # bulk writes: see keepalive.py

    def close(self) -> None:
        self.session.close()
        self.http.close()

    # -- redirects and failures ------------------------------------------------------------------
    def reachable(self, location: str) -> str:
        """`location` with its host:port replaced by the configured WebHDFS one, when rewriting is on."""
        if not self.rewrite:
            return location
        ours, theirs = urlsplit(self.url), urlsplit(location)
        if theirs.netloc == ours.netloc:
            return location
        return urlunsplit((ours.scheme, ours.netloc, theirs.path, theirs.query, theirs.fragment))

    def _answered(self, response: requests.Response, *args, **kwargs) -> requests.Response:
        """Every answer the `hdfs` package gets (after `Delegation` had its say): a failure raised as
        ours, with its status (the package keeps only the message); a redirect made reachable."""
        if response.status_code >= 400:
            path = unquote(urlsplit(response.url or "").path).removeprefix("/webhdfs/v1") or "/"
            raise storage_error(response.status_code, response.content, path, self.what)
        if response.is_redirect and "location" in response.headers:
            response.headers["location"] = self.reachable(response.headers["location"])
        return response

    @contextlib.contextmanager
    def errors(self, path: str) -> Iterator[None]:
        with failures(self.what):
            try:
                yield
            except HdfsError as exc:  # the package's own checks (answers are checked by `_answered`)
                raise remote_error(exc.exception, exc.message, path) from None

    def _call(self, method: str, path: str, **params: str) -> tuple[int, dict[str, str], bytes]:
        """One WebHDFS operation on this thread's kept-alive connection, with the token once the
        cluster asked for it; a failed answer raised as ours."""
        url = f"{self.url}/webhdfs/v1{quote(path)}?{urlencode({**params, 'user.name': self.user})}"
        with failures(self.what):
            status, headers, body = self.http.request(method, sent := self.delegation.on(url) if self.delegation else url)
            for _ in range(Delegation.TRIES if self.delegation else 0):
                if not self.delegation.retry(sent, status, headers, body):
                    break
                status, headers, body = self.http.request(method, sent := self.delegation.on(url))
        if status >= 400:
            raise storage_error(status, body, path, self.what)
        return status, headers, body

    # -- browsing --------------------------------------------------------------------------------
    def status(self, path: str) -> Stat | None:
        try:
            with self.errors(path):
                return _stat(posixpath.basename(path), self.client.status(path))
        except NotFound:
            return None

    def list(self, path: str) -> list[Stat]:
        with self.errors(path):
            return [_stat(name, status) for name, status in self.client.list(path, status=True)]

    def mkdir(self, path: str) -> None:
        with self.errors(path):
            self.client.makedirs(path)

    def delete(self, path: str, recursive: bool = False) -> bool:
        with self.errors(path):
            return self.client.delete(path, recursive=recursive)

    def rename(self, src: str, dst: str) -> None:
        with self.errors(src):
            try:
                self.client.rename(src, dst)
            except HdfsError as exc:
                if exc.exception is None:  # the namenode's `false`: as `hdfs dfs -mv` says it
                    raise InvalidInput(message("hdfs.mv-refused", src=src, dst=dst)) from None
                raise

    def content(self, path: str) -> dict:
        """The ContentSummary of a folder (its files' count and bytes, in one request)."""
        with self.errors(path):
            return self.client.content(path)

    # -- reading ---------------------------------------------------------------------------------
    def stream(self, path: str, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
        with self.errors(path), self.client.read(path, offset=offset, length=length, chunk_size=CHUNK) as chunks:
            yield from chunks

    # -- writing ---------------------------------------------------------------------------------
    def write(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        """One file in the two WebHDFS steps, on this thread's persistent connection. A `Body` is
        streamed from its file in bounded chunks."""
        _, headers, body = self._call("PUT", path, op="CREATE", overwrite="true")
        try:
            location = headers.get("location") or (json.loads(body).get("Location") if body else None)
        except (ValueError, AttributeError):
            location = None
        if not location:
            raise ServerError(message("hdfs.no-datanode", path=path))
        if isinstance(data, Body):
            data.on_sent = sent
        with failures(self.what):
            status, _, body = self.http.request("PUT", self.reachable(location), data, {"Content-Type": "application/octet-stream"})
        if status >= 400:
            raise storage_error(status, body, path, self.what)
        if sent is not None and isinstance(data, bytes):
            sent(len(data))

    def commit(self, temp: str, path: str) -> None:
        """In one step on a namenode (a rename that replaces the target: Hadoop's rename2). HttpFS
        ignores the option and renames as before, refusing when the target exists: then by `replace`."""
        _, _, answer = self._call("PUT", temp, op="RENAME", destination=path, renameoptions="OVERWRITE")
        try:
            renamed = not answer.strip() or json.loads(answer).get("boolean") is True
        except (ValueError, AttributeError):
            renamed = False
        if not renamed:
            self.replace(temp, path)


def _stat(name: str, status: Mapping) -> Stat:
    return Stat(name, status["type"] == "DIRECTORY", status["length"], status["modificationTime"], status["permission"],
                status["owner"], status["group"])
