"""The local cluster's job-exporter metrics, queried as on a real cluster: PromQL through `/prometheus`
(a real Prometheus, scraping the cluster's export every second), over HTTP on 127.0.0.1."""

from __future__ import annotations

import shutil
import time
import uuid

import httpx
import psutil
import pytest

from ..helpers.containers import engine_that_runs
from ..helpers.localcluster import USER, detail, job, own_cluster, role, submit, task_pids, wait_for
from ..helpers.servers import missing

pytestmark = pytest.mark.subprocess

TASK_LABELS = {"username", "job_name", "role_name", "task_index", "job_instance_id", "virtual_cluster"}


def query(url: str, promql: str) -> list[dict]:
    answer = httpx.get(f"{url}/prometheus/api/v1/query", params={"query": promql}, timeout=30)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "success"
    return body["data"]["result"]


def by_role(results: list[dict]) -> dict[str, float]:
    return {r["metric"]["role_name"]: float(r["value"][1]) for r in results}


def _is_loop(pid: int) -> bool:
    try:
        return "while" in " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:
        return False


def _cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        times = psutil.Process(pid).cpu_times()
        total += times.user + times.system
    return total


@pytest.fixture
def prometheus() -> None:
    if shutil.which("prometheus") is None:
        missing("needs a Prometheus (Debian: apt-get install prometheus)")


def test_a_burning_task_shows_a_core_and_an_idle_one_none(tmp_path, prometheus):
    with own_cluster(tmp_path / "cluster", "--metrics-interval", "1") as cluster, cluster.client() as c:
        name = f"metrics{uuid.uuid4().hex[:8]}"  # its tasks are found by it among every cluster's on this machine
        body = job(name, role("burner", "while :; do :; done"), role("idler", "sleep 600"))
        assert submit(c, body).status_code == 201
        wait_for(lambda: detail(c, name)["jobStatus"]["state"] == "RUNNING", 30)
        burner = wait_for(lambda: [p for p in task_pids(name) if _is_loop(p)], 30)
        _burner_shows_a_core_and_idler_none(cluster, c, name, burner)


@pytest.fixture
def engine(tmp_path):
    """A container engine that runs containers here, with a test image; skipped where there is none."""
    found, why = engine_that_runs(tmp_path)
    if found is None:
        pytest.skip(why)
    yield found
    found.run("rmi", "-f", found.image)


def test_a_container_task_exports_the_same_series_as_a_host_task(tmp_path, prometheus, engine):
    with own_cluster(tmp_path / "cluster", "--runtime", "container", "--metrics-interval", "1", env=engine.env) as cluster, \
            cluster.client() as c:
        # The loop's command line is unique to this test: its processes are found among this machine's by it
        # (the container's, not the engine client's, which names the command after `bash -c` too).
        loop = f"while :; do :; done # {uuid.uuid4().hex}"  # (another run's test may loop beside it)
        body = job("boxed", role("burner", loop), role("idler", "sleep 600"), image=engine.image)
        assert submit(c, body).status_code == 201
        wait_for(lambda: detail(c, "boxed")["jobStatus"]["state"] == "RUNNING", 60)
        assert detail(c, "boxed")["jobStatus"]["runtime"] == "container"
        burner = wait_for(lambda: [p.pid for p in psutil.process_iter(["cmdline"])
                                   if (p.info["cmdline"] or [""])[0] == "/bin/bash" and loop in p.info["cmdline"]], 60)
        # The limit exported is the one the engine gave the container.
        given = _container_memory(engine, f"pai-{USER}-boxed-0-burner-0-", loop)
        assert given == 256 * 2**20, given
        _burner_shows_a_core_and_idler_none(cluster, c, "boxed", burner)


def _container_memory(engine, prefix: str, command: str) -> int | None:
    """The memory limit of the running container whose name starts with `prefix` and whose command has
    `command` in it (the name ends with a token of its start: other clusters' containers run beside it)."""
    names = engine.run("ps", "--format", "{{.Names}}").stdout.split()
    for name in (n for n in names if n.startswith(prefix)):
        seen = engine.run("inspect", "--format", "{{.HostConfig.Memory}} {{json .Config.Cmd}}", name).stdout
        memory, _, cmd = seen.partition(" ")
        if command in cmd:
            return int(memory)
    return None


