"""PaddlePaddle Cloud (paddlecloud-scm.md Part A) as a `Backend`: its Django REST API, its file server
(PFS) as the storage, both over one pooled HTTP client (storage/session.py).

What the server makes the client do (§A.19): treat HTTP 200 with a non-empty `msg` (or a `code`
other than 200) as a failure; always send the trailing slash and `n` for logs; keep the token per
(endpoint, user) and fetch a new one on 401; upload the package to the one place the server looks;
add the `pcloud-registry-` prefix; derive each job's state from the Kubernetes lists (§A.6), as
there is no job detail; follow logs by polling tail lines (§A.8).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx

from ..core import paddle
from ..core.capacity import ClusterState, Event
from ..core.messages import message
from ..core.openpai_rest import JobDetail, JobSummary, TaskStatus
from ..errors import AuthFailed, InvalidInput, NameTaken, NotFound, PaiError, PermissionDenied, ServerError, Unsupported
from ..storage import session
from ..storage.http import answer_error, at_paddlecloud, request
from .backend import Backend

if TYPE_CHECKING:
    from ..storage.pfs import Pfs
    from ..storage.upload import Progress, Selected, UploadResult
    from .profiles import Profile

LOG_LINES = 2000  # lines asked for beyond those already read; more when a log grew faster
PHASES = {"Pending": "WAITING", "Running": "RUNNING", "Succeeded": "SUCCEEDED", "Failed": "FAILED", "Unknown": "WAITING"}


class PaddleCloud(Backend):
    def __init__(self, profile: Profile, password: Callable[[], str | None], token: str | None = None,
                 on_token: Callable[[str], None] | None = None, transport: httpx.BaseTransport | None = None):
        self.profile = profile
        self.endpoint = profile.rest_uri.rstrip("/")
        self.user = profile.user
        self.datacenter = profile.datacenter or profile.name
        self._password, self.token, self._on_token = password, token, on_token
        self.http = session.client(self.endpoint, transport=transport)  # the REST API and PFS alike
        self._renewed = session.Renewed(self._token)
        self._storage: Pfs | None = None
        self.stopped: set[str] = set()  # killed through this session: gone on the server, STOPPED here
        self.submitted: dict[str, dict] = {}
        self._log_hint: dict[str, tuple[int, int]] = {}  # log location -> (bytes read, lines in them)

    @property
    def storage(self) -> Pfs:
        if self._storage is None:
            from ..storage.pfs import Pfs

            self._storage = Pfs(self.profile.webhdfs_uri, self.user, self.datacenter, self._authorization, self.login,
                                http=self.http)
        return self._storage

    def close(self) -> None:
        if self._storage is not None:
            self._storage.close()
        self.http.close()

    # -- transport -------------------------------------------------------------------------
    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return request(self.http, method, path, what=at_paddlecloud(self.endpoint), **kwargs)

    def login(self) -> None:
        password = self._password()
        if not password:
            raise AuthFailed(message("http.no-password", user=self.user, url=self.endpoint, name=self.profile.name))
        response = self._send("POST", "/api-token-auth/", json={"username": self.user, "password": password})
        try:
            body = response.json()
        except ValueError:
            body = {}
        if response.status_code != 200 or not isinstance(body, dict) or "token" not in body:
            detail = "; ".join(str(v[0] if isinstance(v, list) and v else v) for v in body.values()) if isinstance(body, dict) else ""
            raise AuthFailed(message("http.login-failed", url=self.endpoint, user=self.user, why=detail or f"HTTP {response.status_code}"))
        self.token = str(body["token"])
        if self._on_token:
            self._on_token(self.token)

    def _token(self, renew: bool = False) -> str:
        if renew or self.token is None:
            self.login()
        assert self.token is not None
        return self.token

    def _authorization(self) -> str:
        return f"Token {self._token()}"

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """An authenticated request; on 401 a new token is fetched once without asking the user."""
        def send(token: str | None) -> httpx.Response:
            return self._send(method, path, headers={"Authorization": f"Token {token}"}, **kwargs)

        response = session.authorized(send, self._renewed.fresher, lambda answer, _: answer.status_code == 401, self._token())
        if response.status_code == 401:
            raise AuthFailed(message("http.credentials-of", what=at_paddlecloud(self.endpoint), user=self.user))
        if response.status_code >= 400:
            raise answer_error(response.status_code, response.content, at_paddlecloud(self.endpoint))
        return response

    def api(self, method: str, path: str, result_in_msg: bool = False, **kwargs: Any) -> Any:
        """The JSON answer; HTTP 200 with a `msg` string, or a `code` other than 200, is a failure (§A.3)
        — unless `result_in_msg` (the logs and registry lists answer `{"code": 200, "msg": <result>}`)."""
        response = self.request(method, path, **kwargs)
        try:
            body = response.json()
        except ValueError:
            raise ServerError(message("http.not-json", what=at_paddlecloud(self.endpoint), to=f" ({method} {path})")) from None
        if isinstance(body, dict):
            said, code = body.get("msg"), body.get("code")
            failed = code != 200 if result_in_msg else (isinstance(said, str) and said) or (code is not None and code != 200)
            if failed:
                raise failure(one_line(str(said or f"code {code}")))
        return body

    # -- jobs --------------------------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        """`<name>-<8 hex>`: PaddlePaddle Cloud forbids `_`; the base is cut so the whole stays ≤ 52."""
        return f"{base[:paddle.NAME_MAX - 9].rstrip('-')}-{secrets.token_hex(4)}"

    def place_job(self, config: dict, name: str) -> str:
        """The name into the submit body; the package goes where the server looks (§A.5.3)."""
        config["name"] = name
        return self.package(name)

    def converted(self, config: dict) -> dict | None:
        return None  # a submit body goes as it is

    def package(self, name: str) -> str:
        return f"/pfs/{self.datacenter}/home/{self.user}/jobs/{name}"

    def upload(self, files: list[Selected], remote: str, progress: Progress | None = None) -> UploadResult:
        from ..storage.pfs import upload

        return upload(self.storage, files, remote, progress=progress)

    def unchanged(self, files: list[Selected], remote: str) -> int:
        from ..storage.pfs import unchanged_files

        return unchanged_files(self.storage, files, remote)

    def submit(self, config: dict) -> list[str]:
        body = {**paddle.defaults(), **config}
        body.pop("$schema", None)
        body["registry"] = paddle.registry_name(str(body.get("registry") or ""))
        body |= {"datacenter": self.datacenter, "jobPackage": self.package(body["name"]),
                 "min_instance": body.get("minInstance", 1), "max_instance": body.get("maxInstance", 1)}
        self.api("POST", "/api/v1/jobs/", json=body)
        self.submitted[body["name"]] = body
        self.stopped.discard(body["name"])
        return []  # its submit answer has no warnings to pass on

    def _lists(self) -> tuple[dict, list[dict]]:
        return self.api("GET", "/api/v1/jobs/"), (self.api("GET", "/api/v1/workers/", params={"jobname": ""}).get("items") or [])

    def job_exists(self, name: str) -> bool:
        """In use while any of its objects exist, also while its pods still terminate (§A.9)."""
        listed, pods = self._lists()
        return _item(listed, name) is not None or name in (listed.get("terminating") or []) or bool(_pods_of(pods, name))

    def jobs(self) -> list[JobSummary]:
        listed = self.api("GET", "/api/v1/jobs/")
        out = []
        for item in listed.get("items") or []:
            name = str(item["metadata"]["name"]).rsplit("-", 1)[0]
            out.append(JobSummary(name=name, state=derive(item, listed), user=self.user, created=_ms(item["metadata"].get("creation_timestamp")),
                                  completed=_ms((item.get("status") or {}).get("completion_time"))))
        known = {j.name for j in out}
        for name in listed.get("terminating") or []:
            if name not in known:
                out.append(JobSummary(name=name, state="STOPPING", user=self.user))
        return out

    def job(self, name: str) -> JobDetail:
        listed, pods = self._lists()
        item = _item(listed, name)
        mine = _pods_of(pods, name)
        if item is None and not mine and name not in (listed.get("terminating") or []):
            if name in self.stopped:
                return JobDetail(name=name, state="STOPPED", diagnostics=message("paddle.stopped-by-user"))
            raise NotFound(message("paddle.no-job-kept", job=name, cluster=self.profile.name))
        tasks = []
        for role, label in (("pserver", "paddle-job-pserver"), ("trainer", "paddle-job")):
            chosen = sorted((p for p in mine if (p["metadata"].get("labels") or {}).get(label) == name), key=_task_order)
            tasks += [_task(role, i, pod, name) for i, pod in enumerate(chosen)]
        state = derive(item, listed) if item is not None else ("STOPPING" if mine or name in (listed.get("terminating") or [])
                                                                else "STOPPED")
        if item is None and name in self.stopped and state != "STOPPING":
            state = "STOPPED"
        status = (item or {}).get("status") or {}
        failed = [t for t in tasks if t.state == "FAILED" and t.role == "trainer"]
        diagnostics = ("" if not failed else message("paddle.trainer-failed-why", worker=failed[0].worker, why=failed[0].message)
                       if failed[0].message else message("paddle.trainer-failed", worker=failed[0].worker))
        return JobDetail(name=name, state=state, created=_ms(((item or {}).get("metadata") or {}).get("creation_timestamp")),
                         completed=_ms(status.get("completion_time")),
                         exit_code=(0 if state == "SUCCEEDED" else failed[0].exit_code if failed else None),
                         diagnostics=diagnostics, tasks=tasks, numbered=all(t.ip for t in tasks))

    def config(self, name: str) -> dict:
        if name in self.submitted:
            return dict(self.submitted[name])
        raise NotFound(message("paddle.no-config-kept", job=name))

    def stop(self, name: str) -> None:
        """§A.9: its pods terminate in the background; the name stays in use until they are gone."""
        try:
            self.api("DELETE", "/api/v1/jobs/", json={"jobname": name})
        except NotFound:
            raise NotFound(message("jobs.no-such", job=name, cluster=self.profile.name)) from None
        self.stopped.add(name)

    def log_location(self, task: TaskStatus, which: str) -> str | None:
        return task.log if task.state != "WAITING" else None

    def active_jobs(self) -> list[JobSummary] | None:
        return None  # no state filter on the job list: the daemon looks at each watched job

    def read_log_tail(self, location: str, size: int) -> bytes:
        """The server gives only tail lines: the whole log is asked for (its lines), its end kept."""
        return self.read_log(location, 0)[-size:]

    def read_log(self, location: str, offset: int, limit: int | None = None) -> bytes:
        """The pod's log from byte `offset` on. The server gives only tail lines, so as many lines are
        asked for as make the whole log (fewer came back than were asked for); a log is only ever
        appended to, so byte `offset` is where the last read stopped: no line lost or repeated."""
        job, _, pod = location.partition("/")
        seen_bytes, seen_lines = self._log_hint.get(location, (0, 0))
        lines = (seen_lines if seen_bytes <= offset else 0) + LOG_LINES
        while True:
            text = self.api("GET", "/api/v1/logs/", True, params={"jobname": job, "n": lines, "w": pod}).get("msg") or ""
            if not isinstance(text, str):
                return b""
            if _count_lines(text) < lines:
                break
            lines *= 4
        data = text.encode("utf-8")
        if re.match(r"^\(\d{3}\)\nReason: ", text):
            return b""  # Kubernetes' error for a pod not started yet (or gone): no log yet
        self._log_hint[location] = (len(data), data.count(b"\n"))
        return data[offset:] if limit is None else data[offset:offset + limit]

    # -- what only PaddlePaddle Cloud has ------------------------------------------------------
    def storages(self) -> list[dict]:
        raise Unsupported(message("paddle.no-storages", name=self.profile.name))

    def storage_detail(self, name: str) -> dict:
        raise Unsupported(message("paddle.no-storages", name=self.profile.name))

    def cluster_state(self) -> ClusterState:
        raise Unsupported(message("paddle.no-capacity", name=self.profile.name))

    def job_events(self, name: str) -> list[Event]:
        return []  # its API keeps no scheduler events

    def task_metrics(self, name: str) -> list:
        raise Unsupported(message("paddle.no-metrics", name=self.profile.name))

    def task_series(self, name: str, start: float, end: float, step: float) -> list:
        raise Unsupported(message("paddle.no-metrics", name=self.profile.name))

    def quota(self) -> dict:
        items = self.api("GET", "/api/v1/quota/").get("items") or []
        status = (items[0].get("status") or {}) if items else {}
        hard, used = status.get("hard") or {}, status.get("used") or {}
        keys = {"cpu": "requests.cpu", "memory": "requests.memory", "gpu": "alpha.kubernetes.io/nvidia-gpu", "maxParallelism": "pods"}
        return {"cluster": self.profile.name, "limits": {k: hard.get(v) for k, v in keys.items()},
                "used": {k: used.get(v) for k, v in keys.items()}}

    def registries(self) -> list[dict]:
        listed = self.api("GET", "/api/v1/registry/", True).get("msg") or {}
        return [{"name": item["metadata"]["name"][len(paddle.REGISTRY_PREFIX):], "secret": item["metadata"]["name"],
                 "created": item["metadata"].get("creation_timestamp")}
                for item in (listed.get("items") or []) if str(item["metadata"]["name"]).startswith(paddle.REGISTRY_PREFIX)]

    def add_registry(self, name: str, username: str, password: str, server: str) -> dict:
        secret = paddle.registry_name(name)
        self.api("POST", "/api/v1/registry/", json={"name": secret, "username": username, "password": password, "server": server})
        return {"name": secret[len(paddle.REGISTRY_PREFIX):], "secret": secret}

    def remove_registry(self, name: str) -> dict:
        secret = paddle.registry_name(name)
        self.api("DELETE", "/api/v1/registry/", json={"name": secret})
        return {"name": secret[len(paddle.REGISTRY_PREFIX):], "secret": secret}


def derive(item: dict, listed: dict) -> str:
    """A job's state from its trainer Job (§A.6), in the words OpenPAI jobs use."""
    name = str(item["metadata"]["name"]).rsplit("-", 1)[0]
    if name in (listed.get("terminating") or []):
        return "STOPPING"
    status, spec = item.get("status") or {}, item.get("spec") or {}
    parallelism = spec.get("completions") or spec.get("parallelism") or 1
    if (status.get("succeeded") or 0) >= parallelism:
        return "SUCCEEDED"
    if (status.get("failed") or 0) > 0:
        return "FAILED"
    if (status.get("active") or 0) > 0:
        return "RUNNING"
    return "WAITING"


