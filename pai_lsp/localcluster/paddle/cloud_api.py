"""The PaddlePaddle Cloud API of the local cluster (its own port: `/api/v1/jobs/` means something
else on OpenPAI's): the Django REST server of §A.4 and the PFS file server of §A.14, answering as
they do, so that a `paddlecloud` / `paddlectl` client pointed at it through `~/.paddle/config` works
unchanged.

What the real servers do and this one does too: DRF's authentication (Basic, then `Token`, with
401 and `WWW-Authenticate: Basic` when none fits); URL patterns without `$`, so anything under
`/api/v1/jobs/` is the jobs view; Django's APPEND_SLASH (a 301 to the path with the slash); HTTP 200
for the API's own errors, with `msg` (or `err` on PFS); list answers in the Kubernetes client's
snake_case `to_dict()` shapes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from ...common import multipart
from .. import bodies
from ..cluster import LocalCluster
from ..hdfs_store import HdfsException
from ..rest_errors import ClusterError
from ..streaming import file_range
from .pfs_server import MAX_CHUNK_BODY, Pfs, PfsError, chunk_frame, chunk_param, validate
from .pods import PaddleJobs

Handler = Callable[[Request, str], Awaitable[Response]]


def drf(body: object, status: int = 200, headers: dict | None = None) -> Response:
    """A DRF JSON answer."""
    return Response(json.dumps(body, ensure_ascii=False, separators=(",", ":")), status, headers=headers,
                    media_type="application/json")


def simple(code: int, message: object) -> Response:
    """utils.simple_response: `{"code", "msg"}` with HTTP 200, whatever the code."""
    return drf({"code": code, "msg": message})


def pfs_reply(err: str = "", results: object = None, status: int = 200, headers: dict | None = None) -> Response:
    """The Go file server's envelope (json.Encoder adds the newline)."""
    return Response(json.dumps({"err": err, "results": results}) + "\n", status, headers=headers,
                    media_type="application/json; charset=UTF-8")


