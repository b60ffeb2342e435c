"""The local cluster as a small Kubernetes-era OpenPAI cluster, over real HTTP (openpai-k8s.md §B):
virtual clusters sharing simulated nodes, who may use which, the VC, `?nodes` and SKU endpoints,
jobs that wait until their gang fits (and say why in their events), queueing by the pod priority,
and HiveD's submit-time refusals."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ..helpers.localcluster import USER, finished, job, log, login, own_cluster, role, secret_file, submit, wait_for
from ..helpers.vc_jobs import HIVED_LAYOUT, LAYOUT, shaped, v2_job

YAML = {"Content-Type": "text/yaml"}


def join_group(data_dir, user: str, *groups: str) -> None:
    users = secret_file(data_dir, "users.json")
    table = json.loads(users.read_text())
    table[user]["grouplist"] = list(groups)
    users.write_text(json.dumps(table))


def state(c, name: str) -> str:
    return c.get(f"/api/v2/jobs/{USER}~{name}").json()["jobStatus"]["state"]


def stop(c, name: str) -> None:
    assert c.put(f"/api/v2/jobs/{USER}~{name}/executionType", json={"value": "STOP"}).status_code == 202


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, starts_processes):
    with own_cluster(shaped(tmp_path_factory.mktemp("vcs"), LAYOUT)) as c:
        yield c


def test_virtual_clusters_nodes_and_skus_as_the_server_answers(cluster):
    with cluster.client() as c:
        vcs = c.get("/api/v2/virtual-clusters").json()
        assert set(vcs) == {"default", "vc1"}
        assert vcs["vc1"]["resourcesTotal"] == {"cpu": 8, "memory": 16384, "gpu": 4, "vCores": 8, "GPUs": 4}
        assert vcs["vc1"]["resourcesGuaranteed"] == vcs["vc1"]["resourcesTotal"]
        assert (vcs["vc1"]["capacity"], vcs["vc1"]["maxCapacity"], vcs["default"]["capacity"]) == (66.67, 66.67, 33.33)
        assert "numPendingJobs" not in vcs["vc1"] and vcs["vc1"]["dedicated"] is False  # none on Kubernetes
        assert c.get("/api/v2/virtual-clusters/vc1").json() == vcs["vc1"]
        missing = c.get("/api/v2/virtual-clusters/nope")
        assert (missing.status_code, missing.json()) == (404, {"code": "NoVirtualClusterError", "message": "Vc nope not found"})
        assert c.get("/api/v2/virtual-clusters/no-pe").status_code == 400
        nodes = c.get("/api/v2/virtual-clusters?nodes").json()
        assert nodes["w1"] == {"gpuUsed": 0, "gpuAvailable": 4, "gpuTotal": 4} and set(nodes) == {"w1", "w2", "w3"}
        assert c.get("/api/v2/cluster/sku-types").json() == {}  # no HiveD: no SKUs
        assert c.get("/api/v2/virtual-clusters").status_code == 200
        assert c.get("/api/v2/virtual-clusters", headers={"Authorization": ""}).status_code == 401


def test_a_user_may_submit_only_to_the_virtual_clusters_of_their_groups(cluster):
    bob = login(cluster.url, "bob")
    with cluster.client(bob) as c:
        refused = c.post("/api/v2/jobs", content=v2_job("bobs", vc="vc1", command="true"), headers=YAML)
        assert (refused.status_code, refused.json()["code"]) == (403, "ForbiddenUserError")
        assert c.get("/api/v2/users/bob").json()["virtualCluster"] == ["default"]
    join_group(cluster.data_dir, "bob", "ml")
    with cluster.client(bob) as c:
        assert c.get("/api/v2/users/bob").json()["virtualCluster"] == ["default", "vc1"]
        taken = c.post("/api/v2/jobs", content=v2_job("bobs", vc="vc1", gpu=0, command="true"), headers=YAML)
        assert taken.status_code == 202
        wait_for(lambda: c.get("/api/v2/jobs/bob~bobs").json()["jobStatus"]["state"] == "SUCCEEDED")


def test_a_job_waits_until_its_gang_fits_and_says_why_in_its_events(cluster):
    with cluster.client() as c:
        assert c.post("/api/v2/jobs", content=v2_job("holder", gpu=2), headers=YAML).status_code == 202
        wait_for(lambda: state(c, "holder") == "RUNNING")
        used = c.get("/api/v2/virtual-clusters/vc1").json()["resourcesUsed"]
        assert (used["gpu"], used["cpu"], used["memory"]) == (2, 1, 1024)
        nodes = c.get("/api/v2/virtual-clusters?nodes").json()
        assert sorted(n["gpuUsed"] for n in nodes.values()) == [0, 0, 2]
        # Two instances of 2 GPUs need both nodes of vc1: one is taken, so the whole gang waits.
        assert c.post("/api/v2/jobs", content=v2_job("gang", instances=2, gpu=2, command="echo ran"), headers=YAML).status_code == 202
        # 3 GPUs in one instance: no node of vc1 has them, ever.
        assert c.post("/api/v2/jobs", content=v2_job("toobig", gpu=3), headers=YAML).status_code == 202
        events = wait_for(lambda: c.get(f"/api/v2/jobs/{USER}~gang/events").json()["data"])
        failed = events[0]
        assert (failed["type"], failed["reason"], failed["sourceComponent"]) == ("Warning", "FailedScheduling", "default-scheduler")
        assert failed["message"] == "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) not in the virtual cluster vc1."
        assert failed["taskName"].endswith("-worker-1") and failed["taskroleName"] == "worker" and failed["count"] >= 1
        big = c.get(f"/api/v2/jobs/{USER}~toobig/events?type=Warning").json()
        assert big["totalCount"] == 1 and "2 Insufficient nvidia.com/gpu" in big["data"][0]["message"]
        assert c.get(f"/api/v2/jobs/{USER}~toobig/events?type=Normal").json() == {"totalCount": 0, "data": []}
        assert c.get(f"/api/v2/jobs/{USER}~nothing/events").json()["code"] == "NoJobError"
        assert (state(c, "gang"), state(c, "toobig")) == ("WAITING", "WAITING")
        stop(c, "holder")
        wait_for(lambda: state(c, "gang") in ("RUNNING", "SUCCEEDED"))
        scheduled = c.get(f"/api/v2/jobs/{USER}~gang/events?type=Normal").json()["data"]
        assert {e["reason"] for e in scheduled} == {"Scheduled"} and {e["sourceHost"] for e in scheduled} == {"w1", "w2"}
        assert state(c, "toobig") == "WAITING"
        stop(c, "toobig")


@pytest.fixture(scope="module")
def hived(tmp_path_factory, starts_processes):
    with own_cluster(shaped(tmp_path_factory.mktemp("hived"), HIVED_LAYOUT)) as c:
        yield c


def test_hived_refuses_at_submit_what_can_never_run(hived):
    with hived.client() as c:
        assert c.get("/api/v2/cluster/sku-types").json() == {"DT": {"cpu": 2, "memory": 4096, "gpu": 1}}
        assert c.get("/api/v2/cluster/sku-types?vc=vc1").json() == {"DT": {"cpu": 2, "memory": 4096, "gpu": 1}}
        assert c.get("/api/v2/cluster/sku-types?vc=nope").json()["code"] == "NoVirtualClusterError"
        over = c.post("/api/v2/jobs", content=v2_job("over", instances=3, gpu=2), headers=YAML)
        assert (over.status_code, over.json()) == (400, {"code": "InvalidProtocolError",
                                                         "message": "Job requests 6 SKUs, exceeds maximum 4 SKUs in VC vc1."})
        # 5 CPUs are 3 cells of 2 CPUs: the most of the task's resources counts.
        cpus = c.post("/api/v2/jobs", content=v2_job("cpus", instances=2, gpu=1, cpu=5), headers=YAML)
        assert cpus.json()["message"] == "Job requests 6 SKUs, exceeds maximum 4 SKUs in VC vc1."
        unknown = c.post("/api/v2/jobs", content=v2_job("unknown", sku="XX"), headers=YAML)
        assert (unknown.status_code, unknown.json()["code"]) == (400, "InvalidProtocolError")
        assert c.get(f"/api/v2/jobs/{USER}~over").status_code == 404  # nothing was made


def test_waiting_jobs_start_in_the_order_of_the_pod_priority(hived):
    with hived.client() as c:
        assert c.post("/api/v2/jobs", content=v2_job("blocker", instances=2, gpu=2), headers=YAML).status_code == 202
        wait_for(lambda: state(c, "blocker") == "RUNNING")
        for name, priority in (("low", "test"), ("high", "prod")):
            sent = c.post("/api/v2/jobs", content=v2_job(name, instances=2, gpu=2, priority=priority), headers=YAML)
            assert sent.status_code == 202
        listed = {j["name"]: j for j in c.get("/api/v2/jobs?vc=vc1").json()}
        assert (listed["low"]["jobPriority"], listed["high"]["jobPriority"], listed["blocker"]["jobPriority"]) == ("test", "prod", None)
        wait_for(lambda: c.get(f"/api/v2/jobs/{USER}~low/events").json()["totalCount"])
        stop(c, "blocker")
        wait_for(lambda: state(c, "high") == "RUNNING")  # submitted later, a higher class: it goes first
        assert state(c, "low") == "WAITING"
        stop(c, "high")
        wait_for(lambda: state(c, "low") == "RUNNING")
        stop(c, "low")


@pytest.mark.parametrize(("layout", "said"), [
    ({"nodes": {"w1": {"gpu": 2}}, "virtualClusters": {"a": {"nodes": ["w1"]}, "b": {"nodes": ["w1"]}}},
     "the virtual clusters take more of node w1 than it has (4 GPUs, 0 CPUs, 0 MB of 2, 0, 0)"),
    ({"nodes": {"w1": {"gpu": -1}}}, "nodes.w1.gpu must be a whole number, 0 or more (not -1)"),
    ({"virtualClusters": {"a": {"nodes": ["nowhere"]}}}, "virtualClusters.a names node nowhere, which nodes does not define"),
    ({"virtualClusters": {"a": {"share": 2}}}, "virtualClusters.a.share must be a number from 0 to 1"),
])
def test_a_layout_that_cannot_be_used_is_one_line_at_start(tmp_path, starts_processes, layout, said):
    data = shaped(tmp_path / "bad", layout)
    started = subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(data), "--port", "0"],
                             capture_output=True, text=True, timeout=60)
    assert started.returncode == 2 and started.stdout == ""
    (line,) = started.stderr.splitlines()
    assert line.startswith("pai local-cluster: ") and line.endswith(said), line


def test_only_tasks_placed_on_this_machine_get_its_gpus(tmp_path, starts_processes):
    """`localhost` is this machine (here with two simulated GPU slots); a task on a simulated node runs
    here too, with no GPU of this machine's."""
    layout = {"nodes": {"localhost": {}, "w1": {"gpu": 4, "cpu": 8, "memoryMB": 16384}},
              "virtualClusters": {"default": {"nodes": ["localhost"]}, "vc1": {"nodes": ["w1"]}}}
    with own_cluster(shaped(tmp_path / "mixed", layout), "--gpus", "2") as cluster, cluster.client() as c:
        nodes = c.get("/api/v2/virtual-clusters?nodes").json()
        assert nodes["localhost"]["gpuTotal"] == 2 and nodes["w1"]["gpuTotal"] == 4
        command = 'echo "gpus=[$CUDA_VISIBLE_DEVICES]"'
        for name, vc, gpu in (("here", "default", 1), ("there", "vc1", 2)):
            sent = submit(c, job(name, role("r", command, gpuNumber=gpu), virtualCluster=vc))
            assert sent.status_code == 201, sent.text
        for name, shown in (("here", "gpus=[0]\n"), ("there", "gpus=[]\n")):
            assert finished(c, name)["jobStatus"]["state"] == "SUCCEEDED"
            assert log(cluster, c, name, "r") == shown


