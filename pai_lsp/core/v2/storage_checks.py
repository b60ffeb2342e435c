"""What the cluster a v2 job goes to says of it, as the server will (openpai-k8s.md §A.6), on facts the
server side fetched (`route_rules.ClusterFacts`; nothing here is asked of the network):

- a storage named in `extras.storages` (or, when that is absent, in the deprecated `teamwise_storage`
  plugin's `storageConfigNames`, which the server maps into it) that the user may not use is an Error:
  the server's 404 `NoStorageError`, said early;
- a `readOnly` written in an entry that differs from the storage's is a Warning: the server overwrites
  it from the storage;
- a command that runs a file of the workspace that no upload reaches (no codeDir, uploads off, no
  storage to take the code) is an Error (a Warning where the user chose `requireRoute: false`), with a
  quick fix that adds what the cluster needs: the storage mounted, or `extras.codeDir` on a YARN-era one;
- completion of the storage names and hover on them (type, server, read-only, where it is mounted).
"""

from __future__ import annotations

import difflib
from typing import Any

from .. import messages as msg
from ..bounded import SizedCache
from ..jsonc import Node, node_at
from ..model import Completion, Diagnostic, Edit, Fix, Hover, Settings
from ..route_rules import HDFS_CODE_DIR, Candidate, ClusterFacts, StorageFact, candidates, choose_storage, present, setting_for
from ..yaml.context import context_at
from ..yaml.write import append_item, append_member, is_flow, line_start, literal
from .facts import RUNTIME_PLUGIN_KEY
from .job import Named, command_nodes, items, job_of, plugins
from .schema_check import role_memory

MOUNT_FIXES = 3  # storages offered to mount, at most
SAID_ROLES = 50  # roles whose missing file is said, at most (the first ones: the same fix serves them all)


def _diag(node: Node, code: str, locale: str | None, fixes: list[Fix] | None = None, **args: Any) -> Diagnostic:
    return Diagnostic(node.start, max(node.end, node.start + 1), code, msg.severity(code), msg.render(code, locale, **args),
                      fixes or [])


def _extras(root: Node | None) -> Node | None:
    extras = root.get("extras") if root is not None and root.type == "object" else None
    return extras if extras is not None and extras.type == "object" else None


def _storage_list(root: Node | None) -> Node | None:
    extras = _extras(root)
    return extras.get("storages") if extras is not None else None


def name_nodes(root: Node | None) -> list[tuple[Node, Node | None]]:
    """Each storage name the server reads, with its `extras.storages` entry (None for a plugin's):
    `extras.storages[].name`, or when `extras.storages` is absent or falsy, the `teamwise_storage`
    plugins' `storageConfigNames` (the server maps the last one into it)."""
    listed = _storage_list(root)
    if listed is not None and listed.value not in (None, False, 0, ""):
        out = []
        for item in items(listed):
            name = item.get("name") if item.type == "object" else None
            if name is not None and name.type == "string":
                out.append((name, item))
        return out
    chosen: list[tuple[Node, Node | None]] = []
    for plugin in plugins(root):
        kind = plugin.get("plugin") if plugin.type == "object" else None
        if kind is None or kind.value != "teamwise_storage":
            continue
        parameters = plugin.get("parameters")
        names = parameters.get("storageConfigNames") if parameters is not None and parameters.type == "object" else None
        chosen = [(n, None) for n in items(names) if n.type == "string"]
    return chosen


def _yours(facts: ClusterFacts, locale: str | None) -> str:
    return ", ".join(s.name for s in facts.storages or ()) or msg.render("route.none", locale)


def storage_diagnostics(doc: Any, facts: ClusterFacts, settings: Settings) -> list[Diagnostic]:
    """Names the user may not use (Error), `readOnly` values the server overwrites (Warning)."""
    if facts.storages is None or not facts.takes_v2:
        return []
    locale = settings.locale
    out: list[Diagnostic] = []
    for name, entry in name_nodes(doc.root):
        storage = facts.storage(name.value)
        if storage is None:
            close = difflib.get_close_matches(name.value, [s.name for s in facts.storages], n=1, cutoff=0.6)
            fixes = [Fix(msg.render("v2.storage-fix-name", locale, name=close[0]), (Edit(name.start, name.end, literal(close[0])),))] \
                if close else []
            out.append(_diag(name, "v2.storage-unknown", locale, fixes, name=name.value, cluster=facts.cluster,
                             storages=_yours(facts, locale)))
            continue
        written = entry.get("readOnly") if entry is not None else None
        if written is not None and isinstance(written.value, bool) and written.value != storage.read_only:
            code = "v2.storage-read-only-ignored" if storage.read_only else "v2.storage-writable-ignored"
            out.append(_diag(written, code, locale, name=storage.name))
    return out


