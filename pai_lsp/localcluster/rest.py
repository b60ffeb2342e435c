"""OpenPAI REST routes (v1, and the v2 subset clients use) over `LocalCluster`.

Errors are always `{code, message}` with the real server's status codes; every route is also
served under `/rest-server`, the path real deployments put the API behind.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from urllib.parse import parse_qs

import yaml
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from .. import __version__
from ..core.joi import Invalid, validate_v1
from ..core.jsonc import MAX_DEPTH
from ..core.roles import roles_from_v1
from ..core.v2.render import unrunnable
from ..core.yaml.tree import parse as read_yaml
from . import bodies, cpu, shapes, v2, virtual_clusters
from .cluster import LocalCluster
from .job_data import Job, with_always_ports
from .job_storages import duplicated, effective
from .queueing import events_answer
from .rest_errors import ClusterError
from .storages import DEFAULT_GROUP
from .streaming import file_range

TAIL_BYTES = 16384
VC_NAME = re.compile(r"^[A-Za-z0-9_]+$")  # what the v2 routes take as a virtual cluster's name


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status, headers=headers)


def _warned(response: Response, warnings: list[str]) -> Response:
    """One `X-Warning` header per warning (the real server sends its one warning so), so a client
    can show each on its own line."""
    for warning in warnings:
        response.headers.append("X-Warning", warning)
    return response


class Api:
    def __init__(self, cluster: LocalCluster, private: bool = False):
        """`private`: also require a token where the YARN-era server leaves reading open (job list,
        detail, config, SSH info, virtual clusters), as needed off loopback or on a shared machine."""
        self.cluster = cluster
        self.private = private

    # -- helpers ---------------------------------------------------------------------
    def user_of(self, request: Request) -> str:
        return self.cluster.users.verify(request.headers.get("authorization"))

    def reader(self, request: Request) -> None:
        """Reading that real clients do without a token: open unless the cluster is private."""
        if self.private:
            self.user_of(request)

    @staticmethod
    async def body(request: Request) -> dict:
        """The JSON (or form) body, within body-parser's limit."""
        return _json_or_form(await bodies.read(request, bodies.REST_LIMIT), request.headers.get("content-type", ""))

    def base(self, request: Request) -> str:
        return f"{request.url.scheme}://{request.url.netloc}"

    def owned(self, request: Request, job: Job) -> str:
        user = self.user_of(request)
        if user != job.user and not self.cluster.users.is_admin(user):
            raise ClusterError(403, "ForbiddenUserError", f"User {user} is not allowed to execute job {job.name}.")
        return user

    # -- auth ------------------------------------------------------------------------
    async def login(self, request: Request) -> Response:
        body = await self.body(request)
        name, password = body.get("username"), body.get("password")
        if not isinstance(name, str) or not isinstance(password, str):
            raise ClusterError(400, "InvalidParametersError", 'child "username" fails because ["username" is required]')
        user = self.cluster.users.check_password(name, password)
        expiration = body.get("expiration", 7 * 24 * 3600)
        try:
            expiration = max(60, min(int(expiration), 604800))
        except (TypeError, ValueError):
            raise ClusterError(400, "InvalidParametersError", '"expiration" must be a number') from None
        return JSONResponse({"user": name, "token": self.cluster.users.issue(name, expiration), "admin": user["admin"],
                             "hasGitHubPAT": False})

    async def info(self, request: Request) -> Response:
        # localScalesJobs: this machine alone, unshaped, runs a job larger than it scaled (a client's "will it
        # fit" has nothing to say); a cluster shaped by virtual-clusters.json makes such a job wait, as a real one.
        scales = not self.cluster.layout.configured and not self.cluster.strict_resources
        return JSONResponse({"name": "PAI RESTful API", "version": f"local-{__version__}", "launcherType": "yarn",
                             "authnMethod": "basic", "localScalesJobs": scales})

    async def authn_info(self, request: Request) -> Response:
        return JSONResponse({"authn_type": "basic", "loginURI": "/api/v1/authn/basic/login", "loginURIMethod": "post"})

    async def user_info(self, request: Request) -> Response:
        self.user_of(request)
        name = request.path_params["user"]
        record = self.cluster.users.users.get(name)
        if record is None:
            raise ClusterError(400, "NoUserError", f"User {name} is not found.")
        groups = self.cluster.users.groups(name)
        return JSONResponse({"username": name, "grouplist": sorted(groups | {DEFAULT_GROUP}), "email": "", "extension": {},
                             "admin": record["admin"], "virtualCluster": self.cluster.layout.permitted(groups, record["admin"]),
                             "storageConfig": self.cluster.storages.permitted(groups)})

    async def users(self, request: Request) -> Response:
        self.user_of(request)
        layout = self.cluster.layout
        return JSONResponse([{"username": n, "admin": r["admin"],
                              "virtualCluster": layout.permitted(set(r.get("grouplist") or []), bool(r["admin"]))}
                             for n, r in self.cluster.users.users.items()])

    # -- v1 jobs ---------------------------------------------------------------------
    async def list_v1(self, request: Request) -> Response:
        self.reader(request)
        wanted = request.path_params.get("user") or request.query_params.get("username")
        jobs = [j for j in self.cluster.jobs.values() if j.kind == "openpai" and (not wanted or j.user == wanted)]
        jobs.sort(key=lambda j: j.created, reverse=True)
        return JSONResponse([shapes.summary_v1(j) for j in jobs])

    async def submit_v1(self, request: Request) -> Response:
        user = self.user_of(request)
        owner = request.path_params.get("user")
        legacy = owner is None
        if owner is not None and owner != user and not self.cluster.users.is_admin(user):
            raise ClusterError(403, "ForbiddenUserError", f"User {user} is not allowed to do operation in {owner}.")
        raw = await bodies.read(request, bodies.REST_LIMIT)
        # Parsing and checking are CPU work: in the CPU worker, so that no other request waits for them.
        job, original = await cpu.run(_job_v1, raw, request.headers.get("content-type", ""), owner or user, legacy,
                                      request.path_params.get("job"))
        if job.virtual_cluster in self.cluster.virtual_clusters:  # an unknown one: the cluster's 404
            self.may_use(owner or user, job.virtual_cluster)
        self.cluster.submit(job, original)
        headers = {"Location": f"{self.base(request)}{request.url.path.rstrip('/')}" + ("" if request.path_params.get("job") else f"/{job.name}")}
        warnings = [job.note] if job.note else []
        if "killAllOnCompletedTaskNumber" in original:
            warnings.append("killAllOnCompletedTaskNumber has been obsoleted, please use minFailedTaskCount "
                            "and minSucceededTaskCount instead.")
        return _warned(JSONResponse(shapes.detail_v1(job, self.base(request)), 201, headers=headers), warnings)

    def job_v1(self, request: Request) -> Job:
        user, name = request.path_params.get("user"), request.path_params["job"]
        framework = f"{user}~{name}" if user else name
        job = self.cluster.jobs.get(framework)
        if job is None:
            raise ClusterError(404, "NoJobError", f"Job {name} is not found.")
        return job

    async def detail_v1(self, request: Request) -> Response:
        self.reader(request)
        return JSONResponse(shapes.detail_v1(self.job_v1(request), self.base(request)))

    async def delete_v1(self, request: Request) -> Response:
        job = self.job_v1(request)
        self.owned(request, job)
        await self.cluster.delete(job)
        return JSONResponse({"message": f"deleted job {job.name} successfully"}, 202)

    async def execution_v1(self, request: Request) -> Response:
        body = await self.body(request)
        value = body.get("value") if isinstance(body, dict) else None
        if not isinstance(value, str) or not value:
            raise ClusterError(400, "InvalidParametersError", 'child "value" fails because ["value" is required]')
        job = self.job_v1(request)
        self.owned(request, job)
        if value == "STOP":
            await self.cluster.stop(job)
        return JSONResponse({"message": f"execute job {job.name} successfully"}, 202)

    async def config_v1(self, request: Request) -> Response:
        self.reader(request)
        job = self.job_v1(request)
        path = self.cluster.job_dir(job) / "JobConfig.json"
        if not path.exists():
            raise ClusterError(404, "NoJobConfigError", f"Config of job {job.name} is not found.")
        config = json.loads(path.read_text(encoding="utf-8"))
        if "yaml" in request.headers.get("accept", "") and "json" not in request.headers.get("accept", ""):
            return PlainTextResponse(yaml.safe_dump(config, sort_keys=False), media_type="text/yaml")
        return JSONResponse(config)

    async def ssh_v1(self, request: Request) -> Response:
        self.reader(request)
        job = self.job_v1(request)
        running = [t for t in job.tasks if t.launched and t.ports.get("ssh")]
        if not running:
            raise ClusterError(404, "NoJobSshInfoError", f"SSH info of job {job.name} is not found.")
        containers = [{"id": f"container_{job.framework}_{job.attempt}_{t.role}_{t.index}", "sshIp": "127.0.0.1",
                       "sshPort": str(t.ports["ssh"][0]), "taskRoleName": t.role, "taskIndex": t.index} for t in running]
        return JSONResponse({"containers": containers, "keyPair": None})

    # -- v2 jobs ---------------------------------------------------------------------
    async def submit_v2(self, request: Request) -> Response:
        user = self.user_of(request)
        text = (await bodies.read(request, bodies.REST_LIMIT)).decode("utf-8", "replace")
        # YAML, validation and rendering are CPU work: in the CPU worker, so that no other request waits for them.
        job, stored = await cpu.run(_job_v2, text, user)
        self.may_use(user, job.virtual_cluster)
        await self._storages_of(job, user)
        self.cluster.submit(job, {"protocolVersion": 2}, raw_text=stored)
        return _warned(JSONResponse({"status": 202, "message": f"Update job {job.name} for user {user} successfully."}, 202),
                       [job.note] if job.note else [])

    async def _storages_of(self, job: Job, user: str) -> None:
        """The storages the job's tasks mount (`job_storages.py`: the server's 404 for one the user may not
        use); refused in one line when this machine cannot mount them in a task (`task_mounts.py`)."""
        job.storages = effective(job.config.get("extras"), user, self.cluster.users.groups(user), self.cluster.storages)
        if job.unrunnable or not job.storages:
            return
        job.unrunnable = duplicated(job.storages)
        problem = await self.cluster.mounts.problem(user, job.storages, container=self.cluster.engine is not None)
        if problem:
            raise ClusterError(400, "InvalidParametersError", problem)

    async def list_v2(self, request: Request) -> Response:
        self.user_of(request)
        q = request.query_params
        jobs = [j for j in self.cluster.jobs.values() if j.kind == "openpai"]  # PaddlePaddle jobs have their own API
        for param, attr in (("username", "user"), ("vc", "virtual_cluster"), ("state", "state")):
            if q.get(param):
                wanted = set(q[param].split(","))
                jobs = [j for j in jobs if (shapes.public_state(j) if attr == "state" else getattr(j, attr)) in wanted]
        if q.get("keyword"):
            k = q["keyword"]
            jobs = [j for j in jobs if k in j.user or k in j.name or k in j.virtual_cluster]
        field, _, direction = (q.get("order") or "submissionTime,DESC").partition(",")
        key = {"jobName": lambda j: j.name, "username": lambda j: j.user, "state": shapes.public_state,
               "vc": lambda j: j.virtual_cluster, "retries": lambda j: j.retries,
               "totalTaskNumber": lambda j: j.total_tasks, "totalGpuNumber": lambda j: j.total_gpus,
               "completionTime": lambda j: j.completed or 0}.get(field, lambda j: j.created)
        jobs.sort(key=key, reverse=direction.upper() != "ASC")
        try:
            offset, limit = int(q.get("offset") or 0), int(q.get("limit") or 5000)
        except ValueError:
            raise ClusterError(400, "InvalidParametersError", "offset and limit must be integers") from None
        if limit > 50000:
            raise ClusterError(400, "InvalidParametersError", "Limit exceeds max number 50000.")
        total = len(jobs)
        data = [shapes.summary_v2(j) for j in jobs[offset : offset + limit]]
        return etagged(request, {"totalCount": total, "data": data} if q.get("withTotalCount") == "true" else data)

    def job_v2(self, request: Request) -> Job:
        framework = request.path_params["framework"]
        job = self.cluster.jobs.get(framework)
        if job is None:
            raise ClusterError(404, "NoJobError", f"Job {framework} is not found.")
        return job

    async def detail_v2(self, request: Request) -> Response:
        self.user_of(request)
        return JSONResponse(shapes.detail_v2(self.job_v2(request), self.base(request)))

    async def execution_v2(self, request: Request) -> Response:
        body = await self.body(request)
        value = body.get("value") if isinstance(body, dict) else None
        if value not in ("STOP", "START"):
            raise ClusterError(400, "InvalidParametersError", 'child "value" fails because ["value" must be one of [STOP, START]]')
        job = self.job_v2(request)
        self.owned(request, job)
        if value == "STOP":
            await self.cluster.stop(job)
        return JSONResponse({"status": 202, "message": f"Execute job {job.framework} successfully."}, 202)

    async def config_v2(self, request: Request) -> Response:
        self.user_of(request)
        job = self.job_v2(request)
        text = await cpu.run(_stored_config_json, self.cluster.job_dir(job))
        if text is None:
            raise ClusterError(404, "NoJobConfigError", f"Config of job {job.framework} is not found.")
        # The real server sends JSON text labelled text/yaml (a quirk clients parse with a YAML loader).
        return Response(text, media_type="text/yaml")

    async def ssh_v2(self, request: Request) -> Response:
        job = self.job_v2(request)
        raise ClusterError(404, "NoJobSshInfoError", f"SSH info of job {job.framework} is not found.")

    def task_of(self, request: Request) -> tuple[Job, int, str, int]:
        job = self.job_v2(request)
        p = request.path_params
        attempt, role, index = int(p["attempt"]), p["role"], int(p["index"])
        if not any(r.name == role for r in job.roles) or not 0 <= index < job.role(role).tasks or attempt > job.attempt:
            raise ClusterError(404, "NoTaskLogError", "Log of task is not found.")
        return job, attempt, role, index

    async def logs(self, request: Request) -> Response:
        self.user_of(request)
        job, attempt, role, index = self.task_of(request)
        if not self.cluster.log_file(job, attempt, role, index, "stdout").exists():
            raise ClusterError(404, "NoTaskLogError", "Log of task is not found.")
        tail = "?tail-mode=true" if request.query_params.get("tail-mode") == "true" else ""
        base = request.url.path.rstrip("/")
        return JSONResponse(shapes.log_locations(base, tail))

    async def log_file(self, request: Request) -> Response:
        self.cluster.users.verify(request.headers.get("authorization") or
                                  (f"Bearer {request.query_params['token']}" if "token" in request.query_params else None))
        job, attempt, role, index = self.task_of(request)
        name = request.path_params["name"]
        if name not in ("stdout", "stderr", "all"):
            raise ClusterError(404, "NoTaskLogError", "Log of task is not found.")
        path = self.cluster.log_file(job, attempt, role, index, name)
        if not path.exists():
            raise ClusterError(404, "NoTaskLogError", "Log of task is not found.")
        size = path.stat().st_size
        ranged = request.headers.get("range", "")
        if request.query_params.get("tail-mode") == "true":
            ranged = f"bytes=-{min(TAIL_BYTES, size)}" if size else ""
        wanted = byte_range(ranged, size)
        if wanted == "unsatisfiable":
            return Response(status_code=416, headers={"Content-Range": f"bytes */{size}"})
        start, end = wanted or (0, size - 1)
        length = max(0, end + 1 - start)
        headers = {"Accept-Ranges": "bytes", "Content-Disposition": f'attachment; filename="{name}"',
                   "X-Log-Size": str(size), "Content-Length": str(length)}
        if wanted is not None:
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        # Streamed in bounded pieces, read in worker threads: a log of any size costs the same memory.
        return StreamingResponse(file_range(path, start, length), 206 if wanted is not None else 200,
                                 media_type="text/plain", headers=headers)

    # -- storages (openpai-k8s.md §A.3-A.5) ------------------------------------------------
    async def storages(self, request: Request) -> Response:
        user = self.user_of(request)
        default_only = request.query_params.get("default") == "true"
        return JSONResponse({"storages": self.cluster.storages.listed(self.cluster.users.groups(user), default_only)})

    async def storage(self, request: Request) -> Response:
        user = self.user_of(request)
        return JSONResponse(self.cluster.storages.detail(request.path_params["name"], user, self.cluster.users.groups(user)))

    async def legacy_storage(self, request: Request) -> Response:
        """The deprecated `/api/v2/storage/config` and `/server` routes, by query `names` or one name."""
        user = self.user_of(request)
        groups = self.cluster.users.groups(user)
        servers = "/storage/server" in request.url.path
        items = self.cluster.storages.legacy_servers(groups) if servers else self.cluster.storages.legacy_configs(groups)
        key = "spn" if servers else "name"
        name = request.path_params.get("name")
        if name is not None:
            found = [item for item in items if item[key] == name]
            if len(found) != 1:
                raise ClusterError(500, "UnknownError", "Server not found." if servers else "Config not found.")
            return JSONResponse(found[0])
        names = request.query_params.getlist("names")
        return JSONResponse([item for item in items if not names or item[key] in names])

    # -- virtual clusters --------------------------------------------------------------
    async def vcs(self, request: Request) -> Response:
        if "/api/v2/" in request.url.path:
            self.user_of(request)
        else:
            self.reader(request)
        name = request.path_params.get("vc")
        yarn = "/api/v1/" in request.url.path
        if name is None and "nodes" in request.query_params:
            return JSONResponse(virtual_clusters.nodes(self.cluster.layout, self.cluster.usage()))
        if name is not None and name not in self.cluster.virtual_clusters:
            if not yarn and not VC_NAME.match(name):
                raise ClusterError(400, "InvalidParametersError", f"Virtual cluster name {name} is not valid.")
            raise ClusterError(404, "NoVirtualClusterError", f"Vc {name} not found" if not yarn else
                               f"Virtual cluster {name} is not found.")
        table = virtual_clusters.table(self.cluster.layout, self.cluster.usage(),
                                       list(self.cluster.jobs.values()) if yarn else None)
        return JSONResponse(table if name is None else table[name])

    async def sku_types(self, request: Request) -> Response:
        self.user_of(request)
        layout, vc = self.cluster.layout, request.query_params.get("vc")
        if vc is None:
            return JSONResponse(virtual_clusters.skus(layout.skus if layout.hived else {}))
        if not layout.hived or vc not in layout.vcs:
            raise ClusterError(404, "NoVirtualClusterError", f"Cannot get sku types for virtual clyster {vc}.")
        return JSONResponse(virtual_clusters.skus(layout.vc_skus(vc)))

    async def events(self, request: Request) -> Response:
        self.user_of(request)
        kind = request.query_params.get("type")
        if kind is not None and kind not in ("Warning", "Normal"):
            raise ClusterError(400, "InvalidParametersError", 'child "type" fails because ["type" must be one of [Warning, Normal]]')
        return JSONResponse(events_answer(self.job_v2(request), kind))

    def may_use(self, user: str, vc: str) -> None:
        """403 for a virtual cluster the user may not submit to (the server checks it at submit only)."""
        if vc not in self.cluster.layout.permitted(self.cluster.users.groups(user), self.cluster.users.is_admin(user)):
            raise ClusterError(403, "ForbiddenUserError", f"User {user} is not allowed to do operation in {vc}.")

    async def protocol_version(self, request: Request) -> Response:
        # A v2 cluster treats "protocolversion" as a job name it does not have.
        self.user_of(request)
        raise ClusterError(404, "NoJobError", "Job protocolversion is not found.")

    # -- routing ---------------------------------------------------------------------
    def routes(self) -> list[Route]:
        user_job = "/api/v1/user/{user}/jobs/{job}"
        v2_job = "/api/v2/jobs/{framework}"
        task_logs = v2_job + "/attempts/{attempt:int}/taskRoles/{role}/taskIndex/{index:int}/attempts/{task_attempt:int}/logs"
        table = [
            ("/api/v1/token", self.login, ["POST"]),
            ("/api/v1/authn/basic/login", self.login, ["POST"]),
            ("/api/v2/authn/basic/login", self.login, ["POST"]),
            ("/api/v1", self.info, ["GET"]),
            ("/api/v2/info", self.info, ["GET"]),
            ("/api/v1/authn/info", self.authn_info, ["GET"]),
            ("/api/v1/jobs", self.list_v1, ["GET"]),
            ("/api/v1/jobs", self.submit_v1, ["POST"]),
            ("/api/v1/jobs/{job}", self.detail_v1, ["GET"]),
            ("/api/v1/user/{user}/jobs", self.list_v1, ["GET"]),
            ("/api/v1/user/{user}/jobs", self.submit_v1, ["POST"]),
            (user_job, self.submit_v1, ["PUT"]),
            (user_job, self.detail_v1, ["GET"]),
            (user_job, self.delete_v1, ["DELETE"]),
            (user_job + "/executionType", self.execution_v1, ["PUT"]),
            (user_job + "/config", self.config_v1, ["GET"]),
            (user_job + "/ssh", self.ssh_v1, ["GET"]),
            ("/api/v1/user/{user}", self.user_info, ["GET"]),
            ("/api/v2/user/{user}", self.user_info, ["GET"]),
            ("/api/v2/users/{user}", self.user_info, ["GET"]),
            ("/api/v2/users", self.users, ["GET"]),
            ("/api/v1/virtual-clusters", self.vcs, ["GET"]),
            ("/api/v1/virtual-clusters/{vc}", self.vcs, ["GET"]),
            ("/api/v2/virtual-clusters", self.vcs, ["GET"]),
            ("/api/v2/virtual-clusters/{vc}", self.vcs, ["GET"]),
            ("/api/v2/cluster/sku-types", self.sku_types, ["GET"]),
            (v2_job + "/events", self.events, ["GET"]),
            ("/api/v2/storages", self.storages, ["GET"]),
            ("/api/v2/storages/{name}", self.storage, ["GET"]),
            ("/api/v2/storage/config", self.legacy_storage, ["GET"]),
            ("/api/v2/storage/config/{name}", self.legacy_storage, ["GET"]),
            ("/api/v2/storage/server", self.legacy_storage, ["GET"]),
            ("/api/v2/storage/server/{name}", self.legacy_storage, ["GET"]),
            ("/api/v2/jobs", self.submit_v2, ["POST"]),
            ("/api/v2/jobs", self.list_v2, ["GET"]),
            ("/api/v2/jobs/protocolversion/config", self.protocol_version, ["GET"]),
            (v2_job, self.detail_v2, ["GET"]),
            (v2_job + "/executionType", self.execution_v2, ["PUT"]),
            (v2_job + "/config", self.config_v2, ["GET"]),
            (v2_job + "/ssh", self.ssh_v2, ["GET"]),
            (task_logs, self.logs, ["GET"]),
            (task_logs + "/{name}", self.log_file, ["GET"]),
        ]
        return [Route(path, _guarded(handler), methods=methods) for path, handler, methods in table]