def _item(listed: dict, name: str) -> dict | None:
    return next((i for i in listed.get("items") or [] if i["metadata"]["name"] == f"{name}-trainer"), None)


def _pods_of(pods: list[dict], name: str) -> list[dict]:
    return [p for p in pods if name in ((p["metadata"].get("labels") or {}).get("paddle-job"),
                                        (p["metadata"].get("labels") or {}).get("paddle-job-pserver"))]


def _task_order(pod: dict) -> tuple:
    """Tasks are numbered as the platform numbers its trainers: by pod address, sorted as text
    (`k8s_tools.py fetch_id`), so `trainer:1` is the trainer whose PADDLE_INIT_TRAINER_ID is 1;
    pods without an address yet come last, by name."""
    ip = (pod.get("status") or {}).get("pod_ip")
    return (ip is None, ip or "", pod["metadata"]["name"])


def _task(role: str, index: int, pod: dict, job: str) -> TaskStatus:
    status = pod.get("status") or {}
    containers = status.get("container_statuses") or [{}]
    terminated = ((containers[0] or {}).get("state") or {}).get("terminated") or {}
    state = "STOPPING" if pod["metadata"].get("deletion_timestamp") else PHASES.get(status.get("phase") or "", "WAITING")
    return TaskStatus(role=role, index=index, state=state, ip=status.get("pod_ip"), exit_code=terminated.get("exit_code"),
                      log=f"{job}/{pod['metadata']['name']}", worker=pod["metadata"]["name"],
                      started=_ms(status.get("start_time")), message=terminated.get("message") or "")


def _ms(stamp: Any) -> int | None:
    if not stamp:
        return None
    try:
        return int(datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def _count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def one_line(message: str) -> str:
    """A server message (often Kubernetes' several lines) as one line."""
    lines = [line.strip() for line in message.splitlines() if line.strip() and not line.startswith("HTTP response headers")]
    return "; ".join(lines)[:500]


def failure(message: str) -> PaiError:
    """The error class a `msg` stands for."""
    if "already exists" in message or "Conflict" in message:
        return NameTaken(message)
    if "Not Found" in message or "not found" in message or "not exist" in message:
        return NotFound(message)
    if "Forbidden" in message or "quota" in message.lower():
        return PermissionDenied(message)
    return InvalidInput(message)
