"""`extras.jobStatusChangeNotification`: which of a job's state changes the cluster e-mails its user
about, as a schema fragment (five booleans, each false by default) that completion and hover read —
in a v2 job, and in a v1 config bound for a Kubernetes-era cluster, whose `extras` travel into its v2
job as they are.

What the server does with it (openpai-k8s.md §D.1): its database controller stores the five flags; an
alert-manager poller looks every 120 s (its `db-poller-interval-second`) and mails each change once —
only where the cluster's admin turned the feature on and set up SMTP; nothing else (no webhook, no
push). A job that fails within one poll of starting gets no "running" mail. The hover says so, and
that pai-lsp's own notices (desktop, editor, webhooks) come from its daemon whatever the cluster has.
"""

from __future__ import annotations

import copy
from typing import Any

KEY = "jobStatusChangeNotification"

_NOTE_EN = ("The cluster only e-mails, and only where its admin turned job-status notifications on (alert-manager "
            "with SMTP); it looks every 120 s, so a job that fails within 120 s of starting gets no \"running\" mail. "
            "pai tells you of every watched job's end itself — desktop, editor, webhooks (notices.json) — on any cluster.")
_NOTE_ZH = ("集群只发电子邮件，且仅当管理员启用了作业状态通知（alert-manager 与 SMTP）；它每 120 秒检查一次，"
            "所以启动后 120 秒内失败的作业收不到 “running” 邮件。无论集群如何，pai 都会自己通知你每个被关注作业的结束："
            "桌面、编辑器、webhook（notices.json）。")

_STATES = {
    "running": ("E-mail when the job starts running (sent once; a job that ends between two 120 s polls gets none).",
                "作业开始运行时发邮件（只发一次；在两次 120 秒轮询之间结束的作业收不到）。"),
    "succeeded": ("E-mail when the job succeeds.", "作业成功时发邮件。"),
    "stopped": ("E-mail when the job is stopped.", "作业被停止时发邮件。"),
    "failed": ("E-mail when the job fails.", "作业失败时发邮件。"),
    "retried": ("E-mail when the job is retried (one mail per poll, with the retry count).",
                "作业重试时发邮件（每次轮询一封，附重试次数）。"),
}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": f"Which of the job's state changes the cluster e-mails you about. {_NOTE_EN}",
    "x-description-zh": f"集群就作业的哪些状态变化给你发邮件。{_NOTE_ZH}",
    "additionalProperties": False,
    "properties": {name: {"type": "boolean", "default": False, "description": f"{en} {_NOTE_EN}",
                          "x-description-zh": f"{zh}{_NOTE_ZH}"}
                   for name, (en, zh) in _STATES.items()},
}


def subschema(path: list[str | int] | tuple) -> dict | None:
    """The fragment's schema at `path` below `extras.jobStatusChangeNotification`."""
    node: dict | None = SCHEMA
    for part in path:
        node = (node or {}).get("properties", {}).get(part) if isinstance(part, str) else None
        if node is None:
            return None
    return node


_MADE: dict[int, tuple[dict, dict]] = {}  # id of a job schema -> (it, its copy with the flags)


def in_extras(schema: dict) -> dict:
    """A copy of a job schema whose `extras` also describes the notification flags (made once per schema)."""
    made = _MADE.get(id(schema))
    if made is None or made[0] is not schema:
        out = copy.deepcopy(schema)
        extras = out.setdefault("properties", {}).setdefault("extras", {"type": "object"})
        extras.setdefault("properties", {})[KEY] = SCHEMA
        made = _MADE[id(schema)] = (schema, out)
    return made[1]
