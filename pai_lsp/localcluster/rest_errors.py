"""The one error the local cluster's REST API answers with: `{code, message}` and the HTTP status
the real rest-server uses for it (WebHDFS has its own, `hdfs_store.HdfsException`)."""

from __future__ import annotations


class ClusterError(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers or {}  # of the answer, e.g. `Connection: close`