def _json_or_form(raw: bytes, content_type: str) -> dict:
    if "application/x-www-form-urlencoded" in content_type:
        return {k: v[-1] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}
    try:
        return bodies.parse_json(raw or b"{}")
    except bodies.TooDeep:
        raise ClusterError(400, "InvalidParametersError", f"The request body is nested more than {MAX_DEPTH} levels deep: "
                                                          "no job config needs that.") from None
    except bodies.NotJson:
        raise ClusterError(400, "InvalidParametersError", "The request body is not valid JSON.") from None


def _job_v1(raw: bytes, content_type: str, owner: str, legacy: bool, url_name: str | None) -> tuple[Job, object]:
    """The job a v1 body describes, checked as the server checks it (and the name in a PUT's URL as
    the body's), with what was sent."""
    original = _json_or_form(raw, content_type)
    try:
        config = validate_v1(original)
        if url_name is not None and url_name != config["jobName"]:
            validate_v1({**original, "jobName": url_name})  # the body as sent: defaults are not checked
    except Invalid as exc:
        raise ClusterError(400, "InvalidParametersError", str(exc)) from None
    job = Job(user=owner, name=url_name or config["jobName"], version=1, legacy=legacy, config=config,
              virtual_cluster=config.get("virtualCluster") or "default", roles=with_always_ports(roles_from_v1(config)),
              retry_count=config.get("retryCount", 0), debug=(config.get("jobEnvs") or {}).get("isDebug") is True)
    return job.freeze(), original