def _burner_shows_a_core_and_idler_none(cluster, c, name: str, burner: list[int]) -> None:
    """Job `name`'s burner (its looping processes: `burner`) shows in Prometheus the CPU the OS says it used,
    its idler next to none, both with job-exporter's labels and their 256 MB limit, no GPU series; stopped,
    their series end."""
    framework = f"{USER}~{name}"
    selector = f'task_cpu_percent{{job_name="{framework}"}}'
    def exported(window: int) -> dict[str, float]:
        return by_role(query(cluster.url, f"avg by (role_name) (avg_over_time({selector}[{window}s]))"))

    wait_for(lambda: exported(10).keys() == {"burner", "idler"}, 30, 1)
    # What the OS says the burner used over 15 s, against what Prometheus holds for the same 15 s: one core
    # on an idle machine, less where other work shares the cores, but the same figure either way. The
    # samples lag the OS by a scrape or two; on a loaded machine the burner's share swings from second to
    # second, so the window is long enough for that lag to be a small part of it.
    before, start = _cpu_seconds(burner), time.monotonic()
    time.sleep(15)
    used = (_cpu_seconds(burner) - before) / (time.monotonic() - start) * 100
    cpu = exported(15)
    assert abs(cpu["burner"] - used) <= max(10.0, 0.3 * used), (cpu, used)
    assert cpu["idler"] < 5 and cpu["burner"] > 5 * max(cpu["idler"], 1.0)
    assert cpu["burner"] < 130  # one core at most: the loop is a single process

    series = query(cluster.url, selector)
    assert {r["metric"]["role_name"] for r in series} == {"burner", "idler"}
    for r in series:
        labels = r["metric"]
        assert TASK_LABELS <= labels.keys()
        assert (labels["username"], labels["job_name"], labels["task_index"], labels["virtual_cluster"]) == \
            (USER, framework, "0", "default")
        assert (labels["job"], labels["pai_service_name"]) == ("pai_service_exporter", "job-exporter")

    limit = by_role(query(cluster.url, f'task_mem_limit_byte{{job_name="{framework}"}}'))
    assert limit == {"burner": 256 * 2**20, "idler": 256 * 2**20}
    used = by_role(query(cluster.url, f'task_mem_usage_byte{{job_name="{framework}"}}'))
    assert all(0 < value < 256 * 2**20 for value in used.values())
    percent = by_role(query(cluster.url, f'task_mem_usage_percent{{job_name="{framework}"}}'))
    assert all(0 < value < 100 for value in percent.values())
    # This machine has no GPU for the tasks: no GPU series (not zeros).
    assert query(cluster.url, f'task_gpu_percent{{job_name="{framework}"}}') == []

    # The same query, as the portal and Grafana send it, over a range.
    ranged = httpx.get(f"{cluster.url}/prometheus/api/v1/query_range", timeout=30, params={
        "query": f'avg by (job_name, role_name, task_index) ({selector})',
        "start": str(int(series[0]["value"][0]) - 10), "end": str(int(series[0]["value"][0])), "step": "1"}).json()
    assert ranged["data"]["resultType"] == "matrix"
    assert {r["metric"]["role_name"] for r in ranged["data"]["result"]} == {"burner", "idler"}

    c.put(f"/api/v1/user/{USER}/jobs/{name}/executionType", json={"value": "STOP"})
    # A stopped task's series end: its last sample goes stale in Prometheus within a few scrapes.
    wait_for(lambda: query(cluster.url, selector) == [], 30, 1)


def test_without_prometheus_the_path_says_so_in_one_line(tmp_path):
    with own_cluster(tmp_path / "cluster", "--prometheus", "none") as cluster:
        answer = httpx.get(f"{cluster.url}/prometheus/api/v1/query", params={"query": "up"}, timeout=30)
        assert answer.status_code == 503
        assert answer.headers["content-type"].startswith("text/plain")
        lines = answer.text.strip().splitlines()
        assert len(lines) == 1 and "no Prometheus" in lines[0] and "apt-get install prometheus" in lines[0]


def test_a_private_cluster_asks_its_token_for_prometheus_too(tmp_path, prometheus):
    with own_cluster(tmp_path / "cluster", "--private", "--metrics-interval", "1") as cluster:
        url = f"{cluster.url}/prometheus/api/v1/query"
        anonymous = httpx.get(url, params={"query": "up"}, timeout=30)
        assert anonymous.status_code == 401 and anonymous.json()["code"] == "UnauthorizedUserError"
        forged = httpx.get(url, params={"query": "up"}, headers={"Authorization": "Bearer x.y.z"}, timeout=30)
        assert forged.status_code == 401
        with cluster.client() as c:
            answer = wait_for(lambda: (a := c.get("/prometheus/api/v1/query", params={"query": "up"})).status_code == 200 and a, 30)
        assert answer.json()["status"] == "success"
