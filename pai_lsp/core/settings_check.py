"""Diagnostics for the `pai.*` keys of `.vscode/settings.json`, through the same server as the job
configs: a value of the wrong type (which `pai_lsp.settings.read` silently ignores, so the user
would never learn why their setting has no effect), an unknown `pai.job.*` key, and — from facts
counted off the typing path (service/selection.py) — an include glob that matches nothing in the
workspace, one whose every file is left out, and an exclude that leaves out every file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from json import dumps as json_dumps

from .jsonc import Document, Node
from .messages import json_type, render, severity, type_name
from .model import Diagnostic, Settings
from .schema import DIALECTS

INCLUDE, EXCLUDE = "pai.job.upload.include", "pai.job.upload.exclude"
STORAGE = "pai.job.upload.storage"  # {cluster: {"storage": name, "path": folder}}
CLUSTER_DIALECTS = DIALECTS  # `pai.cluster.kind`: the dialect of the workspace's v1 configs
# Settings the editor client reads itself (the server never does): known, never "unknown".
CLIENT_KEYS = frozenset({"pai.server.command"})


def known_keys() -> dict[str, object]:
    """Every `pai.*` key the server reads, with its default (core/model.py's `Settings`)."""
    return {f.metadata["key"]: f.default for f in fields(Settings)}


def groups() -> frozenset[str]:
    """The dotted prefixes users may write as nested objects ({"pai": {"job": {...}}})."""
    out = set()
    for key in (*known_keys(), *CLIENT_KEYS):
        parts = key.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return frozenset(out)


@dataclass(frozen=True)
class GlobFacts:
    """How the include / exclude globs fare against the workspace's files (counted elsewhere)."""

    unmatched: tuple[str, ...] = ()  # include globs no file of the workspace matches
    hidden: tuple[str, ...] = ()  # include globs whose every file is left out (exclude, `!pattern`)
    all_hidden: bool = False  # the includes match files, and the excludes leave none of them


def entries(root: Node | None, prefix: str = "") -> Iterator[tuple[str, Node]]:
    """(dotted key, property node) of every `pai.*` setting, flat or nested."""
    if root is None or root.type != "object":
        return
    nested = groups()
    for prop in root.properties():
        if prop.key is None or not isinstance(prop.key.value, str):
            continue
        name = prefix + prop.key.value
        value = prop.value_node
        if name in nested and value is not None and value.type == "object":
            yield from entries(value, name + ".")
        elif name.startswith("pai."):
            yield name, prop


def _type_problem(key: str, default: object, value: Node, locale: str | None) -> Diagnostic | None:
    """The value of `key` when it is not of the type `pai_lsp.settings.read` accepts."""
    v = value.value
    if key == STORAGE:
        return _storage_problem(value, locale)
    if isinstance(default, bool):
        ok, expected = isinstance(v, bool), type_name("boolean", locale)
    elif isinstance(default, int):
        ok, expected = type(v) is int and v > 0, render("type.positive-integer", locale)
    elif isinstance(default, tuple):  # a list of globs; an empty one means the default
        if isinstance(v, list):
            bad = [c for c in value.children if not (isinstance(c.value, str) and c.value)]
            if bad:
                return _diag(bad[0], "settings.glob-type", locale, key=key, actual=_shown(bad[0].value, locale))
            return None
        ok, expected = False, render("type.globs", locale)
    elif key == "pai.cluster.kind":
        ok, expected = v in CLUSTER_DIALECTS, " | ".join(f'"{k}"' for k in CLUSTER_DIALECTS)
    else:
        ok, expected = isinstance(v, str) and bool(v), type_name("string", locale)
    if ok:
        return None
    return _diag(value, "settings.type", locale, key=key, expected=expected, actual=_shown(v, locale), default=_default_text(default))


def _storage_problem(value: Node, locale: str | None) -> Diagnostic | None:
    """`pai.job.upload.storage` is an object of clusters, each `{"storage": name, "path"?: folder}`."""
    if value.type != "object":
        return _diag(value, "settings.storage-type", locale)
    for prop in value.children:
        entry = prop.value_node
        storage = entry.get("storage") if entry is not None and entry.type == "object" else None
        path = entry.get("path") if entry is not None and entry.type == "object" else None
        if storage is None or not isinstance(storage.value, str) or not storage.value or (
                path is not None and not isinstance(path.value, str)):
            return _diag(entry if entry is not None else prop, "settings.storage-type", locale)
    return None


def _default_text(default: object) -> str:
    if isinstance(default, (tuple, bool)) or default is None:
        return json_dumps(list(default) if isinstance(default, tuple) else default)
    return f"{default:,}" if isinstance(default, int) else str(default)


def _shown(value: object, locale: str | None) -> str:
    if value == "":
        return render("type.empty-string", locale)
    kind = json_type(value)
    return f"{value!r}" if kind in ("integer", "number") else type_name(kind, locale)


def _diag(node: Node, code: str, locale: str | None, **args: object) -> Diagnostic:
    return Diagnostic(node.start, node.end, code, severity(code), render(code, locale, **args))


def settings_diagnostics(doc: Document, facts: GlobFacts | None, locale: str | None) -> list[Diagnostic]:
    """What is wrong with the `pai.*` keys of a `.vscode/settings.json` document; `facts`: how its
    globs fare in the workspace (None while they are being counted)."""
    known = known_keys()
    found: list[Diagnostic] = []
    for key, prop in entries(doc.root):
        value = prop.value_node
        if key not in known:
            if key.startswith("pai.job.") and key not in CLIENT_KEYS:
                found.append(_diag(prop.key, "settings.unknown", locale, key=key))
            continue
        if value is None:
            continue
        problem = _type_problem(key, known[key], value, locale)
        if problem is not None:
            found.append(problem)
        elif facts is not None and key == INCLUDE:
            found += _glob_problems(value, facts, locale)
        elif facts is not None and key == EXCLUDE and facts.all_hidden:
            found.append(_diag(prop.key, "settings.exclude-hides-all", locale))
    return found


def _glob_problems(globs: Node, facts: GlobFacts, locale: str | None) -> Iterator[Diagnostic]:
    for node in globs.children:
        if node.value in facts.unmatched:
            yield _diag(node, "settings.glob-unmatched", locale, glob=node.value)
        elif node.value in facts.hidden:
            yield _diag(node, "settings.glob-hidden", locale, glob=node.value)
