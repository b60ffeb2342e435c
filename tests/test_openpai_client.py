"""The OpenPAI client in-process, against answers a real rest-server gives (httpx.MockTransport):
token renewal, what each failure becomes, v1 and v2 routes, logs by byte range."""

from __future__ import annotations

import json

import httpx
import pytest
import yaml

from pai_lsp.clusters.openpai import OpenPai
from pai_lsp.clusters.profiles import Profile
from pai_lsp.core.openpai_rest import TaskStatus
from pai_lsp.errors import AuthFailed, InvalidInput, NameTaken, NotFound, PermissionDenied, ServerError, Unreachable

BASE = "http://pai.example.com/rest-server"
DETAIL = {"name": "j", "jobStatus": {"state": "RUNNING", "createdTime": 5, "appExitCode": None, "appExitDiagnostics": None},
          "taskRoles": {"worker": {"taskRoleStatus": {"name": "worker"}, "taskStatuses": [
              {"taskIndex": 0, "taskState": "RUNNING", "containerIp": "10.1.2.3", "containerPorts": {"ssh": "2201"},
               "containerExitCode": None, "containerLog": f"{BASE}/api/v2/jobs/alice~j/attempts/0/taskRoles/worker/taskIndex/0/attempts/0/logs"},
              {"taskIndex": 1, "taskState": "WAITING", "containerIp": None, "containerLog": None}]}}}


def client(handler, protocol: int = 1, token: str | None = "good", renewed: list | None = None) -> OpenPai:
    profile = Profile("lab", BASE, "http://pai.example.com:50070", "alice", "openpai", protocol)
    return OpenPai(profile, lambda: "pw", token=token, on_token=(renewed.append if renewed is not None else None),
                   transport=httpx.MockTransport(handler))


def test_an_expired_token_is_renewed_once_without_asking():
    seen, renewed = [], []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.url.path, request.headers.get("authorization")))
        if request.url.path.endswith("/api/v1/token"):
            assert json.loads(request.content) == {"username": "alice", "password": "pw"}
            return httpx.Response(200, json={"token": "fresh"})
        if request.headers["authorization"] != "Bearer fresh":
            return httpx.Response(401, json={"code": "UnauthorizedUserError", "message": "Your token is invalid."})
        return httpx.Response(200, json=[{"name": "j", "state": "RUNNING", "username": "alice", "createdTime": 1}])

    jobs = client(handler, token="stale", renewed=renewed).jobs()
    assert [(j.name, j.state, j.user) for j in jobs] == [("j", "RUNNING", "alice")] and renewed == ["fresh"]
    assert [s[1] for s in seen] == ["/rest-server/api/v1/user/alice/jobs", "/rest-server/api/v1/token",
                                    "/rest-server/api/v1/user/alice/jobs"]


@pytest.mark.parametrize("status,body,error,message", [
    (404, {"code": "NoJobError", "message": "Job j is not found."}, NotFound, "the cluster answered 404 NoJobError: Job j is not found."),
    (403, {"code": "ForbiddenUserError", "message": "no"}, PermissionDenied, "the cluster answered 403 ForbiddenUserError: no"),
    (409, {"code": "ConflictJobError", "message": "Job name j already exists."}, NameTaken, "the cluster answered 409 ConflictJobError: Job name j already exists."),
    (400, {"code": "InvalidParametersError", "message": '"jobName" is required'}, InvalidInput, 'the cluster answered 400 InvalidParametersError: "jobName" is required'),
    (502, b"<html>Bad Gateway</html>\n<p>nginx</p>", ServerError, "the cluster answered 502: <html>Bad Gateway</html>"),
])
def test_each_failure_is_one_typed_line(status, body, error, message):
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    with pytest.raises(error) as caught:
        client(lambda request: httpx.Response(status, content=content)).job("j")
    assert caught.value.message == message


def test_unreachable_and_refused_logins():
    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(Unreachable, match=f"cannot reach the cluster at {BASE}"):
        client(refused).jobs()
    wrong = lambda request: httpx.Response(400, json={"code": "IncorrectPasswordError", "message": "Password is incorrect."})  # noqa: E731
    with pytest.raises(AuthFailed, match="login to .* as alice failed: Password is incorrect."):
        client(wrong, token=None).jobs()