# -- a command that runs workspace files no upload reaches ------------------------------------------

def route_diagnostics(doc: Any, facts: ClusterFacts, settings: Settings, exists: frozenset[str]) -> list[Diagnostic]:
    """A diagnostic on each command that runs a file of the workspace (`exists`: the candidate paths
    found there) when nothing gets the file to the job; none when something does."""
    root = doc.root
    if root is None or root.type != "object":
        return []
    extras = _extras(root)
    code_dir = extras.get("codeDir") if extras is not None else None
    if code_dir is not None and isinstance(code_dir.value, str) and code_dir.value.strip():
        return []  # HDFS's route (uploaded when uploads are on; the user's own folder when not)
    listed = [n.value for n, _ in name_nodes(root)]
    args: dict[str, Any] = {}
    fixes: list[Fix] = []
    locale = settings.locale
    if not settings.upload_enabled:
        problem = "route.upload-off"
    elif not facts.takes_v2 or facts.storages is None:
        problem = "route.no-storages"
        fix = _code_dir_fix(doc, locale)
        fixes = [fix] if fix is not None else []
    else:
        choice = choose_storage(facts, setting_for(settings.upload_storage, facts.cluster), listed)
        if choice.storage is not None:
            return []
        problem, args = choice.problem, dict(choice.args)
        if problem == "route.no-default-storage":
            fixes = [_mount_fix(doc, s, locale) for s in facts.writable()[:MOUNT_FIXES]]
    out: list[Diagnostic] = []
    for role, found_in_role in _role_candidates(doc):
        for found in present(found_in_role, exists, runs=True):
            node = _role_nodes(doc, role)[found.command]
            start = node.start + found.start if found.start >= 0 and doc.text.startswith(found.word, node.start + found.start) \
                else node.start
            end = start + len(found.word) if start != node.start or doc.text.startswith(found.word, start) else node.end
            d = Diagnostic(start, end, problem, msg.severity(problem),
                           msg.render(problem, locale, path=found.word, cluster=facts.cluster, field="extras.codeDir", storages=_yours(facts, locale), **args), list(fixes))
            if not settings.upload_require_route:
                d.severity = msg.WARNING
            out.append(d)
            break  # one per role: the first file it runs says it
        if len(out) >= SAID_ROLES:
            break
    return out


# Each role's command texts, found again by the role's source text: a keystroke changes one role, and
# the others' commands are not read from their nodes again (a 3,000-role job: a few ms, not a second).
_COMMANDS: SizedCache[str, tuple[str, ...]] = SizedCache(entries=20_000, size=16 << 20)


def _role_nodes(doc: Any, role: Named) -> list[Node]:
    """A role's command strings as the server runs them (its deployment's hooks around them, when the
    job names a default deployment)."""
    job = job_of(doc)
    if job.deployments:
        return command_nodes(job, role)
    commands = role.node.get("commands") if role.node is not None and role.node.type == "object" else None
    return [n for n in items(commands) if n.type == "string"]


def _role_candidates(doc: Any) -> list[tuple[Named, list[Candidate]]]:
    """Each role's candidate words (`route_rules.candidates` of its commands), kept on the role's
    node, which a parse after an edit elsewhere reuses: a keystroke reads one role's commands, not
    every role's (nor copies every role's text to find them again by it)."""
    job = job_of(doc)
    out = []
    for role in job.roles.values():
        node = role.node
        if node is None or job.deployments:
            out.append((role, candidates([n.value for n in _role_nodes(doc, role)])))
            continue
        memory = role_memory(node)
        found = memory.get("candidates")
        if found is None:
            key = doc.text[node.start:node.end]
            texts = _COMMANDS.get(key)
            if texts is None:
                texts = tuple(n.value for n in _role_nodes(doc, role))
                _COMMANDS.put(key, texts, len(key))
            found = memory["candidates"] = candidates(list(texts))
        out.append((role, found))
    return out


def workspace_paths(doc: Any) -> frozenset[str]:
    """The workspace paths the job's commands may run (`route_rules.candidates`' paths)."""
    return frozenset(path for _, found in _role_candidates(doc) for c in found for path in c.paths)


def _mount_fix(doc: Any, storage: StorageFact, locale: str | None) -> Fix:
    """`extras.storages` gets `{name: storage}`: the code then goes there and the job mounts it."""
    text, root = doc.text, doc.root
    entry = {"name": storage.name}
    extras = _extras(root)
    listed = extras.get_property("storages") if extras is not None else None
    if extras is None:
        edit = append_member(text, root, "extras", {"storages": [entry]})
    elif listed is None or listed.value_node is None or listed.value_node.type != "array":
        edit = append_member(text, extras, "storages", [entry]) if listed is None else \
            Edit(listed.value_node.start if listed.value_node is not None else listed.end,
                 listed.value_node.end if listed.value_node is not None else listed.end, " " + literal([entry]))
    else:
        edit = append_item(text, listed.value_node, entry)
    return Fix(msg.render("route.fix-mount", locale, storage=storage.name), (edit,))


