"""One way to say an HTTP failure: every kind of call we make to clusters (the REST APIs, log reads,
PFS, WebHDFS browsing and bulk writes, all over the one client of storage/session.py) meets the same
failures from stand-in servers on 127.0.0.1 and raises the same error class, in one line."""

from __future__ import annotations

import socket
import threading

import httpx
import pytest

from pai_lsp.clusters.openpai import OpenPai
from pai_lsp.clusters.paddlecloud import PaddleCloud
from pai_lsp.clusters.profiles import Profile
from pai_lsp.errors import NotFound, PaiError, PermissionDenied, ServerError, Unreachable
from pai_lsp.storage.pfs import Pfs
from pai_lsp.storage.webhdfs import Hdfs

from .helpers.standin import StandIn

QUICK = 0.5  # seconds a server is waited for
SILENT = 0.1  # ... one that never answers: however long, the same failure


def openpai(url: str, wait: float) -> OpenPai:
    backend = OpenPai(Profile("c", url, url, "alice", "openpai", 1), lambda: "pw", token="t")
    backend.http.timeout = httpx.Timeout(wait)
    return backend


def paddlecloud(url: str, wait: float) -> PaddleCloud:
    backend = PaddleCloud(Profile("c", url, url, "alice", "paddlecloud", 1, "dc"), lambda: "pw", token="t")
    backend.http.timeout = httpx.Timeout(wait)
    return backend


def pfs(url: str, wait: float) -> Pfs:
    storage = Pfs(url, "alice", "dc", lambda: "Token t", lambda: None)
    storage.http.timeout = httpx.Timeout(wait)
    return storage


# Each client, as the product uses it: (the client for a server's URL and a wait, one call of it).
CALLS = {
    "REST": (openpai, lambda c: c.request("GET", "/api/v1/user/alice/jobs")),
    "REST log read": (openpai, lambda c: c.read_log(f"{c.rest_uri}/logs/stdout", 0)),
    "PaddlePaddle Cloud": (paddlecloud, lambda c: c.request("GET", "/api/v1/jobs/")),
    "PFS": (pfs, lambda c: c.list("/pfs/dc/home/alice/data")),
    "WebHDFS browsing": (lambda url, wait: Hdfs(url, "alice", timeout=(wait, wait)), lambda c: c.list("/data")),
    "WebHDFS write": (lambda url, wait: Hdfs(url, "alice", timeout=(wait, wait)), lambda c: c.write("/data/x", b"x")),
}


@pytest.fixture(params=list(CALLS))
def call(request):
    make, use = CALLS[request.param]

    def against(url: str, wait: float = QUICK) -> PaiError:
        client = make(url, wait)
        try:
            use(client)
        except PaiError as exc:
            assert "\n" not in exc.message
            return exc
        finally:
            client.close()
        raise AssertionError(f"{request.param}: no error")

    return against


@pytest.mark.parametrize(("status", "body", "error", "said"), [
    (503, b"<html>Service Unavailable</html>\n<p>nginx</p>\n", ServerError, "answered 503: <html>Service Unavailable</html>"),
    (403, b"Forbidden by the proxy\n", PermissionDenied, "answered 403: Forbidden by the proxy"),
    (404, b"", NotFound, "answered 404: Not Found"),
])
def test_an_answer_that_is_a_failure(call, status, body, error, said):
    with StandIn(lambda method, path, sent: (status, {"Content-Type": "text/html"}, body)) as server:
        failure = call(server.url)
    assert type(failure) is error and said in failure.message, failure.message


def test_nothing_listens(call):
    with socket.create_server(("127.0.0.1", 0)) as placeholder:
        port = placeholder.getsockname()[1]
    failure = call(f"http://127.0.0.1:{port}")
    assert type(failure) is Unreachable and failure.message.startswith("cannot reach ")
    assert failure.message.endswith(f"127.0.0.1:{port}: connection refused or no route"), failure.message


def test_tls_with_a_server_that_speaks_plain_http(call):
    with StandIn(lambda method, path, sent: (200, {}, b"{}")) as server:
        failure = call(server.url.replace("http://", "https://"))
    assert type(failure) is Unreachable and failure.message.startswith("TLS with "), failure.message
    assert "https:// where the server speaks plain http://" in failure.message


def test_a_server_that_never_answers(call):
    with socket.create_server(("127.0.0.1", 0)) as silent:
        held: list[socket.socket] = []

        def hold() -> None:
            while True:
                try:
                    held.append(silent.accept()[0])  # and never a byte back
                except OSError:
                    return

        threading.Thread(target=hold, daemon=True).start()
        failure = call(f"http://127.0.0.1:{silent.getsockname()[1]}", SILENT)
    for conn in held:
        conn.close()
    assert type(failure) is Unreachable and failure.message.endswith(" did not answer in time"), failure.message


def test_a_failure_is_said_in_the_readers_language(call):
    """An HTTP failure is a catalogue message (code + arguments, the address among them), so a terminal
    or an editor in Chinese reads it in Chinese, also after it travelled from the daemon."""
    with socket.create_server(("127.0.0.1", 0)) as placeholder:
        port = placeholder.getsockname()[1]
    refused = call(f"http://127.0.0.1:{port}")
    said = refused.render("zh-CN")
    assert said.startswith("无法连接") and f"127.0.0.1:{port}" in said and said.endswith("连接被拒绝或没有路由"), said
    with StandIn(lambda method, path, sent: (503, {"Content-Type": "text/html"}, b"busy\n")) as server:
        failed = call(server.url)
    assert "返回 503：busy" in failed.render("zh-CN"), failed.render("zh-CN")
    for failure in (refused, failed):
        again = PaiError.from_wire(failure.to_wire(), failure.message)
        assert type(again) is type(failure) and again.render("zh-CN") == failure.render("zh-CN")
        assert again.message == failure.message  # the English line unchanged
