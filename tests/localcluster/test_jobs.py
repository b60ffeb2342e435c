"""Jobs on the local cluster over real HTTP: submission rules, lifecycle, environment, logs, stop."""

from __future__ import annotations

import json
import os
import time

import httpx
import psutil
import pytest

from ..helpers.localcluster import PASSWORD, USER, detail, finished, job, log, role, secret_file, submit, task_pids, wait_for

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process


def test_login_forms_and_auth_errors(cluster):
    form = httpx.post(f"{cluster.url}/api/v1/authn/basic/login", data={"username": USER, "password": PASSWORD})
    assert form.status_code == 200 and form.json()["user"] == USER and form.json()["admin"] is True
    prefixed = httpx.post(f"{cluster.url}/rest-server/api/v1/token", json={"username": USER, "password": PASSWORD})
    assert prefixed.status_code == 200
    wrong = httpx.post(f"{cluster.url}/api/v1/token", json={"username": USER, "password": "nope-nope"})
    assert (wrong.status_code, wrong.json()["code"]) == (400, "IncorrectPasswordError")
    nobody = httpx.post(f"{cluster.url}/api/v1/token", json={"username": "zed", "password": "whatever"})
    assert (nobody.status_code, nobody.json()) == (400, {"code": "NoUserError", "message": "User zed is not found."})
    guest = httpx.post(f"{cluster.url}/api/v1/user/{USER}/jobs", json={})
    assert (guest.status_code, guest.json()["code"]) == (401, "UnauthorizedUserError")
    bad = httpx.get(f"{cluster.url}/api/v2/jobs", headers={"Authorization": "Bearer x.y.z"})
    assert (bad.status_code, bad.json()) == (401, {"code": "UnauthorizedUserError", "message": "Your token is invalid."})
    unknown = httpx.get(f"{cluster.url}/api/v9/whatever")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "NoApiError")


def test_expired_token_is_refused(cluster):
    token = httpx.post(f"{cluster.url}/api/v1/token", json={"username": USER, "password": PASSWORD, "expiration": 60}).json()["token"]
    assert cluster.client(token).get("/api/v2/jobs").status_code == 200
    # Forge the expiry into the past with the same secret: what a week-old token looks like.
    import base64
    import hashlib
    import hmac
    header, payload, _ = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["exp"] = int(time.time()) - 1
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    secret = secret_file(cluster.data_dir, "token-secret").read_text().strip().encode()
    signature = base64.urlsafe_b64encode(hmac.new(secret, f"{header}.{payload}".encode(), hashlib.sha256).digest()).rstrip(b"=").decode()
    expired = cluster.client(f"{header}.{payload}.{signature}").get("/api/v2/jobs")
    assert (expired.status_code, expired.json()["code"]) == (401, "UnauthorizedUserError")


@pytest.mark.parametrize("mutation,message", [
    ({"jobName": "a~b"}, 'child "jobName" fails because ["jobName" with value "a~b" fails to match the required pattern'),
    ({"retryCount": -3}, 'child "retryCount" fails because ["retryCount" must be larger than or equal to -2]'),
    ({"foo": 1}, '"foo" is not allowed'),
    ({"taskRoles": [{"name": "ps-0", "command": "x"}]}, '["taskRoles" at position 0 fails because [child "name" fails'),
    ({"taskRoles": [{"name": "w", "command": "x", "shmMB": 200}]}, '"shmMB" must be less than or equal to 100'),
    ({"taskRoles": [{"name": "w", "command": "x", "taskNumber": 2, "minSucceededTaskCount": 3}]},
     "minFailedTaskCount or minSucceededTaskCount should not be greater than tasks number."),
])
def test_v1_validation_matches_the_server(cluster, mutation, message):
    with cluster.client() as c:
        response = submit(c, {**job("bad", role("w", "true")), **mutation})
    assert response.status_code == 400
    assert response.json()["code"] == "InvalidParametersError"
    assert message in response.json()["message"]


