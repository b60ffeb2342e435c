"""WebHDFS (`/webhdfs/v1/...`) over `HdfsStore`, answering as a namenode plus datanode would.

Two-step CREATE / APPEND / OPEN / GETFILECHECKSUM: the "namenode" step answers 307 with a
`Location` on this same server (marked `datanode=true`), so the redirect is always reachable.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from .hdfs_store import HdfsException, HdfsStore

READ_CHUNK = 1 << 20
OPS = {
    "GET": {"GETFILESTATUS", "LISTSTATUS", "LISTSTATUS_BATCH", "GETCONTENTSUMMARY", "GETFILECHECKSUM",
            "GETHOMEDIRECTORY", "GETTRASHROOT", "OPEN"},
    "PUT": {"CREATE", "MKDIRS", "RENAME", "SETPERMISSION", "SETOWNER", "SETTIMES", "SETREPLICATION"},
    "POST": {"APPEND"},
    "DELETE": {"DELETE"},
}
PARAM_CLASS = {"GET": "GetOpParam", "PUT": "PutOpParam", "POST": "PostOpParam", "DELETE": "DeleteOpParam"}
LIST_BATCH = 1000


def _json(body: dict, status: int = 200) -> Response:
    return Response(json.dumps(body, separators=(",", ":")), status, media_type="application/json")


def _bool(request: Request, name: str, default: bool = False) -> bool:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    if value.lower() not in ("true", "false"):
        raise HdfsException("IllegalArgumentException", f'Invalid value for webhdfs parameter "{name}": {value}')
    return value.lower() == "true"


def _int(request: Request, name: str, default: int | None) -> int | None:
    value = request.query_params.get(name)
    if value is None or value == "" or value.lower() == "null":
        return default
    try:
        return int(value)
    except ValueError:
        raise HdfsException("IllegalArgumentException", f'Invalid value for webhdfs parameter "{name}": {value}') from None


def _permission(request: Request, default: int | None) -> int | None:
    value = request.query_params.get("permission")
    if value is None or value == "":
        return default
    try:
        mode = int(value, 8)
    except ValueError:
        mode = -1
    if not 0 <= mode <= 0o1777:
        raise HdfsException("IllegalArgumentException",
                            f'Invalid value for webhdfs parameter "permission": Failed to parse "{value}" as a radix-8 short integer.')
    return mode


class WebHdfs:
    def __init__(self, store: HdfsStore, default_user: str):
        self.store = store
        self.default_user = default_user

    async def endpoint(self, request: Request) -> Response:
        try:
            return await self.handle(request)
        except HdfsException as exc:
            return _json(exc.to_json(), exc.status)
        except (PermissionError, IsADirectoryError, NotADirectoryError, FileExistsError) as exc:
            return _json(HdfsException("AccessControlException", str(exc)).to_json(), 403)
        except Exception as exc:  # noqa: BLE001 - clients need the RemoteException shape even for our bugs
            body = {"RemoteException": {"exception": "RuntimeException", "javaClassName": "java.lang.RuntimeException",
                                        "message": f"{type(exc).__name__}: {exc}"}}
            return _json(body, 500)

    async def handle(self, request: Request) -> Response:
        path = "/" + request.path_params.get("path", "")
        op = (request.query_params.get("op") or "").upper()
        method = request.method
        if op not in OPS.get(method, set()):
            raise HdfsException("IllegalArgumentException",
                                f'Invalid value for webhdfs parameter "op": No enum constant '
                                f"org.apache.hadoop.hdfs.web.resources.{PARAM_CLASS.get(method, 'GetOpParam')}.Op.{op}")
        user = request.query_params.get("user.name") or request.query_params.get("doas") or self.default_user
        datanode = request.query_params.get("datanode") == "true"
        store = self.store
        if op in ("CREATE", "APPEND", "OPEN", "GETFILECHECKSUM") and not datanode:
            return self._redirect(request, path)
        if op == "GETFILESTATUS":
            return _json({"FileStatus": store.status(path)})
        if op == "LISTSTATUS":
            statuses, _ = store.list(path)
            return _json({"FileStatuses": {"FileStatus": statuses}})
        if op == "LISTSTATUS_BATCH":
            statuses, remaining = store.list(path, request.query_params.get("startAfter") or None, LIST_BATCH)
            return _json({"DirectoryListing": {"partialListing": {"FileStatuses": {"FileStatus": statuses}},
                                               "remainingEntries": remaining}})
        if op == "GETCONTENTSUMMARY":
            return _json(store.content_summary(path))
        if op == "GETFILECHECKSUM":
            return Response(json.dumps(store.checksum(path), separators=(",", ":")), media_type="application/json; charset=utf-8")
        if op == "GETHOMEDIRECTORY":
            return _json({"Path": f"/user/{user}"})
        if op == "GETTRASHROOT":
            return _json({"Path": f"/user/{user}/.Trash"})
        if op == "OPEN":
            return self._open(request, path)
        if op == "CREATE":
            return await self._write(request, path, user, append=False)
        if op == "APPEND":
            return await self._write(request, path, user, append=True)
        if op == "MKDIRS":
            return _json({"boolean": store.mkdirs(path, user, _permission(request, 0o755))})
        if op == "RENAME":
            destination = request.query_params.get("destination")
            if not destination or not destination.startswith("/"):
                raise HdfsException("IllegalArgumentException", f'Invalid value for webhdfs parameter "destination": {destination}')
            done = store.rename(path, destination)
            if request.query_params.get("renameoptions"):
                return Response(status_code=200) if done else _json(HdfsException("FileNotFoundException", f"Rename of {path} failed").to_json(), 404)
            return _json({"boolean": done})
        if op == "DELETE":
            return _json({"boolean": store.delete(path, _bool(request, "recursive"))})
        if op == "SETPERMISSION":
            store.set_permission(path, _permission(request, 0o755))
            return Response(status_code=200)
        if op == "SETOWNER":
            owner, group = request.query_params.get("owner"), request.query_params.get("group")
            if not owner and not group:
                raise HdfsException("IllegalArgumentException", "Both owner and group are empty.")
            store.set_owner(path, user, owner, group)
            return Response(status_code=200)
        if op == "SETTIMES":
            store.set_times(path, _int(request, "modificationtime", -1), _int(request, "accesstime", -1))
            return Response(status_code=200)
        if op == "SETREPLICATION":
            return _json({"boolean": store.status(path)["type"] == "FILE"})
        raise HdfsException("UnsupportedOperationException", f"{op} is not supported")

    def _redirect(self, request: Request, path: str) -> Response:
        params = [(k, v) for k, v in request.query_params.multi_items() if k != "noredirect"]
        params.append(("datanode", "true"))
        base = f"{request.url.scheme}://{request.url.netloc}"
        location = f"{base}/webhdfs/v1{quote(path)}?{urlencode(params)}"
        if request.query_params.get("op", "").upper() in ("OPEN", "GETFILECHECKSUM"):
            # Fail early on the namenode step for a missing file, as a namenode does.
            if request.query_params.get("op", "").upper() == "OPEN":
                self.store.open_range(path, _int(request, "offset", 0) or 0, _int(request, "length", None))
            else:
                self.store.checksum(path)
        if _bool(request, "noredirect"):
            return _json({"Location": location})
        return Response(status_code=307, headers={"Location": location})

    def _open(self, request: Request, path: str) -> Response:
        local, start, end = self.store.open_range(path, _int(request, "offset", 0) or 0, _int(request, "length", None))

        async def body() -> AsyncIterator[bytes]:
            with open(local, "rb") as f:
                f.seek(start)
                left = end - start
                while left > 0:
                    chunk = f.read(min(READ_CHUNK, left))
                    if not chunk:
                        break
                    left -= len(chunk)
                    yield chunk

        return StreamingResponse(body(), media_type="application/octet-stream",
                                 headers={"Content-Length": str(end - start)})

    async def _write(self, request: Request, path: str, user: str, append: bool) -> Response:
        permission = None if append else _permission(request, None)
        overwrite = _bool(request, "overwrite")
        with self.store.writer(path, user, overwrite, permission, append=append) as f:
            async for chunk in request.stream():
                if chunk:
                    f.write(chunk)
        if append:
            return Response(status_code=200)
        location = f"hdfs://{request.url.netloc}{quote(self.store.normalize(path))}"
        return Response(status_code=201, headers={"Location": location})
