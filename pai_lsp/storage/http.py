"""The one place a failed HTTP call becomes one of our errors (`errors.py`): every call to a cluster
and its storage goes through one client (`session.py`: the REST APIs, log reads, WebHDFS, PFS), and
every failure of it is said here, the same way:

- no answer (`transport_error`): refused, no route or an unknown host, no answer in time, a TLS
  handshake that failed, a connection that broke: `Unreachable`, naming which of these it was;
- an answer of 400 or more (`answer_error`): 401 `AuthFailed`, 403 `PermissionDenied`, 404
  `NotFound`, 5xx `ServerError`, any other 4xx `InvalidInput` (a caller may name its own class for a
  status: OpenPAI's 409 is `NameTaken`), with one line of the answer's body;
- a Hadoop `RemoteException` (WebHDFS) by the Java exception it names, whatever the status
  (`remote_error`), said about the path it concerns.

Every line is a catalogue message ("http.*" in core/messages.py), `what` too (`at_cluster`, …), so
the reader sees it in their language wherever it is shown.
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import json
import socket
import ssl
import sys
from collections.abc import Iterator, Mapping
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    import httpx

from ..core.messages import Message, message
from ..errors import AuthFailed, InvalidInput, NotFound, PaiError, PermissionDenied, ServerError, Unreachable
from .base import denied, missing

UNROUTABLE = {errno.EHOSTUNREACH, errno.ENETUNREACH}
Where = str | Message  # what was called, as the messages name it: a `Message` of "http.at-*"
STATUS: dict[int, type[PaiError]] = {401: AuthFailed, 403: PermissionDenied, 404: NotFound}

# Hadoop's exception names (`RemoteException.exception`), by what they mean for the user.
NOT_FOUND = {"FileNotFoundException"}
DENIED = {"AccessControlException", "AuthorizationException"}
REFUSED = {"SecurityException", "AuthenticationException"}  # the credentials, not the path
MISTAKEN = {"FileAlreadyExistsException", "ParentNotDirectoryException", "PathIsNotEmptyDirectoryException",
            "PathIsNotDirectoryException", "IllegalArgumentException", "HadoopIllegalArgumentException",
            "InvalidPathException", "UnsupportedOperationException"}


THE_CLUSTER = message("http.the-cluster")


def at_cluster(url: str) -> Message:
    return message("http.at-cluster", url=url)


def at_paddlecloud(url: str) -> Message:
    return message("http.at-paddlecloud", url=url)


def at_storage(storage: str, url: str) -> Message:
    return message("http.at-storage", storage=storage, url=url)


# -- what goes into a URL --------------------------------------------------------------------------
def url_path(template: str, **values: str) -> str:
    """`template` ("/api/v1/user/{user}/jobs/{job}") with each value put in as one path segment,
    escaped: a name can never reach another resource (`../../etc/passwd` stays one segment, as
    `..%2F..%2Fetc%2Fpasswd`). The one place a name or a path part goes into a URL; what no URL can
    carry (`.`, `..`, nothing, text that is not Unicode) is refused."""
    escaped = {}
    for key, value in values.items():
        if value in ("", ".", ".."):
            raise InvalidInput(message("http.name-other-resource", value=repr(value), what=key))
        try:
            escaped[key] = quote(value, safe="")
        except UnicodeEncodeError:
            raise InvalidInput(message("http.name-not-utf8", value=repr(value.encode("utf-8", "surrogateescape")),
                                       what=key)) from None
    return template.format(**escaped)


# -- no answer ------------------------------------------------------------------------------------
def _chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and what it was raised from: each client wraps the socket's own error in its own."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def transport_error(exc: BaseException, what: Where) -> Unreachable:
    """A call to `what` (`at_cluster("https://…")`) that got no usable answer, said by its cause."""
    chain = list(_chain(exc))
    tls = next((e for e in chain if isinstance(e, ssl.SSLError)), None)
    if tls is not None:
        why = getattr(tls, "verify_message", None) or tls.reason or str(tls)
        hint = message("http.tls-plain") if tls.reason in ("WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "UNKNOWN_PROTOCOL") else ""
        return Unreachable(message("http.tls", what=what, why=str(why).lower(), hint=hint))
    hx = _httpx()
    if hx is not None and isinstance(exc, hx.TimeoutException) or any(isinstance(e, TimeoutError) for e in chain):
        return Unreachable(message("http.timeout", what=what))
    if any(isinstance(e, socket.gaierror) for e in chain):
        return Unreachable(message("http.unknown-host", what=what))
    if hx is not None and isinstance(exc, hx.ConnectError) or any(
            isinstance(e, ConnectionRefusedError) or isinstance(e, OSError) and e.errno in UNROUTABLE for e in chain):
        return Unreachable(message("http.refused", what=what))
    return Unreachable(message("http.broke", what=what, why=_one_line(str(exc)) or type(exc).__name__))


def _httpx():
    """httpx, if this process has loaded it: a failure of httpx's can only come from a loaded httpx,
    and a process that only says failures (the CLI, hearing them from the daemon) need not load it."""
    return sys.modules.get("httpx")


@contextlib.contextmanager
def failures(what: Where) -> Iterator[None]:
    """Around a call of the client: its transport failures raised as `transport_error`."""
    try:
        yield
    except PaiError:
        raise
    except Exception as exc:
        hx = _httpx()
        if hx is not None and isinstance(exc, hx.InvalidURL):  # (no HTTPError: a profile's URI edited by hand, say with a port ':1')
            raise InvalidInput(message("http.invalid-url", what=what, reason=str(exc))) from None
        if isinstance(exc, (OSError, http.client.HTTPException)) or hx is not None and isinstance(exc, hx.HTTPError):
            raise transport_error(exc, what) from None
        raise


def request(http: httpx.Client, method: str, path: str, *, what: Where, **kwargs: Any) -> httpx.Response:
    """`http.request`, its transport failures said as `transport_error` about `what`."""
    with failures(what):
        return http.request(method, path, **kwargs)


# -- an answer that is a failure --------------------------------------------------------------------
def _one_line(text: str, limit: int = 200) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0][:limit] if lines else ""


def detail(status: int, body: bytes) -> tuple[str, str]:
    """(one line saying what went wrong, the server's error code or "") from a failed answer's body:
    its JSON `message` (OpenPAI), `detail` or `msg` (PaddlePaddle Cloud), `err` (PFS) or
    RemoteException message (WebHDFS), else its first line, else the status's reason."""
    try:
        value = json.loads(body) if body else None
    except (ValueError, UnicodeDecodeError):
        value = None
    if isinstance(value, dict):
        remote = value.get("RemoteException")
        if isinstance(remote, dict):
            value = remote
        code = value.get("code")
        code = code if isinstance(code, str) else ""
        message = next((value[k] for k in ("message", "detail", "msg", "err") if value.get(k)), None)
        return _one_line(str(message or code or value)), code
    if value is not None:
        return _one_line(str(value)), ""
    text = _one_line(body.decode("utf-8", "replace"))
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    return text or reason or f"HTTP {status}", ""


def answer_error(status: int, body: bytes, what: Where, statuses: Mapping[int, type[PaiError]] | None = None) -> PaiError:
    """What an answer of `status` >= 400 from `what` ("the cluster") means: its class by status,
    the message `<what> answered <status> [<code>]: <detail>`."""
    said, code = detail(status, body)
    cls = (statuses or {}).get(status) or STATUS.get(status) or (ServerError if status >= 500 else InvalidInput)
    if cls is AuthFailed:
        return AuthFailed(message("http.credentials", what=what, why=f"{status}: {said}"))
    return cls(message("http.answered", what=what, status=status, error=f" {code}" if code else "", detail=said))


def remote_exception(body: bytes) -> tuple[str | None, str] | None:
    """(Java exception's simple name, message) of a WebHDFS error answer; None when it is none."""
    try:
        remote = json.loads(body)["RemoteException"]
        return remote.get("exception"), str(remote["message"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def remote_error(exception: str | None, said: str, path: str, storage: str = "HDFS") -> PaiError:
    """A Hadoop RemoteException about `path` on `storage`, by the exception it names, not its wording."""
    said = _one_line(said, 500)
    if exception in NOT_FOUND:
        return missing(path, storage)
    if exception in DENIED:
        return denied(path, storage, said)
    if exception in REFUSED:
        return AuthFailed(message("http.credentials", what=storage, why=said))
    return (InvalidInput if exception in MISTAKEN else ServerError)(message("error.at-file", file=path, reason=said))


def storage_error(status: int, body: bytes, path: str, what: Where, storage: str = "HDFS") -> PaiError:
    """A failed WebHDFS answer about `path`: by its RemoteException when it has one (a namenode's,
    HttpFS's), else by its status (a proxy's or a gateway's page)."""
    remote = remote_exception(body)
    if remote is not None and status != 401:
        return remote_error(*remote, path, storage)
    return answer_error(status, body, what)
