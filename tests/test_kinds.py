"""The registry of cluster kinds holds together: each kind's backend implements the one interface, its
jobs are a registered job-file format in one of that format's dialects, the profile schema and the CLI
accept exactly its kinds, and what clients are told (`pai-lsp --kinds`, `pai.kinds`) comes from it."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest

from pai_lsp.cli.main import build_parser
from pai_lsp.clusters import kinds
from pai_lsp.clusters.backend import Backend
from pai_lsp.clusters.profiles import LOCALS, Profile
from pai_lsp.core import formats
from pai_lsp.core.schema import load_schema


def test_every_kind_is_served_by_a_backend_that_implements_the_interface():
    for kind in kinds.KINDS:
        backend = kind.backend()
        assert issubclass(backend, Backend) and not backend.__abstractmethods__, f"{kind.name}: {sorted(backend.__abstractmethods__)} missing"
        assert list(inspect.signature(backend).parameters)[:4] == ["profile", "password", "token", "on_token"]


def test_every_kind_writes_jobs_in_a_registered_format_and_one_of_its_dialects():
    for kind in kinds.KINDS:
        job_format = formats.BY_NAME[kind.job_format]
        others = [formats.BY_NAME[name] for name in kind.other_formats]  # run too (converted where the server needs)
        assert kind.dialect in job_format.dialects
        assert kind.job_files == job_format.patterns + tuple(p for f in others for p in f.patterns)
        assert kind.storage and all(kind.title)
        assert (kind.local is None) == (kind.local_profile is None)
    assert sorted(k.local for k in kinds.KINDS if k.local) == sorted(LOCALS)
    assert kinds.local_for("fit.paddle.json") == "local-paddle" and kinds.local_for("mnist.pai.json") == "local"
    assert kinds.local_for("mnist.pai.yaml") == "local" and kinds.BY_NAME["scm"].runs("pai-v2")


def test_the_token_of_a_session_is_kept_where_its_kind_says():
    profile = Profile("lab", "http://h/", "http://h:50070", "alice", "openpai")
    assert kinds.kind_of(profile).token_key(profile) == "lab:alice:token"
    paddle = Profile("dc1", "http://cloud/", "http://cloud/api/v1/pfs", "alice@example.com", "paddlecloud")
    assert kinds.kind_of(paddle).token_key(paddle) == "paddlecloud:http://cloud:alice@example.com:token"


def test_the_profile_schema_and_the_cli_accept_exactly_the_registered_kinds():
    schema = load_schema("pai-cluster.schema.json")
    assert schema["properties"]["clusters"]["additionalProperties"]["properties"]["kind"]["enum"] == list(kinds.BY_NAME)
    assert schema["properties"]["clusters"]["propertyNames"]["not"]["enum"] == list(LOCALS)
    parser = build_parser()
    cluster = parser._subparsers._group_actions[0].choices["cluster"]
    add = cluster._subparsers._group_actions[0].choices["add"]
    assert next(a for a in add._actions if a.dest == "kind").choices == list(kinds.BY_NAME)


@pytest.mark.subprocess
def test_clients_are_told_every_format_and_kind():
    printed = subprocess.run([sys.executable, "-m", "pai_lsp", "lsp", "--kinds"], capture_output=True, text=True, timeout=60,
                             env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    assert printed.returncode == 0, printed.stderr
    told = json.loads(printed.stdout)
    assert told == kinds.catalogue()
    assert [f["patterns"] for f in told["jobFiles"]] == [list(f.patterns) for f in formats.FORMATS]
    assert [k["name"] for k in told["kinds"]] == list(kinds.BY_NAME)
    paddle = next(k for k in told["kinds"] if k["name"] == "paddlecloud")
    assert paddle["jobFiles"] == ["*.paddle.json"] and paddle["storage"] == "PFS" and not paddle["storageRequired"]
    assert kinds.catalogue("zh-CN")["jobFiles"][0]["title"] == "OpenPAI 作业配置"


def test_paddle_cloud_says_in_one_line_that_it_cannot_tell_its_capacity():
    from pai_lsp.errors import Unsupported

    paddle = Profile("dc1", "http://127.0.0.1:9/", "http://127.0.0.1:9/api/v1/pfs", "alice@example.com", "paddlecloud")
    backend = kinds.kind_of(paddle).backend()(paddle, lambda: None)
    with pytest.raises(Unsupported) as refused:
        backend.cluster_state()  # asks nothing of the network: the platform has no such answer
    assert refused.value.message == ("dc1 is a PaddlePaddle Cloud cluster: it does not tell its capacity or queue (see pai quota)")
    assert backend.job_events("any") == []
    backend.close()
