"""The local cluster reports how a task ended as the real platforms do, from what the task really did:
a signal as 128+n, a command that is not there (YARN: 255 and the user's 127; Kubernetes' runtime: 220),
a memory limit exceeded (-7122 / -1200, with --enforce-memory), a stop, retries used up — and the
core's triage reads the same detail to say why (the whole loop, with no cluster but this one)."""

from __future__ import annotations

import pytest

from pai_lsp.core.triage import JobFacts, TaskFacts, explain_job, explain_task
from pai_lsp.core.v1.to_v2 import to_v2_yaml

from ..helpers.localcluster import USER, detail, finished, job, log, own_cluster, role, submit, wait_for

SEGFAULT = "python3 -c 'import ctypes; ctypes.string_at(0)'"
GREEDY = "python3 -c 'import time\nkept = []\nfor _ in range(256):\n    kept.append(b\"x\" * (8 << 20)); time.sleep(0.01)'"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, starts_processes):
    with own_cluster(tmp_path_factory.mktemp("exits"), "--enforce-memory") as c:
        yield c


def _run(cluster, name: str, command: str, version: int, memory: int = 256, **extra) -> tuple[dict, str]:
    """Submit through the job's API (v1 JSON or v2 YAML) and wait for its end: (detail, task log)."""
    config = job(name, role("main", command, memoryMB=memory), **extra)
    with cluster.client() as c:
        if version == 1:
            assert submit(c, config).status_code in (201, 202)
            d = finished(c, name)
        else:
            sent = c.post("/api/v2/jobs", content=to_v2_yaml(config).encode(), headers={"Content-Type": "text/yaml"})
            assert sent.status_code in (201, 202), sent.text
            d = wait_for(lambda: (got := c.get(f"/api/v2/jobs/{USER}~{name}").json())["jobStatus"]["state"]
                         in ("SUCCEEDED", "FAILED", "STOPPED") and got)
        return d, log(cluster, c, name, "main", which="all")


def _task(d: dict) -> dict:
    return d["taskRoles"]["main"]["taskStatuses"][0]


def _why(d: dict, text: str):
    return explain_task(TaskFacts.from_detail(d, "main", 0, text))


@pytest.mark.parametrize(("version", "phrase"), [(1, "CONTAINER_KILLED_BY_SIGSEGV"), (2, "ContainerSigSegvReceived")])
def test_a_segfault_is_128_plus_its_signal(cluster, version, phrase):
    d, text = _run(cluster, f"segv{version}", SEGFAULT, version)
    assert d["jobStatus"]["state"] == "FAILED"
    assert _task(d)["containerExitCode"] == 139 and d["jobStatus"]["appExitCode"] == 139
    assert d["jobStatus"]["appExitSpec"]["phrase"] == phrase
    assert "SIGSEGV" in d["jobStatus"]["appExitDiagnostics"]
    why = _why(d, text)
    assert why.kind == "signal" and why.signal == "SIGSEGV"


def test_a_missing_command_yarn_era_keeps_the_users_127(cluster):
    d, text = _run(cluster, "nocmd1", "no-such-tool --fast", 1)
    assert _task(d)["containerExitCode"] == 255
    assert d["jobStatus"]["appExitMessages"]["runtime"]["originalUserExitCode"] == 127
    assert "command not found" in text
    why = _why(d, text)
    assert why.kind == "command-not-found" and why.command == "no-such-tool" and why.user_exit_code == 127


def test_a_missing_command_kubernetes_era_is_the_runtimes_220(cluster):
    d, text = _run(cluster, "nocmd2", "no-such-tool --fast", 2)
    assert _task(d)["containerExitCode"] == 220
    assert _task(d)["containerExitSpec"]["phrase"] == "UserCommandExitWithError"
    why = _why(d, text)
    assert why.kind == "command-not-found" and why.command == "no-such-tool"


def test_an_import_error_kubernetes_era_is_the_runtimes_232_and_a_plain_exit_its_own_code(cluster):
    d, _ = _run(cluster, "imp2", "python3 -c 'from os import no_such_name'", 2)
    assert _task(d)["containerExitCode"] == 232 and _task(d)["containerExitSpec"]["phrase"] == "ContainerImportError"
    d, text = _run(cluster, "plain2", "echo working; echo giving up >&2; exit 3", 2)
    assert _task(d)["containerExitCode"] == 3
    why = _why(d, text)
    assert why.kind == "exit-nonzero" and any("giving up" in e.text for e in why.last_lines)