def test_submit_defaults_config_conflict_and_list(cluster):
    with cluster.client() as c:
        body = job("hello", role("main", "echo hi"))
        body["taskRoles"][0]["taskNumber"] = "1"  # Joi converts
        first = submit(c, body)
        assert first.status_code == 201 and first.headers["location"].endswith(f"/api/v1/user/{USER}/jobs/hello")
        assert first.json()["jobStatus"]["name"] == f"{USER}~hello"
        again = submit(c, body)
        assert (again.status_code, again.json()) == (409, {"code": "ConflictJobError", "message": "Job name hello already exists"})
        assert c.get(f"/api/v1/user/{USER}/jobs/hello/config").json() == body  # the original, not the defaulted one
        done = finished(c, "hello")
        assert done["jobStatus"]["state"] == "SUCCEEDED" and done["jobStatus"]["appExitCode"] == 0
        assert log(cluster, c, "hello", "main") == "hi\n"
        names = [j["name"] for j in c.get("/api/v1/jobs", params={"username": USER}).json()]
        assert "hello" in names
        missing = c.get(f"/api/v1/user/{USER}/jobs/nope")
        assert (missing.status_code, missing.json()) == (404, {"code": "NoJobError", "message": "Job nope is not found."})
        vc = submit(c, job("vc", role("main", "true"), virtualCluster="gpu-only"))
        assert (vc.status_code, vc.json()["code"]) == (404, "NoVirtualClusterError")
        huge = submit(c, job("huge", role("main", "true", cpuNumber=10_000)))  # beyond the machine: run scaled
        assert huge.status_code == 201 and "the job asks for 10000 CPUs, this machine has 64" in huge.headers["x-warning"]


def test_distributed_job_sees_each_others_variables(cluster):
    script = ('echo "$PAI_JOB_NAME|$PAI_CURRENT_TASK_ROLE_NAME|$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX|'
              '$PAI_TASK_ROLE_LIST|$PAI_HOST_IP_ps_1|$PAI_TASK_ROLE_TASK_COUNT_worker|$PAI_PORT_LIST_worker_1_tb|'
              '$PAI_CONTAINER_HOST_tb_PORT_LIST|$PAI_TASK_ROLE_worker_HOST_LIST|$PAI_DEFAULT_FS_URI|$MY_SETTING"')
    ports = [{"label": "tb", "beginAt": 0, "portNumber": 1}]
    body = job("dist", role("ps", script, taskNumber=2, portList=ports), role("worker", script, taskNumber=2, portList=ports),
               jobEnvs={"MY_SETTING": "verbatim $HOME"})
    with cluster.client() as c:
        assert submit(c, body).status_code == 201
        done = finished(c, "dist")
        assert done["jobStatus"]["state"] == "SUCCEEDED"
        statuses = done["taskRoles"]["worker"]["taskStatuses"]
        tb_port_1 = statuses[1]["containerPorts"]["tb"]
        lines = {}
        for r in ("ps", "worker"):
            for i in (0, 1):
                lines[(r, i)] = log(cluster, c, "dist", r, i).strip().split("|")
    ps0 = lines[("ps", 0)]
    assert ps0[:6] == [f"{USER}~dist", "ps", "0", "ps,worker", "127.0.0.1", "2"]
    assert ps0[6] == tb_port_1  # another task's port, as this task sees it
    assert lines[("worker", 1)][7] == tb_port_1  # the task's own port list
    http = [s["containerPorts"]["http"] for s in statuses]
    assert ps0[8] == f"127.0.0.1:{http[0]},127.0.0.1:{http[1]}"
    assert ps0[9].startswith("hdfs://127.0.0.1:")
    assert ps0[10] == "verbatim $HOME"


def test_completion_policies(cluster):
    with cluster.client() as c:
        # Default minFailedTaskCount 1: one failing task fails the job and stops the others.
        submit(c, job("fail-fast", role("r", 'if [ "$PAI_TASK_INDEX" = 1 ]; then exit 3; fi; sleep 30', taskNumber=2)))
        failed = finished(c, "fail-fast")
        assert failed["jobStatus"]["state"] == "FAILED" and failed["jobStatus"]["appExitCode"] == 255
        assert failed["jobStatus"]["appExitTriggerTaskRoleName"] == "r" and failed["jobStatus"]["appExitTriggerTaskIndex"] == 1
        states = [t["taskState"] for t in failed["taskRoles"]["r"]["taskStatuses"]]
        assert states == ["STOPPED", "FAILED"]
        assert "exited with code 3" in failed["jobStatus"]["appExitDiagnostics"]
        # minFailedTaskCount null: failures never fail the job.
        submit(c, job("tolerant", role("r", 'exit "$PAI_TASK_INDEX"', taskNumber=2, minFailedTaskCount=None)))
        assert finished(c, "tolerant")["jobStatus"]["state"] == "SUCCEEDED"
        # minSucceededTaskCount 1: the first success ends the job, the rest are stopped.
        submit(c, job("first-wins", role("r", 'if [ "$PAI_TASK_INDEX" = 0 ]; then exit 0; fi; sleep 30', taskNumber=2,
                                           minSucceededTaskCount=1)))
        won = finished(c, "first-wins")
        assert won["jobStatus"]["state"] == "SUCCEEDED"
        assert [t["taskState"] for t in won["taskRoles"]["r"]["taskStatuses"]] == ["SUCCEEDED", "STOPPED"]


