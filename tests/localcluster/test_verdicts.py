"""One verdict per config: the language server, `pai check` and the local cluster refuse exactly the
configs the real server (validator and scheduler) refuses — on generated configs of the classes where
they used to disagree (and compared with the real Joi 13 too, where tests/oracle's packages are
installed), and on named cases with the server's own words."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pai_lsp.core.joi import Invalid, validate_v1

from ..helpers.localcluster import USER, job, own_cluster, role, submit
from ..helpers.verdicts import as_text, configs, language_server, local_cluster, pai_check, real_server


@pytest.fixture(scope="module")
def busy_cluster(tmp_path_factory, starts_processes):
    """A cluster whose only CPU is taken: every accepted job waits, so none of the generated ones runs."""
    with own_cluster(tmp_path_factory.mktemp("verdicts"), "--cpus", "1", "--gpus", "0") as cluster:
        with cluster.client() as c:
            assert submit(c, job("blocker", role("r", "sleep 3600", cpuNumber=1))).status_code == 201
            yield cluster, c


@settings(max_examples=4, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a batch is its own report
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(configs(), min_size=60, max_size=60))
def test_the_three_tools_give_one_verdict(busy_cluster, tmp_path_factory, batch):
    cluster, c = busy_cluster
    folder = tmp_path_factory.mktemp("batch")
    texts = [as_text(config) for config in batch]
    editor = language_server(texts, folder)
    check = pai_check(texts, folder)
    served = local_cluster(texts, c, USER, start=len(list(folder.parent.iterdir())) * 1000)
    real = real_server(texts) or served  # the real validator too, where its packages are installed
    disagree = [(t, e, k, s, r) for t, e, k, s, r in zip(texts, editor, check, served, real, strict=True) if not e == k == s == r]
    assert not disagree, "\n".join(f"editor={e} check={k} cluster={s} real={r}: {json.dumps(json.loads(t))}"
                                    for t, e, k, s, r in disagree[:8])


@pytest.mark.parametrize("mutation,refused", [
    ({"taskNumber": "2", "minSucceededTaskCount": 3}, "minFailedTaskCount or minSucceededTaskCount should not be greater"),
    ({"taskNumber": 0}, "minFailedTaskCount or minSucceededTaskCount should not be greater"),  # the default minFailed is 1
    ({"memoryMB": " 16 ", "shmMB": "32"}, 'child "shmMB" fails because ["shmMB" must be less than or equal to 16]'),
    ({"memoryMB": "inf"}, '"memoryMB" must be a number'),
    ({"memoryMB": "Infinity"}, '"memoryMB" must be a number'),
    ({"memoryMB": "NaN"}, '"memoryMB" must be a number'),
    ({"memoryMB": "1_000"}, '"memoryMB" must be a number'),
    ({"memoryMB": 2**53}, '"memoryMB" must be an integer'),
    ({"shmMB": 200}, '"shmMB" must be less than or equal to 100'),  # against the default memoryMB
    ({"portList": [{"label": "tb\n"}]}, '"label" with value "tb\n" fails to match the required pattern'),
])
def test_the_server_refuses_with_its_own_words(cluster, mutation, refused):
    body = job("joi", role("worker", "true", **mutation))
    for key in [k for k in ("cpuNumber", "memoryMB") if k not in mutation]:
        body["taskRoles"][0].pop(key)
    with cluster.client() as c:
        response = submit(c, body)
    assert (response.status_code, response.json()["code"]) == (400, "InvalidParametersError")
    assert refused in response.json()["message"]


@pytest.mark.parametrize("mutation", [
    {"taskNumber": "2", "minSucceededTaskCount": 2},  # converted before the cross-field check
    {"memoryMB": 50},  # the default shmMB (64) is never checked against memoryMB
    {"memoryMB": " 512 ", "shmMB": "1e2"},
    {"taskNumber": 0, "minFailedTaskCount": None},
    {"memoryMB": "0x10"},  # parseFloat reads "0x10" as 0, which Joi accepts (the launcher would not: see the schema)
])
def test_what_joi_converts_is_accepted_with_converted_values(mutation):
    body = job("joi", role("worker", "true", **mutation))
    if mutation.get("memoryMB") == "0x10":
        with pytest.raises(Invalid, match='"memoryMB" must be larger than or equal to 1'):
            validate_v1(body)  # Joi says 0; the stack's own minimum refuses it
        return
    config = validate_v1(body)
    assert all(isinstance(config["taskRoles"][0][k], int) for k in ("taskNumber", "memoryMB", "shmMB"))


def test_json_text_objects_and_non_ascii_keys(cluster):
    with cluster.client() as c:
        text_env = submit(c, job("envtext", role("r", "echo $FROM_TEXT"), jobEnvs=json.dumps({"FROM_TEXT": "yes"})))
        assert text_env.status_code == 201
        unicode_key = submit(c, job("envkey", role("r", "true"), jobEnvs={"变量": 1}))
        assert unicode_key.status_code == 400 and unicode_key.json()["message"] == 'child "jobEnvs" fails because ["变量" is not allowed]'
        debug_string = submit(c, job("debugstr", role("r", "true"), jobEnvs={"isDebug": "yes"}))
        assert debug_string.status_code == 201  # any value is taken; only true means debug


def test_duplicate_roles_are_taken_then_refused_by_the_scheduler(cluster):
    with cluster.client() as c:
        response = submit(c, job("twice", role("worker", "true"), role("worker", "false")))
        assert response.status_code == 201
        status = response.json()["jobStatus"]
        assert status["state"] == "FAILED" and status["appExitCode"] == -7200
        assert "worker is used by more than one task role" in status["appExitDiagnostics"]


V2 = """protocolVersion: 2
name: {name}
type: job
prerequisites:
  - {{name: img, type: dockerimage, uri: "ubuntu:18.04"}}
