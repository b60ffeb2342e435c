"""The daemon's dispatch in-process (no socket): requests as dataclasses off the wire, replies and
events as its clients read them, against a cluster in memory: every kind of method (jobs, logs,
outputs, HDFS, quota and registries, preview) and the errors a client reads."""

from __future__ import annotations

import base64
import json

import pytest

from pai_lsp import api
from pai_lsp.daemon import protocol
from pai_lsp.daemon.client import LogCursor
from pai_lsp.daemon.server import Daemon
from pai_lsp.daemon.sessions import Sessions

from .helpers.memory import MemoryBackend, Script
from .helpers.paths import EXAMPLE


@pytest.fixture
def cluster(tmp_path, monkeypatch, no_programs):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return MemoryBackend()


@pytest.fixture
def daemon(cluster, tmp_path, monkeypatch):
    # A cluster in memory answers at once: its board is looked at every 0.05 s, not every 0.5 s.
    monkeypatch.setattr("pai_lsp.daemon.watcher.FOLLOW_INTERVAL", 0.05)
    monkeypatch.setattr("pai_lsp.daemon.watcher.LOCAL_WATCH_INTERVAL", 0.05)
    return Daemon(tmp_path / "daemon.sock", Sessions(connect=lambda name, start=True: cluster))


async def call(daemon: Daemon, method: str, params: dict | None = None) -> tuple[list[api.Event], dict]:
    """(the events, the reply) of one request, read as a client reads them."""
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(json.loads(protocol.encode(message)))  # as it travels

    reply = await daemon.dispatch({"jsonrpc": "2.0", "id": 7, "method": method, "params": params or {}}, send)
    events = [api.EVENTS[m["method"]].from_json(m["params"]) for m in sent if "method" in m]
    return events, json.loads(protocol.encode(reply))


async def test_unknown_methods_and_bad_params_get_one_line_errors(daemon):
    _, unknown = await call(daemon, "no.such")
    assert unknown["error"] == {"code": -32601, "message": "unknown method no.such", "data": {
        "kind": "invalid", "code": "params.unknown-method", "args": {"method": "no.such"}}}  # the code: said in the reader's language
    _, bad = await call(daemon, "status", {"job": 5})
    assert bad["error"]["message"] == "status: `job` must be a string" and bad["error"]["data"]["kind"] == "invalid"
    _, missing = await call(daemon, "status", {})
    assert missing["error"]["message"] == "status: `job` is missing"


async def test_status_jobs_stop_and_errors_of_the_cluster(daemon, cluster):
    cluster.submit({"jobName": "j"})
    _, status = await call(daemon, "status", {"job": "j"})
    assert status["result"]["state"] == "WAITING" and status["result"]["tasks"][0]["role"] == "main"
    _, jobs = await call(daemon, "jobs")
    assert jobs["result"]["cluster"] == "local" and [j["name"] for j in jobs["result"]["jobs"]] == ["j"]
    _, stopped = await call(daemon, "stop", {"job": "j"})
    assert stopped["result"] == {"stopped": "j", "state": "RUNNING"} and cluster.stopped == ["j"]
    _, missing = await call(daemon, "status", {"job": "nope"})
    assert missing["error"]["data"] == {"kind": "not-found"}