def _job_v2(text: str, user: str) -> tuple[Job, str]:
    """The job a v2 protocol describes, and the config to store (secrets masked)."""
    doc = v2.parse(text)
    said = unrunnable(doc)  # the server takes it, the scheduler cannot run it: FAILED at once, with why (in English, the cluster's)
    refused = str(said) if said is not None else ""
    job = Job(user=user, name=doc["name"], version=2, legacy=False, config=v2.config(doc),
              virtual_cluster=(doc.get("defaults") or {}).get("virtualCluster") or "default",
              roles=[] if refused else v2.roles(doc), retry_count=doc.get("jobRetryCount") or 0, unrunnable=refused)
    return job.freeze(), v2.masked(doc)


def _stored_config_json(folder) -> str | None:
    """The job's stored config as JSON text (None when there is none)."""
    if (folder / "JobConfig.yaml").exists():
        stored = read_yaml((folder / "JobConfig.yaml").read_text(encoding="utf-8")).root  # the reader every v2 job has
        config = stored.value if stored is not None else None
    elif (folder / "JobConfig.json").exists():
        config = json.loads((folder / "JobConfig.json").read_text(encoding="utf-8"))
    else:
        return None
    return json.dumps(config, default=_iso)


def _iso(value: object) -> str:
    """A YAML timestamp as JSON.stringify writes a Date."""
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return text if "T" in text else text + "T00:00:00.000Z"