taskRoles:
  worker:
    instances: {instances}
    dockerImage: img
    resourcePerInstance: {{cpu: 1, memoryMB: 256, gpu: 0}}
    commands:
      - echo {word}
"""


@pytest.mark.parametrize("text,status,needle", [
    (V2.format(name="n" * 255, instances=1, word="hi"), 202, None),
    (V2.format(name="n" * 256, instances=1, word="hi"), 400, "maxLength"),
    (V2.format(name="float_instances", instances="2.0", word="hi"), 202, None),
    # Ajv 6 counts Infinity as an integer: the server takes it, the scheduler fails it (test_v2_verdicts.py)
    (V2.format(name="inf_instances", instances=".inf", word="hi"), 202, None),
    (V2.format(name="yes_word", instances=1, word="yes"), 202, None),  # YAML 1.2: yes is a string
    (V2.format(name="name_nl", instances=1, word="x").replace("name: name_nl", 'name: "name_nl\\n"'), 400, "pattern"),
    (V2.format(name="dup", instances=1, word="x") + "name: again\n", 400, "duplicated mapping key"),
    (V2.format(name="noimageuri", instances=1, word="x").replace(', uri: "ubuntu:18.04"', ""), 400, "oneOf"),
    (V2.format(name="extrakey", instances=1, word="x").replace('uri: "ubuntu:18.04"', 'uri: "u", plugin: x'), 400, "oneOf"),
    (V2.format(name="badauth", instances=1, word="x").replace('uri: "ubuntu:18.04"', 'uri: "u", auth: {username: 1}'), 400, "oneOf"),
    (V2.format(name="deploy", instances=1, word="x") + "deployments:\n  - name: d\n    taskRoles:\n      worker: {preCommands: []}\n",
     400, "minItems"),
    (V2.format(name="deploykey", instances=1, word="x") + "deployments:\n  - name: d\n    taskRoles:\n      worker: {other: [x]}\n",
     400, "additionalProperties"),
    (V2.format(name="deployrole", instances=1, word="x") + "deployments:\n  - name: d\n    taskRoles:\n      ps-0: {preCommands: [x]}\n",
     400, "additionalProperties"),
    ("protocolVersion: 2\nname: [unclosed\n", 400, "not valid YAML"),
])
def test_v2_verdicts_and_no_500(cluster, text, status, needle):
    with cluster.client() as c:
        response = c.post("/api/v2/jobs", content=text, headers={"Content-Type": "text/yaml"})
    assert response.status_code == status, response.text
    if needle:
        assert response.json()["code"] == "InvalidProtocolError" and needle in response.json()["message"]