@pytest.mark.parametrize(("version", "code", "phrase"), [(1, -7122, "CONTAINER_RUNTIME_PHYSICAL_MEMORY_EXCEEDED"),
                                                          (2, -1200, "UserContainerDockerOOMKilled")])
def test_a_task_past_its_memory_limit_is_killed_with_the_platforms_code(cluster, version, code, phrase):
    d, text = _run(cluster, f"greedy{version}", GREEDY, version, memory=64)
    task = _task(d)
    assert d["jobStatus"]["state"] == "FAILED"
    assert task["containerExitCode"] == code and d["jobStatus"]["appExitSpec"]["phrase"] == phrase
    assert "exceeded its memory limit" in d["jobStatus"]["appExitDiagnostics"]
    assert "64 MB" in d["jobStatus"]["appExitDiagnostics"]
    why = _why(d, text)
    assert why.kind == "host-oom"


def test_a_stopped_job_says_so(cluster):
    with cluster.client() as c:
        assert submit(c, job("stopme", role("main", "sleep 300"))).status_code in (201, 202)
        wait_for(lambda: detail(c, "stopme")["jobStatus"]["state"] == "RUNNING")
        c.put(f"/api/v1/user/{USER}/jobs/stopme/executionType", json={"value": "STOP"})
        d = finished(c, "stopme")
    assert d["jobStatus"]["appExitCode"] == -7351 and d["jobStatus"]["appExitSpec"]["type"] == "USER_STOP"
    why = explain_job(JobFacts.from_detail(d))
    assert why.kind == "user-stop"


def test_retries_used_up(cluster):
    d, text = _run(cluster, "retry1", "echo attempt; exit 4", 1, retryCount=1)
    assert d["jobStatus"]["state"] == "FAILED" and d["jobStatus"]["retries"] == 1
    task = _why(d, text)
    why = explain_job(JobFacts.from_detail(d, retries_allowed=1), [task])
    assert why.kind == "retries-exhausted" and why.cause is not None and why.cause.user_exit_code == 4


# -- the same rules in-process: what a process's end becomes, in each era ---------------------------
@pytest.mark.parametrize(("code", "era", "log", "reported"), [
    (0, "yarn", "", (0, None)),
    (-11, "yarn", "", (139, None)),  # killed by SIGSEGV: 128+11
    (137, "yarn", "", (137, None)),  # the shell's own 128+n
    (127, "yarn", "bash: x: command not found", (255, 127)),  # YARN's launcher: 255, the user's code kept
    (127, "k8s", "bash: x: command not found", (220, 127)),  # the runtime's pattern: exit code and log line
    (1, "k8s", "ImportError: cannot import name 'x'", (232, 1)),
    (1, "k8s", "Segmentation fault (core dumped)", (234, 1)),
    (-11, "k8s", "", (139, 139)),
    (3, "k8s", "giving up", (3, 3)),  # no pattern: the command's own code
])
def test_how_a_process_end_is_reported(code, era, log, reported):
    from pai_lsp.localcluster.runner import reported_exit

    assert reported_exit(code, era, log) == reported


def test_exit_specs_come_from_the_one_table_with_the_local_clusters_own_codes_beside():
    from pai_lsp.localcluster.shapes import exit_spec

    assert exit_spec(137, "yarn")["phrase"] == "CONTAINER_KILLED_BY_SIGKILL"
    assert exit_spec(137, "k8s")["phrase"] == "ContainerSigKillReceived"
    assert (exit_spec(-1200, "k8s")["phrase"], exit_spec(-1200, "k8s")["type"]) == ("UserContainerDockerOOMKilled", "USER_FAILURE")
    assert exit_spec(-7201, "yarn")["phrase"] == "BEYOND_THE_LOCAL_CLUSTER"  # the local cluster's own meaning
    assert exit_spec(42, "k8s")["code"] == 42 and exit_spec(42, "k8s")["phrase"] == "PAIRuntimeExitAbnormally"  # the fallback
    assert exit_spec(None) is None
