"""The local cluster's ASGI app in-process (httpx.ASGITransport, no server, no port): what it
answers is read back through the one wire model the client uses, and a v1 config converted for a
Kubernetes-era cluster runs on its v2 route. Tasks are real processes."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from pai_lsp.core.jsonc import parse
from pai_lsp.core.openpai_rest import JobDetail, JobSummary, LogLocations
from pai_lsp.core.v1.to_v2 import to_v2_yaml
from pai_lsp.localcluster.asgi import build_app
from pai_lsp.localcluster.cluster import Capacity, LocalCluster

from ..helpers.localcluster import PASSWORD, USER
from ..helpers.paths import CONFIGS

pytestmark = pytest.mark.subprocess  # its jobs' tasks run as processes


@pytest.fixture
async def http(tmp_path):
    cluster = LocalCluster(tmp_path / "data", Capacity(cpu=8, memory_mb=16384, gpu=0), USER)
    cluster.users.add(USER, PASSWORD, admin=True)
    cluster.start_background()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app(cluster)), base_url="http://cluster") as client:
        token = (await client.post("/api/v1/token", json={"username": USER, "password": PASSWORD})).json()["token"]
        client.headers["Authorization"] = f"Bearer {token}"
        yield client
    await cluster.close()


async def finished(http: httpx.AsyncClient, path: str) -> JobDetail:
    for _ in range(600):
        detail = JobDetail.from_json((await http.get(path)).json())
        if detail.state in ("SUCCEEDED", "FAILED", "STOPPED"):
            return detail
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} did not finish")


async def test_a_v1_job_read_through_the_wire_model(http):
    config = {"jobName": "hello", "image": "ubuntu", "taskRoles": [
        {"name": "main", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 128,
         "command": r"printf 'task %s \377\n' $PAI_TASK_INDEX; echo oops >&2"}]}
    assert (await http.post(f"/api/v1/user/{USER}/jobs", json=config)).status_code == 201
    detail = await finished(http, f"/api/v1/user/{USER}/jobs/hello")
    assert detail.state == "SUCCEEDED" and detail.exit_code == 0
    assert [(t.label, t.state, t.ip, sorted(t.ports)) for t in detail.tasks] == [
        ("main:0", "SUCCEEDED", "127.0.0.1", ["http", "ssh"]), ("main:1", "SUCCEEDED", "127.0.0.1", ["http", "ssh"])]
    locations = LogLocations.from_json((await http.get(detail.tasks[1].log)).json())
    stdout = await http.get(locations.uris["stdout"])
    assert stdout.content == b"task 1 \xff\n"
    ranged = await http.get(locations.uris["all"], headers={"Range": "bytes=7-"})
    assert ranged.status_code == 206 and b"oops\n" in ranged.content
    assert (await http.get(locations.uris["stdout"], headers={"Range": "bytes=99-"})).status_code == 416
    (summary,) = [JobSummary.from_json(j) for j in (await http.get(f"/api/v1/user/{USER}/jobs")).json()]
    assert (summary.name, summary.state, summary.user, summary.exit_code) == ("hello", "SUCCEEDED", USER, 0)


async def test_a_converted_config_runs_on_the_v2_route(http):
    config = {k: v for k, v in parse((CONFIGS / "multi-role.pai.json").read_text()).root.value.items()}
    for role in config["taskRoles"]:
        role.update(command='echo "$PAI_CURRENT_TASK_ROLE_NAME $PAI_TASK_INDEX of $PAI_OUTPUT_DIR"', cpuNumber=1, gpuNumber=0, memoryMB=64)
    config["jobName"] = "converted"
    sent = await http.post("/api/v2/jobs", content=to_v2_yaml(config).encode(), headers={"Content-Type": "text/yaml"})
    assert sent.status_code == 202, sent.text
    detail = await finished(http, f"/api/v2/jobs/{USER}~converted")
    assert detail.state == "SUCCEEDED"
    assert [t.label for t in detail.tasks] == ["ps_server:0", "ps_server:1", "worker:0", "worker:1", "worker:2", "evaluator:0"]
    log = LogLocations.from_json((await http.get(detail.tasks[3].log)).json()).uris["stdout"]
    assert (await http.get(log)).text.startswith("worker 1 of hdfs://")
    stored = json.loads((await http.get(f"/api/v2/jobs/{USER}~converted/config")).text)
    assert stored["taskRoles"]["evaluator"]["completion"] == {"minFailedInstances": -1, "minSucceededInstances": -1}
