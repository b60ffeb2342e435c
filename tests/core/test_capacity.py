"""The rules behind "why is it waiting" and "will it fit", in-process over recorded cluster states
(tests/core/cluster_states/: the rest-server's answers as they came, openpai-k8s.md §B): the blocking
reason in words, the jobs-ahead estimate by the pod-priority rule, what is free, who holds it, and
for a job being written whether it can never run, will wait, or fits."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pai_lsp.core.capacity import ClusterState, Event, Node, QueuedJob, Resources, RoleAsk, asks_from_config, pod_priority
from pai_lsp.core.fit import NEVER, WAIT, judge
from pai_lsp.core.waiting import Explanation, explain, jobs_ahead

STATES = Path(__file__).parent / "cluster_states"


def recorded(name: str = "busy_vc") -> tuple[ClusterState, dict]:
    raw = json.loads((STATES / f"{name}.json").read_text())
    state = ClusterState.from_wire(raw["virtual-clusters"], raw["nodes"], raw["sku-types"], raw["jobs"],
                                   vc_skus={"vc1": raw["sku-types?vc=vc1"]}, fetched_ms=1700005000000)
    return state, raw


def job(state: ClusterState, name: str) -> QueuedJob:
    return next(j for j in state.jobs if j.name == name)


def events(raw: dict) -> list[Event]:
    return [Event.from_wire(e) for e in raw["events"]["data"]]


def two_by_four() -> list[RoleAsk]:
    return [RoleAsk("worker", 2, Resources(4, 8192, 4))]


# -- a waiting job's explanation -----------------------------------------------------------------
def test_a_job_asking_more_than_is_free_says_so_with_jobs_ahead_free_and_holders():
    state, raw = recorded()
    why = explain(job(state, "alice~big"), two_by_four(), events(raw), state)
    assert why is not None
    assert why.lines(None) == [
        "waiting: not enough free GPUs in vc1: it asks 8, 3 free of 16",
        "jobs ahead: 2 (an estimate: waiting jobs of vc1 with a higher priority class, or the same class submitted earlier; "
        "a smaller job may start before them)",
        "free now in vc1: 3 GPUs, 6 CPUs, 12288 MB; the most free on one node of the cluster: 3 GPUs",
        "held by:",
        "  carol~train8 (carol, 8 GPUs, since 2023-11-14 22:15 UTC)",
        "  dave~eval (dave, 4 GPUs, since 2023-11-14 22:23 UTC)",
        "  erin~notebook (erin, 1 GPUs, since 2023-11-14 22:26 UTC)",
    ]
    assert "vc1 中空闲的GPU不够：作业需要 8，空闲 3（共 16）" in why.lines("zh-cn")[0]


def test_jobs_ahead_follow_the_pod_priority_higher_class_first_then_earlier_submission():
    state, _ = recorded()
    big = job(state, "alice~big")
    assert sorted(j.name for j in jobs_ahead(big, state)) == ["bob~first", "frank~urgent"]  # crit later; test earlier
    assert [j.name for j in jobs_ahead(job(state, "frank~urgent"), state)] == []
    assert len(jobs_ahead(job(state, "gina~later"), state)) == 3
    # Without HiveD every class is 0: submission order alone.
    plain = replace(state, skus={})
    assert sorted(j.name for j in jobs_ahead(big, plain)) == ["bob~first"]
    # The formula's 16-second steps: a class outranks any submission time.
    assert pod_priority(job(state, "frank~urgent"), True) > pod_priority(job(state, "bob~first"), True)


def test_an_instance_larger_than_any_free_node_says_no_node_has_room():
    state, _ = recorded()
    roomy = replace(state, vcs={**state.vcs, "vc1": replace(state.vcs["vc1"], used=Resources(20, 40960, 10))})
    why = explain(job(state, "bob~first"), [RoleAsk("worker", 1, Resources(2, 4096, 4))], [], roomy)
    assert why.reason.render(None) == "no node has 4 free GPUs for one instance (the most free on one node: 3)"


def test_a_job_that_can_never_run_says_so_with_numbers():
    state, _ = recorded()
    wide = explain(job(state, "alice~big"), [RoleAsk("worker", 1, Resources(2, 4096, 8))], [], state)
    assert wide.reason.render(None) == "it can never run: an instance asks 8 GPUs, the largest node has 4"
    many = explain(job(state, "alice~big"), [RoleAsk("worker", 5, Resources(2, 4096, 4))], [], state)
    assert many.reason.render(None) == "it can never run: it asks 20 GPUs in all, vc1 has 16"


@pytest.mark.parametrize(("pod_events", "said"), [
    ([("w-0", "Normal", "Scheduled", "assigned to n4", "T2"), ("w-1", "Warning", "FailedScheduling", "0/4 nodes", "T3")],
     "gang allocation: 1 of 2 instances are placed, the job starts when all are"),
    ([("w-0", "Normal", "Scheduled", "assigned to n4", "T1"), ("w-0", "Normal", "Pulling", 'Pulling image "pytorch:2"', "T2")],
     'pulling the image (Pulling image "pytorch:2")'),
    ([("w-0", "Warning", "Failed", 'Failed to pull image "nope:1": not found', "T2")],
     'the image cannot be pulled: Failed to pull image "nope:1": not found'),
])
def test_what_the_pods_events_tell_comes_first(pod_events, said):
    state, _ = recorded()
    fits = replace(state, vcs={**state.vcs, "vc1": replace(state.vcs["vc1"], used=Resources())},
                   nodes={n: Node(n, 0, 4, 4) for n in state.nodes})
    told = [Event(task, "w", int(task[-1]), kind, reason, words, 1, when) for task, kind, reason, words, when in pod_events]
    why = explain(job(state, "alice~big"), two_by_four(), told, fits)
    assert why.reason.render(None) == said


def test_with_room_now_the_scheduler_words_then_a_retry_then_not_placed_yet():
    state, raw = recorded()
    fits = replace(state, vcs={**state.vcs, "vc1": replace(state.vcs["vc1"], used=Resources())},
                   nodes={n: Node(n, 0, 4, 4) for n in state.nodes})
    big = job(state, "alice~big")
    assert explain(big, two_by_four(), events(raw), fits).reason.render(None) == \
        "the scheduler says: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu."
    retried = explain(replace(big, retries=2), two_by_four(), [], fits)
    assert retried.reason.render(None) == "retried after a failure (2 so far): waiting to start again"
    assert explain(big, two_by_four(), [], fits).reason.render(None) == "it fits now: waiting for the scheduler to place it"
    # The list's totals stand in for the config when it is unknown: 8 GPUs over 2 tasks.
    assert explain(big, None, [], state).reason.render(None) == "not enough free GPUs in vc1: it asks 8, 3 free of 16"


def test_only_a_waiting_job_is_explained_and_the_explanation_travels_as_json():
    state, raw = recorded()
    assert explain(job(state, "carol~train8"), None, [], state) is None
    why = explain(job(state, "alice~big"), two_by_four(), events(raw), state)
    again = Explanation.from_json(json.loads(json.dumps(why.to_json())))
    assert again is not None and again.lines("zh-cn") == why.lines("zh-cn")
    assert ClusterState.from_json(json.loads(json.dumps(state.to_json()))) == state


# -- a job being written --------------------------------------------------------------------------
def test_a_job_that_fits_gets_nothing_and_an_unknown_state_says_nothing():
    state, _ = recorded()
    assert judge([RoleAsk("worker", 1, Resources(2, 4096, 2))], "vc1", state) is None
    assert judge(two_by_four(), "vc1", ClusterState()) is None


def test_a_job_that_will_wait_says_how_much_is_free_and_how_many_wait_ahead():
    state, _ = recorded()
    verdict = judge(two_by_four(), "vc1", state)
    assert verdict.kind == WAIT
    assert verdict.message.render(None) == "This job will wait: it asks 8 GPUs; vc1 has 3 free of 16, 4 jobs waiting ahead."
    assert judge(two_by_four(), "vc1", state, priority="crit").message.render(None).endswith("1 job waiting ahead.")
    roomy = replace(state, vcs={**state.vcs, "vc1": replace(state.vcs["vc1"], used=Resources(20, 40960, 10))})
    node = judge([RoleAsk("worker", 1, Resources(2, 4096, 4))], "vc1", roomy)
    assert node.message.render(None) == ("This job will wait: an instance of worker asks 4 GPUs; no node has that many free now "
                                         "(the most: 3).")


@pytest.mark.parametrize(("asks", "vc", "said"), [
    ([RoleAsk("worker", 1, Resources(2, 4096, 8))], "vc1",
     "This job can never run: an instance of worker asks 8 GPUs, the largest node has 4."),
    ([RoleAsk("worker", 9, Resources(2, 4096, 2))], "vc1", "This job can never run: it asks 18 SKUs, vc1 has 16 (the server refuses it with 400)."),
    # 5 CPUs are 3 cells of 2 CPUs: the most of a task's resources counts.
    ([RoleAsk("worker", 6, Resources(5, 4096, 1))], "vc1", "This job can never run: it asks 18 SKUs, vc1 has 16 (the server refuses it with 400)."),
    ([RoleAsk("worker", 1, Resources(1, 1, 1), sku="K80")], "vc1", "This job can never run: SKU type K80 of worker is not in vc1; it has DT."),
    ([RoleAsk("worker", 1, Resources(1, 1, 1))], "vc9", "This job can never run: the cluster has no virtual cluster vc9; it has default, vc1."),
])
def test_a_job_that_can_never_run_is_said_with_numbers(asks, vc, said):
    state, _ = recorded()
    verdict = judge(asks, vc, state)
    assert (verdict.kind, verdict.message.render(None)) == (NEVER, said)


def test_a_virtual_cluster_the_user_may_not_use_and_one_too_small_without_hived():
    state, _ = recorded()
    mine = replace(state, permitted=["default"])
    assert judge(two_by_four(), "vc1", mine).message.render(None) == (
        "This job can never run: you may not use virtual cluster vc1 (the server refuses it with 403); yours: default.")
    plain = replace(state, skus={}, vc_skus={})
    assert judge([RoleAsk("worker", 5, Resources(2, 4096, 4))], "vc1", plain).message.render(None) == \
        "This job can never run: it asks 20 GPUs in all, vc1 has 16."
    assert "此作业永远无法运行" in judge(two_by_four(), "vc1", mine).message.render("zh-cn")


def test_asks_are_read_from_v1_and_v2_configs_whatever_they_hold():
    v2 = {"taskRoles": {"worker": {"instances": 2, "resourcePerInstance": {"cpu": 4, "memoryMB": 8192, "gpu": 2}},
                        "ps": {"resourcePerInstance": {"cpu": 1.0, "memoryMB": "lots", "gpu": True}}},
          "extras": {"hivedScheduler": {"taskRoles": {"worker": {"skuType": "DT"}}}}}
    assert asks_from_config(v2) == [RoleAsk("worker", 2, Resources(4, 8192, 2), "DT"), RoleAsk("ps", 1, Resources(1, 0, 0))]
    v1 = {"taskRoles": [{"name": "main", "taskNumber": 3, "cpuNumber": 2, "memoryMB": 1024, "gpuNumber": 1}, "junk"]}
    assert asks_from_config(v1) == [RoleAsk("main", 3, Resources(2, 1024, 1))]
    assert asks_from_config({"taskRoles": None}) == [] and asks_from_config("text") == []
