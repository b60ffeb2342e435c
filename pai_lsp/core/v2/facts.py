"""What OpenPAI knows of a v2 job beyond its schema, as data: the prerequisite fields, the runtime
plugins and their parameters, the keys of `extras` something reads, the environment variables of
Kubernetes-era clusters; and the schema (`schemas/pai-job-v2.schema.json`) walked as the server's Ajv
walks it (`patternProperties` for role names and port labels, a prerequisite's shape by its `type`).

Sources: rest-server `middlewares/v2/protocol.js`, `middlewares/v2/hived.js`, `models/v2/job/k8s.js`;
the web portal's `job-submission/models/protocol-schema.js`; openpai-api.md §2, §4.2.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import status_notification
from ..joi import js_regex
from ..schema import load_schema, resolve

SCHEMA_FILE = "pai-job-v2.schema.json"
DIALECT = "openpai-v2"

# A role's field → the prerequisite type it names (the server lower-cases the field).
PREREQUISITE_FIELDS = {"dockerImage": "dockerimage", "data": "data", "script": "script", "output": "output"}
PREREQUISITE_TYPES = ("dockerimage", "data", "script", "output")
ROLE_NAME = "^[a-zA-Z_][a-zA-Z0-9_]*$"  # role keys and port labels (the server's pattern)

# Runtime plugins (extras["com.microsoft.pai.runtimeplugin"]): name → (English, 中文, parameters:
# name → (type, required, English, 中文)). The web portal's Joi schema checks ssh, tensorboard and
# teamwise_storage; `cmd` is the runtime's own (callbacks run at task events).
RUNTIME_PLUGIN_KEY = "com.microsoft.pai.runtimeplugin"
PLUGINS: dict[str, tuple[str, str, dict[str, tuple[str, bool, str, str]]]] = {
    "ssh": ("SSH into the job's containers, and between them.", "通过 SSH 登录作业容器，以及容器之间互连。", {
        "jobssh": ("boolean", True, "true: the containers of this job reach each other over SSH (MPI, Horovod).",
                   "true：本作业的容器之间可以通过 SSH 互连（MPI、Horovod）。"),
        "sshbarrier": ("boolean", False, "Wait until every container's SSH server is up before the commands run.",
                       "在命令运行前等待所有容器的 SSH 服务就绪。"),
        "sshbarrierTimeout": ("number", False, "How long the barrier waits, in minutes.", "屏障等待的时间（分钟）。"),
        "userssh": ("object", False, "Your public key: {type: custom, value: <ssh-rsa …>}.",
                    "你的公钥：{type: custom, value: <ssh-rsa …>}。"),
    }),
    "tensorboard": ("Start TensorBoard beside the job.", "在作业旁启动 TensorBoard。", {
        "port": ("number", True, "The port TensorBoard listens on.", "TensorBoard 监听的端口。"),
        "logdir": ("object", True, "Log folders by name: {name: path}.", "按名称列出的日志目录：{名称: 路径}。"),
    }),
    "teamwise_storage": ("Mount the team's storages (prefer extras.storages).", "挂载团队存储（建议使用 extras.storages）。", {
        "storageConfigNames": ("array", False, "Names of the storages to mount (at least one).", "要挂载的存储名称（至少一个）。"),
    }),
    "cmd": ("Run commands at task events (callbacks).", "在任务事件时运行命令（callbacks）。", {
        "callbacks": ("array", False, "[{event: taskStarts | taskSucceeds, commands: [...]}]",
                      "[{event: taskStarts | taskSucceeds, commands: [...]}]"),
    }),
}
PLUGIN_ITEM_KEYS = ("plugin", "parameters", "failurePolicy", "hook")  # what the web portal takes in an item

# extras keys something reads (rest-server, HiveD, the runtime, the database controller, the portal).
EXTRAS: dict[str, tuple[str, str]] = {
    "gangAllocation": ("Start all instances together (default true); false turns on task retries.",
                       "所有实例一起启动（默认 true）；false 时任务重试才生效。"),
    "submitFrom": ("Where the job was submitted from (informational).", "作业的提交来源（仅供参考）。"),
    RUNTIME_PLUGIN_KEY: ("Runtime plugins: ssh, tensorboard, teamwise_storage, cmd.", "运行时插件：ssh、tensorboard、teamwise_storage、cmd。"),
    "hivedScheduler": ("HiveD scheduler settings (clusters that run HiveD).", "HiveD 调度器设置（运行 HiveD 的集群）。"),
    "storages": ("Storages to mount: [{name, mountPath}].", "要挂载的存储：[{name, mountPath}]。"),
    "jobStatusChangeNotification": ("Which state changes send you a notification: {running, succeeded, stopped, failed, retried}.",
                                    "哪些状态变化会通知你：{running, succeeded, stopped, failed, retried}。"),
    "tensorBoard": ("TensorBoard settings of the old job-submission page.", "旧作业提交页面的 TensorBoard 设置。"),
    # pai-lsp's own, kept by its v1 → v2 conversion (core/v1/to_v2.py): the v1 config's folders, read back by pai
    "dataDir": ("The v1 config's dataDir (pai-lsp; the commands get it as $PAI_DATA_DIR).", "v1 配置的 dataDir（pai-lsp；命令中为 $PAI_DATA_DIR）。"),
    "outputDir": ("The v1 config's outputDir (pai-lsp: `pai outputs` downloads from it).", "v1 配置的 outputDir（pai-lsp：`pai outputs` 从这里下载）。"),
    "codeDir": ("The v1 config's codeDir (pai-lsp; the commands get it as $PAI_CODE_DIR).", "v1 配置的 codeDir（pai-lsp；命令中为 $PAI_CODE_DIR）。"),
    "gpuType": ("The v1 config's gpuType (pai-lsp).", "v1 配置的 gpuType（pai-lsp）。"),
}
HIVED_ROLE_KEYS = ("skuType", "skuNumber", "skuNum", "pinnedCellId", "affinityGroupName")  # skuNum: the web portal's
HIVED_KEYS = ("jobPriorityClass", "taskRoles", "gangReleaseEnable", "lazyPreemptionEnable", "ignoreK8sSuggestedNodes")

# The variables Kubernetes-era clusters set (openpai-api.md §4.2): of the v1 names (core/envvars.py
# STATIC) those, and no others; a YARN-only one is unset in a v2 job, which `set -o nounset` stops on.
K8S_VARIABLES = frozenset({
    "PAI_FRAMEWORK_NAME", "PAI_JOB_NAME", "PAI_USER_NAME", "PAI_DEFAULT_FS_URI", "PAI_TASK_ROLE_COUNT",
    "PAI_TASK_ROLE_LIST", "PAI_VIRTUAL_CLUSTER", "PAI_USERNAME", "PAI_TASKS_NUM", "PAI_JOB_TASK_COUNT",
    "PAI_TASK_ROLES_NUM", "PAI_JOB_TASK_ROLE_COUNT", "PAI_JOB_TASK_ROLE_LIST", "PAI_CURRENT_TASK_ROLE_NAME",
    "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", "PAI_TASK_INDEX", "PAI_CURRENT_CONTAINER_IP",
    "PAI_CURRENT_CONTAINER_PORT", "PAI_CONTAINER_HOST_IP", "PAI_CONTAINER_HOST_PORT", "PAI_CONTAINER_SSH_PORT",
    "PAI_CONTAINER_HOST_PORT_LIST", "PAI_TASK_ROLE_INSTANCES", "PAI_WORK_DIR",
})
DEFAULT_SHM_MB = 512  # extraContainerOptions.shmMB when left out (or 0: the scheduler reads `shmMB || 512`)


@cache
def schema() -> dict:
    return load_schema(SCHEMA_FILE)


def child(node: dict | None, key: str | int, value: Any, root: dict) -> dict | None:
    """The schema of `value`'s member `key` (`value`: the plain value holding it, to choose a
    prerequisite's shape by its type)."""
    node = resolve(node, root)
    if node is None:
        return None
    if isinstance(key, int):
        node = resolve(node.get("items"), root) if isinstance(node.get("items"), dict) else None
        item = value[key] if isinstance(value, list) and key < len(value) else None
        return shape(node, item, root) if node is not None else None
    found = (node.get("properties") or {}).get(key)
    if found is None:
        for pattern, sub in (node.get("patternProperties") or {}).items():
            if js_regex(pattern).search(key):
                found = sub
                break
    return resolve(found, root) if isinstance(found, dict) else None


