"""The local cluster over WebHDFS costs as much CPU per namespace operation when its store holds
20,000 files as when it is empty (every create used to read the whole metadata table, so
the cost grew with what was stored). Two real clusters over HTTP, the same calls against each, the
server process's own CPU time compared (CPU time, not wall time: the machine is shared)."""

from __future__ import annotations

import httpx
import psutil
import pytest

from ..helpers.localcluster import USER, own_cluster, seed_store

pytestmark = pytest.mark.subprocess  # two local clusters

STORED = 20_000
ROUNDS = 150


def _cpu_per_round(cluster, probe: str) -> float:
    """Server CPU seconds per round of create, stat, list, rename, mkdirs and delete over WebHDFS."""
    base = f"{cluster.hdfs_url}/webhdfs/v1/user/{USER}/{probe}"
    user = {"user.name": USER}
    server = psutil.Process(cluster.process.pid)
    with httpx.Client(timeout=30) as http:
        http.put(base, params={**user, "op": "MKDIRS"}).raise_for_status()
        for _ in range(10):  # warm: first requests import and compile what the rest reuse
            http.get(base, params={**user, "op": "LISTSTATUS"})
        cpu0 = sum(server.cpu_times()[:2])
        for i in range(ROUNDS):
            step = http.put(f"{base}/d{i % 5}/f{i}", params={**user, "op": "CREATE"}, follow_redirects=False)
            http.put(step.headers["location"], content=b"x" * 100).raise_for_status()
            assert http.get(f"{base}/d{i % 5}/f{i}", params={**user, "op": "GETFILESTATUS"}).status_code == 200
            assert http.get(f"{base}/d{i % 5}", params={**user, "op": "LISTSTATUS"}).status_code == 200
            moved = http.put(f"{base}/d{i % 5}/f{i}", params={**user, "op": "RENAME", "destination": f"/user/{USER}/{probe}/m{i}"})
            assert moved.json() == {"boolean": True}
            assert http.put(f"{base}/k{i}/sub", params={**user, "op": "MKDIRS"}).json() == {"boolean": True}
            assert http.delete(f"{base}/k{i}", params={**user, "op": "DELETE", "recursive": "true"}).json() == {"boolean": True}
        cpu = sum(server.cpu_times()[:2]) - cpu0
    listed = httpx.get(base, params={**user, "op": "LISTSTATUS"}).json()["FileStatuses"]["FileStatus"]
    assert sum(1 for s in listed if s["pathSuffix"].startswith("m")) == ROUNDS  # every call did its work
    return cpu / ROUNDS


def test_namespace_calls_cost_the_same_in_a_full_store_as_in_an_empty_one(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the clusters' secrets: never ~/.config
    (tmp_path / "full").mkdir(mode=0o700)
    seed_store(tmp_path / "full", STORED, folders=200)
    costs = {"empty": 0.0, "full": 0.0}
    with own_cluster(tmp_path / "empty") as empty, own_cluster(tmp_path / "full") as full:
        status = httpx.get(f"{full.hdfs_url}/webhdfs/v1/seed", params={"op": "GETCONTENTSUMMARY", "user.name": USER})
        assert status.json()["ContentSummary"]["fileCount"] == STORED
        clusters = {"empty": empty, "full": full}
        for n, name in enumerate(("empty", "full", "full", "empty")):  # each first once: neither pays for warming up
            costs[name] += _cpu_per_round(clusters[name], f"probe{n}")
    # Before the fix a round cost the full store ~2× what it cost the empty one.
    assert costs["full"] <= costs["empty"] * 1.4, costs