def _js_int(text: str) -> int | None:
    """JavaScript's parseInt(text, 10): leading digits after optional blanks and sign, else NaN (None)."""
    match = re.match(r"\s*([+-]?\d+)", text)
    return int(match.group(1)) if match else None


def byte_range(header: str, size: int) -> tuple[int, int] | str | None:
    """A `Range` header as the log server's `send`/range-parser reads it: (first, last byte) to send,
    "unsatisfiable" (416), or None to send the whole file (no, malformed or several ranges)."""
    if not re.match(r"^ *bytes=", header):
        return None
    ranges = []
    for part in header.split("=", 1)[1].split(","):
        pieces = part.split("-")
        start, end = _js_int(pieces[0]), _js_int(pieces[1]) if len(pieces) > 1 else None
        if start is None:
            start, end = (max(0, size - end), size - 1) if end is not None else (None, None)  # a suffix longer than the file: all of it
        elif end is None:
            end = size - 1
        if end is not None and end > size - 1:
            end = size - 1
        if start is None or end is None or start > end or start < 0:
            continue
        ranges.append((start, end))
    if not ranges:
        return "unsatisfiable"
    return ranges[0] if len(ranges) == 1 else None


def _guarded(handler):
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except ClusterError as exc:
            return error(exc.status, exc.code, exc.message, exc.headers)

    endpoint.__name__ = handler.__name__
    return endpoint


def etagged(request: Request, payload: object) -> Response:
    """A GET's JSON with the weak ETag Express gives every response (`W/"<length>-<sha1>"`), and 304 with
    no body when the client's `If-None-Match` holds it: a poller that sends it back pays for no body."""
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    digest = base64.b64encode(hashlib.sha1(body).digest()).decode()[:27]  # noqa: S324 - a content tag, as Express's
    tag = f'W/"{len(body):x}-{digest}"'
    if tag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers={"ETag": tag})
    return Response(body, media_type="application/json", headers={"ETag": tag})