def test_retry_count(cluster):
    with cluster.client() as c:
        submit(c, job("retry", role("r", f'echo try >> {cluster.data_dir}/retry-count; exit 1'), retryCount=2))
        done = finished(c, "retry")
        assert done["jobStatus"]["state"] == "FAILED" and done["jobStatus"]["retries"] == 2
        assert (cluster.data_dir / "retry-count").read_text().count("try") == 3


def test_stop_leaves_no_process_behind(cluster):
    with cluster.client() as c:
        submit(c, job("sleeper", role("r", "sleep 300 & sleep 300 & wait", taskNumber=2)))
        running = wait_for(lambda: (d := detail(c, "sleeper"))["jobStatus"]["state"] == "RUNNING" and d)
        del running
        pids = wait_for(lambda: task_pids("sleeper") if len(task_pids("sleeper")) >= 6 else None)
        stop = c.put(f"/api/v1/user/{USER}/jobs/sleeper/executionType", json={"value": "STOP"})
        assert (stop.status_code, stop.json()) == (202, {"message": "execute job sleeper successfully"})
        done = finished(c, "sleeper")
        assert done["jobStatus"]["state"] == "STOPPED" and done["jobStatus"]["appExitCode"] == -7351
        wait_for(lambda: not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE for p in pids), 10)


def test_logs_tailed_by_offset_while_the_task_prints(cluster):
    with cluster.client() as c:
        submit(c, job("printer", role("r", 'for i in $(seq 1 30); do echo "line $i"; sleep 0.05; done; echo oops >&2')))
        task = detail(c, "printer")["taskRoles"]["r"]["taskStatuses"][0]
        locations = wait_for(lambda: c.get(task["containerLog"]).json().get("locations"))  # once the task has started
        uri = next(x["uri"] for x in locations if x["name"] == "stdout")
        seen = b""
        while True:
            part = c.get(uri, headers={"Range": f"bytes={len(seen)}-"})
            if part.status_code == 206:
                seen += part.content
            if detail(c, "printer")["jobStatus"]["state"] == "SUCCEEDED" and part.status_code in (206, 416) and len(part.content) == 0:
                break
            time.sleep(0.05)
        assert seen.decode().splitlines() == [f"line {i}" for i in range(1, 31)]
        tail = c.get(uri, params={"tail-mode": "true"})
        assert tail.text.endswith("line 30\n")
        assert log(cluster, c, "printer", "r", which="stderr") == "oops\n"
        assert "line 30" in log(cluster, c, "printer", "r", which="all") and "oops" in log(cluster, c, "printer", "r", which="all")


def test_code_dir_on_hdfs_is_copied_into_the_working_directory(cluster):
    base = f"{cluster.hdfs_url}/webhdfs/v1/{USER}/codejob"
    httpx.put(f"{base}/run.sh?op=CREATE&user.name={USER}&datanode=true", content=b"echo from-code $1\n")
    # Neither an upload still in flight nor a snapshot is part of the code.
    (cluster.data_dir / "hdfs" / USER / "codejob" / ".run.sh.1.2.3.pai-upload").write_text("half")
    superuser = f"user.name={__import__('getpass').getuser()}"
    httpx.put(f"{base}?op=ALLOWSNAPSHOT&{superuser}")
    assert httpx.put(f"{base}?op=CREATESNAPSHOT&snapshotname=s0&{superuser}").status_code == 200
    body = job("codejob", role("r", "cd $PAI_JOB_NAME && ls -A && bash run.sh ok"), codeDir="$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME")
    with cluster.client() as c:
        submit(c, body)
        assert finished(c, "codejob")["jobStatus"]["state"] == "SUCCEEDED"
        assert log(cluster, c, "codejob", "r") == "run.sh\nfrom-code ok\n"


