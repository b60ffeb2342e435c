"""The outline of a v2 job (the job; its prerequisites, task roles with their ports, deployments,
parameters and secrets) and where a YAML file folds: a key with the block below it, a list item
over several lines, a run of comment lines."""

from __future__ import annotations

from typing import Any

from ..jsonc import Node
from ..schema_outline import Symbol
from ..yaml.write import line_start
from .job import job_of, pairs, role_field


def symbols(doc: Any) -> list[Symbol]:
    root = doc.root
    if root is None or root.type != "object":
        return []
    job = job_of(doc)
    name = root.get("name")
    label = name.value if name is not None and isinstance(name.value, str) and name.value else "job"
    select = name or root
    top = Symbol(label, "job", root.start, root.end, select.start, select.end, "protocol v2")
    for item in job.prerequisites:
        node = item.node or item.name_node
        uri = node.get("uri") if node.type == "object" else None
        detail = item.kind + (f" · {uri.value}" if uri is not None and isinstance(uri.value, str) else "")
        top.children.append(Symbol(item.name, "prerequisite", node.start, node.end, item.name_node.start, item.name_node.end, detail))
    for role in job.roles.values():
        end = role.node.end if role.node is not None else role.name_node.end
        instances = role_field(role, "instances")
        detail = f"× {instances.value}" if instances is not None and not isinstance(instances.value, (dict, list)) else ""
        symbol = Symbol(role.name, "role", role.name_node.start, max(end, role.name_node.end), role.name_node.start, role.name_node.end, detail)
        resources = role_field(role, "resourcePerInstance")
        ports = resources.get("ports") if resources is not None and resources.type == "object" else None
        for label_name, key, value in pairs(ports):
            symbol.children.append(Symbol(label_name, "port", key.start, value.end if value is not None else key.end, key.start, key.end,
                                          f"× {value.value}" if value is not None and isinstance(value.value, int) else ""))
        top.children.append(symbol)
    for deployment in job.deployments.values():
        node = deployment.node or deployment.name_node
        top.children.append(Symbol(deployment.name, "deployment", node.start, node.end, deployment.name_node.start,
                                   deployment.name_node.end))
    for kind, defined in (("parameter", job.parameters), ("secret", job.secrets)):
        for entry in defined.values():
            end = entry.node.end if entry.node is not None else entry.name_node.end
            shown = "******" if kind == "secret" else _short(entry.node.value if entry.node is not None else None)
            top.children.append(Symbol(entry.name, kind, entry.name_node.start, max(end, entry.name_node.end), entry.name_node.start,
                                       entry.name_node.end, shown))
    return [top]


def _short(value: Any) -> str:
    text = "" if value is None else value if isinstance(value, str) else str(value)
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:39] + "…"


def folding_ranges(doc: Any) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each fold: "block" for a key and its value or a list item, "comment"
    for consecutive comment lines."""
    text = doc.text
    out: list[tuple[int, int, str]] = []
    stack: list[Node] = [doc.root] if doc.root is not None else []
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # an alias's value is its anchor's node: walked once
            continue
        seen.add(id(node))
        if node.type == "property":
            value = node.value_node
            if value is not None and value.start >= node.start:
                end = _end(text, value)
                if "\n" in text[node.start:end]:
                    out.append((node.start, end, "block"))
                stack.append(value)
        elif node.type in ("object", "array"):
            for child in node.children:
                if node.type == "array" and child.type in ("object", "array") and child.start >= node.start:
                    end = _end(text, child)
                    if "\n" in text[child.start:end]:
                        out.append((line_start(text, child.start), end, "block"))
                stack.append(child)
    out.extend(_comment_runs(text, doc.comments))
    out.sort()
    return out


def _end(text: str, node: Node) -> int:
    """Where a node's own text ends: its last member's (a block's range may take in the comments and
    blank lines after it)."""
    for _ in range(64):
        last = node.children[-1] if node.type in ("object", "array", "property") and node.children else None
        if last is None or last.start < node.start:
            break
        node = last
    end = node.end
    while end > node.start and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def _comment_runs(text: str, comments: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """Runs of two or more comment lines (a comment alone on its line, one after another)."""
    out = []
    run: list[tuple[int, int]] = []
    for start, end in sorted(comments):
        alone = not text[line_start(text, start):start].strip()
        if alone and run and text.count("\n", run[-1][1], start) == 1 and not text[run[-1][1]:start].strip():
            run.append((start, end))
            continue
        if len(run) > 1:
            out.append((run[0][0], run[-1][1], "comment"))
        run = [(start, end)] if alone else []
    if len(run) > 1:
        out.append((run[0][0], run[-1][1], "comment"))
    return out
