"""WebHDFS (`/webhdfs/v1/...`) over `HdfsStore`, answering as a namenode plus datanode would.

Two-step CREATE / APPEND / OPEN / GETFILECHECKSUM: the "namenode" step answers 307 with a
`Location` on this same server (marked `datanode=true`), so the redirect is always reachable.

Who is asking, as Hadoop with security off decides it: `user.name`, or the anonymous web user
(`dr.who`) without one; `doas` only for the superuser. The cluster's REST token is also accepted
as `delegation=`, and required when the cluster is not private to this machine's loopback.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import TypeVar
from urllib.parse import quote, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from .hdfs_acl import AclSpecError, parse_spec
from .hdfs_store import ANONYMOUS, HdfsException, HdfsStore
from .streaming import file_range

ACL_OPS = {"SETACL", "MODIFYACLENTRIES", "REMOVEACLENTRIES", "REMOVEDEFAULTACL", "REMOVEACL"}
OPS = {
    "GET": {"GETFILESTATUS", "LISTSTATUS", "LISTSTATUS_BATCH", "GETCONTENTSUMMARY", "GETFILECHECKSUM",
            "GETHOMEDIRECTORY", "GETTRASHROOT", "OPEN", "GETACLSTATUS", "CHECKACCESS"},
    "PUT": {"CREATE", "MKDIRS", "RENAME", "SETPERMISSION", "SETOWNER", "SETTIMES", "SETREPLICATION",
            "ALLOWSNAPSHOT", "DISALLOWSNAPSHOT", "CREATESNAPSHOT", "RENAMESNAPSHOT", *ACL_OPS},
    "POST": {"APPEND"},
    "DELETE": {"DELETE", "DELETESNAPSHOT"},
}
# Operations a real namenode knows but this one does not implement: UnsupportedOperationException, not "no such op".
KNOWN = {
    "GET": {"GETQUOTAUSAGE", "GETXATTRS", "LISTXATTRS", "GETFILEBLOCKLOCATIONS", "GET_BLOCK_LOCATIONS", "GETSERVERDEFAULTS",
            "GETSTATUS", "GETDELEGATIONTOKEN", "GETSNAPSHOTDIFF", "GETSNAPSHOTTABLEDIRECTORYLIST", "GETALLSTORAGEPOLICY",
            "GETSTORAGEPOLICY", "GETECPOLICY", "GETSNAPSHOTLIST", "GETLINKTARGET", "GETFILELINKSTATUS"},
    "PUT": {"SETXATTR", "REMOVEXATTR", "CREATESYMLINK", "RENEWDELEGATIONTOKEN", "CANCELDELEGATIONTOKEN", "SETSTORAGEPOLICY",
            "SATISFYSTORAGEPOLICY", "ENABLEECPOLICY", "DISABLEECPOLICY", "SETECPOLICY", "SETQUOTA", "SETQUOTABYSTORAGETYPE"},
    "POST": {"CONCAT", "TRUNCATE", "UNSETSTORAGEPOLICY", "UNSETECPOLICY"},
    "DELETE": set(),
}
PARAM_CLASS = {"GET": "GetOpParam", "PUT": "PutOpParam", "POST": "PostOpParam", "DELETE": "DeleteOpParam"}
LIST_BATCH = 1000
SMALL_BODY = 1 << 20  # a body up to this size is received whole, then written in one go
# A new file this small is written where it is received, on the event loop: handing it to a thread and
# back cost more CPU than the write itself (bench/hdfs_store.py, docs/benchmarks.md), and the
# loop is held for one small file's write at most (a big body's chunks are written there too).
INLINE_BODY = 64 << 10
ACTIONS = {"---": 0, "--x": 1, "-w-": 2, "-wx": 3, "r--": 4, "r-x": 5, "rw-": 6, "rwx": 7}


class Unauthenticated(HdfsException):
    """No credentials where they are required: the authentication filter's 401."""

    @property
    def status(self) -> int:
        return 401


def _json(body: dict, status: int = 200) -> Response:
    return Response(json.dumps(body, separators=(",", ":")), status, media_type="application/json")


