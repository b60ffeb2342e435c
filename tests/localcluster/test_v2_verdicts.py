"""The local cluster's verdict on v2 jobs is the real server's: the same status and, where the server
words it, the same message, on the corpus and on generated jobs of the classes where they used to
disagree (`taskRoles` and `ports` given as lists or null, which the server's schema lets through;
Infinity, which Ajv 6 counts as an integer; an unclosed `<%`, which the server's renderer refuses with a
500). The real server is its own code (tests/oracle/protocol.js: js-yaml 3.13.1, Ajv 6.12.3 with the
server's schema, its cross-reference checks, mustache 2.3). What the server accepts but cannot run is
accepted and then FAILED at scheduling with the reason, as the real scheduler fails it."""

from __future__ import annotations

import json
import re

import pytest

from pai_lsp.core.formats import BY_NAME
from pai_lsp.core.model import Settings
from pai_lsp.core.v2.render import unrunnable
from pai_lsp.localcluster.v2 import parse

from ..helpers.localcluster import USER, job, own_cluster, role, submit, wait_for
from ..helpers.paths import shared
from ..helpers.v2_jobs import BASE, CHOICES, ROLES, SHAPES, generated
from ..helpers.yaml_oracle import server_verdict

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process


def corpus() -> list[str]:
    """The real examples, in the virtual cluster this one has (which virtual clusters exist is the cluster's, not the protocol's)."""
    folder = shared("corpus", "openpai-examples", "v2")
    return [re.sub(r"virtualCluster: *\S+", "virtualCluster: default", p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.yaml"))]


@pytest.fixture(scope="module")
def busy_cluster(tmp_path_factory, starts_processes):
    """A cluster whose only CPU is taken: every job that can run waits, so none of the generated ones runs."""
    data_dir = tmp_path_factory.mktemp("v2verdicts")
    # Which storages exist is the cluster's, not the protocol's: this one has the storage the corpus names.
    (data_dir / "storages.json").write_text(json.dumps({"storages": {"confignfs": {"path": str(data_dir / "confignfs")}}}))
    with own_cluster(data_dir, "--cpus", "1", "--gpus", "0") as cluster:
        with cluster.client() as c:
            assert submit(c, job("blocker", role("r", "sleep 3600", cpuNumber=1))).status_code == 201
            yield cluster, c


def local_verdict(c, text: str) -> tuple[int, str]:
    """(status, message) of the local cluster; an accepted job that cannot run says so as its FAILED state."""
    response = c.post("/api/v2/jobs", content=text.encode(), headers={"Content-Type": "text/yaml"})
    if response.status_code != 202:
        return response.status_code, response.json().get("message", "")
    return 202, ""


def test_the_local_cluster_gives_the_real_servers_verdict(busy_cluster):
    _, c = busy_cluster
    texts = corpus() + generated(240)
    real = server_verdict(texts)
    statuses = {v["status"] for v in real}
    assert statuses == {202, 400, 500}, statuses  # the generated jobs reach every verdict
    disagree = []
    for text, theirs in zip(texts, real, strict=True):
        status, message = local_verdict(c, text)
        if "at line" in theirs["message"] and status == 400 and message.startswith("The job protocol is not valid YAML"):
            continue  # js-yaml's exception is the server's 500; the local cluster's 400 says the same, its own way
        # The words compared: the server's own (its checks', mustache's); not Ajv's error list, nor a JavaScript
        # TypeError's (worded by the Node.js version the server runs on)
        words_matter = theirs["status"] == 400 and not theirs["message"].startswith("[") or \
            theirs["message"].startswith(("Unclosed", "Unopened", "Invalid tags"))
        if status != theirs["status"] or (words_matter and message != theirs["message"]):
            disagree.append((text, theirs, status, message))
    assert not disagree, "\n\n".join(f"real={t} local={s} {m!r}\n{x}" for x, t, s, m in disagree[:5])


@pytest.mark.parametrize("change, reason", [
    (SHAPES[1], "taskRoles"),
    (lambda text: text[:text.index(ROLES)] + "taskRoles:\n  - commands: [echo a list item]\n", "taskRoles"),
    (lambda text: text.replace("ports: PORTS", "ports: [http]"), "ports"),
    (lambda text: text.replace("cpu: CPU", "cpu: -1"), "cpu"),
    (lambda text: text.replace("cpu: CPU", "cpu: .inf"), "cpu"),
    (lambda text: text.replace("instances: INSTANCES", "instances: .inf"), "instances"),
    (lambda text: text.replace("gpu: 0", "gpu: .inf"), "gpu"),
    (lambda text: text.replace("ports: PORTS", "ports: {http: -1}"), "ports.http"),
    (lambda text: text.replace("ports: PORTS", "ports: {http: .inf}"), "ports.http"),
])
def test_what_the_server_accepts_but_cannot_run_fails_at_scheduling_with_the_reason(busy_cluster, change, reason):
    _, c = busy_cluster
    name = f"cannotrun_{reason.replace('.', '_')}_{len(c.get('/api/v2/jobs').json())}"
    text = change(BASE).replace("NAME", name)
    for key, options in CHOICES.items():
        text = text.replace(key, options[0])
    assert server_verdict([text])[0]["status"] == 202
    assert local_verdict(c, text)[0] == 202
    detail = wait_for(lambda: (d := c.get(f"/api/v2/jobs/{USER}~{name}").json())["jobStatus"]["state"] == "FAILED" and d)
    assert reason in detail["jobStatus"]["appExitDiagnostics"], detail["jobStatus"]
    assert editor_warns(text), text  # and the editor said so before the submit


def editor_warns(text: str) -> list[str]:
    """The warnings (and errors) the editor's v2 format gives `text`, minus one the jobs here all get."""
    v2 = BY_NAME["pai-v2"]
    return [d.message for d in v2.diagnose(v2.parse(text), Settings())
            if d.severity in ("error", "warning") and "which the job does not have" not in d.message]


@pytest.mark.subprocess  # runs Node.js: the server's own code (tests/oracle)
def test_every_job_the_server_takes_but_the_local_cluster_cannot_run_gets_the_editors_warning():
    """What the local cluster fails at scheduling (`unrunnable`), the editor warns of: over the
    generated jobs the real server takes."""
    texts = generated(240, seed=21)
    real = server_verdict(texts)
    unrunnable_ones = [t for t, v in zip(texts, real, strict=True) if v["status"] == 202 and unrunnable(parse(t))]
    assert len(unrunnable_ones) > 10, len(unrunnable_ones)
    silent = [t for t in unrunnable_ones if not editor_warns(t)]
    assert not silent, f"{unrunnable(parse(silent[0]))}\n{silent[0]}"
