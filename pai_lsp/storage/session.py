"""The one HTTP client every call to a cluster and its storage goes through, made only here (`client`),
and the one way a refused credential is renewed (`authorized`).

A cluster session holds one pooled `httpx.Client` for its REST calls, its log reads and its storage's
browsing and bulk writes alike (connections kept alive per host), so each of them honours the same:

- timeouts: `CONNECT` s to connect, then the caller's (or `READ` s) for each answer or piece of one;
- proxies from the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`), as curl reads them;
- the certificates a server is checked against: `SSL_CERT_FILE` / `SSL_CERT_DIR` (OpenSSL's names),
  else `REQUESTS_CA_BUNDLE` / `CURL_CA_BUNDLE` (what a machine set up for requests or curl has),
  else certifi's bundle;
- one User-Agent.

Every failure of it is said by `http.py`.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import ssl

    import httpx

CONNECT = 10.0  # seconds to connect
READ = 30.0  # seconds to wait for an answer, or for each piece of one
POOL = 64  # connections open at once per client, over all its hosts (uploads use 8 at a time per storage)
USER_AGENT = "pai-lsp"
CA_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")

T = TypeVar("T")


def timeout(read: float = READ, connect: float = CONNECT) -> httpx.Timeout:
    import httpx

    return httpx.Timeout(read, connect=connect)


def client(base_url: str = "", read: float = READ, transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """A pooled client for one cluster session (REST, logs and storage share it). `transport`: where
    requests go instead of the network (tests' `httpx.MockTransport`; then no proxy applies)."""
    import httpx

    from .. import __version__

    return httpx.Client(base_url=base_url, timeout=timeout(read), transport=transport, verify=tls_context(),
                        trust_env=True, headers={"User-Agent": f"{USER_AGENT}/{__version__}"},
                        limits=httpx.Limits(max_connections=POOL, max_keepalive_connections=POOL, keepalive_expiry=30.0))


def tls_context() -> ssl.SSLContext:
    """What servers are checked against, from the environment (see above): built once per setting, as
    loading a bundle costs tens of milliseconds and one context serves every connection."""
    return _tls_context(*(os.environ.get(name) or None for name in CA_VARIABLES))


@functools.lru_cache(maxsize=4)
def _tls_context(cert_file: str | None, cert_dir: str | None, requests_bundle: str | None, curl_bundle: str | None) -> ssl.SSLContext:
    import ssl

    bundle = cert_file or (None if cert_dir else requests_bundle or curl_bundle)
    if bundle is not None and os.path.isdir(bundle):
        return ssl.create_default_context(capath=bundle)
    if bundle is not None or cert_dir is not None:
        return ssl.create_default_context(cafile=bundle, capath=cert_dir)
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def authorized(send: Callable[[T | None], httpx.Response], fresher: Callable[[T | None], T | None],
               refused: Callable[[httpx.Response, T | None], bool], first: T | None, tries: int = 1) -> httpx.Response:
    """`send(first)`; while its answer is `refused` (a credential missing, expired or changed), sent
    again with `fresher(the one refused)`, at most `tries` more times. The one loop every credential
    goes through: a REST token in a header, WebHDFS's `delegation=` in a URL."""
    value = first
    response = send(value)
    for _ in range(tries):
        if not refused(response, value):
            break
        response.close()
        value = fresher(value)
        response = send(value)
    return response


class Renewed:
    """A credential shared by the threads of one session: renewed once when refused, however many
    calls were refused with it at once (a thread whose refused value is no longer the current one
    takes the current one, renewed by another)."""

    def __init__(self, get: Callable[[bool], str]):
        """`get(renew)`: the credential; a new one (logged in again) when `renew`."""
        self._get = get
        self._lock = threading.Lock()

    def current(self, _: object = None) -> str:
        return self._get(False)

    def fresher(self, refused: str | None) -> str:
        """After a call sent with `refused` (None: sent without one) was refused: what to send now."""
        with self._lock:
            now = self._get(False)
            return now if now != refused else self._get(True)
