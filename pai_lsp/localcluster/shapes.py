"""The JSON the real rest-server answers with (openpai-api.md §3.3, §3.4), built from our jobs:
the fields clients read come from the one wire model (`core.openpai`), the rest are added here."""

from __future__ import annotations

import hashlib

from ..core.openpai_rest import JobDetail, JobSummary, LogLocations, TaskStatus
from ..core.triage import specs
from .job_data import Job, Task
from .queueing import priority_class

# The codes only the local cluster gives (or gives a meaning of its own); every other code is the
# OpenPAI exit spec's entry of the job's era (core.triage.specs): YARN's for v1 jobs, Kubernetes' for v2.
LOCAL_SPECS = {
    254: ("CONTAINER_START_FAILED", "PLATFORM_FAILURE", "RETRY_TO_MAX", "The task could not be started."),
    -1: ("LOCAL_CLUSTER_STOPPED", "PLATFORM_FAILURE", "NEVER_RETRY", "The local cluster stopped while the job ran."),
    -7200: ("FRAMEWORK_REFUSED_BY_SCHEDULER", "PLATFORM_FAILURE", "NEVER_RETRY", "The scheduler could not place the job."),
    -7201: ("BEYOND_THE_LOCAL_CLUSTER", "PLATFORM_FAILURE", "NEVER_RETRY", "The job is larger than the local cluster runs."),
}
ERAS = {1: "yarn", 2: "k8s"}
# The server's `reason` for the codes this cluster gives most, in our own words (the spec's prose is not copied).
REASONS = {
    0: "The job succeeded.", 255: "The user command exited with a non-zero code.",
    -7351: "The user stopped the job.", -210: "The user stopped the job.",
    -7400: "The task was stopped because the job completed.", -220: "The task was stopped because the job completed.",
    -7122: "The task used more memory than its memoryMB.", -1200: "The task used more memory than its memoryMB.",
}


def era(job: Job) -> str:
    """Which exit spec the job's codes follow: the API it came through decides (v1: YARN's launcher
    codes, -7351 for a stop; v2: Kubernetes' FrameworkController and runtime codes, -210)."""
    return ERAS.get(job.version, "k8s")


def exit_spec(code: int | None, spec_era: str = "k8s") -> dict | None:
    """`containerExitSpec` / `appExitSpec` as the rest-server sends them."""
    if code is None:
        return None
    if code in LOCAL_SPECS:
        phrase, kind, reaction, reason = LOCAL_SPECS[code]
        issuer, causer, stage = "PAI_LOCAL", "PAI_LOCAL", "RUNNING"
    else:
        spec = specs.lookup(code, spec_era)
        assert spec is not None  # every code has an entry, or the fallback's
        phrase, kind, reaction, reason = spec.phrase, spec.type, spec.reaction, REASONS.get(code)
        issuer, causer, stage = spec.issuer, spec.causer, spec.stage
    return {"code": code, "phrase": phrase, "issuer": issuer, "causer": causer, "type": kind, "stage": stage,
            "behavior": "UNKNOWN", "reaction": reaction, "reason": reason, "repro": [], "solution": []}


def public_state(job: Job) -> str:
    return "RUNNING" if job.state == "COMPLETING" else job.state


def summary_v1(job: Job) -> dict:
    out = JobSummary(name=job.name, state=public_state(job), user=job.user, created=job.created, completed=job.completed,
                     exit_code=job.exit_code, retries=job.retries, virtual_cluster=job.virtual_cluster).to_json()
    out.update({
        "subState": job.state, "executionType": job.execution_type,
        "retryDetails": {"user": job.retries, "platform": 0, "resource": 0},
        "totalGpuNumber": job.total_gpus, "totalTaskNumber": job.total_tasks, "totalTaskRoleNumber": len(job.roles),
    })
    if job.legacy:
        out["legacy"] = True
    return out


def summary_v2(job: Job) -> dict:
    out = summary_v1(job)
    out.pop("legacy", None)
    out.update({"debugId": _debug_id(job), "tags": [], "retryDelayTime": 0, "submissionTime": job.created,
                "launchedTime": job.launched, "jobPriority": priority_class(job)})
    return out


def _debug_id(job: Job) -> str:
    return hashlib.md5(job.framework.encode()).hexdigest()


def log_path(job: Job, task: Task) -> str:
    return (f"/api/v2/jobs/{job.framework}/attempts/{job.attempt}/taskRoles/{task.role}/taskIndex/{task.index}"
            f"/attempts/0/logs")