def test_job_detail_and_logs_by_byte_range():
    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/rest-server/api/v1/user/alice/jobs/j":
            return httpx.Response(200, json=DETAIL)
        if path.endswith("/logs"):
            return httpx.Response(200, json={"locations": [{"name": n, "uri": f"{path}/{n}"} for n in ("stdout", "all")]})
        if path.endswith("/logs/all"):
            data = b"hello world\n"
            start = int(request.headers.get("range", "bytes=0-")[6:].rstrip("-") or 0)
            return httpx.Response(416) if start >= len(data) else httpx.Response(206, content=data[start:])
        return httpx.Response(404, json={"code": "NoApiError", "message": path})

    pai = client(handler)
    job = pai.job("j")
    assert (job.name, job.state, job.created, job.diagnostics) == ("j", "RUNNING", 5, "")
    running, waiting = job.tasks
    assert (running.label, running.ip, running.ports) == ("worker:0", "10.1.2.3", {"ssh": "2201"})
    assert pai.log_location(waiting, "all") is None  # not started: no log yet
    location = pai.log_location(running, "all")
    assert location.endswith("/logs/all") and pai.log_location(running, "stderr") is None
    assert pai.read_log(location, 0) == b"hello world\n" and pai.read_log(location, 6) == b"world\n"
    assert pai.read_log(location, 12) == b""  # 416: nothing new
    gone = TaskStatus("worker", 2, "RUNNING", ip="10.1.2.4", log=f"{BASE}/api/v2/jobs/alice~j/nothing")
    assert pai.log_location(gone, "all") is None  # 404: the log is not there (yet)


def test_protocol_2_uses_v2_routes_and_yaml():
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.method == "POST":
            return httpx.Response(202, json={"status": 202})
        if request.url.path.endswith("/config"):
            return httpx.Response(200, text=json.dumps({"protocolVersion": 2, "name": "j"}), headers={"content-type": "text/yaml"})
        if request.url.path == "/rest-server/api/v2/jobs":
            return httpx.Response(200, json=[{"name": "j", "state": "SUCCEEDED", "appExitCode": 0}])
        return httpx.Response(200, json=DETAIL)

    pai = client(handler, protocol=2)
    pai.submit({"jobName": "j", "image": "img", "taskRoles": [{"name": "train.v1", "command": "echo hi"}]})
    sent = yaml.safe_load(requests[-1].content)
    assert requests[-1].url.path == "/rest-server/api/v2/jobs" and requests[-1].headers["content-type"] == "text/yaml"
    assert sent["protocolVersion"] == 2 and list(sent["taskRoles"]) == ["train_v1"]
    assert sent["taskRoles"]["train_v1"]["extraContainerOptions"] == {"shmMB": 64}  # the schema's default
    assert pai.config("j") == {"protocolVersion": 2, "name": "j"}
    assert [(j.name, j.exit_code) for j in pai.jobs()] == [("j", 0)] and requests[-1].url.params["username"] == "alice"
    pai.job("j")
    pai.stop("j")
    assert requests[-2].url.path == "/rest-server/api/v2/jobs/alice~j"
    assert (requests[-1].method, requests[-1].url.path) == ("PUT", "/rest-server/api/v2/jobs/alice~j/executionType")


def test_cluster_state_from_a_server_without_hived_nodes_or_events():
    """A Kubernetes-era server before v1.3.0: no events route, no SKU types; `?nodes` ignored (the VC map again)."""
    vcs = {"default": {"resourcesUsed": {"cpu": 2, "memory": 1024, "gpu": 1}, "resourcesGuaranteed": {"cpu": 8, "memory": 8192, "gpu": 4},
                       "resourcesTotal": {"cpu": 8, "memory": 8192, "gpu": 4}}}
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix("/rest-server")
        seen.append((path, str(request.url.params)))
        if path == "/api/v2/virtual-clusters":
            return httpx.Response(200, json=vcs)
        if path == "/api/v2/users/alice":
            return httpx.Response(200, json={"username": "alice", "virtualCluster": ["default"]})
        if path == "/api/v2/jobs":
            return httpx.Response(200, json=[{"name": "w", "username": "bob", "state": "WAITING", "virtualCluster": "default",
                                              "submissionTime": 7, "jobPriority": None, "totalGpuNumber": 4, "totalTaskNumber": 1}])
        return httpx.Response(404, json={"code": "NoApiError", "message": f"The API {path} not found."})

    backend = client(handler, protocol=2)
    state = backend.cluster_state()
    assert state.vcs["default"].free.gpu == 3 and state.nodes == {} and state.skus == {} and state.permitted == ["default"]
    assert [(j.name, j.state, j.gpus) for j in state.jobs] == [("bob~w", "WAITING", 4)]
    assert ("/api/v2/jobs", "state=WAITING%2CRUNNING&limit=50000") in seen
    assert backend.job_events("w") == []
