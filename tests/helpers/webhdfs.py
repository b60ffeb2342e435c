"""Raw WebHDFS calls against a local cluster, and Hadoop's error shape read back."""

from __future__ import annotations

import httpx


def hdfs(cluster, method: str, path: str, op: str, user: str | None = None, data: bytes | None = None, **params) -> httpx.Response:
    """One raw WebHDFS call; CREATE and APPEND go straight to the "datanode" step."""
    query = {"op": op, **params}
    if user is not None:
        query["user.name"] = user
    if op in ("CREATE", "APPEND", "OPEN"):
        query["datanode"] = "true"
    return httpx.request(method, f"{cluster.hdfs_url}/webhdfs/v1{path}", params=query, content=data)


def remote_exception(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()["RemoteException"]
    return response.status_code, body["exception"], body["message"]
