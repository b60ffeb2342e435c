"""A v1 config whose commands run files of the workspace that nothing uploads (no `codeDir`, or uploads
off), said on the command before submit, on the cluster's facts (the server side fetched them: with
none, nothing is said). A v1 job gets its code only through `codeDir`, which the cluster copies into
`./$PAI_JOB_NAME/` of the task: the quick fix names the usual codeDir and starts each such command
there."""

from __future__ import annotations

from typing import Any

from .. import messages as msg
from ..model import Diagnostic, Edit, Fix, Settings
from ..route_rules import HDFS_CODE_DIR, ClusterFacts, candidates, present

_CD = "cd $PAI_JOB_NAME && "


def route_diagnostics(doc: Any, facts: ClusterFacts, settings: Settings, exists: frozenset[str]) -> list[Diagnostic]:
    root = doc.root
    if root is None or root.type != "object":
        return []
    code_dir = root.get("codeDir")
    if code_dir is not None and isinstance(code_dir.value, str) and code_dir.value.strip():
        return []
    roles = root.get("taskRoles")
    commands = [role.get("command") for role in (roles.children if roles is not None and roles.type == "array" else [])
                if role.type == "object"]
    commands = [c for c in commands if c is not None and c.type == "string" and isinstance(c.value, str)]
    problem = "route.upload-off" if not settings.upload_enabled else "route.no-code-dir"
    found = [(node, hit) for node in commands for hit in present(candidates([node.value]), exists, runs=True)[:1]]
    if not found:
        return []
    fixes = [] if problem == "route.upload-off" else [_code_dir_fix(doc, code_dir, [node for node, _ in found], settings.locale)]
    out = []
    for node, hit in found:
        at = doc.text.find(hit.word, node.start, node.end)
        start, end = (at, at + len(hit.word)) if at >= 0 else (node.start, node.end)
        d = Diagnostic(start, end, problem, msg.severity(problem),
                       msg.render(problem, settings.locale, path=hit.word, cluster=facts.cluster, field="codeDir"), list(fixes))
        if not settings.upload_require_route:
            d.severity = msg.WARNING
        out.append(d)
    return out


def _code_dir_fix(doc: Any, code_dir: Any, commands: list, locale: str | None) -> Fix:
    edits = [doc.insert_member(doc.root, "codeDir", HDFS_CODE_DIR) if code_dir is None
             else Edit(code_dir.start, code_dir.end, doc.literal(HDFS_CODE_DIR))]
    edits += [Edit(node.start, node.end, doc.literal(_CD + node.value)) for node in commands if not node.value.startswith("cd ")]
    return Fix(msg.render("route.fix-code-dir", locale, field="codeDir"), tuple(sorted(edits, key=lambda e: e.start)))
