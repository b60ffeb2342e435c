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
from functools import cache
from typing import Any

from .messages import render

KEY = "jobStatusChangeNotification"

STATES = ("running", "succeeded", "stopped", "failed", "retried")  # the flags, each false by default


def _described(code: str) -> dict[str, str]:
    """A schema's description in both languages: the catalogue's text, then the note on what the cluster does."""
    return {"description": f"{render(code, None)} {render('status-notification.note', None)}",
            "x-description-zh": render(code, "zh-cn") + render("status-notification.note", "zh-cn")}


@cache
def fragment() -> dict[str, Any]:
    """The flags as a JSON Schema fragment (made at first use: the Chinese comes from the catalogue)."""
    return {
        "type": "object",
        **_described("status-notification.object"),
        "additionalProperties": False,
        "properties": {name: {"type": "boolean", "default": False, **_described(f"status-notification.{name}")}
                       for name in STATES},
    }


def subschema(path: list[str | int] | tuple) -> dict | None:
    """The fragment's schema at `path` below `extras.jobStatusChangeNotification`."""
    node: dict | None = fragment()
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
        extras.setdefault("properties", {})[KEY] = fragment()
        made = _MADE[id(schema)] = (schema, out)
    return made[1]