async def test_a_follow_sends_every_byte_once_with_its_length_and_each_state_change(daemon, cluster):
    cluster.submit({"jobName": "j"})
    # "é" cut between two reads, a byte that is not UTF-8, and a last line without its newline.
    cluster.scripts["j"] = Script(["WAITING", "RUNNING", "RUNNING", "RUNNING", "SUCCEEDED"],
                                  [b"", b"caf\xc3", b"\xa9 \xff\n", b"", b"end"])
    events, reply = await call(daemon, "logs.follow", {"job": "j"})
    states = [e.state for e in events if isinstance(e, api.JobStatus)]
    assert states == ["WAITING", "RUNNING", "SUCCEEDED"]
    logs = [e for e in events if isinstance(e, api.JobLog)]
    assert [(e.offset, e.length) for e in logs] == [(0, 3), (3, 5), (8, 3)]  # contiguous, in bytes
    assert "".join(e.text for e in logs) == "café \ufffd\nend"
    assert reply["result"] == {"job": "j", "state": "SUCCEEDED", "offsets": {"main:0": 11}}
    cursor = LogCursor({"main:0": 6})  # a follower that had "caf\xc3\xa9 " (6 bytes) already
    assert b"".join(e.raw() for e in logs) == b"caf\xc3\xa9 \xff\nend"  # exactly the bytes written
    assert [cursor.accept(e) for e in logs] == [b"", b"\xff\n", b"end"] and cursor.offsets == {"main:0": 11}


async def test_followers_of_one_job_share_one_poller(daemon, cluster):
    import asyncio

    cluster.submit({"jobName": "j"})
    cluster.scripts["j"] = Script(["RUNNING"] * 5 + ["SUCCEEDED"], [b"x"] * 6)
    results = await asyncio.gather(*(call(daemon, "logs.follow", {"job": "j"}) for _ in range(3)))
    assert all(reply["result"]["offsets"] == {"main:0": 6} for _, reply in results)
    assert cluster.scripts["j"].looks <= 7  # one look per poll, not one per follower


async def test_submit_reuses_the_session_and_is_watched(daemon, cluster, tmp_path):
    import shutil

    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    _, first = await call(daemon, "submit", {"file": str(ws / "mnist.pai.json")})
    await call(daemon, "submit", {"file": str(ws / "mnist.pai.json")})
    assert first["result"]["cluster"] == "local" and first["result"]["job"] in cluster.submitted
    assert cluster.logins == 0 and len(cluster.submitted) == 2  # one session, kept: no login per submit
    _, ping = await call(daemon, "ping")
    assert ping["result"]["watched"] == 2
    assert daemon.watcher.watched[f"local/{first['result']['job']}"]["state"] in (None, "WAITING")  # looked at at once


async def test_hdfs_methods(daemon, cluster):
    cluster.storage.write("/user/alice/a.txt", "héllo\n".encode())
    _, cat = await call(daemon, "hdfs.cat", {"path": "a.txt"})
    assert base64.b64decode(cat["result"]["data"]) == "héllo\n".encode() and cat["result"]["path"] == "/user/alice/a.txt"
    _, moved = await call(daemon, "hdfs.mv", {"from": "a.txt", "to": "b.txt"})
    assert moved["result"] == {"from": "/user/alice/a.txt", "to": "/user/alice/b.txt"}
    _, tail = await call(daemon, "hdfs.tail", {"path": "b.txt", "bytes": 3})
    assert base64.b64decode(tail["result"]["data"]) == b"lo\n"


async def test_jobs_come_newest_first_one_page_at_a_time(daemon, cluster):
    for name in ("a", "b", "c"):
        cluster.submit({"jobName": name})
    _, page = await call(daemon, "jobs", {"offset": 1, "limit": 1})
    assert page["result"]["total"] == 3 and page["result"]["offset"] == 1 and len(page["result"]["jobs"]) == 1
    _, everything = await call(daemon, "jobs")
    assert sorted(j["name"] for j in everything["result"]["jobs"]) == ["a", "b", "c"]
    assert {j["state"] for j in everything["result"]["jobs"]} == {"WAITING"}


async def test_stop_refuses_a_job_that_ended_and_names_how(daemon, cluster):
    cluster.submit({"jobName": "done"})
    cluster.scripts["done"] = Script(["SUCCEEDED"])
    _, refused = await call(daemon, "stop", {"job": "done"})
    assert refused["error"]["data"]["kind"] == "invalid" and "SUCCEEDED" in refused["error"]["message"]
    assert cluster.stopped == []


