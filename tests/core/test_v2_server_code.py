"""What the v2 server's code refuses after its schema (values of a type its JavaScript cannot use:
`taskRoles` null or a string, roles given as a list without commands, a role's `prerequisites` a
string, a default deployment's `taskRoles` null, hooks that are no lists, `auth` values that are no
strings) is an Error in the editor and the same refusal in the local cluster, on every real example
(../shared) and on the repository's own job; what it accepts (roles given as a list that holds whole
roles, a number) is no Error. And mutations of the real examples (each value replaced by one of
another type, members added where the code reads them) get the real server's verdict (its own code:
tests/oracle/protocol.js), where Node.js and the oracle's packages are."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import cache

import pytest
import yaml

from pai_lsp.core.formats import BY_NAME
from pai_lsp.core.model import Settings
from pai_lsp.core.v2.server_code import JAVASCRIPT, refusals
from pai_lsp.localcluster.rest_errors import ClusterError
from pai_lsp.localcluster.v2 import parse as local_parse

from ..helpers.configs import V2_JOB
from ..helpers.paths import SHARED
from ..helpers.yaml_oracle import server_verdict

V2 = BY_NAME["pai-v2"]
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's: the same values, several times sooner


def load(text: str):
    """The values of a YAML text, as `yaml.safe_load` reads them."""
    return yaml.load(text, Loader=LOADER)


OTHER_TYPES = ["x", None, [], ["a"], {}, {"a": 1}, 1, True, [["a"]], [{"a": 1}], "", 0, -1, 1.5]


@cache
def own() -> list[dict]:
    """The repository's job, as plain values."""
    return [json.loads(json.dumps(load(V2_JOB), default=str))]


@cache
def real() -> list[dict]:
    """The real examples (when ../shared is there), as plain values."""
    texts = [p.read_text(encoding="utf-8") for p in sorted((SHARED / "corpus").glob("openpai-examples/v2/*.yaml"))]
    return [json.loads(json.dumps(load(t), default=str)) for t in texts]


def examples() -> list[dict]:
    """The repository's job and the real examples."""
    return own() + real()


# Each change on the repository's job (the unit tier), and on every real example (much work: the full suite).
JOBS = [pytest.param(own, id="own"), pytest.param(real, id="real", marks=pytest.mark.slow)]


def changed(job: dict, path: tuple, value) -> dict:
    """The job with the value at `path` set (a copy)."""
    job = json.loads(json.dumps(job))
    at = job
    for part in path[:-1]:
        at = at[part]
    at[path[-1]] = value
    return job


def as_list(job: dict) -> dict:
    return changed(job, ("taskRoles",), list(job["taskRoles"].values()))


def with_deployment(job: dict, roles) -> dict:
    return dict(job, deployments=[{"name": "d", "taskRoles": roles}], defaults=dict(job.get("defaults") or {}, deployment="d"))


def first_role(job: dict) -> str:
    return next(iter(job["taskRoles"]))


def first_image(job: dict) -> int:
    return next(i for i, p in enumerate(job["prerequisites"]) if p["type"] == "dockerimage")


# (what the change is, the change, the server's status: 500 for JavaScript's failure, 400 for its checks)
REFUSED: list[tuple[str, Callable[[dict], dict], int]] = [
    ("taskRoles null", lambda j: changed(j, ("taskRoles",), None), 500),
    ("taskRoles a string", lambda j: changed(j, ("taskRoles",), "worker"), 500),
    ("taskRoles a list of names", lambda j: changed(j, ("taskRoles",), ["worker"]), 500),
    ("taskRoles a list of mappings without commands", lambda j: changed(j, ("taskRoles",), [{"a": 1}]), 500),
    ("taskRoles a list of lists", lambda j: changed(j, ("taskRoles",), [["a"]]), 500),
    ("a listed role's prerequisites a string", lambda j: changed(as_list(j), ("taskRoles", 0, "prerequisites"), "abc"), 400),
    ("a listed role's prerequisites a mapping", lambda j: changed(as_list(j), ("taskRoles", 0, "prerequisites"), {"a": 1}), 500),
    ("a listed role's commands a string", lambda j: changed(as_list(j), ("taskRoles", 0, "commands"), "echo"), 500),
    ("a listed role's command a number", lambda j: changed(as_list(j), ("taskRoles", 0, "commands"), [1]), 500),
    ("a listed role's image not defined", lambda j: changed(as_list(j), ("taskRoles", 0, "dockerImage"), "nothing"), 400),
    ("a listed role's command an unclosed tag", lambda j: changed(as_list(j), ("taskRoles", 0, "commands"), ["echo <% x"]), 500),
    ("the default deployment's taskRoles null", lambda j: with_deployment(j, None), 500),
    ("the default deployment's taskRoles a string", lambda j: with_deployment(j, "worker"), 500),
    ("the default deployment's listed hooks not lists", lambda j: with_deployment(as_list(j), [{"preCommands": 1}]), 500),
    ("an auth value a number", lambda j: changed(j, ("prerequisites", first_image(j), "auth"), {"token": 1}), 500),
    ("an auth value a mapping", lambda j: changed(j, ("prerequisites", first_image(j), "auth"), {"token": {"a": 1}}), 500),
]
ACCEPTED: list[tuple[str, Callable[[dict], dict]]] = [
    ("taskRoles a list of whole roles", as_list),
    ("taskRoles a number", lambda j: changed(j, ("taskRoles",), 3)),
    ("taskRoles an empty string", lambda j: changed(j, ("taskRoles",), "")),
    ("the default deployment's taskRoles a list", lambda j: with_deployment(j, ["worker"])),
    ("an auth value null", lambda j: changed(j, ("prerequisites", first_image(j), "auth"), {"token": None})),
]


