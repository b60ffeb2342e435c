"""The local cluster's metrics, put together: its job-exporter (`metrics_export.py`) on a loopback port of its
own, as job-exporter has one on each node, and its Prometheus (`prometheus.py`) behind `/prometheus`. One
wrapper around the cluster's ASGI app routes to them and starts and stops them with the cluster's lifespan."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable
from pathlib import Path

from .metrics_export import Exporter, running_trees
from .prometheus import PREFIX, Prometheus, find_binary

DEFAULT_INTERVAL = 10  # seconds between scrapes (OpenPAI's default is 30: a desk wants a livelier view)


class Monitoring:
    def __init__(self, cluster, data_dir: Path, exporter_socket: socket.socket, interval: int = DEFAULT_INTERVAL,
                 program: str = "prometheus", private: bool = False) -> None:
        """`program`: the Prometheus to run (a name on PATH or a path), `none` for none. `private`: `/prometheus`
        needs the cluster's token too (a real cluster's is open, but it is no machine of the user's)."""
        self.users = cluster.users
        self.private = private
        host, port = exporter_socket.getsockname()[:2]
        self.exporter_port = port
        self.exporter = Exporter(lambda: running_trees(cluster), min_gap=min(0.5, interval / 2))
        self.prometheus = Prometheus(data_dir, f"{host}:{port}", interval, find_binary(program))

    def wrap(self, app: Callable) -> Callable:
        """`app` with `/prometheus...` passed to Prometheus, the exporter's port to the exporter, and both
        started after the cluster starts and stopped before it stops."""
        async def wrapped(scope, receive, send) -> None:
            kind = scope["type"]
            if kind == "lifespan":
                await app(scope, self._lifespan(receive, send), send)
                return
            if kind == "http" and (scope.get("server") or (None, None))[1] == self.exporter_port:
                await self.exporter(scope, receive, send)
                return
            if kind == "http" and (scope["path"] == PREFIX or scope["path"].startswith(PREFIX + "/")):
                if self.private and (refused := self._refused(scope)) is not None:
                    await refused(scope, receive, send)
                    return
                await self.prometheus.proxy(scope, receive, send)
                return
            await app(scope, receive, send)

        return wrapped

    def _refused(self, scope):
        """The REST API's 401 for a request without a valid token; None when it has one."""
        from starlette.responses import JSONResponse

        from .rest_errors import ClusterError

        header = dict(scope["headers"]).get(b"authorization")
        try:
            self.users.verify(header.decode("latin-1") if header else None)
        except ClusterError as exc:
            return JSONResponse({"code": exc.code, "message": exc.message}, exc.status)
        return None

    def _lifespan(self, receive, send):
        async def receiving():
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    self.prometheus.start()
                except OSError as exc:  # the cluster runs on without it; /prometheus says it is not running
                    print(f"pai local-cluster: Prometheus could not start: {exc.strerror or exc}", file=sys.stderr, flush=True)
            elif message["type"] == "lifespan.shutdown":
                await self.prometheus.stop()
                self.exporter.sampler.gpus.close()
            return message

        return receiving
