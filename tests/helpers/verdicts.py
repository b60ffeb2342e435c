"""Job configs of the classes where tools disagree with the real server (number strings, JSON text,
null, unsafe integers, "inf" and friends, JavaScript regex corners, cross-field rules, duplicates),
and the verdict each of our three tools gives on them: the language server over stdio, `pai check`
as a subprocess, the local cluster over HTTP. A verdict is True when the job would be refused
(an Error diagnostic; a 400, or a job the scheduler fails at once)."""

from __future__ import annotations

import asyncio
import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
from hypothesis import strategies as st
from lsprotocol import types

BASE_ROLE = {"name": "worker", "command": "python train.py", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 1024, "gpuNumber": 0}
BASE = {"jobName": "exp_1", "image": "openpai/pytorch", "taskRoles": [BASE_ROLE]}
HUGE = "\x00HUGE\x00"  # written as the JSON number 1e999, which JavaScript reads as Infinity

NUMBERISH = st.one_of(
    st.integers(-3, 70_000),
    st.sampled_from([0, 1, 2, 3, 32, 64, 100, 50_000, 50_001, 2**53 - 1, 2**53, 2**53 + 2, -(2**53) - 2]),
    st.sampled_from([2.0, 2.5, 1e3, 64.0, -1.0, 1e20]),
    st.sampled_from(["2", " 2 ", "+2", "2.0", "1e3", "0x10", "0b11", "0o7", "inf", "Infinity", "-Infinity", "NaN",
                     "1_000", "", "abc", "12abc", "-3", "-1", ".5e1", "\u00a012", "64", "100", "1", "3",
                     "9007199254740993", "1e999", "2.5"]),
    st.none(), st.booleans(), st.just([]), st.just({}), st.just(HUGE),
)
STRINGISH = st.one_of(
    st.sampled_from(["exp_1", "abc\n", "a~b", "a-b", "ä", "a b", "", "w.1", "ps-0", "worker", "x" * 300, "a\u2028"]),
    st.text(max_size=6), st.integers(-2, 3), st.none(),
)
KEYS = st.sampled_from(["a", "MY_VAR", "变量", "a\n", "-", "", "x-y", "1", "isDebug", "paiAzRDMA", "é", "_"])
ANY_VALUE = st.one_of(st.integers(-2, 2), st.text(max_size=4), st.booleans(), st.none(), st.just("yes"), st.just([1]))
ROLE_NUMBERS = ("taskNumber", "cpuNumber", "memoryMB", "shmMB", "gpuNumber", "minFailedTaskCount", "minSucceededTaskCount")


def _maybe_text(draw, value):
    """The value, or (sometimes) the same as JSON text: Joi parses it where an object or array is expected."""
    return json.dumps(value, ensure_ascii=False) if draw(st.integers(0, 3)) == 0 else value


@st.composite
def configs(draw) -> dict:
    config = copy.deepcopy(BASE)
    role = config["taskRoles"][0]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["role-number", "role-number", "role-number", "top-number", "string", "env", "extras",
                                     "ports", "second-role", "roles-text", "unknown", "missing", "shm-pair"]))
        if kind == "role-number":
            role[draw(st.sampled_from(ROLE_NUMBERS))] = draw(NUMBERISH)
        elif kind == "top-number":
            config[draw(st.sampled_from(["retryCount", "killAllOnCompletedTaskNumber"]))] = draw(NUMBERISH)
        elif kind == "string":
            where = draw(st.sampled_from(["jobName", "image", "virtualCluster", "codeDir", "gpuType", "name", "command"]))
            # Which virtual clusters exist is the cluster's business, not the config's: only their types vary.
            value = draw(st.sampled_from(["default", "", None, 1, []]) if where == "virtualCluster" else STRINGISH)
            (role if where in ("name", "command") else config)[where] = value
        elif kind in ("env", "extras"):
            mapping = draw(st.dictionaries(KEYS, ANY_VALUE, max_size=3))
            value = draw(st.one_of(st.just(mapping), st.just(json.dumps(mapping, ensure_ascii=False)), st.none(),
                                   st.just([1]), st.just("x")))
            config["jobEnvs" if kind == "env" else "extras"] = value
        elif kind == "ports":
            label = st.one_of(st.sampled_from(["tb", "ssh", "a-b", "", "é", "tb"]), st.integers(0, 2))
            ports = draw(st.lists(st.fixed_dictionaries({"label": label}, optional={"beginAt": NUMBERISH, "portNumber": NUMBERISH}),
                                  max_size=3))
            role["portList"] = _maybe_text(draw, ports)
        elif kind == "second-role":
            other = copy.deepcopy(BASE_ROLE)
            other["name"] = draw(st.sampled_from(["worker", "ps", "ps-0", "chief"]))
            config["taskRoles"].append(other)
        elif kind == "roles-text":
            config["taskRoles"] = json.dumps(config["taskRoles"], ensure_ascii=False)
            return config
        elif kind == "unknown":
            (role if draw(st.booleans()) else config)[draw(st.sampled_from(["foo", "storageGB", "tmp", "$schema"]))] = 1
        elif kind == "missing":
            target, key = draw(st.sampled_from([(config, "jobName"), (config, "image"), (role, "command"), (role, "name")]))
            target.pop(key, None)
        elif kind == "shm-pair":
            role["shmMB"] = draw(st.one_of(st.integers(0, 200), st.sampled_from(["64", "200", 64.0])))
            if draw(st.booleans()):
                role["memoryMB"] = draw(st.one_of(st.integers(1, 200), st.sampled_from(["100", "50"])))
            else:
                role.pop("memoryMB", None)
    return config


