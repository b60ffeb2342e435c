"""The `$PAI_…` variables a task sees (openpai-api.md §4): what each holds, and which ones a config may use.

Static names are listed once with their meaning. Names built from the config (a role,
a task index, a port label) are templates; `resolve` says whether a name used in a
config refers to something that config defines.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .roles import ALWAYS_PORTS

VARIABLE = re.compile(r"\$\{?(PAI_[A-Za-z0-9_]*)\}?")

# name: (English, 简体中文, example value)
STATIC: dict[str, tuple[str, str, str]] = {
    "PAI_JOB_NAME": ("Full job name `<user>~<jobName>`", "完整作业名 `<用户>~<jobName>`", "alice~mnist_1a2b3c4d"),
    "PAI_USER_NAME": ("User who submitted the job", "提交作业的用户", "alice"),
    "PAI_USERNAME": ("User who submitted the job (legacy name)", "提交作业的用户（旧名称）", "alice"),
    "PAI_DEFAULT_FS_URI": ("URI of the cluster's default file system (HDFS)", "集群默认文件系统（HDFS）的 URI", "hdfs://10.0.0.1:9000"),
    "PAI_TASK_ROLE_COUNT": ("Number of task roles", "任务角色数量", "2"),
    "PAI_TASK_ROLE_LIST": ("Task role names, comma separated, in config order", "所有任务角色名称（逗号分隔，按配置顺序）", "ps,worker"),
    "PAI_RESOURCE": ("Resources of the current role: gpu,cpu,memoryMB,shmMB", "当前角色的资源：gpu,cpu,memoryMB,shmMB", "1,4,8192,64"),
    "PAI_CURRENT_TASK_ROLE_NAME": ("Name of the current task role", "当前任务角色名称", "worker"),
    "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX": ("Index of the current task in its role, from 0", "当前任务在角色中的序号，从 0 开始", "0"),
    "PAI_TASK_INDEX": ("Index of the current task in its role, from 0", "当前任务在角色中的序号，从 0 开始", "0"),
    "PAI_TASK_ROLE_INDEX": ("Index of the current task in its role (legacy name)", "当前任务在角色中的序号（旧名称）", "0"),
    "PAI_CONTAINER_HOST_IP": ("IP address of this task's host", "本任务所在主机的 IP", "10.0.0.5"),
    "PAI_CURRENT_CONTAINER_IP": ("IP address of this task's container", "本任务容器的 IP", "10.0.0.5"),
    "PAI_CONTAINER_HOST_PORT_LIST": ("All ports of this task: `label:p1,p2;label2:p3;`", "本任务的所有端口：`标签:p1,p2;标签2:p3;`", "http:20001;ssh:20002;"),
    "PAI_CONTAINER_HOST_PORT": ("First `http` port of this task", "本任务的第一个 `http` 端口", "20001"),
    "PAI_CURRENT_CONTAINER_PORT": ("First `http` port of this task", "本任务的第一个 `http` 端口", "20001"),
    "PAI_CONTAINER_SSH_PORT": ("First `ssh` port of this task", "本任务的第一个 `ssh` 端口", "20002"),
    "PAI_TASK_ROLE_INSTANCES": ("All tasks as `role:index,…`", "所有任务，格式 `角色:序号,…`", "ps:0,worker:0,worker:1"),
    "PAI_WORK_DIR": ("Working directory of the task", "任务的工作目录", "/pai/work"),
    "PAI_DATA_DIR": ("dataDir of the job, with variables replaced", "作业的 dataDir（变量已替换）", "hdfs://10.0.0.1:9000/alice/data"),
    "PAI_OUTPUT_DIR": ("outputDir of the job, with variables replaced", "作业的 outputDir（变量已替换）", "hdfs://10.0.0.1:9000/Output/alice/mnist"),
    "PAI_CODE_DIR": ("codeDir of the job, with variables replaced", "作业的 codeDir（变量已替换）", "hdfs://10.0.0.1:9000/alice/mnist"),
    "PAI_TASK_ROLE_NAME": ("Name of the current task role (legacy name)", "当前任务角色名称（旧名称）", "worker"),
    "PAI_TASK_ROLE_NUM": ("Number of tasks of the current role (legacy name)", "当前角色的任务数（旧名称）", "2"),
    "PAI_CURRENT_TASK_ROLE_TASK_COUNT": ("Number of tasks of the current role", "当前角色的任务数", "2"),
    "PAI_TASK_CPU_NUM": ("CPUs of the current task (legacy name)", "当前任务的 CPU 数（旧名称）", "4"),
    "PAI_CURRENT_TASK_ROLE_CPU_COUNT": ("CPUs of the current task", "当前任务的 CPU 数", "4"),
    "PAI_TASK_MEM_MB": ("Memory of the current task in MB (legacy name)", "当前任务的内存 MB（旧名称）", "8192"),
    "PAI_CURRENT_TASK_ROLE_MEM_MB": ("Memory of the current task in MB", "当前任务的内存 MB", "8192"),
    "PAI_TASK_GPU_NUM": ("GPUs of the current task (legacy name)", "当前任务的 GPU 数（旧名称）", "1"),
    "PAI_CURRENT_TASK_ROLE_GPU_COUNT": ("GPUs of the current task", "当前任务的 GPU 数", "1"),
    "PAI_CURRENT_TASK_ROLE_SHM_MB": ("Shared memory of the current task in MB", "当前任务的共享内存 MB", "64"),
    "PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT": ("minFailedTaskCount of the current role", "当前角色的 minFailedTaskCount", "1"),
    "PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT": ("minSucceededTaskCount of the current role (empty for null)", "当前角色的 minSucceededTaskCount（null 时为空）", ""),
    "PAI_TASKS_NUM": ("Total number of tasks in the job", "作业的任务总数", "3"),
    "PAI_JOB_TASK_COUNT": ("Total number of tasks in the job", "作业的任务总数", "3"),
    "PAI_TASK_ROLES_NUM": ("Number of task roles", "任务角色数量", "2"),
    "PAI_JOB_TASK_ROLE_COUNT": ("Number of task roles", "任务角色数量", "2"),
    "PAI_JOB_TASK_ROLE_LIST": ("Task role names, comma separated", "所有任务角色名称（逗号分隔）", "ps,worker"),
    "PAI_FRAMEWORK_NAME": ("Framework name `<user>~<jobName>` (Kubernetes clusters)", "框架名 `<用户>~<jobName>`（Kubernetes 集群）", "alice~mnist"),
    "PAI_VIRTUAL_CLUSTER": ("Virtual cluster of the job (Kubernetes clusters)", "作业所在的虚拟集群（Kubernetes 集群）", "default"),
    "PAI_CONTAINER_ID": ("Id of this task's container", "本任务容器的 ID", "container_e01_1565337253185_0004_01_000002"),
    "PAI_JOB_VC_NAME": ("Virtual cluster of the job", "作业所在的虚拟集群", "default"),
}

# Variables the server replaces in authFile / dataDir / outputDir / codeDir.
DIR_SUBSTITUTED = {"PAI_DEFAULT_FS_URI", "PAI_JOB_NAME", "PAI_USER_NAME", "PAI_USERNAME"}
DIR_FIELDS = ("authFile", "dataDir", "outputDir", "codeDir")


PLACEHOLDERS = ("role", "index", "label")


@dataclass(frozen=True)
class Template:
    """A name built from the config, e.g. PAI_HOST_IP_<role>_<index>."""

    parts: tuple[str, ...]  # literal text and the placeholders "role", "index", "label"
    en: str
    zh: str
    example: str

    @property
    def shape(self) -> re.Pattern[str]:
        return _shape(self.parts)

    def fill(self, **values: Any) -> str:
        return "".join(str(values[p]) if p in PLACEHOLDERS else p for p in self.parts)


@cache
def _shape(parts: tuple[str, ...]) -> re.Pattern[str]:
    groups = {"role": r"(?P<role>\w+?)", "index": r"(?P<index>\d+)", "label": r"(?P<label>\w+?)"}
    return re.compile("".join(groups.get(p, re.escape(p)) for p in parts) + r"\Z")


TEMPLATES: tuple[Template, ...] = (
    Template(("PAI_TASK_ROLE_TASK_COUNT_", "role"), "Number of tasks of role {role}", "角色 {role} 的任务数", "2"),
    Template(("PAI_HOST_IP_", "role", "_", "index"), "IP of task {index} of role {role}", "角色 {role} 第 {index} 个任务的 IP", "10.0.0.7"),
    Template(("PAI_PORT_LIST_", "role", "_", "index", "_", "label"), "Ports labelled {label} of task {index} of role {role}", "角色 {role} 第 {index} 个任务的 {label} 端口", "20001,20002"),
    Template(("PAI_", "role", "_", "index", "_", "label", "_PORT"), "Ports labelled {label} of task {index} of role {role} (legacy name)", "角色 {role} 第 {index} 个任务的 {label} 端口（旧名称）", "20001"),
    Template(("PAI_TASK_ROLE_", "role", "_HOST_LIST"), "`ip:httpPort` of every task of role {role}, comma separated", "角色 {role} 所有任务的 `ip:http端口`，逗号分隔", "10.0.0.7:20001,10.0.0.8:20001"),
    Template(("PAI_RESOURCE_", "role"), "Resources of role {role}: gpu,cpu,memoryMB,shmMB", "角色 {role} 的资源：gpu,cpu,memoryMB,shmMB", "1,4,8192,64"),
    Template(("PAI_MIN_FAILED_TASK_COUNT_", "role"), "minFailedTaskCount of role {role}", "角色 {role} 的 minFailedTaskCount", "1"),
    Template(("PAI_MIN_SUCCEEDED_TASK_COUNT_", "role"), "minSucceededTaskCount of role {role}", "角色 {role} 的 minSucceededTaskCount", ""),
    Template(("PAI_CONTAINER_HOST_", "label", "_PORT_LIST"), "This task's ports labelled {label}, comma separated", "本任务 {label} 标签的端口，逗号分隔", "20003"),
)


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


RoleNames = tuple[str | None, int, tuple[str, ...]]  # a role's name, taskNumber, port labels


def role_names(role: Any) -> RoleNames:
    """What one task role adds to the names a config defines."""
    if not isinstance(role, dict) or not isinstance(role.get("name"), str):
        return (None, 1, ())
    count = role.get("taskNumber", 1)
    labels = tuple(p["label"] for p in _list(role.get("portList")) if isinstance(p, dict) and isinstance(p.get("label"), str))
    return (role["name"], count if isinstance(count, int) and not isinstance(count, bool) else 1, labels)


@dataclass
class ConfigNames:
    """What a config defines that variable names can refer to."""

    roles: dict[str, int]  # role name -> taskNumber
    labels: set[str]
    job_envs: set[str]
    named: int = 0  # how many roles have a name (more than len(roles): some share one)
    resolved: dict[str, Resolution] = field(default_factory=dict, compare=False, repr=False)  # see `resolve`

    @classmethod
    def of(cls, config: Any) -> ConfigNames:
        roles = _list(config.get("taskRoles")) if isinstance(config, dict) else []
        return cls.from_roles([role_names(r) for r in roles], config.get("jobEnvs") if isinstance(config, dict) else None)

    @classmethod
    def from_roles(cls, roles: list[RoleNames], job_envs: Any) -> ConfigNames:
        """From each role's `role_names` (cached per role by the caller) and the config's jobEnvs."""
        labels = set(ALWAYS_PORTS).union(*(role_labels for _, _, role_labels in roles if role_labels))
        counts = {name: count for name, count, _ in roles if name is not None}
        named = sum(1 for name, _, _ in roles if name is not None)
        return cls(counts, labels, set(job_envs) if isinstance(job_envs, dict) else set(), named)


@dataclass(frozen=True)
class Resolution:
    """What a variable name means in a config: a description, or a problem code with its arguments."""

    en: str = ""
    zh: str = ""
    example: str = ""
    problem: str | None = None
    args: dict | None = None


def resolve(name: str, names: ConfigNames) -> Resolution:
    """What `name` means in a config with these names (remembered with them: a config's roles
    name the same variables over and over)."""
    found = _STATIC_RESOLUTIONS.get(name) or names.resolved.get(name)
    if found is None:
        if len(names.resolved) >= 100_000:
            names.resolved.clear()
        found = names.resolved[name] = _resolve(name, names)
    return found


def _resolve(name: str, names: ConfigNames) -> Resolution:
    if name in names.job_envs:
        return Resolution("Set by jobEnvs in this config", "由此配置的 jobEnvs 设置")
    for template in _BY_INDEX:
        if not name.startswith(template.parts[0]):
            continue
        for found in _fillings(template, name, names):
            role, index = found.get("role"), found.get("index")
            if index is not None and role is not None and index >= names.roles[role]:
                count = names.roles[role]
                return Resolution(problem="semantic.undefined-task-index", args={
                    "role": role, "index": index, "count": count, "last": max(count - 1, 0)})
            args = {"role": role, "label": found.get("label"), "index": "" if index is None else index}
            return Resolution(template.en.format(**args), template.zh.format(**args), template.example)
    shaped = [(t, m) for t in TEMPLATES if (m := t.shape.match(name))]
    if shaped:
        return _explain(name, shaped, names)
    suggestion = difflib.get_close_matches(name, _suggestions(name, names), n=1)
    return Resolution(problem="semantic.unknown-variable", args={"suggestion": suggestion[0] if suggestion else ""})


_STATIC_RESOLUTIONS = {name: Resolution(en, zh, example) for name, (en, zh, example) in STATIC.items()}
# Names without a task index first, as a role name may itself end in `_<digits>`.
_BY_INDEX = sorted(TEMPLATES, key=lambda t: "index" in t.parts)


def _fillings(template: Template, name: str, names: ConfigNames) -> Iterator[dict[str, Any]]:
    """Each way `name` is `template` filled with a role and a label this config defines and a
    task index (digits): the literal parts are found in the name, and only the text between them
    is looked up, so the cost does not grow with the number of roles."""
    parts = template.parts
    if len(parts) <= 3 and parts[1] in PLACEHOLDERS:
        # One placeholder between literals, as most templates have: no search needed.
        head, tail = parts[0], parts[2] if len(parts) == 3 else ""
        if len(name) > len(head) + len(tail) and name.startswith(head) and name.endswith(tail):
            value = name[len(head) : len(name) - len(tail)]
            if parts[1] == "index":
                if value.isascii() and value.isdigit():
                    yield {"index": int(value)}
            elif value in (names.roles if parts[1] == "role" else names.labels):
                yield {parts[1]: value}
        return

    def walk(i: int, pos: int, found: dict[str, Any]) -> Iterator[dict[str, Any]]:
        if i == len(parts):
            if pos == len(name):
                yield found
            return
        part = parts[i]
        if part not in PLACEHOLDERS:
            if name.startswith(part, pos):
                yield from walk(i + 1, pos + len(part), found)
            return
        after = parts[i + 1] if i + 1 < len(parts) else None  # placeholders never touch each other
        ends = [len(name)] if after is None else _occurrences(name, after, pos + 1)
        for end in ends:
            value = name[pos:end]
            if part == "index":
                if value.isascii() and value.isdigit():
                    yield from walk(i + 1, end, {**found, "index": int(value)})
            elif value in (names.roles if part == "role" else names.labels):
                yield from walk(i + 1, end, {**found, part: value})

    yield from walk(0, 0, {})


def _occurrences(text: str, part: str, start: int) -> list[int]:
    out = []
    pos = text.find(part, start)
    while pos >= 0:
        out.append(pos)
        pos = text.find(part, pos + 1)
    return out


def _suggestions(name: str, names: ConfigNames) -> list[str]:
    """Names to suggest instead of an unknown one: the static ones, the config's `PAI_…` jobEnvs and
    the generated names of the roles the name mentions (or of the first role)."""
    mentioned = [role for role in names.roles if role in name][:20] or list(names.roles)[:1]
    own = [n for n, *_ in generated(names, roles=mentioned)]
    return [*STATIC, *(e for e in names.job_envs if e.startswith("PAI_")), *own]


def _explain(name: str, shaped: list[tuple[Template, re.Match[str]]], names: ConfigNames) -> Resolution:
    """The name has the shape of a generated variable but does not fit this config: say why."""
    known_roles = ", ".join(names.roles) or "—"
    for _template, m in shaped:
        groups = m.groupdict()
        role = groups.get("role")
        if role is not None and role in names.roles and "index" in groups and int(groups["index"]) >= names.roles[role]:
            count = names.roles[role]
            return Resolution(problem="semantic.undefined-task-index", args={
                "role": role, "index": groups["index"], "count": count, "last": max(count - 1, 0)})
    for _template, m in shaped:
        groups = m.groupdict()
        if "label" in groups and (groups.get("role") is None or groups["role"] in names.roles):
            return Resolution(problem="semantic.undefined-port-label", args={
                "label": groups["label"], "known": ", ".join(sorted(names.labels))})
    template, m = shaped[0]
    role = m.groupdict().get("role") or ""
    # A greedy guess at the role: the longest prefix that looks like a role name.
    return Resolution(problem="semantic.undefined-role", args={"role": role, "known": known_roles})


def generated(names: ConfigNames, roles: Iterable[str] | None = None, prefix: str = "",
              shared: bool = True) -> Iterator[tuple[str, str, str, str]]:
    """The names this config makes available, (name, English, 中文, example), one at a time (a
    10,000-role config makes millions): those of no role (unless not `shared`), then those of
    `roles` (default: every role, in config order), that start with `prefix` (ignoring case).
    Roles that cannot give such a name are skipped without building any."""
    roles = list(names.roles) if roles is None else roles
    labels = sorted(names.labels)
    wanted = prefix.casefold()
    role_templates = []  # (template, what the role name must be compatible with)
    for template in TEMPLATES:
        head = template.parts[0].casefold()
        if not (head.startswith(wanted) or wanted.startswith(head)):
            continue
        if "role" in template.parts:
            role_templates.append((template, wanted[len(head):] if wanted.startswith(head) else ""))
            continue
        for label in labels if shared else ():
            args = {"role": None, "index": "", "label": label}
            name = template.fill(**args)
            if name.casefold().startswith(wanted):
                yield name, template.en.format(**args), template.zh.format(**args), template.example
    if any(rest for _, rest in role_templates):
        rests = {rest for _, rest in role_templates}
        roles = [r for r in roles if any(_compatible(r.casefold(), rest) for rest in rests)]
    for role in roles:
        folded = role.casefold()
        for template, rest in role_templates:
            if not _compatible(folded, rest):
                continue
            indices = range(min(names.roles.get(role, 1), 16)) if "index" in template.parts else [""]
            for index in indices:
                for label in labels if "label" in template.parts else [None]:
                    args = {"role": role, "index": index, "label": label}
                    name = template.fill(**args)
                    if not wanted or name.casefold().startswith(wanted):
                        yield name, template.en.format(**args), template.zh.format(**args), template.example


def _compatible(role: str, rest: str) -> bool:
    """Whether a name whose role part starts right where `rest` starts can begin with `rest`."""
    return role.startswith(rest) or rest.startswith(role)


def names_in(doc: Any) -> ConfigNames:
    """The names a parsed config (`jsonc.Document`) defines, remembered with the parse."""
    names = doc.memo.get("names")
    if names is None:
        names = doc.memo["names"] = ConfigNames.of(doc.root.value if doc.root is not None else None)
    return names


def find_variables(text: str) -> Iterator[tuple[str, int, int]]:
    """(name, start, end) of each `$PAI_…` / `${PAI_…}` in a string value; offsets into `text`."""
    for m in VARIABLE.finditer(text):
        yield m.group(1), m.start(), m.end()


def assigned_in(command: str, names: str = r"PAI_\w+") -> set[str]:
    """Variables (matching `names`) a command sets itself (`PAI_X=…`, `export PAI_X=…`), which
    are therefore fine."""
    return set(re.findall(rf"(?:^|[\s;&|(])(?:export\s+)?({names})=", command)) if "=" in command else set()
