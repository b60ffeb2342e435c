"""OpenPAI's REST model as data, once: job states, and the job list, job detail, task status and log
locations as the rest-server sends them (openpai-api.md §3). The client reads these
(`from_json`); the local cluster writes them (`to_json`, then adds the fields only it fills in).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .messages import Message, render

FINAL = ("SUCCEEDED", "FAILED", "STOPPED")  # a job (or task) in one of these states never changes again


@dataclass
class JobSummary:
    """One row of `GET /api/v1/user/{user}/jobs` (v2's list has the same fields)."""

    name: str
    state: str
    user: str | None = None
    created: int | None = None  # milliseconds since the epoch
    completed: int | None = None
    exit_code: int | None = None
    retries: int | None = None
    virtual_cluster: str | None = None

    @classmethod
    def from_json(cls, data: dict) -> JobSummary:
        return cls(name=data["name"], state=data["state"], user=data.get("username"), created=data.get("createdTime"),
                   completed=data.get("completedTime"), exit_code=data.get("appExitCode"), retries=data.get("retries"),
                   virtual_cluster=data.get("virtualCluster"))

    def to_json(self) -> dict:
        return {"name": self.name, "username": self.user, "state": self.state, "createdTime": self.created,
                "completedTime": self.completed, "appExitCode": self.exit_code, "retries": self.retries,
                "virtualCluster": self.virtual_cluster}


@dataclass
class TaskStatus:
    """One item of a task role's `taskStatuses` in a job detail."""

    role: str
    index: int
    state: str
    ip: str | None = None  # set once the task runs
    ports: dict[str, str] = field(default_factory=dict)  # label -> "port[,port…]"
    exit_code: int | None = None
    log: str | None = None  # containerLog: where the task's log locations are
    worker: str | None = None  # the task's own name on the cluster (a PaddlePaddle Cloud pod)
    started: int | None = None  # milliseconds since the epoch
    message: str = ""  # why it ended, as the cluster says (a pod's termination message)

    @property
    def label(self) -> str:
        return f"{self.role}:{self.index}"

    @classmethod
    def from_json(cls, role: str, data: dict) -> TaskStatus:
        return cls(role=role, index=data["taskIndex"], state=data["taskState"], ip=data.get("containerIp"),
                   ports=data.get("containerPorts") or {}, exit_code=data.get("containerExitCode"),
                   log=data.get("containerLog"))

    def to_json(self) -> dict:
        return {"taskIndex": self.index, "taskState": self.state, "containerIp": self.ip, "containerPorts": self.ports,
                "containerExitCode": self.exit_code, "containerLog": self.log}


@dataclass
class JobDetail:
    """`GET …/jobs/{name}`: the job's status and every task's."""

    name: str
    state: str
    created: int | None = None
    completed: int | None = None
    exit_code: int | None = None  # the platform's code (255 for any non-zero exit of the user's command)
    diagnostics: str | Message = ""  # the cluster's own words, or pai's (PaddlePaddle Cloud says none) as a message
    tasks: list[TaskStatus] = field(default_factory=list)
    user_exit_code: int | None = None  # the command's own code, from the runtime's exit report
    exit_reason: str = ""  # the platform's code in words (appExitSpec)
    retries: int | None = None  # times the platform ran the job again (None: the cluster does not say)
    numbered: bool = True  # the tasks' numbers are final (PaddlePaddle Cloud numbers by address: once every pod has one)
    raw: dict = field(default_factory=dict, compare=False, repr=False)  # the detail as sent: exit specs and reports (triage)

    @classmethod
    def from_json(cls, data: dict) -> JobDetail:
        status = data["jobStatus"]
        tasks = [TaskStatus.from_json(role, t) for role, info in (data.get("taskRoles") or {}).items()
                 for t in info.get("taskStatuses") or []]
        spec = status.get("appExitSpec") if isinstance(status.get("appExitSpec"), dict) else {}
        return cls(name=data["name"], state=status["state"], created=status.get("createdTime"),
                   completed=status.get("completedTime"), exit_code=status.get("appExitCode"),
                   diagnostics=status.get("appExitDiagnostics") or "", tasks=tasks,
                   user_exit_code=_user_exit_code((status.get("appExitMessages") or {}).get("runtime")),
                   exit_reason=str(spec.get("reason") or spec.get("phrase") or ""),
                   retries=status.get("retries") if isinstance(status.get("retries"), int) else None, raw=data)

    def to_json(self, roles: list[str] | None = None) -> dict:
        """`roles` orders the task roles (default: as their tasks come)."""
        names = roles if roles is not None else list(dict.fromkeys(t.role for t in self.tasks))
        return {
            "name": self.name,
            "jobStatus": {"state": self.state, "createdTime": self.created, "completedTime": self.completed,
                          "appExitCode": self.exit_code, "appExitDiagnostics": str(self.diagnostics)},
            "taskRoles": {role: {"taskRoleStatus": {"name": role},
                                 "taskStatuses": [t.to_json() for t in self.tasks if t.role == role]} for role in names},
        }


@dataclass
class LogLocations:
    """`GET <containerLog>`: where each of a task's logs can be read ("stdout", "stderr", "all")."""

    uris: dict[str, str]

    @classmethod
    def from_json(cls, data: Any) -> LogLocations:
        return cls({loc["name"]: loc["uri"] for loc in data["locations"]})

    def to_json(self) -> dict:
        return {"locations": [{"name": name, "uri": uri} for name, uri in self.uris.items()]}


def _user_exit_code(runtime: Any) -> int | None:
    """`originalUserExitCode` (YARN-era runtime) or `originUserExitCode` (Kubernetes-era) from the
    runtime's exit report, which servers send as an object or as its YAML text."""
    if isinstance(runtime, str):
        import yaml

        try:
            runtime = yaml.safe_load(runtime)
        except yaml.YAMLError:
            return None
    if not isinstance(runtime, dict):
        return None
    code = runtime.get("originalUserExitCode", runtime.get("originUserExitCode"))
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def describe_exit(state: str, exit_code: int | None, user_exit_code: int | None = None, reason: str = "",
                  locale: str | None = None) -> str:
    """How a job ended, for people: the user's own exit code first, then the platform's code said
    in words ("" for a success). E.g. `exit code 3; cluster code 255: the user command exited with a
    non-zero code`."""
    if state == "SUCCEEDED" or (exit_code in (None, 0) and user_exit_code is None):
        return ""
    words = reason.strip().rstrip(".")
    words = words[:1].lower() + words[1:] if words[:2] != words[:2].upper() else words
    if exit_code is not None:
        platform = render("status.cluster-code-why", locale, number=exit_code, why=words) if words else \
            render("status.cluster-code", locale, number=exit_code)
    else:
        platform = words
    if user_exit_code is None:
        return platform
    return render("status.exit-code-then", locale, number=user_exit_code, platform=platform) if platform else \
        render("status.exit-code", locale, number=user_exit_code)