def as_text(config: dict) -> str:
    return json.dumps(config, ensure_ascii=False, indent=1, allow_nan=False).replace(json.dumps(HUGE), "1e999")


# -- the three verdicts ----------------------------------------------------------------
async def _lsp(texts: list[str], folder: Path) -> list[bool]:
    from pytest_lsp import make_test_lsp_client

    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "pai_lsp", "lsp")
    await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(), locale="en"))
    verdicts = []
    try:
        for i, text in enumerate(texts):
            uri = (folder / f"lsp{i}.pai.json").as_uri()
            client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "json", 1, text)))
            while uri not in client.diagnostics:
                await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            verdicts.append(any(d.severity == types.DiagnosticSeverity.Error for d in client.diagnostics[uri]))
            client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    finally:
        await client.shutdown_session()
    return verdicts


def language_server(texts: list[str], folder: Path) -> list[bool]:
    return asyncio.run(_lsp(texts, folder))


def pai_check(texts: list[str], folder: Path) -> list[bool]:
    names = []
    for i, text in enumerate(texts):
        path = folder / f"check{i}.pai.json"
        path.write_text(text, encoding="utf-8")
        names.append(str(path))
    run = subprocess.run([sys.executable, "-m", "pai_lsp", "check", "--locale", "en", *names], capture_output=True,
                         text=True, timeout=600)
    refused = set()
    for line in run.stdout.splitlines():
        match = re.match(r"^(.*?\.pai\.json):\d+:\d+: error ", line)
        if match:
            refused.add(match.group(1))
    return [name in refused for name in names]


def local_cluster(texts: list[str], c: httpx.Client, user: str, start: int = 0) -> list[bool]:
    """Submit each config under its own job name (PUT takes the name from the URL); a job is then
    deleted at once (the cluster is kept busy by a blocker job, so none of them runs)."""
    verdicts = []
    for i, text in enumerate(texts):
        name = f"verdict{start + i}"
        response = c.put(f"/api/v1/user/{user}/jobs/{name}", content=text.encode(), headers={"Content-Type": "application/json"})
        if response.status_code == 400:
            verdicts.append(True)
            continue
        assert response.status_code == 201, (response.status_code, response.text)
        state = response.json()["jobStatus"]
        # Refused by the scheduler (duplicate roles); not a job the real server takes but this machine cannot run.
        verdicts.append(state["state"] == "FAILED" and state["appExitCode"] == -7200)
        c.delete(f"/api/v1/user/{user}/jobs/{name}")
    return verdicts


ORACLE = Path(__file__).resolve().parents[1] / "oracle"  # tests/oracle


def real_server(texts: list[str]) -> list[bool] | None:
    """The real Joi 13.0.2 with the v1.0.0 server's schema and checks (tests/oracle/v1.js), when Node.js and
    the oracle's packages are there (`cd tests/oracle && npm ci`); None otherwise."""
    import shutil

    if shutil.which("node") is None or not (ORACLE / "node_modules" / "joi").is_dir():
        return None
    lines = "".join(json.dumps({"text": t}) + "\n" for t in texts)
    out = subprocess.run(["node", str(ORACLE / "v1.js")], input=lines, capture_output=True, text=True, check=True).stdout
    return [not json.loads(line)["ok"] for line in out.split("\n") if line]  # not splitlines: U+2028 is no line end here