async def test_config_and_ssh_of_a_running_job(daemon, cluster):
    cluster.submit({"jobName": "j", "image": "python:3.11"})
    _, config = await call(daemon, "config", {"job": "j"})
    assert config["result"] == {"job": "j", "config": {"jobName": "j", "image": "python:3.11"}}
    _, waiting = await call(daemon, "ssh", {"job": "j"})  # the first look: WAITING, no task runs yet
    assert waiting["error"]["data"]["kind"] == "not-found" and "WAITING" in waiting["error"]["message"]
    _, running = await call(daemon, "ssh", {"job": "j"})
    # The stand-in is the `local` profile here, whose tasks' sshd lets its user in (a real cluster's: root).
    assert running["result"]["tasks"] == [{"task": "main:0", "ip": "10.0.0.1", "sshPort": "2222",
                                           "command": "ssh -p 2222 alice@10.0.0.1", "urls": {}, "user": "alice"}]
    _, other = await call(daemon, "ssh", {"job": "j", "task": "worker:3"})
    assert other["error"]["data"]["kind"] == "not-found" and "main:0" in other["error"]["message"]


async def test_logs_without_follow_are_what_is_there_now(daemon, cluster):
    cluster.submit({"jobName": "j"})
    cluster.scripts["j"] = Script(["RUNNING"], [b"one\n", b"two\n"])
    events, reply = await call(daemon, "logs.follow", {"job": "j", "follow": False})
    assert [e.text for e in events if isinstance(e, api.JobLog)] == ["one\n"]
    assert reply["result"] == {"job": "j", "state": "RUNNING", "offsets": {"main:0": 4}}
    events, reply = await call(daemon, "logs.follow", {"job": "j", "follow": False, "offsets": {"main:0": 4}})
    assert [e.text for e in events if isinstance(e, api.JobLog)] == ["two\n"]  # from where the caller was
    _, wrong = await call(daemon, "logs.follow", {"job": "j", "task": "ps:0"})
    assert wrong["error"]["data"]["kind"] == "not-found" and "main:0" in wrong["error"]["message"]


async def test_watch_keeps_jobs_submitted_elsewhere_current(daemon, cluster):
    cluster.submit({"jobName": "a"})
    cluster.submit({"jobName": "b"})
    _, watched = await call(daemon, "watch", {"jobs": ["a", "b"]})
    assert watched["result"] == {"watched": 2} and set(daemon.watcher.watched) == {"local/a", "local/b"}
    _, again = await call(daemon, "watch", {"job": "a"})
    assert again["result"] == {"watched": 2}  # a job is watched once


async def test_outputs_arrive_with_progress_and_never_over_what_is_there(daemon, cluster, tmp_path):
    cluster.submit({"jobName": "j", "outputDir": "$PAI_DEFAULT_FS_URI/alice/out/j"})
    cluster.storage.write("/alice/out/j/model.bin", b"\x00" * 1000)
    events, reply = await call(daemon, "outputs", {"job": "j", "dest": str(tmp_path), "progressToken": "t"})
    assert reply["result"] == {"path": str(tmp_path / "j")} and (tmp_path / "j" / "model.bin").read_bytes() == b"\x00" * 1000
    assert events and all(isinstance(e, api.TransferProgress) and e.token == "t" for e in events)
    assert events[-1].bytes == events[-1].total_bytes == 1000
    _, again = await call(daemon, "outputs", {"job": "j", "dest": str(tmp_path)})
    assert again["error"]["data"]["kind"] == "exists"