def test_a_layout_gives_shares_whole_nodes_and_amounts_and_places_gangs_in_process():
    from pai_lsp.localcluster.layout import Layout, Res

    layout = Layout.parse({"nodes": {"a": {"gpu": 4, "cpu": 8, "memoryMB": 100}, "b": {"gpu": 2, "cpu": 4, "memoryMB": 50}},
                           "virtualClusters": {"half": {"share": 0.5}, "b": {"nodes": {"b": {"gpu": 1, "cpu": 2, "memoryMB": 25}}}},
                           "groups": {"ml": ["half"]}}, Res(1, 1, 1))
    assert layout.total("half") == Res(6, 75, 3) and layout.total("b") == Res(2, 25, 1) and layout.total("default") == Res()
    assert layout.permitted(set(), False) == [] and layout.permitted({"ml"}, False) == ["half"]
    assert layout.permitted(set(), True) == ["b", "default", "half"]
    gang = [Res(1, 10, 2), Res(1, 10, 1)]
    assert layout.place("half", gang, {}) == ["a", "b"]  # 2 GPUs of a's half, then b's half
    assert layout.place("half", [Res(1, 10, 3)], {}) is None  # no node's half has 3
    assert layout.why_not("half", Res(1, 10, 3), {}) == "0/2 nodes are available: 2 Insufficient nvidia.com/gpu."
    assert layout.why_not("b", Res(1, 10, 2), {}) == (
        "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) not in the virtual cluster b.")
    machine = Layout.of_machine(Res(8, 1024, 0))
    assert not machine.configured and machine.total("default") == Res(8, 1024, 0)