def _code_dir_fix(doc: Any, locale: str | None) -> Fix | None:
    """`extras.codeDir` on HDFS and `cd $PAI_JOB_NAME` first in each role (a YARN-era cluster copies
    the code folder into `./$PAI_JOB_NAME/`); None where a role's commands are not a block list."""
    text, root = doc.text, doc.root
    extras = _extras(root)
    edits = [append_member(text, root, "extras", {"codeDir": HDFS_CODE_DIR}) if extras is None
             else append_member(text, extras, "codeDir", HDFS_CODE_DIR)]
    job = job_of(doc)
    for role in job.roles.values():
        commands = role.node.get("commands") if role.node is not None and role.node.type == "object" else None
        first = items(commands)[0] if items(commands) else None
        if commands is None or first is None or is_flow(text, commands):
            return None
        start = line_start(text, first.start)
        lead = text[start:first.start]
        if lead.strip() != "-":
            return None
        edits.append(Edit(start, start, f"{lead}cd $PAI_JOB_NAME\n"))
    return Fix(msg.render("route.fix-code-dir", locale, field="extras.codeDir"), tuple(edits))


# -- completion and hover of storage names ---------------------------------------------------------

def _is_name_path(path: list, key: str | None, kind: str, root: Node | None) -> bool:
    if kind == "value" and key == "name" and len(path) == 3 and path[:2] == ["extras", "storages"]:
        return True
    if path and path[-1] == "storageConfigNames" and len(path) == 5 and path[:2] == ["extras", RUNTIME_PLUGIN_KEY] \
            and kind in ("key", "item"):
        return True
    return kind == "value" and len(path) == 4 and path[:2] == ["extras", RUNTIME_PLUGIN_KEY] and key == "storageConfigNames"


def complete(doc: Any, offset: int, facts: ClusterFacts, settings: Settings) -> list[Completion]:
    """The cluster's storages where a storage name goes."""
    if facts.storages is None or not facts.takes_v2:
        return []
    ctx = context_at(doc, offset)
    if not _is_name_path(list(ctx.path), ctx.key, ctx.kind, doc.root):
        return []
    text = doc.text
    start = ctx.start
    if ctx.kind == "value" and ctx.key == "storageConfigNames":  # `[a, b|`: the word being typed
        start = max(text.rfind(c, 0, offset) for c in "[, ") + 1
    end = offset
    while end < len(text) and (text[end].isalnum() or text[end] in "-_."):
        end += 1
    return [Completion(s.name, "value", s.name, start, end, _detail(s), storage_markdown(s, facts, settings.locale))
            for s in facts.storages]


def _detail(storage: StorageFact) -> str:
    return " · ".join(part for part in (storage.type or "", storage.server, "ro" if storage.read_only else "") if part)


def hover(doc: Any, offset: int, facts: ClusterFacts, settings: Settings) -> Hover | None:
    """On a storage name the server reads: what the cluster says of that storage."""
    if facts.storages is None:
        return None
    node = node_at(doc.root, offset, include_end=False)
    if node is None or node.type != "string":
        return None
    for name, entry in name_nodes(doc.root):
        if name is node:
            storage = facts.storage(node.value)
            if storage is None:
                return None
            mount = entry.get("mountPath") if entry is not None else None
            where = mount.value if mount is not None and isinstance(mount.value, str) and mount.value else storage.mount_path
            return Hover(storage_markdown(storage, facts, settings.locale, where), node.start, node.end)
    return None


def storage_markdown(storage: StorageFact, facts: ClusterFacts, locale: str | None, mount: str | None = None) -> str:
    lines = [msg.render("storage.hover-title", locale, name=storage.name, type=storage.type or "?", cluster=facts.cluster)]
    if storage.server:
        lines.append(msg.render("storage.hover-server", locale, server=storage.server))
    lines.append(msg.render("storage.hover-read-only" if storage.read_only else "storage.hover-writable", locale))
    lines.append(msg.render("storage.hover-mount", locale, mount=mount or storage.mount_path))
    if storage.default:
        lines.append(msg.render("storage.hover-default", locale))
    if not storage.share:
        lines.append(msg.render("storage.hover-own-folder", locale, user=facts.user))
    if facts.stale:
        lines.append(msg.render("storage.hover-stale", locale))
    return "\n\n".join(lines)