def shape(node: dict, value: Any, root: dict) -> dict:
    """A schema with `oneOf` (a prerequisite) narrowed to the branch `value`'s `type` picks; with no
    such branch, every branch's properties together."""
    branches = node.get("oneOf")
    if not branches:
        return node
    resolved = [resolve(b, root) or {} for b in branches]
    kind = value.get("type") if isinstance(value, dict) else None
    for branch in resolved:
        if kind in ((branch.get("properties") or {}).get("type") or {}).get("enum", []):
            return branch
    merged: dict[str, Any] = {}
    for branch in resolved:
        merged.update(branch.get("properties") or {})
    types = [t for b in resolved for t in ((b.get("properties") or {}).get("type") or {}).get("enum", [])]
    merged["type"] = {**merged.get("type", {}), "enum": types}
    return {"type": "object", "properties": merged, "required": ["name", "type"]}


def subschema(path: list[str | int] | tuple, job: Any = None) -> dict | None:
    """The schema of the value at `path` of a job (`job`: its plain value, for prerequisites' shapes);
    None where the schema says nothing."""
    if len(path) >= 2 and path[0] == "extras" and path[1] == status_notification.KEY:  # described by its own module
        return status_notification.subschema(path[2:])
    root = schema()
    node: dict | None = root
    value = job
    for part in path:
        node = child(node, part, value, root)
        if node is None:
            return None
        if isinstance(value, dict) and isinstance(part, str):
            value = value.get(part)
        elif isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
        else:
            value = None
    return node


def defaults_of(definition: str) -> dict[str, Any]:
    """The defaults of one of the schema's `$defs` ("taskRole"): what the server fills in."""
    props = schema()["$defs"][definition].get("properties", {})
    return {key: sub["default"] for key, sub in props.items() if isinstance(sub, dict) and "default" in sub}