async def test_hdfs_browsing_and_transfers(daemon, cluster, tmp_path):
    (tmp_path / "up").mkdir()
    (tmp_path / "up" / "a.txt").write_bytes(b"12345")
    (tmp_path / "up" / "sub").mkdir()
    (tmp_path / "up" / "sub" / "b.txt").write_bytes(b"67")
    _, put = await call(daemon, "hdfs.put", {"local": str(tmp_path / "up"), "remote": "data"})
    assert put["result"] == {"path": "/user/alice/data", "files": 2, "bytes": 7}
    _, listing = await call(daemon, "hdfs.ls", {"path": "data", "recursive": True})
    assert [(e["name"], e["type"], e["size"]) for e in listing["result"]["entries"]] == [
        ("a.txt", "file", 5), ("sub", "dir", 0), ("sub/b.txt", "file", 2)]
    _, du = await call(daemon, "hdfs.du", {"path": "data", "summary": True})
    assert du["result"]["bytes"] == 7 and du["result"]["entries"][0]["files"] == 2
    _, made = await call(daemon, "hdfs.mkdir", {"path": "data/empty"})
    _, stat = await call(daemon, "hdfs.stat", {"path": "data/empty"})
    assert made["result"] == {"path": "/user/alice/data/empty"} and stat["result"]["type"] == "dir"
    _, refused = await call(daemon, "hdfs.rm", {"path": "data"})
    assert refused["error"]["data"]["kind"] == "invalid" and cluster.storage.status("/user/alice/data").is_dir
    _, got = await call(daemon, "hdfs.get", {"remote": "data", "local": str(tmp_path / "down")})
    assert got["result"]["files"] == 2 and (tmp_path / "down" / "sub" / "b.txt").read_bytes() == b"67"
    _, removed = await call(daemon, "hdfs.rm", {"path": "data", "recursive": True})
    assert removed["result"] == {"path": "/user/alice/data"} and cluster.storage.status("/user/alice/data") is None


async def test_quota_and_registry_secrets(daemon, cluster):
    cluster.submit({"jobName": "j", "taskRoles": [{"name": "main", "taskNumber": 2, "cpuNumber": 4, "memoryMB": 8192,
                                                   "gpuNumber": 1}]})
    _, quota = await call(daemon, "quota")
    assert quota["result"]["cluster"] == "local" and quota["result"]["limits"]["gpu"] == 8
    assert quota["result"]["used"] == {"cpu": 8, "memory": 16384, "gpu": 2, "maxParallelism": 2}
    _, added = await call(daemon, "registry.add", {"name": "hub", "username": "u", "password": "p", "server": "r.example"})
    assert added["result"] == {"name": "hub", "secret": "pcloud-registry-hub"}
    _, taken = await call(daemon, "registry.add", {"name": "pcloud-registry-hub", "username": "u", "password": "p",
                                                   "server": "r.example"})
    assert taken["error"]["data"]["kind"] == "name-taken"
    _, listed = await call(daemon, "registry.list")
    assert [(r["name"], r["secret"]) for r in listed["result"]["registries"]] == [("hub", "pcloud-registry-hub")]
    _, removed = await call(daemon, "registry.remove", {"name": "hub"})
    _, gone = await call(daemon, "registry.remove", {"name": "hub"})
    assert removed["result"]["secret"] == "pcloud-registry-hub" and gone["error"]["data"]["kind"] == "not-found"


async def test_preview_sends_nothing(daemon, cluster, tmp_path):
    import shutil

    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    _, preview = await call(daemon, "preview", {"file": str(ws / "mnist.pai.json"), "listFiles": True})
    result = preview["result"]
    assert result["cluster"] == "local" and result["generatedName"] and result["job"].startswith("mnist_")
    assert result["config"]["jobName"] == result["job"] and "train.py" in json.dumps(result["upload"])
    assert cluster.submitted == {} and cluster.storage.files == {}


