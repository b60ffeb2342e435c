"""What an explanation is made from: the facts of a failed task and of its job, as the daemon gathers
them (the cluster's job detail, the log's end, the submission's upload manifest), and where the
job's code lay inside the task.

`TaskFacts.from_detail` / `JobFacts.from_detail` read an OpenPAI job detail (v1 or v2, as the
rest-server or the local cluster sends it) so the daemon only adds the log and the manifest.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .specs import ExitSpec

USER_STOP_CODES = (-7351, -210)  # the job was stopped (YARN era, Kubernetes era)
COMPLETION_STOP_CODES = (-7400, -220)  # a task was stopped because its job completed


@dataclass(frozen=True)
class CodeLayout:
    """Where the job's uploaded code was inside the task, and where each uploaded file came from.

    On OpenPAI the code uploaded to codeDir is fetched into `$PAI_JOB_NAME/` under the task's working
    folder (`<user>~<job>`, or the job's own name); the local cluster copies it to the codeDir's last
    folder name in the task's folder (a container sees that folder as /pai/work) and links
    `$PAI_JOB_NAME` to it."""

    manifest: Mapping[str, str] = field(default_factory=dict)  # uploaded path (relative to codeDir) -> workspace file
    code_dirs: tuple[str, ...] = ()  # the code folder in the task: names relative to `workdir`, or absolute paths
    workdir: str = ""  # the folder the task's command started in, when known ("" when not)
    uploaded: bool | None = None  # whether the submit uploaded any code (None: not known, e.g. submitted elsewhere)
    code_place: str = ""  # where the code went: STORAGE:PATH of a storage the job mounts, or the codeDir's HDFS folder
    code_folder: str = ""  # where pai made the commands run, in the task: <mountPath>/<user>~<job>

    @classmethod
    def for_job(cls, manifest: Mapping[str, str], job_name: str, code_dir: str = "", user: str = "",
                workdir: str = "", uploaded: bool | None = None, code_place: str = "", code_folder: str = "") -> CodeLayout:
        """The layout of a job submitted as `job_name` with `codeDir` (as written, `$PAI_…` allowed)
        by `user`: the code folder is `$PAI_JOB_NAME` (`user~job` and `job`) and the codeDir's last
        folder name, or the folder of a storage pai put the code in (`code_folder`)."""
        if code_folder:
            return cls(manifest=dict(manifest), code_dirs=(code_folder,), workdir=workdir, uploaded=uploaded,
                       code_place=code_place, code_folder=code_folder)
        names = [job_name]
        if user:
            names.insert(0, f"{user}~{job_name}")
        last = posixpath.basename(code_dir.rstrip("/"))
        for variable, value in (("$PAI_JOB_NAME", job_name), ("${PAI_JOB_NAME}", job_name), ("$PAI_USER_NAME", user)):
            last = last.replace(variable, value)
        if last and "$" not in last:
            names.append(last)
        return cls(manifest=dict(manifest), code_dirs=tuple(dict.fromkeys(names)), workdir=workdir, uploaded=uploaded,
                   code_place=code_place)


@dataclass(frozen=True)
class TaskFacts:
    """A failed task, as the daemon knows it when the job ends."""

    exit_code: int | None = None  # the platform's code (containerExitCode; a job's appExitCode)
    user_exit_code: int | None = None  # the command's own code (the runtime's originalUserExitCode), when known
    signal: int | None = None  # the signal that ended the command, when the cluster knows it (the local cluster does)
    exit_spec: ExitSpec | None = None  # the platform's containerExitSpec / appExitSpec, when it sent one
    era: str | None = None  # "k8s" or "yarn": which exit spec the cluster's codes follow (None: guess)
    diagnostics: str = ""  # containerExitDiagnostics / appExitDiagnostics / the runtime's error log
    log: str = ""  # the last ≤ 1 MB of the task's log (stdout and stderr as they came: `all`)
    first_line: int = 1  # the line number of `log`'s first line in the whole log, when known
    oom_killed: bool = False  # the cluster says the memory limit killed it (Kubernetes' OOMKilled, the local cluster's limit)
    stopped_by_user: bool = False
    memory_mb: int | None = None  # the task role's memoryMB
    shm_mb: int | None = None  # and its shmMB
    image: str | None = None
    role: str | None = None
    index: int | None = None
    layout: CodeLayout = field(default_factory=CodeLayout)

    @classmethod
    def from_detail(cls, detail: Mapping[str, Any], role: str, index: int, log: str = "", **more: Any) -> TaskFacts:
        """The facts of one task of an OpenPAI job detail (`GET …/jobs/{user}~{job}`); `more` adds
        what the detail does not hold (memory_mb, image, layout, first_line …)."""
        status = detail.get("jobStatus") or {}
        roles = detail.get("taskRoles") or {}
        task = next((t for t in (roles.get(role) or {}).get("taskStatuses") or [] if t.get("taskIndex") == index), {})
        trigger = (status.get("appExitTriggerTaskRoleName"), status.get("appExitTriggerTaskIndex")) == (role, index)
        runtime = _runtime_report((status.get("appExitMessages") or {}).get("runtime")) if trigger else {}
        code = _int(task.get("containerExitCode"))
        spec = ExitSpec.from_wire(task.get("containerExitSpec"))
        if trigger and spec is None:
            spec = ExitSpec.from_wire(status.get("appExitSpec"))
        diagnostics = "\n".join(str(d) for d in (task.get("containerExitDiagnostics"),
                                                 status.get("appExitDiagnostics") if trigger else None) if d)
        values: dict[str, Any] = {
            "exit_code": code if code is not None else (_int(status.get("appExitCode")) if trigger else None),
            "user_exit_code": _int(runtime.get("originalUserExitCode", runtime.get("originUserExitCode"))),
            "exit_spec": spec, "diagnostics": diagnostics, "log": log or _runtime_log(runtime),
            "stopped_by_user": status.get("executionType") == "STOP" or _int(status.get("appExitCode")) in USER_STOP_CODES,
            "role": role, "index": index,
        }
        values.update(more)
        return cls(**values)


@dataclass(frozen=True)
class JobFacts:
    """A failed (or stopped) job: what ended it, and its retries."""

    state: str = "FAILED"
    exit_code: int | None = None  # appExitCode
    exit_spec: ExitSpec | None = None  # appExitSpec
    diagnostics: str = ""  # appExitDiagnostics
    trigger_role: str | None = None  # appExitTriggerTaskRoleName / appExitTriggerTaskIndex: the task that ended it
    trigger_index: int | None = None
    stopped_by_user: bool = False
    retries: int = 0  # retries used
    retries_allowed: int | None = None  # the config's retryCount (the detail does not hold it)

    @classmethod
    def from_detail(cls, detail: Mapping[str, Any], retries_allowed: int | None = None) -> JobFacts:
        status = detail.get("jobStatus") or {}
        code = _int(status.get("appExitCode"))
        return cls(state=str(status.get("state") or "FAILED"), exit_code=code, exit_spec=ExitSpec.from_wire(status.get("appExitSpec")),
                   diagnostics=str(status.get("appExitDiagnostics") or ""), trigger_role=status.get("appExitTriggerTaskRoleName"),
                   trigger_index=_int(status.get("appExitTriggerTaskIndex")),
                   stopped_by_user=status.get("state") == "STOPPED" or code in USER_STOP_CODES,
                   retries=_int(status.get("retries")) or 0, retries_allowed=retries_allowed)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


MAX_REPORT = 64 * 1024  # the runtime's report is ~4 KB; anything much bigger is not one


def _runtime_report(runtime: Any) -> dict:
    """`appExitMessages.runtime`: the runtime's exit report (`[PAI_RUNTIME_ERROR_START]` … YAML),
    which servers send as an object or as its text."""
    if isinstance(runtime, str) and len(runtime) <= MAX_REPORT:
        import yaml

        try:
            runtime = yaml.safe_load(runtime)
        except yaml.YAMLError:
            return {}
    return runtime if isinstance(runtime, dict) else {}


def _runtime_log(runtime: dict) -> str:
    """The user log lines the runtime kept in its report (`errorLogs.user`), for when the log itself
    cannot be read any more."""
    logs = runtime.get("errorLogs")
    user = logs.get("user") if isinstance(logs, dict) else None
    return user if isinstance(user, str) else ""