def _invalid(name: str, value: str, why: str = "") -> HdfsException:
    return HdfsException("IllegalArgumentException", f'Invalid value for webhdfs parameter "{name}": {why or value}')


def _bool(request: Request, name: str, default: bool = False) -> bool:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    if value.lower() not in ("true", "false"):
        raise _invalid(name, value)
    return value.lower() == "true"


def _int(request: Request, name: str, default: int | None) -> int | None:
    value = request.query_params.get(name)
    if value is None or value == "" or value.lower() == "null":
        return default
    try:
        return int(value)
    except ValueError:
        raise _invalid(name, value) from None


def _permission(request: Request, default: int | None) -> int | None:
    value = request.query_params.get("permission")
    if value is None or value == "":
        return default
    try:
        mode = int(value, 8)
    except ValueError:
        mode = -1
    if not 0 <= mode <= 0o1777:
        raise _invalid("permission", value, f'Failed to parse "{value}" as a radix-8 short integer.')
    return mode


def _acl_spec(request: Request, with_perm: bool) -> list:
    value = request.query_params.get("aclspec") or ""
    try:
        return parse_spec(value, with_perm)
    except AclSpecError as exc:
        raise HdfsException("HadoopIllegalArgumentException", str(exc)) from None


class WebHdfs:
    def __init__(self, store: HdfsStore, verify_token: Callable[[str], str], require_token: bool = False):
        """`verify_token` maps a REST token to its user (or raises); `require_token` refuses calls without one."""
        self.store = store
        self.verify_token = verify_token
        self.require_token = require_token

    async def __call__(self, scope, receive, send) -> None:
        """The ASGI app of `/webhdfs/v1/<path>` (`scope["path_params"]["path"]` holds the path), reached
        before Starlette's router and middleware: an upload makes two calls a file by the thousand, and
        those layers cost a good part of the cluster's CPU a file (bench/hdfs_store.py, docs/benchmarks.md)."""
        response = await self.endpoint(Request(scope, receive))
        await response(scope, receive, send)

    async def endpoint(self, request: Request) -> Response:
        try:
            return await self.handle(request)
        except HdfsException as exc:
            return _json(exc.to_json(), exc.status)
        except (PermissionError, IsADirectoryError, NotADirectoryError, FileExistsError) as exc:
            return _json(HdfsException("AccessControlException", str(exc)).to_json(), 403)
        except OSError as exc:  # the disk full, a name too long for it: an IOException, as a namenode says it
            return _json(HdfsException("IOException", exc.strerror or str(exc)).to_json(), 403)
        except Exception as exc:  # noqa: BLE001 - clients need the RemoteException shape even for our bugs
            body = {"RemoteException": {"exception": "RuntimeException", "javaClassName": "java.lang.RuntimeException",
                                        "message": f"{type(exc).__name__}: {exc}"}}
            return _json(body, 500)

    def caller(self, request: Request) -> str:
        """The user this request acts as (JspHelper.getUGI with security off, plus delegation tokens)."""
        params = request.query_params
        name = params.get("user.name")
        token = params.get("delegation")
        if token:
            try:
                user = self.verify_token(token)
            except Exception:  # noqa: BLE001 - any failure means the same: not a token of this cluster
                raise HdfsException("SecurityException", "Failed to obtain user group information: "
                                                         "the delegation token is invalid or has expired") from None
            if name and name != user:
                raise HdfsException("SecurityException", f"Usernames not matched: name={name} != expected={user}")
        elif self.require_token:
            raise Unauthenticated("SecurityException", "Authentication required: this cluster accepts WebHDFS calls only "
                                                       "with its REST token as delegation=<token>")
        else:
            user = name or ANONYMOUS
        doas = params.get("doas")
        if doas and doas != user:
            if not self.store.is_superuser(user):
                raise HdfsException("AuthorizationException", f"User: {user} is not allowed to impersonate {doas}")
            user = doas
        return user

    async def handle(self, request: Request) -> Response:
        path = "/" + request.path_params.get("path", "")
        op = (request.query_params.get("op") or "").upper()
        method = request.method
        if op not in OPS.get(method, set()):
            if op in KNOWN.get(method, set()):
                raise HdfsException("UnsupportedOperationException", f"{op} is not supported by the PAI local cluster")
            raise _invalid("op", op, f"No enum constant org.apache.hadoop.hdfs.web.resources.{PARAM_CLASS.get(method, 'GetOpParam')}.Op.{op}")
        user = self.caller(request)
        datanode = request.query_params.get("datanode") == "true"
        if op in ("CREATE", "APPEND") and not datanode:
            return self._redirect(request, path, user)  # no file work: not worth a thread's hand-over
        if op in ("OPEN", "GETFILECHECKSUM") and not datanode:
            return await run_in_threadpool(self._redirect, request, path, user)
        if op == "OPEN":
            return self._open(request, path, user)
        if op in ("CREATE", "APPEND"):
            return await self._write(request, path, user, append=op == "APPEND")
        return await run_in_threadpool(self._metadata, request, op, path, user)

    def _metadata(self, request: Request, op: str, path: str, user: str) -> Response:
        """Every operation that moves no file content, run off the event loop."""
        store = self.store
        params = request.query_params
        if op == "GETFILESTATUS":
            return _json({"FileStatus": store.status(user, path)})
        if op == "LISTSTATUS":
            statuses, _ = store.list(user, path)
            return _json({"FileStatuses": {"FileStatus": statuses}})
        if op == "LISTSTATUS_BATCH":
            statuses, remaining = store.list(user, path, params.get("startAfter") or None, LIST_BATCH)
            return _json({"DirectoryListing": {"partialListing": {"FileStatuses": {"FileStatus": statuses}},
                                               "remainingEntries": remaining}})
        if op == "GETCONTENTSUMMARY":
            return _json(store.content_summary(user, path))
        if op == "GETFILECHECKSUM":
            return Response(json.dumps(store.checksum(user, path), separators=(",", ":")), media_type="application/json; charset=utf-8")
        if op == "GETHOMEDIRECTORY":
            return _json({"Path": f"/user/{user}"})
        if op == "GETTRASHROOT":
            return _json({"Path": f"/user/{user}/.Trash"})
        if op == "GETACLSTATUS":
            return _json(store.acl_status(user, path))
        if op == "CHECKACCESS":
            action = params.get("fsaction") or ""
            if action not in ACTIONS:
                raise _invalid("fsaction", action)
            store.check(user, path, access=ACTIONS[action])
            store.status(user, path)
            return Response(status_code=200)
        if op == "MKDIRS":
            return _json({"boolean": store.mkdirs(user, path, _permission(request, 0o755))})
        if op == "RENAME":
            return self._rename(request, path, user)
        if op == "DELETE":
            return _json({"boolean": store.delete(user, path, _bool(request, "recursive"))})
        if op == "SETPERMISSION":
            store.set_permission(user, path, _permission(request, 0o755))
            return Response(status_code=200)
        if op == "SETOWNER":
            owner, group = params.get("owner"), params.get("group")
            if not owner and not group:
                raise HdfsException("IllegalArgumentException", "Both owner and group are empty.")
            store.set_owner(user, path, owner, group)
            return Response(status_code=200)
        if op == "SETTIMES":
            store.set_times(user, path, _int(request, "modificationtime", -1), _int(request, "accesstime", -1))
            return Response(status_code=200)
        if op == "SETREPLICATION":
            replication = _int(request, "replication", None)
            return _json({"boolean": store.set_replication(user, path, replication if replication is not None else 1)})
        if op in ACL_OPS:
            spec = [] if op in ("REMOVEDEFAULTACL", "REMOVEACL") else _acl_spec(request, with_perm=op != "REMOVEACLENTRIES")
            store.change_acl(user, path, op, spec)
            return Response(status_code=200)
        if op == "ALLOWSNAPSHOT":
            store.allow_snapshot(user, path)
            return Response(status_code=200)
        if op == "DISALLOWSNAPSHOT":
            store.disallow_snapshot(user, path)
            return Response(status_code=200)
        if op == "CREATESNAPSHOT":
            return _json({"Path": store.create_snapshot(user, path, params.get("snapshotname") or None)})
        if op == "RENAMESNAPSHOT":
            store.rename_snapshot(user, path, params.get("oldsnapshotname") or "", params.get("snapshotname") or "")
            return Response(status_code=200)
        if op == "DELETESNAPSHOT":
            store.delete_snapshot(user, path, params.get("snapshotname") or "")
            return Response(status_code=200)
        raise HdfsException("UnsupportedOperationException", f"{op} is not supported")

    def _rename(self, request: Request, path: str, user: str) -> Response:
        destination = request.query_params.get("destination")
        if not destination or not destination.startswith("/"):
            raise _invalid("destination", str(destination))
        options = request.query_params.get("renameoptions")
        if options is None:
            return _json({"boolean": self.store.rename(user, path, destination)})
        overwrite = "OVERWRITE" in options.upper().split(",")
        self.store.rename(user, path, destination, overwrite=overwrite)
        return Response(status_code=200)  # rename2 answers with an empty body

    def _redirect(self, request: Request, path: str, user: str) -> Response:
        query = request.url.query
        if "noredirect" in request.query_params:
            query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "noredirect"])
        location = f"{request.url.scheme}://{request.url.netloc}/webhdfs/v1{quote(path)}?{query}&datanode=true"
        op = request.query_params.get("op", "").upper()
        # Fail early on the namenode step for a missing file, as a namenode does.
        if op == "OPEN":
            self.store.open_range(user, path, _int(request, "offset", 0) or 0, _int(request, "length", None))
        elif op == "GETFILECHECKSUM":
            self.store.checksum(user, path)
        if _bool(request, "noredirect"):
            return _json({"Location": location})
        return Response(status_code=307, headers={"Location": location})

    def _open(self, request: Request, path: str, user: str) -> Response:
        local, start, end = self.store.open_range(user, path, _int(request, "offset", 0) or 0, _int(request, "length", None))
        return StreamingResponse(file_range(local, start, end - start), media_type="application/octet-stream",
                                 headers={"Content-Length": str(end - start)})

    async def _write(self, request: Request, path: str, user: str, append: bool) -> Response:
        permission = None if append else _permission(request, None)
        overwrite = _bool(request, "overwrite")
        replication = None if append else _int(request, "replication", None)
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) <= SMALL_BODY:
            body = await request.body()
            if len(body) <= INLINE_BODY and not append:  # an append copies the file first: never on the loop
                self._write_small(user, path, overwrite, permission, append, replication, body)
            else:
                await run_in_threadpool(self._write_small, user, path, overwrite, permission, append, replication, body)
        else:
            async with contextlib.AsyncExitStack() as stack:
                writer = self.store.writer(user, path, overwrite, permission, append=append, replication=replication)
                # an append begins by copying the file it extends: on a worker thread, never on the loop
                f = await stack.enter_async_context(in_thread(writer)) if append else stack.enter_context(writer)
                async for chunk in request.stream():
                    if chunk:
                        f.write(chunk)
        if append:
            return Response(status_code=200)
        location = f"hdfs://{request.url.netloc}{quote(self.store.normalize(path))}"
        return Response(status_code=201, headers={"Location": location})

    def _write_small(self, user: str, path: str, overwrite: bool, permission: int | None, append: bool,
                     replication: int | None, body: bytes) -> None:
        with self.store.writer(user, path, overwrite, permission, append=append, replication=replication) as f:
            f.write(body)


T = TypeVar("T")


@contextlib.asynccontextmanager
async def in_thread(blocking: contextlib.AbstractContextManager[T]) -> AsyncIterator[T]:
    """A blocking context manager entered and left on a worker thread."""
    value = await run_in_threadpool(blocking.__enter__)
    try:
        yield value
    except BaseException as exc:
        if not await run_in_threadpool(blocking.__exit__, type(exc), exc, exc.__traceback__):
            raise
    else:
        await run_in_threadpool(blocking.__exit__, None, None, None)