async def test_vc_list_and_why_a_job_waits(daemon, cluster):
    from pai_lsp.core.capacity import Event
    from pai_lsp.core.waiting import Explanation
    from tests.helpers.memory import Script

    big = {"jobName": "big", "taskRoles": [{"name": "main", "taskNumber": 2, "cpuNumber": 4, "memoryMB": 8192, "gpuNumber": 4}]}
    small = {"jobName": "small", "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 2, "memoryMB": 4096, "gpuNumber": 2}]}
    cluster.scripts["small"] = Script(["RUNNING"])
    cluster.scripts["big"] = Script(["WAITING"])
    cluster.submit(small)
    cluster.submit(big)
    cluster.events["big"] = [Event("t-main-1", "main", 1, "Warning", "FailedScheduling", "0/1 nodes are available.", 3, "T")]
    _, listed = await call(daemon, "vc.list")
    (row,) = listed["result"]["vcs"]
    assert (row["name"], row["total"]["gpu"], row["used"]["gpu"], row["free"]["gpu"]) == ("default", 8, 2, 6)
    assert (row["waiting"], row["running"], row["permitted"], listed["result"]["nodes"]) == (1, 1, True, [])
    _, waiting = await call(daemon, "job.waiting", {"job": "big"})
    result = waiting["result"]
    assert result["state"] == "WAITING"
    lines = Explanation.from_json(result["explanation"]).lines(None)
    assert lines[0] == "waiting: not enough free GPUs in default: it asks 8, 6 free of 8"
    assert lines[-1].strip().startswith("alice~small (alice, 2 GPUs")
    _, running = await call(daemon, "job.waiting", {"job": "small"})
    assert running["result"] == {"cluster": "local", "job": "small", "state": "RUNNING", "explanation": None, "lines": []}
    _, missing = await call(daemon, "job.waiting", {"job": "nope"})
    assert missing["error"]["data"]["kind"] == "not-found"


async def test_the_editors_cluster_data_is_asked_once_at_a_time_and_kept_for_few_clusters(cluster, tmp_path, monkeypatch):
    """`cluster.facts` carries the capacity state beside the storages from one cache: callers that
    come while a cluster is being asked share that one question, and at most `KEPT` clusters are kept."""
    import asyncio
    import threading

    from pai_lsp.clusters.profiles import Profile, Profiles
    from pai_lsp.core.capacity import ClusterState
    from pai_lsp.daemon.facts_cache import KEPT

    monkeypatch.setenv("PAI_LSP_SECRETS", "file")  # tokens in a file of the test's own: no keyring asked
    gate = threading.Event()

    class Counted(MemoryBackend):
        """A cluster in memory that counts the questions for its state, each held until `gate` opens."""

        asked = 0

        def cluster_state(self) -> ClusterState:
            self.asked += 1
            gate.wait(10)
            return super().cluster_state()

    names = [f"c{i}" for i in range(KEPT + 1)]
    backends = {name: Counted(name) for name in names}
    profiles = Profiles()
    for name in names:  # never dialled: in memory
        profiles.clusters[name] = Profile(name, "http://127.0.0.1:9/rest", "http://127.0.0.1:9/hdfs", "alice")
    profiles.save()  # once: each save checks the whole file
    daemon = Daemon(tmp_path / "facts.sock", Sessions(connect=lambda name, start=True: backends[name]))
    asyncio.get_running_loop().call_later(0.3, gate.set)
    replies = await asyncio.gather(*(call(daemon, "cluster.facts", {"cluster": "c0"}) for _ in range(5)))
    assert backends["c0"].asked == 1
    states = [ClusterState.from_json(reply["result"]["state"]) for _, reply in replies]
    assert {(s.vcs["default"].guaranteed.gpu, s.vcs["default"].free.gpu) for s in states} == {(8, 8)}
    assert all(reply["result"]["storages"] == [] for _, reply in replies)
    for name in names[1:]:
        await call(daemon, "cluster.facts", {"cluster": name})
    assert len(daemon.facts.kept) == KEPT and "c0" not in daemon.facts.kept  # the one kept longest went
    _, again = await call(daemon, "cluster.facts", {"cluster": "c0"})
    assert backends["c0"].asked == 2 and again["result"]["stale"] is False
    assert [b.asked for b in backends.values()] == [2] + [1] * KEPT
