"""The daemon's dispatch in-process (no socket): requests as dataclasses off the wire, replies and
events as its clients read them, against a cluster in memory."""

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
def cluster(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return MemoryBackend()


@pytest.fixture
def daemon(cluster, tmp_path):
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
