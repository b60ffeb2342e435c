"""The local cluster's Prometheus: a real one (Debian's `prometheus` package, or any `prometheus` on PATH),
run with a config in the data folder on a free 127.0.0.1 port, scraping the cluster's job-exporter
(`metrics_export.py`), and reached as on a real cluster: `/prometheus/...` (route prefix `/prometheus`,
no token; openpai-k8s.md §C.1), which the cluster passes through to it. Where no Prometheus is installed,
`/prometheus` says so in one line: a query language of our own would answer what Prometheus would not.

It ends with the cluster: stopped at shutdown, killed by the kernel if the cluster dies first (Linux), and
otherwise found by its pid file and ended at the next start.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import psutil

from ..common import portable
from ..common.atomic import write_atomic

PREFIX = "/prometheus"
NOT_INSTALLED = ("This local cluster has no Prometheus: it serves /prometheus through a real Prometheus, and no "
                 "`prometheus` program is on PATH. Install one (Debian, Ubuntu: apt-get install prometheus) and "
                 "restart the local cluster.\n")
STARTING = "The local cluster's Prometheus is starting; ask again in a moment.\n"
RETENTION = "31d"  # what OpenPAI's deployment keeps
PASSED_HEADERS = ("accept", "content-type")  # what a query needs; never a token (nor gzip: passed on decoded)
STOP_SECONDS = 5.0
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def find_binary(program: str = "prometheus") -> str | None:
    """The Prometheus to run: `program` (a name on PATH or a path); None for `none`, or where there is none."""
    return None if program == "none" else shutil.which(program)


def config_text(exporter: str, interval: int) -> str:
    """Prometheus' config (YAML; JSON is YAML): OpenPAI's scrape job for job-exporter, with the labels its
    deployment adds, every `interval` seconds."""
    config = {
        "global": {"scrape_interval": f"{interval}s", "evaluation_interval": f"{interval}s"},
        "scrape_configs": [{
            "job_name": "pai_service_exporter",
            "honor_labels": True,
            "scrape_interval": f"{interval}s",
            "scrape_timeout": f"{min(interval, 10)}s",
            "static_configs": [{"targets": [exporter],
                                "labels": {"pai_service_name": "job-exporter", "scraped_from": "local-cluster-job-exporter"}}],
        }],
    }
    return json.dumps(config, indent=1)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    """One Prometheus process for the cluster, in `<data dir>/prometheus/`."""

    def __init__(self, data_dir: Path, exporter: str, interval: int, binary: str | None = None) -> None:
        self.folder = data_dir / "prometheus"
        self.exporter = exporter  # host:port of the job-exporter it scrapes
        self.interval = interval
        self.binary = binary
        self.port = 0
        self.process: subprocess.Popen | None = None
        self.client: httpx.AsyncClient | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PREFIX}"

    @property
    def pid_file(self) -> Path:
        return self.folder / "prometheus.pid"

    def start(self) -> None:
        """Start it (nothing without a binary). Its own log is `prometheus.log` beside its data."""
        if self.binary is None:
            return
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._end_leftover()
        config = self.folder / "prometheus.yml"
        write_atomic(config, config_text(self.exporter, self.interval), private=True)
        self.port = free_port()
        argv = [self.binary, f"--config.file={config}", f"--storage.tsdb.path={self.folder / 'data'}",
                f"--storage.tsdb.retention.time={RETENTION}", f"--web.listen-address=127.0.0.1:{self.port}",
                f"--web.route-prefix={PREFIX}", f"--web.external-url=http://127.0.0.1:{self.port}{PREFIX}",
                "--log.level=warn"]
        with open(self.folder / "prometheus.log", "ab") as log:
            # A session of its own (POSIX): a Ctrl-C at the terminal is the cluster's to pass on, in its order.
            self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=self.folder,
                                            start_new_session=sys.platform != "win32",
                                            preexec_fn=_die_with_parent if _pdeathsig() else None)
        write_atomic(self.pid_file, str(self.process.pid), private=True)
        self.client = httpx.AsyncClient(base_url=f"http://127.0.0.1:{self.port}", timeout=httpx.Timeout(60.0, connect=5.0))

    def _end_leftover(self) -> None:
        """A Prometheus an earlier cluster of this data folder left running (killed where the kernel does not
        end it with its parent): it holds the data, so it is ended first."""
        try:
            pid = int(self.pid_file.read_text(encoding="utf-8"))
            proc = psutil.Process(pid)
            if str(self.folder / "data") in " ".join(proc.cmdline()):
                proc.kill()
                proc.wait(STOP_SECONDS)
        except (OSError, ValueError, psutil.Error):
            pass

    async def stop(self) -> None:
        if self.client is not None:
            await self.client.aclose()
            self.client = None
        process, self.process = self.process, None
        if process is None:
            return
        import asyncio

        process.terminate()
        try:
            await asyncio.to_thread(process.wait, STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait)
        try:
            self.pid_file.unlink()
        except OSError:
            pass

    def status_line(self) -> str:
        """What the cluster's start line says of it."""
        if self.binary is None:
            return "Prometheus none (no prometheus program found: /prometheus says so)"
        return f"Prometheus /prometheus (scraping every {self.interval} s)"

    async def proxy(self, scope, receive, send) -> None:
        """Pass a `/prometheus...` request through to Prometheus, as OpenPAI's pylon does (no token)."""
        if self.binary is None:
            await _text(send, 503, NOT_INSTALLED)
            return
        if self.client is None or self.process is None or self.process.poll() is not None:
            where = self.folder / "prometheus.log"
            await _text(send, 502, f"The local cluster's Prometheus is not running (its log: {where}).\n")
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]
                   if k.decode("latin-1").lower() in PASSED_HEADERS}
        target = scope["path"] + ("?" + scope["query_string"].decode("latin-1") if scope.get("query_string") else "")
        try:
            answer = await self.client.request(scope["method"], target, content=body, headers=headers)
        except httpx.ConnectError:
            await _text(send, 503, STARTING)
            return
        except httpx.HTTPError as exc:
            await _text(send, 502, f"The local cluster's Prometheus did not answer: {exc or type(exc).__name__}\n")
            return
        kept = [(name.encode(), answer.headers[name].encode("latin-1")) for name in ("content-type", "location")
                if name in answer.headers]
        await send({"type": "http.response.start", "status": answer.status_code,
                    "headers": [*kept, (b"content-length", str(len(answer.content)).encode())]})
        await send({"type": "http.response.body", "body": answer.content})


async def _text(send, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _pdeathsig() -> bool:
    return sys.platform.startswith("linux") and not portable.forced()


def _die_with_parent() -> None:
    """In the child before exec (Linux): the kernel kills Prometheus when the cluster dies, however it dies."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