def errors(text: str) -> list:
    return [d for d in V2.diagnose(V2.parse(text), Settings()) if d.severity == "error"]


def local_status(text: str) -> int:
    try:
        local_parse(text)
    except ClusterError as exc:
        return exc.status
    return 202


@pytest.mark.parametrize("jobs", JOBS)
@pytest.mark.parametrize("what, change, status", REFUSED, ids=[r[0] for r in REFUSED])
def test_what_the_servers_code_refuses_is_an_error_here_and_in_the_local_cluster(what, change, status, jobs):
    for job in jobs():
        text = yaml.safe_dump(change(job), sort_keys=False)
        found = errors(text)
        assert found, f"{what}: no error\n{text}"
        assert {d.code for d in found} & {"v2.server-crash", "v2.server-refuses", "v2.server-letters"}, (what, [(d.code, d.message) for d in found])
        assert local_status(text) == status, (what, text)
        assert next(refusals(load(text))).status == status


@pytest.mark.parametrize("jobs", JOBS)
@pytest.mark.parametrize("what, change", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_what_the_servers_code_accepts_is_no_error(what, change, jobs):
    for job in jobs():
        text = yaml.safe_dump(change(job), sort_keys=False)
        assert errors(text) == [], (what, [(d.code, d.message) for d in errors(text)])
        assert list(refusals(load(text))) == []
        assert local_status(text) == 202, what


def test_the_editor_says_where_and_why():
    text = V2_JOB[:V2_JOB.index("taskRoles:")] + "taskRoles:\n"
    (found,) = [d for d in errors(text) if d.code == "v2.server-crash"]
    assert text[found.start:found.end] == "taskRoles"  # the value is left empty: its key
    assert "Cannot convert undefined or null to object" in found.message and "taskRoles be null" in found.message
    zh = [d for d in V2.diagnose(V2.parse(text), Settings(locale="zh-CN")) if d.code == "v2.server-crash"]
    assert zh and "服务器" in zh[0].message
    (crash,) = [r for r in refusals(load(text)) if r.kind == JAVASCRIPT]
    assert (crash.status, crash.path, crash.expected) == (500, ("taskRoles",), "object")


def test_a_string_read_letter_by_letter_is_said_once():
    text = yaml.safe_dump(changed(as_list(examples()[0]), ("taskRoles", 0, "prerequisites"), "image"), sort_keys=False)
    found = [d for d in errors(text) if d.code.startswith("v2.server")]
    assert [d.code for d in found] == ["v2.server-letters"], [(d.code, d.message) for d in found]
    assert text[found[0].start:found[0].end] == "image" and "Prerequisite i does not exist." in found[0].message


def mutations(job: dict, rng: random.Random, count: int) -> list[str]:
    """`count` mutations of a job: a value anywhere replaced by one of another type, or a member the
    server's code reads added with one."""
    paths: list[tuple] = []

    def walk(value, path: tuple) -> None:
        if path and "auth" not in path:  # see the test below
            paths.append(path)
        if isinstance(value, dict):
            for key, child in value.items():
                walk(child, path + (key,))
        elif isinstance(value, list):
            for i, child in enumerate(value[:2]):
                walk(child, path + (i,))

    walk(job, ())
    added = [lambda v: changed(job, ("taskRoles", first_role(job), "prerequisites"), v),
             lambda v: changed(as_list(job), ("taskRoles", 0, "prerequisites"), v),
             lambda v: changed(as_list(job), ("taskRoles", 0, "commands"), v),
             lambda v: changed(as_list(job), ("taskRoles", 0, "dockerImage"), v),
             lambda v: changed(job, ("taskRoles",), [v]),
             lambda v: with_deployment(job, v),
             lambda v: with_deployment(as_list(job), [{"preCommands": v}])]
    out = []
    for _ in range(count):
        value = rng.choice(OTHER_TYPES)
        new = changed(job, rng.choice(paths), value) if rng.random() < 0.7 else rng.choice(added)(value)
        out.append(yaml.safe_dump(new, sort_keys=False))
    return out


@pytest.mark.subprocess  # runs Node.js: the server's own code (tests/oracle)
def test_mutated_real_examples_get_the_real_servers_verdict():
    """Every mutation the real server refuses (400 or 500) has an Error here, every one it takes has
    none, and the local cluster answers the server's status. (A Docker image's `auth` value that is
    no string is left out: mustache caches parses by the template's text, so the server's verdict on
    one depends on what it rendered before; here it is always refused, as a fresh server refuses it.)"""
    rng = random.Random(32)
    texts = [t for job in examples() for t in mutations(job, rng, 12 if len(examples()) > 1 else 300)]
    real = server_verdict(texts)
    statuses = {v["status"] for v in real}
    assert {202, 400, 500} <= statuses, statuses
    disagree = []
    for text, theirs in zip(texts, real, strict=True):
        found, local = errors(text), local_status(text)
        if (theirs["status"] != 202) != bool(found) or local != theirs["status"]:
            disagree.append((theirs, local, [(d.code, d.message) for d in found], text))
    assert not disagree, f"{len(disagree)} of {len(texts)}:\n" + "\n\n".join(map(str, disagree[:3]))


@pytest.mark.subprocess  # runs Node.js: the server's own code (tests/oracle)
def test_the_family_is_known_to_the_real_server_too():
    """The refused and accepted changes above are the real server's verdicts, not only ours."""
    job = examples()[0]
    texts = [yaml.safe_dump(change(job), sort_keys=False) for _, change, _ in REFUSED]
    texts += [yaml.safe_dump(change(job), sort_keys=False) for _, change in ACCEPTED]
    expected = [status for _, _, status in REFUSED] + [202] * len(ACCEPTED)
    assert [v["status"] for v in server_verdict(texts)] == expected

