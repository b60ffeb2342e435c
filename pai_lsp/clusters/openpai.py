"""OpenPAI REST client: the first `Backend` (clusters/backend.py). Its REST calls, log reads and
HDFS share one pooled HTTP client (storage/session.py); renews an expired token by itself; reads
answers into `core.openpai`'s model."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx

from ..core import formats
from ..core.capacity import ClusterState, Event
from ..core.job_format import Unsendable
from ..core.messages import message
from ..core.openpai_rest import JobDetail, JobSummary, LogLocations, TaskStatus
from ..errors import AuthFailed, InvalidInput, NameTaken, NotFound, ServerError, Unsupported
from ..storage import session
from ..storage.http import THE_CLUSTER, answer_error, at_cluster, detail, request, url_path
from .backend import Backend
from .profiles import LOCAL

if TYPE_CHECKING:
    from ..storage.upload import Progress, Selected, UploadResult
    from ..storage.webhdfs import Hdfs
    from .profiles import Profile

ACTIVE = ("WAITING", "RUNNING", "STOPPING", "UNKNOWN")  # job states that still change


class OpenPai(Backend):
    """`profile.protocol` 1: a YARN-era server (v1 JSON jobs, SCM too); 2: a Kubernetes-era one (v2
    YAML jobs, v2 routes)."""

    def __init__(self, profile: Profile, password: Callable[[], str | None], token: str | None = None,
                 on_token: Callable[[str], None] | None = None, transport: httpx.BaseTransport | None = None):
        """`transport`: where requests go instead of the network (tests use httpx.MockTransport)."""
        self.profile = profile
        self.rest_uri = profile.rest_uri.rstrip("/")
        self.user = profile.user
        self.protocol = profile.protocol
        # The job protocols its server reads as written (a job of another is converted): its own; the
        # embedded local cluster serves both APIs, so v2 jobs go there as they are.
        self.protocols = (1, 2) if profile.protocol == 1 and profile.name == LOCAL else (profile.protocol,)
        self.takes_v2 = 2 in self.protocols
        self._password = password
        self.token = token
        self._on_token = on_token
        self.http = session.client(self.rest_uri, transport=transport)  # REST, logs and HDFS alike
        self._renewed = session.Renewed(self.current_token)
        self._storage: Hdfs | None = None
        self._filters: bool | None = None  # whether the v2 job list filters by state (unknown until tried)
        self._listed: tuple[str, list[JobSummary]] | None = None  # the unfinished jobs as last listed, with their ETag

    @property
    def storage(self) -> Hdfs:
        if self._storage is None:
            from ..storage.webhdfs import Hdfs

            self._storage = Hdfs(self.profile.webhdfs_uri, self.profile.user, token=self.current_token, http=self.http)
        return self._storage

    def current_token(self, renew: bool = False) -> str:
        """The REST token, logged in for when there is none yet or `renew`: also the WebHDFS
        `delegation=` token of a cluster that requires one (the local cluster with --private)."""
        if renew or self.token is None:
            self.login()
        assert self.token is not None
        return self.token

    def close(self) -> None:
        if self._storage is not None:
            self._storage.close()
        self.http.close()

    # -- transport -------------------------------------------------------------------
    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return request(self.http, method, path, what=at_cluster(self.rest_uri), **kwargs)

    def login(self) -> None:
        password = self._password()
        if not password:
            raise AuthFailed(message("http.no-password", user=self.user, url=self.rest_uri, name=self.profile.name))
        response = self._send("POST", "/api/v1/token", json={"username": self.user, "password": password})
        if response.status_code != 200:
            raise AuthFailed(message("http.login-failed", url=self.rest_uri, user=self.user, why=detail(response.status_code, response.content)[0]))
        self.token = response.json()["token"]
        if self._on_token:
            self._on_token(self.token)

    def request(self, method: str, path: str, allow: tuple[int, ...] = (), **kwargs: Any) -> httpx.Response:
        """An authenticated request (`path` on the REST server, or a whole URL: a log's); on 401 the
        token is renewed once without asking the user. Statuses in `allow` are returned instead of raised."""
        headers = dict(kwargs.pop("headers", {}) or {})

        def send(token: str | None) -> httpx.Response:
            return self._send(method, path, headers={**headers, "Authorization": f"Bearer {token}"}, **kwargs)

        response = session.authorized(send, self._renewed.fresher, lambda answer, _: answer.status_code == 401, self.current_token())
        return response if response.status_code in allow else self.check(response)

    @staticmethod
    def check(response: httpx.Response) -> httpx.Response:
        if response.status_code < 400:
            return response
        raise answer_error(response.status_code, response.content, THE_CLUSTER, {409: NameTaken})

    # -- jobs ------------------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        return f"{base}_{secrets.token_hex(4)}"

    def place_job(self, config: dict, name: str) -> str | None:
        """The name into the config, $PAI_JOB_NAME / $PAI_USER_NAME filled in where the server leaves them
        (its format says where); the HDFS folder of the code folder it names (a v2 job's `extras.codeDir`)."""
        job_format = formats.of_job(config)
        config[job_format.name_key] = name
        substitute(config, name, self.user)
        code_dir = job_format.folder(config, "codeDir")
        return hdfs_path(code_dir) if code_dir is not None else None

    def converted(self, config: dict) -> dict | None:
        """The v1 config a v1-only (YARN-era) server gets for a v2 job; None when the job goes as it is.
        InvalidInput naming what v1 cannot express of it."""
        try:
            return formats.of_job(config).converted(config, self.protocols)
        except Unsendable as exc:
            raise InvalidInput(exc.said(self.profile.name)) from None

    def upload(self, files: list[Selected], remote: str, progress: Progress | None = None) -> UploadResult:
        from ..storage.upload import upload

        return upload(self.storage, files, remote, progress=progress)

    def unchanged(self, files: list[Selected], remote: str) -> int:
        from ..storage.upload import unchanged_files

        return unchanged_files(self.storage, files, remote)

    # -- storages (Kubernetes era) ------------------------------------------------------
    def storages(self) -> list[dict]:
        """The user's storages, each with `default` (a missing `share` is true, as v1.0-1.1 said it).
        A YARN-era server has none: said in one line."""
        if not self.takes_v2:
            raise Unsupported(message("openpai.no-storages", name=self.profile.name))
        listed = self.request("GET", "/api/v2/storages").json()
        items = listed.get("storages") if isinstance(listed, dict) else None
        if not isinstance(items, list):
            raise ServerError(message("openpai.bad-storages", url=self.rest_uri))
        return [{**item, "share": item.get("share", True) is not False} for item in items
                if isinstance(item, dict) and isinstance(item.get("name"), str)]

    def storage_detail(self, name: str) -> dict:
        """The server's detail of one storage, credentials in `data` (never logged or kept on disk);
        the server's 404 `NoStorageError` and 403 are said as NotFound and PermissionDenied."""
        if not self.takes_v2:
            raise Unsupported(message("openpai.no-storages", name=self.profile.name))
        detail = self.request("GET", url_path("/api/v2/storages/{name}", name=name)).json()
        if not isinstance(detail, dict):
            raise ServerError(message("openpai.bad-storages", url=self.rest_uri))
        return detail

    # -- job metrics (Kubernetes era, and the local cluster) -------------------------------------
    @property
    def prometheus_uri(self) -> str | None:
        """Where the cluster's Prometheus answers: `/prometheus` at the master, beside `/rest-server` (pylon
        proxies it with no token, openpai-k8s.md §C.1); None for a YARN-era cluster, which has none."""
        if not (self.protocol == 2 or self.profile.name == LOCAL):
            return None
        return self.rest_uri.removesuffix("/rest-server") + "/prometheus"

    def _promql(self, promql: str, window: tuple[float, float, float] | None = None) -> object:
        """The `data` of Prometheus' answer to a query, instant or over (start, end, step)."""
        base = self.prometheus_uri
        if base is None:
            raise Unsupported(message("openpai.no-metrics", name=self.profile.name))
        params: dict[str, str | float] = {"query": promql}
        path = "/api/v1/query"
        if window is not None:
            path = "/api/v1/query_range"
            params.update(zip(("start", "end", "step"), window, strict=True))
        # With the user's token, which a real cluster's /prometheus ignores and a private local cluster asks for.
        response = self.request("GET", base + path, allow=tuple(range(400, 600)), params=params)
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or "status" not in body:  # not Prometheus: none there, or it said why not
            why = detail(response.status_code, response.content)[0]
            raise Unsupported(message("openpai.no-prometheus", url=base, why=why))
        if body.get("status") != "success":
            raise ServerError(message("openpai.bad-metrics", url=base, why=str(body.get("error") or body.get("errorType"))))
        return body.get("data")

    def task_metrics(self, name: str) -> list:
        from ..core import metrics

        data = self._promql(metrics.job_query(metrics.framework_name(self.user, name)))
        try:
            return metrics.tasks_now(data)
        except metrics.BadAnswer as exc:
            raise ServerError(message("openpai.bad-metrics", url=self.prometheus_uri, why=str(exc))) from None

    def task_series(self, name: str, start: float, end: float, step: float) -> list:
        from ..core import metrics

        data = self._promql(metrics.job_query(metrics.framework_name(self.user, name)), (start, end, step))
        try:
            return metrics.series(data)
        except metrics.BadAnswer as exc:
            raise ServerError(message("openpai.bad-metrics", url=self.prometheus_uri, why=str(exc))) from None

    def quota(self) -> dict:
        raise InvalidInput(message("openpai.no-quota", name=self.profile.name))

    def registries(self) -> list[dict]:
        raise InvalidInput(message("openpai.no-registries", name=self.profile.name))

    add_registry = remove_registry = registries

    # -- capacity and waiting (openpai-k8s.md §B) ---------------------------------------------
    def cluster_state(self) -> ClusterState:
        """VCs, `?nodes`, SKU types (each permitted VC's too, under HiveD), everyone's waiting and
        running jobs, and the user's VCs: what a waiting job's explanation and the editor's check read.
        Only the VC map is required; a part an older server lacks is left empty."""
        v = "v2" if self.takes_v2 else "v1"
        vcs = self.request("GET", f"/api/{v}/virtual-clusters").json()
        nodes = self._optional(f"/api/{v}/virtual-clusters", params={"nodes": ""}) if self.takes_v2 else None
        skus = self._optional("/api/v2/cluster/sku-types") if self.takes_v2 else None
        user = self._optional(url_path("/api/v2/users/{user}" if self.takes_v2 else "/api/v1/user/{user}", user=self.user))
        permitted = user.get("virtualCluster") if isinstance(user, dict) else None
        permitted = [str(n) for n in permitted] if isinstance(permitted, list) else None
        vc_skus = {}
        if isinstance(skus, dict) and skus and isinstance(vcs, dict):
            vc_skus = {vc: self._optional("/api/v2/cluster/sku-types", params={"vc": vc}) or {}
                       for vc in (permitted if permitted is not None else list(vcs))}
        if self.takes_v2:
            jobs = self._optional("/api/v2/jobs", params={"state": "WAITING,RUNNING", "limit": 50000})
        else:
            jobs = self._optional("/api/v1/jobs")
        listed = [j for j in jobs if isinstance(j, dict) and j.get("state") in ("WAITING", "RUNNING")] if isinstance(jobs, list) else []
        state = ClusterState.from_wire(vcs, nodes if isinstance(nodes, dict) and "gpuTotal" in next(iter(nodes.values()), {}) else None,
                                       skus, listed, permitted, vc_skus, fetched_ms=int(time.time() * 1000))
        if self.profile.name == LOCAL:  # the embedded cluster says whether it runs a job larger than it scaled
            info = self._optional("/api/v2/info")
            state.scales_jobs = isinstance(info, dict) and info.get("localScalesJobs") is True
        return state

    def job_events(self, name: str) -> list[Event]:
        """`GET /api/v2/jobs/:user~:job/events` (v1.3.0+); [] from a server without the route."""
        if not self.takes_v2:
            return []
        answer = self._optional(url_path("/api/v2/jobs/{user}~{job}/events", user=self.user, job=name))
        data = answer.get("data") if isinstance(answer, dict) else None
        return [Event.from_wire(e) for e in data] if isinstance(data, list) else []

    def _optional(self, path: str, **kwargs: Any) -> Any:
        """The JSON of a GET that an older server may not have: None for its 4xx or a body that is not JSON."""
        response = self.request("GET", path, allow=(400, 403, 404, 405, 500, 501), **kwargs)
        if response.status_code >= 400:
            return None
        try:
            return response.json()
        except ValueError:
            return None

    def submit(self, config: dict) -> list[str]:
        """A v1 config, sent as it is or, to a v2 cluster, as the equivalent v2 YAML; a v2 job as YAML, or
        to a v1-only cluster as its v1 config. The server's `X-Warning`s (an obsolete key; on the local
        cluster, a job run scaled to the machine)."""
        try:
            sent = formats.of_job(config).sent(config, self.protocols)
        except Unsendable as exc:
            raise InvalidInput(exc.said(self.profile.name)) from None
        if sent.text is not None:  # the v2 route reads YAML
            response = self.request("POST", "/api/v2/jobs", content=sent.text.encode(), headers={"Content-Type": "text/yaml"})
        else:
            response = self.request("POST", url_path("/api/v1/user/{user}/jobs", user=self.user), json=sent.data)
        return [w.strip() for w in response.headers.get_list("x-warning") if w.strip()]

    def _job_path(self, name: str) -> str:
        template = "/api/v2/jobs/{user}~{job}" if self.protocol == 2 else "/api/v1/user/{user}/jobs/{job}"
        return url_path(template, user=self.user, job=name)

    def job(self, name: str) -> JobDetail:
        return JobDetail.from_json(self.request("GET", self._job_path(name)).json())

    def config(self, name: str) -> dict:
        """The submitted config (v2 servers send JSON text labelled YAML: a YAML loader reads both)."""
        import yaml

        path = f"/api/v2/jobs/{self.user}~{name}" if self.takes_v2 else self._job_path(name)
        return yaml.safe_load(self.request("GET", path + "/config").text)

    def job_exists(self, name: str) -> bool:
        try:
            self.job(name)
        except NotFound:
            return False
        return True

    def jobs(self) -> list[JobSummary]:
        if self.protocol == 2:
            listed = self.request("GET", "/api/v2/jobs", params={"username": self.user}).json()
        else:
            listed = self.request("GET", url_path("/api/v1/user/{user}/jobs", user=self.user)).json()
        return [JobSummary.from_json(job) for job in listed]

    def stop(self, name: str) -> None:
        self.request("PUT", self._job_path(name) + "/executionType", json={"value": "STOP"})

    def log_location(self, task: TaskStatus, which: str) -> str | None:
        """The URI of one log (`stdout`, `stderr`, `all`) from the task's containerLog, once it runs."""
        if not task.log or not task.ip:
            return None
        try:
            locations = LogLocations.from_json(self.request("GET", task.log.removeprefix(self.rest_uri)).json())
        except NotFound:
            return None
        return locations.uris.get(which)

    def read_log(self, uri: str, offset: int, limit: int | None = None) -> bytes:
        """Bytes of a log from `offset` on, at most `limit` (empty when nothing new)."""
        last = "" if limit is None else str(offset + limit - 1)
        headers = {"Range": f"bytes={offset}-{last}"} if offset or limit is not None else {}
        status, data = self._get_log(uri, headers)
        if status == 416:
            return b""
        if status == 200 and (offset or limit is not None):  # a server that ignores Range
            data = data[offset:] if limit is None else data[offset:offset + limit]
        return data

    def read_log_tail(self, uri: str, size: int) -> bytes:
        """A suffix range (`bytes=-size`, which the log servers take); a server that ignores it sends all."""
        status, data = self._get_log(uri, {"Range": f"bytes=-{size}"})
        return b"" if status == 416 else data[-size:]

    def log_end(self, uri: str, size: int) -> tuple[int, bytes]:
        """The last `size` bytes of a log and the offset they start at (the suffix range's Content-Range);
        a server that ignores the range sends all, whose length says it."""
        response = self.request("GET", uri, allow=(416,), headers={"Range": f"bytes=-{size}"})
        status, data = response.status_code, response.content
        if status == 416:
            return 0, b""
        found = re.match(r"bytes (\d+)-\d+/\d+", response.headers.get("content-range", "")) if status == 206 else None
        if found is None:
            return max(0, len(data) - size), data[-size:]
        return int(found.group(1)), data

    def _get_log(self, uri: str, headers: dict) -> tuple[int, bytes]:
        response = self.request("GET", uri, allow=(416,), headers=headers)
        return response.status_code, response.content

    def active_jobs(self) -> list[JobSummary] | None:
        """Unfinished jobs by the v2 list's state filter, where the server has it (OpenPAI with its
        database, the local cluster): tried once, remembered."""
        if self._filters is False:
            return None
        # The list as last sent, unless it changed: its weak ETag echoed byte for byte (a 304 has no body).
        headers = {"If-None-Match": self._listed[0]} if self._listed is not None else {}
        try:
            response = self.request("GET", "/api/v2/jobs", allow=(304,), headers=headers,
                                    params={"username": self.user, "state": ",".join(ACTIVE), "limit": 50000})
            if response.status_code == 304 and self._listed is not None:
                return list(self._listed[1])
            listed = response.json()
        except (NotFound, InvalidInput, ServerError, ValueError):
            self._filters = False
            return None
        jobs = [JobSummary.from_json(job) for job in listed] if isinstance(listed, list) else None
        tag = response.headers.get("ETag")
        self._listed = (tag, jobs) if tag and jobs is not None else None
        if jobs is None or any(job.state not in ACTIVE for job in jobs):  # the filter was ignored
            self._filters = False
            return None
        self._filters = True
        return jobs


def fill_names(value: str, job_name: str, user: str) -> str:
    """$PAI_JOB_NAME and $PAI_USER_NAME, every occurrence (the old extension replaced only the first)."""
    value = re.sub(r"\$\{?PAI_JOB_NAME\}?(?!\w)", job_name, value)
    return re.sub(r"\$\{?PAI_USER_NAME\}?(?!\w)", user, value)


def substitute(config: dict, job_name: str, user: str) -> None:
    """$PAI_JOB_NAME and $PAI_USER_NAME where the server leaves them as written: a v1 config's directories
    and commands, a v2 job's folders in `extras` (its format says)."""
    formats.of_job(config).fill_in(config, lambda value: fill_names(value, job_name, user))


def hdfs_path(uri: str) -> str:
    """The HDFS path of a codeDir such as `$PAI_DEFAULT_FS_URI/alice/x` or `hdfs://nn:9000/alice/x`."""
    path = re.sub(r"^\$\{?PAI_DEFAULT_FS_URI\}?", "", uri)
    path = re.sub(r"^[a-z]+://[^/]*", "", path)
    if not path.startswith("/") or "$" in path:
        raise InvalidInput(message("openpai.code-dir", uri=uri))
    return path