def _task_status(job: Job, task: Task, base: str, v2: bool) -> TaskStatus:
    return TaskStatus(role=task.role, index=task.index, state=task.state if task.state != "COMPLETING" else "RUNNING",
                      ip="127.0.0.1" if task.launched else None,
                      ports={label: ",".join(map(str, ports)) for label, ports in task.ports.items()},
                      exit_code=task.exit_code, log=log_path(job, task) if v2 else base + log_path(job, task))


def _task_extras(job: Job, task: Task, v2: bool) -> dict:
    out = {"containerId": f"container_{job.framework}_{job.attempt}_{task.role}_{task.index}",
           "containerGpus": sum(1 << g for g in task.gpus) if not v2 else None}
    if v2:
        out.update({
            "taskUid": hashlib.md5(f"{job.framework}/{task.role}/{task.index}".encode()).hexdigest(),
            "containerNodeName": "localhost", "containerExitSpec": exit_spec(task.exit_code, era(job)),
            "containerExitDiagnostics": task.diagnostics, "retries": 0, "accountableRetries": 0,
            "createdTime": task.created, "launchedTime": task.launched, "completedTime": task.completed,
            "attemptId": 0, "attemptState": task.state, "currentAttemptCreatedTime": task.created,
            "currentAttemptLaunchedTime": task.launched, "currentAttemptCompletedTime": task.completed,
        })
    return out


def _detail(job: Job, base: str, v2: bool) -> dict:
    """The job detail of the wire model, with the fields only the server fills in."""
    detail = JobDetail(name=job.name, state=public_state(job), created=job.created, completed=job.completed,
                       exit_code=job.exit_code, diagnostics=job.exit_diagnostics,
                       tasks=[_task_status(job, t, base, v2) for t in job.tasks]).to_json([r.name for r in job.roles])
    by_role: dict[str, list[Task]] = {}
    for task in job.tasks:
        by_role.setdefault(task.role, []).append(task)
    for role, info in detail["taskRoles"].items():
        for out, task in zip(info["taskStatuses"], by_role.get(role, []), strict=True):
            out.update(_task_extras(job, task, v2))
    detail["jobStatus"].update(_job_status(job))
    return detail


def _job_status(job: Job) -> dict:
    return {
        "username": job.user, "subState": job.state, "executionType": job.execution_type,
        "retries": job.retries, "retryDetails": {"user": job.retries, "platform": 0, "resource": 0},
        "appId": f"application_local_{_debug_id(job)[:12]}",
        "appProgress": 1 if job.completed else 0, "appTrackingUrl": "", "appLaunchedTime": job.launched,
        "appCompletedTime": job.completed, "appExitSpec": exit_spec(job.exit_code, era(job)),
        "appExitMessages": {"container": None, "runtime": _runtime_report(job), "launcher": job.exit_diagnostics or None},
        "appExitTriggerMessage": job.trigger_message, "appExitTriggerTaskRoleName": job.trigger_role,
        "appExitTriggerTaskIndex": job.trigger_index, "appExitType": exit_spec(job.exit_code, era(job))["type"] if job.exit_code is not None else None,
        "virtualCluster": job.virtual_cluster,
        "runtime": job.runtime,  # local cluster: "host" when tasks run as plain processes
        "localNote": job.note,  # local cluster: what it changed, e.g. a job scaled to this machine
    }


def _runtime_report(job: Job) -> dict | None:
    """The runtime's exit report of the task that ended the job, with the user's own exit code as
    the YARN-era runtime gives it (`originalUserExitCode`, openpai-api.md §5.6)."""
    trigger = next((t for t in job.tasks if (t.role, t.index) == (job.trigger_role, job.trigger_index)), None)
    if trigger is None or trigger.exit_code in (None, 0):
        return None
    spec = exit_spec(trigger.exit_code, era(job))
    return {"exitcode": trigger.exit_code, "originalUserExitCode": trigger.original_exit_code,
            "reason": (spec["reason"] or spec["phrase"]) if spec else None}


def detail_v1(job: Job, base: str) -> dict:
    detail = _detail(job, base, v2=False)
    detail["jobStatus"]["name"] = job.framework
    return detail


def detail_v2(job: Job, base: str) -> dict:
    detail = _detail(job, base, v2=True)
    detail["jobStatus"].update({"launchedTime": job.launched, "submissionTime": job.created, "attemptId": job.attempt,
                                "attemptState": public_state(job), "retryDelayTime": 0, "appCreatedTime": job.created})
    return {"debugId": _debug_id(job), "name": job.name, "tags": [], "jobPriority": priority_class(job), **detail}


def log_locations(base: str, tail: str) -> dict:
    return LogLocations({name: f"{base}/{name}{tail}" for name in ("stdout", "stderr", "all")}).to_json()
