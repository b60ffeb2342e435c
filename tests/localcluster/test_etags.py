"""Polling the job list as OpenPAI's server allows it: Express's weak ETag on the list, 304 with no body
when the client sends it back and nothing changed, a new tag once a job changes; the client's board of
unfinished jobs (`OpenPai.active_jobs`) sends it back, so a quiet round costs no body."""

from __future__ import annotations

import httpx
import pytest

from pai_lsp.clusters.openpai import OpenPai
from pai_lsp.clusters.profiles import Profile

from ..helpers.localcluster import USER, job, role, submit, wait_for

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process


def test_the_job_list_has_a_weak_etag_and_answers_304_while_nothing_changed(cluster):
    with cluster.client() as c:
        params = {"username": USER, "state": "WAITING,RUNNING"}
        first = c.get("/api/v2/jobs", params=params)
        tag = first.headers["ETag"]
        assert tag.startswith('W/"') and first.status_code == 200
        again = c.get("/api/v2/jobs", params=params, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == tag
        assert c.get("/api/v2/jobs", params=params, headers={"If-None-Match": 'W/"0-other"'}).status_code == 200
        assert submit(c, job("etag_sleeper", role("main", "sleep 30"))).status_code == 201
        changed = c.get("/api/v2/jobs", params=params, headers={"If-None-Match": tag})
        assert changed.status_code == 200 and changed.headers["ETag"] != tag
        assert "etag_sleeper" in [j["name"] for j in changed.json()]
        c.put(f"/api/v2/jobs/{USER}~etag_sleeper/executionType", json={"value": "STOP"})


def test_the_board_of_unfinished_jobs_sends_the_etag_back(cluster):
    statuses: list[int] = []

    class Recorded(httpx.HTTPTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            response = super().handle_request(request)
            if request.url.path == "/api/v2/jobs":
                statuses.append(response.status_code)
            return response

    backend = OpenPai(Profile("c", cluster.url, cluster.hdfs_url, USER, "openpai", 2), lambda: None, token=cluster.token,
                      transport=Recorded())
    with cluster.client() as c:
        assert submit(c, job("etag_board", role("main", "sleep 30"))).status_code == 201
        first = backend.active_jobs()
        assert first is not None and "etag_board" in [j.name for j in first]
        second = backend.active_jobs()
        assert [j.name for j in second or []] == [j.name for j in first]
        assert statuses[-2:] == [200, 304]
        c.put(f"/api/v2/jobs/{USER}~etag_board/executionType", json={"value": "STOP"})
        wait_for(lambda: "etag_board" not in [j.name for j in backend.active_jobs() or []])
        assert statuses[-1] == 200
