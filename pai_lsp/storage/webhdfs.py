"""HDFS through WebHDFS, as a `Storage`: its small REST API (`/webhdfs/v1<path>?op=…`, see
shared/specs/webhdfs.md) spoken directly over the cluster session's HTTP client (storage/session.py),
for browsing, reading and bulk writes alike.

Datanode redirects that name a host the user cannot reach (a common failure with real clusters) can
be rewritten to the configured WebHDFS host. A cluster that accepts no call without credentials (the
local cluster with `--private` or off loopback) gets the REST token as `delegation=` once it has asked
for it (`Delegation`). Every failure is said by `http.py`.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from ..core.messages import message
from ..errors import InvalidInput, NotFound, ServerError
from . import session
from .base import CHUNK, Body, Sent, Stat, Storage
from .http import REFUSED, at_storage, failures, remote_exception, storage_error

if TYPE_CHECKING:
    import httpx

TIMEOUT = (10.0, 120.0)  # seconds to connect, and to wait for each answer or piece of one
# A file bigger than this is sent chunked, in pieces of this size, as it is read (`Hdfs.write`).
PIECE = 256 * 1024
OCTETS = {"Content-Type": "application/octet-stream"}  # HttpFS takes a body (or its first step) only so

Token = Callable[[bool], str]  # the cluster's REST token; a fresh one (logged in again) when given True


class Delegation:
    """The cluster's REST token as WebHDFS's `delegation=`, sent only once a call was refused for
    want of credentials (a 401 with no `WWW-Authenticate` challenge: one names a scheme such as
    Kerberos's Negotiate that this token is not for). A Hadoop namenode with security off ignores
    the parameter, but HttpFS and a Kerberized namenode refuse a token they did not issue, and a
    bearer credential belongs in no URL that does not need it. A token refused once sent (expired,
    or the cluster's secret changed) is renewed: a call is sent again at most `TRIES` times (with
    the token, then with a renewed one, as when the token kept for the profile had expired)."""

    TRIES = 2

    def __init__(self, token: Token):
        self._token = session.Renewed(token)
        self.asked = False  # the cluster asked for it: sent with every call from then on

    def first(self) -> str | None:
        return self._token.current() if self.asked else None

    def fresher(self, sent: str | None) -> str:
        self.asked = True
        return self._token.fresher(sent)

    @staticmethod
    def refused(response: httpx.Response, sent: str | None) -> bool:
        """Whether the answer to a call sent with `sent` (None: without) asks for a token, or a fresh one."""
        if response.status_code == 401:
            return not response.headers.get("www-authenticate")
        return response.status_code == 403 and sent is not None and (remote_exception(response.read()) or (None, ""))[0] in REFUSED


class Hdfs(Storage):
    name = "HDFS"

    def __init__(self, url: str, user: str, rewrite_datanodes: bool = True, token: Token | None = None,
                 timeout: tuple[float, float] = TIMEOUT, http: httpx.Client | None = None):
        """`token`: the cluster's REST token, for a WebHDFS that requires it as `delegation=`; `http`:
        the cluster session's client (else one of its own, with `timeout`)."""
        self.url = url.rstrip("/")
        self.what = at_storage("HDFS", self.url)
        self.user = user
        self.home = f"/user/{user}"  # where relative paths start, as `hdfs dfs` has it
        self.rewrite = rewrite_datanodes
        self.delegation = Delegation(token) if token is not None else None
        self._own = http is None
        connect, read = timeout
        self.http = session.client(read=read) if http is None else http
        if http is None:
            self.http.timeout = session.timeout(read, connect)
        self._per_call: dict[str, Any] = {} if http is None else {"timeout": session.timeout(read, connect)}

    def close(self) -> None:
        if self._own:
            self.http.close()

    # -- calls -------------------------------------------------------------------------------------
    def reachable(self, location: str) -> str:
        """`location` with its host:port replaced by the configured WebHDFS one, when rewriting is on."""
        if not self.rewrite:
            return location
        ours, theirs = urlsplit(self.url), urlsplit(location)
        if theirs.netloc == ours.netloc:
            return location
        return urlunsplit((ours.scheme, ours.netloc, theirs.path, theirs.query, theirs.fragment))

    def _call(self, method: str, path: str, op: str, stream: bool = False, headers: Mapping[str, str] | None = None,
              **params: str) -> httpx.Response:
        """One WebHDFS operation on `path`, with the token once the cluster asked for it (a refused
        one renewed); a failed answer raised as ours. `stream`: the body is left to be read."""
        url = f"{self.url}/webhdfs/v1{quote(path)}?"
        query = {"op": op, **params, "user.name": self.user}

        def send(token: str | None) -> httpx.Response:
            sent = url + urlencode({**query, "delegation": token} if token else query)
            request = self.http.build_request(method, sent, headers=headers, **self._per_call)
            return self.http.send(request, stream=stream)

        with failures(self.what):
            if self.delegation is None:
                response = send(None)
            else:
                response = session.authorized(send, self.delegation.fresher, self.delegation.refused, self.delegation.first(),
                                              Delegation.TRIES)
            if response.status_code >= 400:
                body = response.read()
                response.close()
                raise storage_error(response.status_code, body, path, self.what)
        return response

    def _json(self, method: str, path: str, op: str, **params: str) -> Any:
        answer = self._call(method, path, op, **params).content
        try:
            return json.loads(answer) if answer.strip() else None
        except ValueError:
            raise ServerError(message("http.not-json", what=self.what, to=f" ({op} {path})")) from None

    def _location(self, response: httpx.Response, path: str) -> str:
        """Where the namenode sends the second step (a 307's `Location`, or `noredirect`'s JSON)."""
        location = response.headers.get("location")
        if not location and response.content:
            try:
                location = json.loads(response.content).get("Location")
            except (ValueError, AttributeError):
                location = None
        if not location:
            raise ServerError(message("hdfs.no-datanode", path=path))
        return self.reachable(location)

    # -- browsing --------------------------------------------------------------------------------
    def status(self, path: str) -> Stat | None:
        try:
            return _stat(posixpath.basename(path), _field(self._json("GET", path, "GETFILESTATUS"), "FileStatus"))
        except NotFound:
            return None

    def list(self, path: str) -> list[Stat]:
        statuses = _field(_field(self._json("GET", path, "LISTSTATUS"), "FileStatuses"), "FileStatus")
        if len(statuses) == 1 and (not statuses[0].get("pathSuffix") or not getattr(self.status(path), "is_dir", True)):
            raise InvalidInput(message("hdfs.not-a-folder", path=path))  # a file lists itself (HttpFS: with its name)
        return [_stat(status["pathSuffix"], status) for status in statuses]

    def mkdir(self, path: str) -> None:
        self._call("PUT", path, "MKDIRS")

    def delete(self, path: str, recursive: bool = False) -> bool:
        return _field(self._json("DELETE", path, "DELETE", recursive=str(recursive).lower()), "boolean") is True

    def rename(self, src: str, dst: str) -> None:
        if _field(self._json("PUT", src, "RENAME", destination=posixpath.normpath(dst)), "boolean") is not True:
            raise InvalidInput(message("hdfs.mv-refused", src=src, dst=dst))  # the namenode's `false`, as `hdfs dfs -mv` says it

    def content(self, path: str) -> dict:
        """The ContentSummary of a folder (its files' count and bytes, in one request)."""
        return _field(self._json("GET", path, "GETCONTENTSUMMARY"), "ContentSummary")

    # -- reading ---------------------------------------------------------------------------------
    def stream(self, path: str, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
        """The namenode's redirect followed to the (reachable) datanode; HttpFS answers at once."""
        params = {"offset": str(offset), **({"length": str(length)} if length is not None else {})}
        response = self._call("GET", path, "OPEN", stream=True, **params)
        try:
            if response.is_redirect:
                response.close()
                with failures(self.what):
                    response = self.http.send(self.http.build_request("GET", self._location(response, path), **self._per_call),
                                              stream=True)
                    if response.status_code >= 400:
                        raise storage_error(response.status_code, response.read(), path, self.what)
            with failures(self.what):
                yield from response.iter_bytes(CHUNK)
        finally:
            response.close()

    # -- writing ---------------------------------------------------------------------------------
    def write(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        """One file in the two WebHDFS steps, on a kept-alive connection of the session's pool.

        A file up to `PIECE` goes as one body of a stated length. A bigger one is streamed from its
        file as it is read, chunked (as hdfscli sends it), one chunk per `PIECE`: a chunk near the size
        of a server's socket reads (asyncio's: 256 KiB) lets a parser hand the body on with less copying
        and less fresh memory than one long body of a stated length, or than smaller chunks (what
        the local cluster spends receiving each: bench/uploads.py, docs/benchmarks.md)."""
        first = self._call("PUT", path, "CREATE", headers=OCTETS, overwrite="true")
        location = self._location(first, path)
        headers = dict(OCTETS)
        if isinstance(data, Body):
            data.rewind()
            data.on_sent = sent
            content: bytes | Iterator[bytes] = iter(lambda: data.read(PIECE), b"") if data.size > PIECE else data.read()
        else:
            content = data
        with failures(self.what):
            response = self.http.request("PUT", location, content=content, headers=headers, **self._per_call)
        if response.status_code >= 400:
            raise storage_error(response.status_code, response.content, path, self.what)
        if sent is not None and isinstance(data, bytes):
            sent(len(data))

    def commit(self, temp: str, path: str) -> None:
        """In one step on a namenode (a rename that replaces the target: Hadoop's rename2). HttpFS
        ignores the option and renames as before, refusing when the target exists: then by `replace`."""
        answer = self._call("PUT", temp, "RENAME", destination=path, renameoptions="OVERWRITE").content
        try:
            renamed = not answer.strip() or json.loads(answer).get("boolean") is True
        except (ValueError, AttributeError):
            renamed = False
        if not renamed:
            self.replace(temp, path)


def _field(answer: Any, name: str) -> Any:
    """`answer[name]`, or a ServerError saying the answer was not WebHDFS's."""
    try:
        return answer[name]
    except (KeyError, TypeError, IndexError):
        raise ServerError(message("hdfs.bad-answer", name=name)) from None


def _stat(name: str, status: Mapping) -> Stat:
    return Stat(name, status["type"] == "DIRECTORY", status["length"], status["modificationTime"], status["permission"],
                status["owner"], status["group"])
