"""The one HTTP client's settings reach every kind of call: the local cluster served over HTTPS with a
test CA, reached through a forward proxy on 127.0.0.1 (`HTTPS_PROXY`), with only that CA trusted
(`SSL_CERT_FILE`, or `REQUESTS_CA_BUNDLE` as a machine set up for requests has it). REST calls, log
reads and uploads each go through the proxy, each trusts the bundle, and each fails in one line
without them."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pai_lsp.clusters.openpai import OpenPai
from pai_lsp.clusters.profiles import Profile
from pai_lsp.errors import Unreachable
from pai_lsp.storage.upload import select

from .helpers.localcluster import PASSWORD, USER, Cluster, job, own_cluster, role
from .helpers.proxy import ForwardProxy

trustme = pytest.importorskip("trustme")
pytestmark = pytest.mark.subprocess  # the local cluster runs as a process

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy")
CA_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory) -> Iterator[tuple[Cluster, Path]]:
    """The local cluster over HTTPS, its certificate issued by a CA of the test's own: (it, the CA's PEM)."""
    folder = tmp_path_factory.mktemp("tls")
    ca = trustme.CA()
    issued = ca.issue_cert("127.0.0.1", "localhost")
    ca.cert_pem.write_to_path(str(folder / "ca.pem"))
    issued.private_key_pem.write_to_path(str(folder / "key.pem"))
    issued.cert_chain_pems[0].write_to_path(str(folder / "cert.pem"))
    with pytest.MonkeyPatch.context() as env:
        for name in PROXY_VARIABLES + CA_VARIABLES:
            env.delenv(name, raising=False)
        env.setenv("SSL_CERT_FILE", str(folder / "ca.pem"))  # for the helper's own login
        with own_cluster(folder / "data", "--ssl-certfile", str(folder / "cert.pem"), "--ssl-keyfile", str(folder / "key.pem")) as cluster:
            yield cluster, folder / "ca.pem"


@pytest.fixture
def clean_env(monkeypatch):
    for name in PROXY_VARIABLES + CA_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@contextmanager
def backend(cluster: Cluster, token: str | None = None) -> Iterator[OpenPai]:
    """A session of its own (its own connection pool), so every call it makes opens its connections anew."""
    session = OpenPai(Profile("tls", cluster.url, cluster.hdfs_url, USER), lambda: PASSWORD, token=token)
    try:
        yield session
    finally:
        session.close()


def finished_log(cluster: Cluster, name: str) -> str:
    """The stdout log's URI of the job's one task, once it has finished."""
    with backend(cluster) as session:
        deadline = time.monotonic() + 60
        while (detail := session.job(name)).state not in ("SUCCEEDED", "FAILED", "STOPPED"):
            assert time.monotonic() < deadline, detail
            time.sleep(0.2)
        uri = session.log_location(detail.tasks[0], "stdout")
        assert uri is not None
        return uri


def test_rest_logs_and_uploads_go_through_the_proxy_and_trust_the_bundle(tls_cluster, clean_env, tmp_path):
    cluster, ca = tls_cluster
    assert cluster.url.startswith("https://") and cluster.hdfs_url.startswith("https://")
    rest, hdfs = urlsplit(cluster.url).netloc, urlsplit(cluster.hdfs_url).netloc
    assert rest != hdfs
    code = tmp_path / "code"
    code.mkdir()
    (code / "train.py").write_text("print('over TLS')\n")
    proxy = ForwardProxy()
    try:
        clean_env.setenv("HTTPS_PROXY", proxy.url)
        for variable in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
            clean_env.delenv("SSL_CERT_FILE", raising=False)
            clean_env.setenv(variable, str(ca))
            name = f"tls_{variable.lower()}"
            with backend(cluster) as rest_calls:  # REST: a log-in, a submit, the job list
                rest_calls.submit(job(name, role("main", "echo hello-over-tls")))
                assert name in [j.name for j in rest_calls.jobs()]
                token = rest_calls.token
            assert proxy.tunnels and set(proxy.tunnels) == {rest}, proxy.tunnels
            uri = finished_log(cluster, name)

            proxy.tunnels.clear()
            with backend(cluster, token) as logs:  # a log read alone: no log-in, no other call
                assert b"hello-over-tls" in logs.read_log(uri, 0)
            assert proxy.tunnels == [rest]

            proxy.tunnels.clear()
            with backend(cluster, token) as uploads:  # an upload alone (WebHDFS, on a port of its own)
                result = uploads.upload(select(code, ["**/*"], []), f"/user/{USER}/{name}")
                assert result.sent_files == 1
                assert uploads.storage.read(f"/user/{USER}/{name}/train.py") == b"print('over TLS')\n"
            assert proxy.tunnels and set(proxy.tunnels) == {hdfs}, proxy.tunnels
            proxy.tunnels.clear()
            clean_env.delenv(variable)
    finally:
        proxy.close()


def test_without_the_proxy_or_the_bundle_every_kind_of_call_fails_in_one_line(tls_cluster, clean_env, tmp_path):
    cluster, ca = tls_cluster
    uri = f"{cluster.url}/api/v1/user/{USER}/jobs/none/logs/stdout"  # never read: the call fails first
    (tmp_path / "f.txt").write_text("x")
    calls = {
        "REST": lambda b: b.jobs(),
        "log read": lambda b: b.read_log(uri, 0),
        "upload": lambda b: b.upload(select(tmp_path, ["*.txt"], []), f"/user/{USER}/never"),
    }
    with socket.create_server(("127.0.0.1", 0)) as placeholder:
        dead = f"http://127.0.0.1:{placeholder.getsockname()[1]}"  # a proxy that is not there: nothing gets through
    for setting, said in ((("HTTPS_PROXY", dead), ("SSL_CERT_FILE", str(ca))), "connection refused"), \
                         ((), "unable to get local issuer certificate"):
        for name, value in setting:
            clean_env.setenv(name, value)
        for kind, call in calls.items():
            with backend(cluster, token=cluster.token) as session:
                with pytest.raises(Unreachable) as failed:
                    call(session)
            assert "\n" not in failed.value.message and said in failed.value.message, (kind, failed.value.message)
        for name, _ in setting:
            clean_env.delenv(name)