def test_v2_yaml_job(cluster):
    yaml_text = """
protocolVersion: 2
name: v2demo
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: "ubuntu:18.04"}
parameters: {msg: hi}
secrets: {password: hunter2}
taskRoles:
  worker:
    instances: 2
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0, ports: {http: 1}}
    commands:
      - echo <% $parameters.msg %> from $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX
"""
    with cluster.client() as c:
        r = c.post("/api/v2/jobs", content=yaml_text, headers={"Content-Type": "text/yaml"})
        assert (r.status_code, r.json()) == (202, {"status": 202, "message": f"Update job v2demo for user {USER} successfully."})
        framework = f"{USER}~v2demo"
        done = wait_for(lambda: (d := c.get(f"/api/v2/jobs/{framework}").json())["jobStatus"]["state"] == "SUCCEEDED" and d)
        task = done["taskRoles"]["worker"]["taskStatuses"][1]
        assert task["containerLog"].startswith(f"/api/v2/jobs/{framework}/attempts/0/taskRoles/worker/taskIndex/1/")
        locations = c.get(task["containerLog"]).json()["locations"]
        stdout = next(x["uri"] for x in locations if x["name"] == "stdout")
        assert c.get(stdout).text == "hi from 1\n"
        config = c.get(f"/api/v2/jobs/{framework}/config")
        assert config.headers["content-type"].startswith("text/yaml") and json.loads(config.text)["secrets"] == "******"
        listed = c.get("/api/v2/jobs", params={"username": USER, "withTotalCount": "true"}).json()
        assert framework.split("~")[1] in [j["name"] for j in listed["data"]]
        bad = c.post("/api/v2/jobs", content="protocolVersion: 2\nname: x\ntaskRoles: {}\n", headers={"Content-Type": "text/yaml"})
        assert bad.status_code == 400 and bad.json()["code"] == "InvalidProtocolError"
        probe = c.get("/api/v2/jobs/protocolversion/config")
        assert probe.status_code == 404 and probe.json()["code"] == "NoJobError"


def test_delete_and_permissions(cluster):
    bob = httpx.post(f"{cluster.url}/api/v1/token", json={"username": "bob", "password": PASSWORD}).json()["token"]
    with cluster.client() as c, cluster.client(bob) as b:
        submit(c, job("mine", role("r", "true")))
        finished(c, "mine")
        denied = b.delete(f"/api/v1/user/{USER}/jobs/mine")
        assert (denied.status_code, denied.json()["code"]) == (403, "ForbiddenUserError")
        gone = c.delete(f"/api/v1/user/{USER}/jobs/mine")
        assert (gone.status_code, gone.json()) == (202, {"message": "deleted job mine successfully"})
        assert c.get(f"/api/v1/user/{USER}/jobs/mine").status_code == 404
    assert os.path.exists(cluster.data_dir / "jobs")


def test_put_legacy_ssh_v2_stop_virtual_clusters_and_users(cluster):
    with cluster.client() as c:
        put = c.put(f"/api/v1/user/{USER}/jobs/by-put", json=job("ignored-name", role("r", "sleep 30")))
        assert put.status_code == 201 and put.json()["name"] == "by-put"
        legacy = c.post("/api/v1/jobs", json=job("legacy1", role("r", "true")))
        assert legacy.status_code == 201 and legacy.json()["jobStatus"]["name"] == "legacy1"
        assert next(j for j in c.get("/api/v1/jobs").json() if j["name"] == "legacy1")["legacy"] is True
        wait_for(lambda: detail(c, "by-put")["jobStatus"]["state"] == "RUNNING")
        ssh = c.get(f"/api/v1/user/{USER}/jobs/by-put/ssh").json()
        port = detail(c, "by-put")["taskRoles"]["r"]["taskStatuses"][0]["containerPorts"]["ssh"]
        assert ssh["containers"][0]["sshIp"] == "127.0.0.1" and ssh["containers"][0]["sshPort"] == port
        stop = c.put(f"/api/v2/jobs/{USER}~by-put/executionType", json={"value": "STOP"})
        assert (stop.status_code, stop.json()) == (202, {"status": 202, "message": f"Execute job {USER}~by-put successfully."})
        bad = c.put(f"/api/v2/jobs/{USER}~by-put/executionType", json={"value": "PAUSE"})
        assert bad.status_code == 400
        assert finished(c, "by-put")["jobStatus"]["state"] == "STOPPED"
        vcs = c.get("/api/v2/virtual-clusters").json()
        assert vcs["default"]["resourcesTotal"]["cpu"] == 64
        assert c.get("/rest-server/api/v1/virtual-clusters/default").status_code == 200
        assert c.get("/api/v1/virtual-clusters/nope").json()["code"] == "NoVirtualClusterError"
        me = c.get(f"/api/v2/users/{USER}").json()
        assert me["username"] == USER and me["admin"] is True
        assert c.get("/api/v2/users/zed").json() == {"code": "NoUserError", "message": "User zed is not found."}
        assert c.get("/api/v2/info").json()["name"] == "PAI RESTful API"