class PaddleApi:
    def __init__(self, cluster: LocalCluster, datacenter: str = "local"):
        self.cluster = cluster
        self.datacenter = datacenter
        self.jobs = PaddleJobs(cluster, datacenter)
        self.pfs = Pfs(cluster.store)
        self.registry_file = cluster.users.path.with_name("paddle-registry.json")
        # Django URL patterns (no `$`: a prefix match) -> view; each takes (request, user).
        self.views: list[tuple[str, dict[str, Handler]]] = [
            ("/api/v1/jobs/", {"GET": self.list_jobs, "POST": self.submit, "DELETE": self.kill}),
            ("/api/v1/trainingjobs/", {"POST": self.submit}),
            ("/api/v1/pservers/", {"GET": self.pservers}),
            ("/api/v1/logs/", {"GET": self.logs}),
            ("/api/v1/workers/", {"GET": self.workers}),
            ("/api/v1/quota/", {"GET": self.quota}),
            ("/api/v1/registry/", {"GET": self.registry_list, "POST": self.registry_add, "DELETE": self.registry_remove}),
            ("/api/v1/file/", {"GET": self.file_get, "POST": self.file_put}),
            ("/api/v1/filelist/", {"GET": self.file_list}),
            ("/api/v1/token2user/", {"GET": self.token2user}),
        ]
        self.pfs_routes: dict[tuple[str, str], Handler] = {
            ("GET", "/api/v1/pfs/files"): self.pfs_get,
            ("POST", "/api/v1/pfs/files"): self.pfs_modify,
            ("DELETE", "/api/v1/pfs/files"): self.pfs_modify,
            ("GET", "/api/v1/pfs/chunks"): self.pfs_chunk_meta,
            ("GET", "/api/v1/pfs/storage/chunks"): self.pfs_read_chunk,
            ("POST", "/api/v1/pfs/storage/chunks"): self.pfs_write_chunk,
        }

    # -- the ASGI app --------------------------------------------------------------------
    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        response = await self.dispatch(request)
        await response(scope, receive, send)

    async def dispatch(self, request: Request) -> Response:
        path, method = request.url.path, request.method
        try:
            if path == "/api-token-auth/":
                return await self.token(request) if method == "POST" else _not_allowed(method)
            if (method, path) in self.pfs_routes:
                user = self.user_of(request)
                if user is None:
                    return pfs_reply("get username error:401 Unauthorized")
                return await self.pfs_routes[(method, path)](request, user)
            for prefix, handlers in self.views:
                if path.startswith(prefix):
                    user = self.user_of(request)
                    if user is None:
                        return _unauthenticated(request)
                    handler = handlers.get(method)
                    return await handler(request, user) if handler else _not_allowed(method)
            if any((path + "/").startswith(prefix) for prefix, _ in self.views) or path + "/" == "/api-token-auth/":
                query = f"?{request.url.query}" if request.url.query else ""
                return Response(status_code=301, headers={"Location": f"{path}/{query}"})
            return Response("<h1>Not Found</h1><p>The requested URL was not found on this server.</p>", 404,
                            media_type="text/html")
        except bodies.BodyTooLarge as exc:
            if path.startswith("/api/v1/pfs/"):
                return pfs_reply(exc.message, status=413, headers=exc.headers)
            return drf({"detail": exc.message}, 413, exc.headers)
        except ClusterError as exc:
            return drf({"msg": exc.message})

    # -- authentication (DRF: Basic, Session, Token) ---------------------------------------
    def token_of(self, user: str) -> str:
        """The user's DRF token: 40 hex digits, the same every time (as a stored Token row is)."""
        return hmac.new(self.cluster.users.secret, b"paddle-token:" + user.encode(), hashlib.sha1).hexdigest()

    def user_of(self, request: Request) -> str | None:
        scheme, _, value = (request.headers.get("authorization") or "").partition(" ")
        if scheme.lower() == "basic":
            try:
                name, _, password = base64.b64decode(value).decode().partition(":")
                self.cluster.users.check_password(name, password)
            except (ValueError, ClusterError):
                return None
            return name
        if scheme.lower() == "token":
            value = value.strip()
            return next((name for name in self.cluster.users.users if hmac.compare_digest(self.token_of(name), value)), None)
        return None

    async def token(self, request: Request) -> Response:
        body = await _body(request)
        errors = {key: ["This field is required."] for key in ("username", "password") if not body.get(key)}
        if errors:
            return drf(errors, 400)
        try:
            self.cluster.users.check_password(str(body["username"]), str(body["password"]))
        except ClusterError:
            return drf({"non_field_errors": ["Unable to log in with provided credentials."]}, 400)
        return drf({"token": self.token_of(str(body["username"]))})

    async def token2user(self, request: Request, user: str) -> Response:
        return drf({"user": user})

    # -- jobs ------------------------------------------------------------------------------
    async def list_jobs(self, request: Request, user: str) -> Response:
        return drf(self.jobs.job_list(user))

    async def submit(self, request: Request, user: str) -> Response:
        try:
            body = bodies.parse_json(await bodies.read(request, bodies.DJANGO_LIMIT) or b"null")
        except bodies.NotJson as exc:
            return drf({"msg": str(exc)})
        if not isinstance(body, dict):
            return drf({"msg": "'NoneType' object has no attribute 'get'"})
        if request.url.path.startswith("/api/v1/trainingjobs/"):
            body = {**body, "parallelism": 1}  # the TrainingJob body has no parallelism (§A.16)
        try:
            self.jobs.submit(user, body)
        except ClusterError as exc:
            return drf({"msg": exc.message})
        return simple(200, "")

    async def kill(self, request: Request, user: str) -> Response:
        body = await _body(request)
        name = body.get("jobname")
        if not name:
            return simple(500, "must specify jobname")
        errors = await self.jobs.kill(user, str(name))
        return simple(500 if errors else 200, "\n".join(errors))

    async def pservers(self, request: Request, user: str) -> Response:
        return drf(self.jobs.pserver_list(user))

    async def workers(self, request: Request, user: str) -> Response:
        return drf(self.jobs.pod_list(user, request.query_params.get("jobname")))

    async def logs(self, request: Request, user: str) -> Response:
        q = request.query_params
        try:
            lines = int(q["n"]) if q.get("n") else None
        except ValueError:
            return drf({"detail": f"invalid literal for int() with base 10: '{q['n']}'"}, 500)
        text = await run_in_threadpool(self.jobs.job_log, user, q.get("jobname") or "", lines, q.get("w"))
        return simple(200, text)

    async def quota(self, request: Request, user: str) -> Response:
        return drf(self.jobs.quota(user))

    # -- registry secrets (§A.11) ------------------------------------------------------------
    def _registries(self) -> dict:
        try:
            return json.loads(self.registry_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def _save_registries(self, data: dict) -> None:
        from ...common.atomic import write_atomic

        write_atomic(self.registry_file, json.dumps(data), private=True)

    async def registry_list(self, request: Request, user: str) -> Response:
        from .pods import iso, namespace

        mine = self._registries().get(user, {})
        items = [{"api_version": None, "data": None, "kind": None, "string_data": None, "type": "kubernetes.io/dockerconfigjson",
                  "metadata": {"name": name, "namespace": namespace(user), "creation_timestamp": iso(entry["created"]),
                               "labels": None, "annotations": None}} for name, entry in sorted(mine.items())]
        return simple(200, {"api_version": "v1", "items": items, "kind": "SecretList", "metadata": {"_continue": None}})

    async def registry_add(self, request: Request, user: str) -> Response:
        from ..job_data import now_ms

        body = await _body(request)
        name = str(body.get("name") or "")
        data = self._registries()
        mine = data.setdefault(user, {})
        if name in mine:
            return simple(500, f'(409)\nReason: Conflict\nHTTP response body: secrets "{name}" already exists')
        if not name or not all(ch.isalnum() and ch.islower() or ch.isdigit() or ch in "-." for ch in name):
            return simple(500, f'(422)\nReason: Unprocessable Entity\nHTTP response body: Secret "{name}" is invalid')
        auth = base64.b64encode(f"{body.get('username', '')}:{body.get('password', '')}".encode()).decode()
        config = {str(body.get("server", "")): {"username": body.get("username"), "password": body.get("password"),
                                               "email": user, "auth": auth}}
        mine[name] = {"created": now_ms(), "dockerconfigjson": base64.b64encode(json.dumps(config).encode()).decode()}
        self._save_registries(data)
        return simple(200, "")

    async def registry_remove(self, request: Request, user: str) -> Response:
        body = await _body(request)
        name = str(body.get("name") or "")
        data = self._registries()
        if data.get(user, {}).pop(name, None) is None:
            return simple(500, f'(404)\nReason: Not Found\nHTTP response body: secrets "{name}" not found')
        self._save_registries(data)
        return simple(200, "")

    # -- the simple file API (§A.13) --------------------------------------------------------
    def _server_path(self, user: str, path: str | None) -> str:
        parts = (path or "").split("/")
        try:
            assert parts[1] == "pfs"
            assert parts[2] == self.datacenter
            assert parts[3] == "home"
            assert parts[4] == user
        except (AssertionError, IndexError) as exc:
            raise ClusterError(200, "", f"file path not valid: {exc}") from None
        return "/".join([f"/user/{user}", *parts[5:]])

    async def file_put(self, request: Request, user: str) -> Response:
        path = request.query_params.get("path")
        try:
            parts = multipart.decode(await bodies.read(request, MAX_CHUNK_BODY), request.headers.get("content-type", ""))
        except ValueError:
            return drf({"detail": "Multipart form parse error"}, 400)
        upload = next((p for p in parts if p.name == "file"), None)
        if upload is None:
            return drf({"msg": "'file'"}, 500)
        if not path:
            return drf({"msg": "must specify path"})
        target = self._server_path(user, path)

        def write() -> None:
            with self.cluster.store.writer(user, target, overwrite=True, permission=None) as f:
                f.write(upload.data)

        try:
            await run_in_threadpool(write)
        except HdfsException as exc:
            return drf({"msg": exc.message})
        return drf({"msg": ""})

    async def file_get(self, request: Request, user: str) -> Response:
        target = self._server_path(user, request.query_params.get("path"))
        try:
            local, _, size = await run_in_threadpool(self.cluster.store.open_range, user, target, 0, None)
        except HdfsException:
            return drf({"msg": "file not exist"})
        name = target.rsplit("/", 1)[-1]
        # Streamed in bounded pieces: a file of any size costs the same memory.
        return StreamingResponse(file_range(local, 0, size), media_type="application/force-download",
                                 headers={"Content-Disposition": f'attachment; filename="{name}"', "Content-Length": str(size)})

    async def file_list(self, request: Request, user: str) -> Response:
        path = request.query_params.get("path") or ""
        parts = path.split("/")
        message = ""
        if len(parts) < 5:
            message = "path must like /pfs/[dc]/home/[user]"
        else:
            if parts[1] != "pfs":
                message = "path must start with /pfs"
            if parts[2] != self.datacenter:
                message = "no datacenter " + parts[2]
            if parts[3] != "home":
                message = "path must like /pfs/[dc]/home/[user]"
            if parts[4] != user:
                message = "not a valid user: " + parts[4]
        if message:
            return drf({"msg": message})
        try:
            entries, _ = self.cluster.store.list(user, self._server_path(user, path))
        except HdfsException:
            return drf({"msg": "dir not exist"})
        return drf({"msg": "", "items": [e["pathSuffix"] for e in entries]})

    # -- PFS (§A.14) -------------------------------------------------------------------------
    async def _pfs(self, fn, *args) -> Response:
        try:
            return pfs_reply("", await run_in_threadpool(fn, *args))
        except PfsError as exc:
            return pfs_reply(str(exc))

    async def pfs_get(self, request: Request, user: str) -> Response:
        query = parse_qs(request.url.query, keep_blank_values=True)
        method = (query.get("method") or [""])[0]
        if method == "ls":
            if not query.get("r") or not query.get("arg"):
                return pfs_reply("not enough arguments")
            recursive = query["r"][0].lower() in ("1", "t", "true")
            if query["r"][0].lower() not in ("1", "t", "true", "0", "f", "false"):
                return pfs_reply("invalid arguments:r")
            return await self._pfs(self.pfs.ls, user, query["arg"], recursive)
        if method == "stat":
            if not query.get("path"):
                return pfs_reply("not enough arguments")
            return await self._pfs(self.pfs.stat, user, query["path"][0])
        return pfs_reply(status=405)

    async def pfs_modify(self, request: Request, user: str) -> Response:
        # The Go server reads 2,048 bytes of it (pfsmodules.MaxJSONRequestSize); pai's client sends longer
        # mkdir lists, so this one takes what the Django side would.
        raw = await bodies.read(request, bodies.DJANGO_LIMIT)
        try:
            body = bodies.parse_json(raw)
            method = body["method"]
        except (ValueError, KeyError, TypeError):
            return pfs_reply("parse json error")
        try:
            if method == "rm" and request.method == "DELETE":
                return await self._pfs(self.pfs.rm, user, list(body.get("path") or []), bool(body.get("r")))
            if method == "mkdir":
                return await self._pfs(self.pfs.mkdir, user, list(body.get("path") or []))
            if method == "touch":
                return await self._pfs(self.pfs.touch, user, str(body.get("path") or ""), int(body.get("filesize") or 0))
        except (TypeError, ValueError):
            return pfs_reply("parse json error")
        return pfs_reply(status=405)

    async def pfs_chunk_meta(self, request: Request, user: str) -> Response:
        q = request.query_params
        if q.get("method") != "GetChunkMeta" or not q.get("path") or not q.get("chunksize") or not q.get("offset"):
            return pfs_reply("Bad Request") if q.get("method") == "GetChunkMeta" else pfs_reply(status=405)
        try:
            size, offset = int(q["chunksize"]), int(q["offset"])
        except ValueError:
            return pfs_reply("chunksize error")
        return await self._pfs(self.pfs.chunk_meta, user, q["path"], offset, size)

    async def pfs_read_chunk(self, request: Request, user: str) -> Response:
        try:
            path, offset, size = chunk_param(request.url.query)
            validate([path], user, "GetChunk")
            local, length = await run_in_threadpool(self.pfs.locate, user, path, offset, size)
        except PfsError as exc:
            return pfs_reply(str(exc))
        head, tail, content_type = chunk_frame(path, offset, size)

        def parts():  # the chunk streamed from the file, whatever `chunksize` asked for
            yield head
            yield from file_range(local, offset, length)
            yield tail

        return StreamingResponse(parts(), media_type=content_type,
                                 headers={"Content-Length": str(len(head) + length + len(tail))})

    async def pfs_write_chunk(self, request: Request, user: str) -> Response:
        try:
            parts = multipart.decode(await bodies.read(request, MAX_CHUNK_BODY), request.headers.get("content-type", ""))
        except ValueError:
            return pfs_reply(status=400)
        for part in parts:
            if part.name != "chunk":
                continue
            try:
                path, offset, size = chunk_param(part.filename or "")
                await run_in_threadpool(self.pfs.write, user, path, offset, part.data[:size])
            except PfsError as exc:
                return pfs_reply(str(exc))
        return pfs_reply()


async def _body(request: Request) -> dict:
    raw = await bodies.read(request, bodies.DJANGO_LIMIT)
    if "application/x-www-form-urlencoded" in request.headers.get("content-type", ""):
        return {k: v[-1] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}
    try:
        value = bodies.parse_json(raw or b"{}")
    except bodies.NotJson:
        raise ClusterError(400, "", "JSON parse error") from None
    return value if isinstance(value, dict) else {}


def _unauthenticated(request: Request) -> Response:
    given = request.headers.get("authorization")
    detail = ("Invalid token." if given and given.lower().startswith("token") else
              "Invalid username/password." if given else "Authentication credentials were not provided.")
    return drf({"detail": detail}, 401, {"WWW-Authenticate": 'Basic realm="api"'})


def _not_allowed(method: str) -> Response:
    return drf({"detail": f'Method "{method}" not allowed.'}, 405)


def by_port(openpai, paddle: PaddleApi, paddle_port: int):
    """One ASGI app for both APIs: requests to `paddle_port` go to PaddlePaddle Cloud's, the others
    (and the lifespan) to OpenPAI's."""

    async def app(scope, receive, send) -> None:
        if scope["type"] == "http" and (scope.get("server") or (None, None))[1] == paddle_port:
            await paddle(scope, receive, send)
        else:
            await openpai(scope, receive, send)

    return app
