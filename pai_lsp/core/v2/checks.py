"""Everything wrong with a v2 job file, each said at its exact place, most with a quick fix.

Severity follows one rule: an Error is what the server refuses (its schema; its checks of names in
`middlewares/v2/protocol.js`: prerequisites and deployments unique, every name a role gives found with
the right type, `defaults.deployment` found; a template it cannot parse, which it answers with a
500); a Warning is what the server lets through but the web portal, HiveD, the scheduler or the
runtime refuses, or what will surely not work (a template left as written, a variable the container
lacks, a misspelt key in `extras` that nothing reads), and says why."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from typing import Any

from .. import messages as msg
from ..envvars import STATIC, assigned_in, find_variables, resolve
from ..jsonc import Node, find
from ..model import Diagnostic, Edit, Fix, Settings
from ..validate import field_name, opening_diagnostics
from ..yaml.write import append_item, append_member, insert_member, is_flow, literal, set_member, value_after_key
from . import schema_check, server_code
from .facts import (
    EXTRAS,
    HIVED_KEYS,
    HIVED_ROLE_KEYS,
    K8S_VARIABLES,
    PLUGIN_ITEM_KEYS,
    PLUGINS,
    PREREQUISITE_FIELDS,
    RUNTIME_PLUGIN_KEY,
)
from .job import Job, Named, command_nodes, deployment_hooks, items, job_of, pairs, plugins, role_field
from .schema_check import role_memory
from .templates import OPEN, TemplateError, find_templates, lookup
from .text import span

_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_SECRET_WORD = r"(?:password|passwd|pwd|token|secret|api[_-]?key|access[_-]?key)"
_SECRET_KEY = re.compile(rf"(?i)^(?:\w*[_-])?{_SECRET_WORD}$")
# `--password abc`, `TOKEN=abc`, `export AWS_SECRET_ACCESS_KEY=abc`: a literal (no variable, no template) after it
_SECRET_IN_COMMAND = re.compile(rf"(?i)(?:--?{_SECRET_WORD}[\w-]*[ =]|\b\w*{_SECRET_WORD}\w*=)(['\"]?)(?P<value>[^\s'\"$<`]{{4,}})\1")
# Found first: the expression above tries every word of a command (some 1 µs a character, and more
# past 20,000), this one scans for the words alone; most commands have none.
_SECRET_ANYWHERE = re.compile(rf"(?i){_SECRET_WORD}")
_JS_TRIM = " \t\n\r\x0b\x0c\xa0\ufeff\u2028\u2029"


def _diag(start: int, end: int, code: str, locale: str | None, fixes: list[Fix] | None = None, **args: Any) -> Diagnostic:
    return Diagnostic(start, max(end, start + 1) if end <= start else end, code, msg.severity(code),
                      msg.render(code, locale, **args), fixes or [])


def _hint(locale: str | None, suggestion: str | None) -> str:
    return msg.render("schema.did-you-mean", locale, suggestion=suggestion) if suggestion else ""


def _closest(word: str, candidates: Any) -> str | None:
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    if not found:
        lowered = {c.lower(): c for c in candidates}
        return lowered.get(word.lower())
    return found[0]


def _replace(node: Node, new: str, locale: str | None) -> Fix:
    return Fix(msg.render("fix.replace", locale, value=f'"{new}"'), (Edit(node.start, node.end, literal(new)),))


def diagnose(doc: Any, settings: Settings) -> list[Diagnostic]:
    locale = settings.locale
    out, whole = opening_diagnostics(doc, locale, "job")
    if not whole:
        return out
    job = job_of(doc)
    for err in schema_check.errors(job):
        out.extend(schema_check.diagnostics(doc, job, err, locale))
    for path, warning in schema_check.warnings(job):
        if path[:2] != ("extras", RUNTIME_PLUGIN_KEY):  # said precisely below
            out.extend(schema_check.warning_diagnostics(doc, path, warning, locale))
    out.extend(_server_code(doc, job, out, locale))
    for check in (_names, _extras, _prerequisite_templates, _secrets, _roles):
        out.extend(check(doc, job, locale))
    seen = set()
    unique = []
    size = len(doc.text)
    for d in sorted(out, key=lambda d: (d.start, d.end)):
        d.end = min(d.end, size)  # a value missing at the very end has its place there
        d.start = min(d.start, d.end)
        if (d.start, d.end, d.code, d.message) not in seen:
            seen.add((d.start, d.end, d.code, d.message))
            unique.append(d)
    return unique


# -- what the server's code fails on after its schema ------------------------------------------------

def _server_code(doc: Any, job: Job, found: list[Diagnostic], locale: str | None) -> Iterator[Diagnostic]:
    """The server's refusals past its schema that the checks below do not say: a value of a type its
    code cannot use (where no error of the schema stands already), and the names and templates of
    roles given as a list (the checks below read the roles of a mapping)."""
    taken = {(d.start, d.end) for d in found if d.severity == "error"}
    for refusal in server_code.refusals(job.value, mapped_roles=False):
        listed = len(refusal.path) > 1 and refusal.path[0] == "taskRoles" and isinstance(refusal.path[1], int)
        if refusal.kind != server_code.JAVASCRIPT and not listed:
            continue
        node = _place(doc.root, refusal.path)
        start, end = node.start, max(node.end, node.start + 1)
        if (start, end) in taken:
            continue
        taken.add((start, end))  # the first refusal at a place: the server stops there
        if refusal.kind == server_code.JAVASCRIPT:
            yield _diag(start, end, "v2.server-crash", locale, field=field_name(refusal.path), message=refusal.message,
                        actual=msg.type_name(_type_at(job.value, refusal.path), locale),
                        expected=msg.type_name(refusal.expected, locale))
        elif refusal.expected:
            yield _diag(start, end, "v2.server-letters", locale, status=refusal.status, message=refusal.message,
                        expected=msg.type_name(refusal.expected, locale))
        else:
            yield _diag(start, end, "v2.server-refuses", locale, status=refusal.status, message=refusal.message)


def _type_at(value: Any, path: tuple) -> str:
    """The JSON type of the value at `path` ("missing" where the job leaves it out)."""
    for part in path:
        if isinstance(value, dict) and part in value or isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
        else:
            return "missing"
    return msg.json_type(value)


def _place(root: Node, path: tuple) -> Node:
    """The node at `path`, or the nearest one above it that the text has (a member left out); for a
    value left empty (`taskRoles:`), its key."""
    for end in range(len(path), 0, -1):
        node = find(root, path[:end])
        if node is not None:
            prop = node.parent
            if node.start == node.end and prop is not None and prop.type == "property" and prop.key is not None:
                return prop.key
            return node
    return root


# -- names the server looks up ----------------------------------------------------------------------

def _names(doc: Any, job: Job, locale: str | None) -> Iterator[Diagnostic]:
    seen: set[tuple[str, str]] = set()
    for item in job.prerequisites:
        if (item.kind, item.name) in seen:
            yield _diag(item.name_node.start, item.name_node.end, "v2.duplicate-prerequisite", locale, type=item.kind, name=item.name)
        seen.add((item.kind, item.name))
    names: set[str] = set()
    for item in items(job.root.get("deployments")):
        name = item.get("name") if item.type == "object" else None
        if name is not None and isinstance(name.value, str):
            if name.value in names:
                yield _diag(name.start, name.end, "v2.duplicate-deployment", locale, name=name.value)
            names.add(name.value)
    defaults = job.root.get("defaults")
    chosen = defaults.get("deployment") if defaults is not None and defaults.type == "object" else None
    if chosen is not None and isinstance(chosen.value, str) and chosen.value not in job.deployments:
        close = _closest(chosen.value, job.deployments)
        yield _diag(chosen.start, chosen.end, "v2.unknown-deployment", locale, [_replace(chosen, close, locale)] if close else [],
                    name=chosen.value, known=", ".join(job.deployments) or "—")
    for item in items(job.root.get("deployments")):
        roles = item.get("taskRoles") if item.type == "object" else None
        for name, key, _ in pairs(roles):
            if name not in job.roles:
                close = _closest(name, job.roles)
                yield _diag(key.start, key.end, "v2.deployment-unknown-role", locale, [_replace(key, close, locale)] if close else [],
                            role=name, hint=_hint(locale, close))


def _missing_prerequisite(doc: Any, job: Job, field: str, kind: str, node: Node, locale: str | None) -> Diagnostic:
    name = node.value
    others = job.named(name)
    if others:
        return _diag(node.start, node.end, "v2.prerequisite-wrong-type", locale, name=name, actual=others[0].kind, field=field, type=kind)
    if not _NAME.match(name) or kind == "dockerimage" and "." in name:  # an image or a URI where a name goes
        new = _free_name(job, "docker_image" if kind == "dockerimage" else kind)
        item = {"name": new, "type": kind, "uri": [name] if kind == "data" else name}
        what = msg.render("v2.word.image" if kind == "dockerimage" else "v2.word.uri", locale)
        fix = Fix(msg.render("fix.define-prerequisite-for", locale, new=new, name=name), tuple(sorted(
            (Edit(node.start, node.end, literal(new)), add_prerequisite(doc, job, item)), key=lambda e: e.start)))
        return _diag(node.start, node.end, "v2.uri-not-prerequisite", locale, [fix], field=field, what=what, name=name, type=kind)
    same = job.by_type.get(kind, {})
    close = _closest(name, same)
    fixes = [_replace(node, close, locale)] if close else []
    item = {"name": name, "type": kind, **({"uri": ""} if kind == "dockerimage" else {})}
    fixes.append(Fix(msg.render("fix.define-prerequisite", locale, type=kind, name=name), (add_prerequisite(doc, job, item),)))
    return _diag(node.start, node.end, "v2.missing-prerequisite", locale, fixes, name=name, field=field, type=kind,
                 known=", ".join(same) or "—", hint=_hint(locale, close))


def _free_name(job: Job, stem: str) -> str:
    taken = {p.name for p in job.prerequisites}
    return next(f"{stem}_{i}" for i in range(len(taken) + 1) if f"{stem}_{i}" not in taken)


def add_prerequisite(doc: Any, job: Job, item: dict) -> Edit:
    """An edit adding a prerequisite: last in `prerequisites`, or a new `prerequisites` list before
    `taskRoles` (or first)."""
    root = job.root
    existing = root.get_property("prerequisites")
    if existing is not None and existing.value_node is not None and existing.value_node.type == "array":
        if existing.value_node.children or is_flow(doc.text, existing.value_node):
            return append_item(doc.text, existing.value_node, item)
    if existing is not None:
        return value_after_key(doc.text, existing, [item])
    prop = root.get_property("taskRoles") or next(iter(root.properties()), None)
    if prop is None:
        return insert_member(doc.text, root, "prerequisites", [item])
    return insert_member(doc.text, _as_first(root, prop), "prerequisites", [item])


def _as_first(root: Node, prop: Node) -> Node:
    """A view of `root` whose first member is `prop` (insert_member puts the new pair before it)."""
    view = Node("object", root.start, root.end)
    view._children = [prop]
    return view


# -- retries and extras -------------------------------------------------------------------------------

def _gang(job: Job) -> bool:
    extras = job.value.get("extras")
    return not (isinstance(extras, dict) and extras.get("gangAllocation") is False)


def _retry(doc: Any, job: Job, role: Named, locale: str | None) -> Iterator[Diagnostic]:
    retry = role_field(role, "taskRetryCount")
    if retry is None or not isinstance(retry.value, (int, float)) or isinstance(retry.value, bool) or retry.value <= 0 or not _gang(job):
        return
    prop = retry.parent
    extras = job.root.get("extras")
    if extras is not None and extras.type == "object":
        edit = set_member(doc.text, extras, "gangAllocation", False)
    elif extras is None:
        edit = append_member(doc.text, job.root, "extras", {"gangAllocation": False})
    else:
        return
    yield _diag(prop.start, prop.end, "v2.retry-ignored", locale, [Fix(msg.render("fix.gang-allocation-off", locale), (edit,))])


def _extras(doc: Any, job: Job, locale: str | None) -> Iterator[Diagnostic]:
    extras = job.root.get("extras")
    for name, key, _ in pairs(extras):
        if name not in EXTRAS and not name.startswith("com.microsoft.pai."):
            close = _closest(name, EXTRAS)
            yield _diag(key.start, key.end, "v2.unknown-extra", locale, [_replace(key, close, locale)] if close else [],
                        key=name, hint=_hint(locale, close))
    hived = extras.get("hivedScheduler") if extras is not None and extras.type == "object" else None
    if hived is not None and hived.type == "object":
        yield from _hived(job, hived, locale)
    for item in plugins(job.root):
        if item.type == "object":
            yield from _plugin(doc.text, item, locale)


def _hived(job: Job, hived: Node, locale: str | None) -> Iterator[Diagnostic]:
    for name, key, _ in pairs(hived):
        if name not in HIVED_KEYS:
            close = _closest(name, HIVED_KEYS)
            yield _diag(key.start, key.end, "v2.hived-unknown-key", locale, [_replace(key, close, locale)] if close else [],
                        key=name, hint=_hint(locale, close))
    groups: dict[str, tuple[Any, Any, str]] = {}
    for name, key, value in pairs(hived.get("taskRoles")):
        if name not in job.roles:
            close = _closest(name, job.roles)
            yield _diag(key.start, key.end, "v2.hived-unknown-role", locale, [_replace(key, close, locale)] if close else [],
                        role=name, hint=_hint(locale, close))
        if value is None or value.type != "object":
            continue
        for field, field_key, _ in pairs(value):
            if field not in HIVED_ROLE_KEYS:
                close = _closest(field, HIVED_ROLE_KEYS)
                yield _diag(field_key.start, field_key.end, "v2.hived-unknown-key", locale, [_replace(field_key, close, locale)] if close else [],
                            key=field, hint=_hint(locale, close))
        settings = value.value
        sku, cell = settings.get("skuType"), settings.get("pinnedCellId")
        if sku is not None and cell is not None:
            yield _diag(key.start, key.end, "v2.hived-sku-and-cell", locale, role=name)
        group = settings.get("affinityGroupName")
        if isinstance(group, str):
            first = groups.setdefault(group, (sku, cell, name))
            if (first[0], first[1]) != (sku, cell):
                where = value.get("affinityGroupName")
                yield _diag(where.start, where.end, "v2.hived-affinity", locale, group=group, roles=f"{first[2]}, {name}")


def _plugin(text: str, item: Node, locale: str | None) -> Iterator[Diagnostic]:
    for name, key, _ in pairs(item):
        if name not in PLUGIN_ITEM_KEYS:
            close = _closest(name, PLUGIN_ITEM_KEYS)
            yield _diag(key.start, key.end, "v2.plugin-item-key", locale, [_replace(key, close, locale)] if close else [], key=name,
                        hint=_hint(locale, close))
    plugin = item.get("plugin")
    if plugin is None or not isinstance(plugin.value, str):
        return
    name = plugin.value.removeprefix("com.microsoft.pai.runtimeplugin.")
    if name not in PLUGINS:
        close = _closest(name, PLUGINS)
        yield _diag(plugin.start, plugin.end, "v2.unknown-plugin", locale, [_replace(plugin, close, locale)] if close else [],
                    name=plugin.value, hint=_hint(locale, close))
        return
    if name == "cmd":
        return  # the portal does not check cmd's parameters; the runtime reads `callbacks`
    spec = PLUGINS[name][2]
    parameters = item.get("parameters")
    required = [p for p, (_, needed, _, _) in spec.items() if needed]
    if parameters is None or parameters.type != "object":
        if required and (parameters is None or parameters.type == "null"):
            where = plugin if parameters is None else parameters
            yield _diag(where.start, where.end, "v2.plugin-parameter-missing", locale, plugin=name,
                        name=required[0] if parameters is not None else "")
        return
    given = {key: (key_node, value) for key, key_node, value in pairs(parameters)}
    for needed in required:
        if needed not in given:
            key = parameters.parent.key if parameters.parent is not None else plugin
            yield _diag(key.start, key.end, "v2.plugin-parameter-missing", locale,
                        [Fix(msg.render("fix.add", locale, name=needed), (insert_member(text, parameters, needed, _example(spec[needed][0])),))] if parameters.children else [],
                        plugin=name, name=needed)
    for key, (key_node, value) in given.items():
        if key not in spec:
            close = _closest(key, spec)
            yield _diag(key_node.start, key_node.end, "v2.plugin-parameter-unknown", locale, [_replace(key_node, close, locale)] if close else [],
                        plugin=name, name=key, hint=_hint(locale, close))
        elif value is not None and not _joi_type(spec[key][0], value.value, key):
            yield _diag(value.start, value.end, "v2.plugin-parameter-type", locale, plugin=name, name=key,
                        expected=msg.type_name(spec[key][0], locale), actual=msg.type_name(msg.json_type(value.value), locale))


def _example(kind: str) -> Any:
    return {"boolean": True, "number": 1, "object": {}, "array": []}.get(kind, "")


def _joi_type(kind: str, value: Any, key: str) -> bool:
    """Joi's reading (it converts "true" and number strings)."""
    if kind == "boolean":
        return isinstance(value, bool) or value in ("true", "false")
    if kind == "number":
        if isinstance(value, str):
            try:
                float(value)
            except ValueError:
                return False
            return True
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return ok and (bool(value) or key != "storageConfigNames")
    return True


# -- commands: templates and variables ----------------------------------------------------------------

class _Joined:
    """A role's command as the server renders it (each string trimmed, joined with "\\n"), and where
    each of its characters is in the text."""

    def __init__(self, nodes: list[Node]):
        self.nodes = nodes
        self.starts: list[int] = []
        self.leads: list[int] = []
        parts = []
        at = 0
        for node in nodes:
            value = node.value
            trimmed = value.strip(_JS_TRIM)
            self.starts.append(at)
            self.leads.append(len(value) - len(value.lstrip(_JS_TRIM)))
            parts.append(trimmed)
            at += len(trimmed) + 1
        self.text = "\n".join(parts)

    def where(self, text: str, a: int, b: int) -> tuple[int, int]:
        """The text range of joined[a:b] (within the string `a` falls in)."""
        import bisect

        i = max(bisect.bisect_right(self.starts, a) - 1, 0)
        node = self.nodes[i]
        index = a - self.starts[i] + self.leads[i]
        return span(text, node, index, index + (b - a))


def _prerequisite_templates(doc: Any, job: Job, locale: str | None) -> Iterator[Diagnostic]:
    """Templates outside the roles: a Docker image's `auth` (filled with secrets), and where none is filled."""
    text = doc.text
    for item in job.prerequisites:
        if item.kind == "dockerimage" and item.node is not None:
            auth = item.node.get("auth")
            for _, _, value in pairs(auth):
                if value is not None and value.type == "string" and OPEN in value.value:
                    yield from _templates(text, job, None, _Joined([value]), locale, only_secrets=True)
        for name, _, value in pairs(item.node):
            if value is not None and value.type == "string" and OPEN in value.value and name != "description":
                yield from _not_filled(text, value, locale)


def _not_filled(text: str, node: Node, locale: str | None) -> Iterator[Diagnostic]:
    try:
        tags = find_templates(node.value)
    except TemplateError:
        tags = []
    for tag in tags[:1]:
        a, b = span(text, node, tag.start, tag.end)
        yield _diag(a, b, "v2.template-not-filled", locale)


def _templates(text: str, job: Job, role: Named | None, joined: _Joined, locale: str | None,
               only_secrets: bool = False) -> Iterator[Diagnostic]:
    try:
        tags = find_templates(joined.text)
    except TemplateError as e:
        a, b = joined.where(text, e.start, e.end)
        yield _diag(a, b, "v2.template-error", locale, message=e.message)
        return
    parameters, secrets = job.value.get("parameters"), job.value.get("secrets")
    for tag in tags:
        a, b = joined.where(text, tag.start, tag.end)
        if not tag.filled:
            if tag.kind not in ("!", "="):
                yield _diag(a, b, "v2.dropped-tag", locale)
            continue
        parts = tag.parts
        head = parts[0] if parts else ""
        if head == "$parameters" and not only_secrets:
            if len(parts) > 1 and lookup({"$parameters": parameters if isinstance(parameters, dict) else {}}, tag.expr) is None:
                yield _undefined(text, a, b, "v2.undefined-parameter", tag.expr, job.parameters, "parameters", job, locale)
        elif head == "$secrets":
            if len(parts) > 1 and lookup({"$secrets": secrets if isinstance(secrets, dict) else {}}, tag.expr) is None:
                yield _undefined(text, a, b, "v2.undefined-secret", tag.expr, job.secrets, "secrets", job, locale)
        elif head in ("$script", "$output", "$data") and role is not None and not only_secrets:
            field = head[1:]
            node = role_field(role, field)
            prerequisite = job.by_type.get(field, {}).get(node.value) if node is not None and isinstance(node.value, str) else None
            if node is None:
                yield _diag(a, b, "v2.no-prerequisite-for-template", locale, expr=tag.expr, field=field)
            elif prerequisite is not None and len(parts) > 1 and \
                    lookup({head: prerequisite.node.value if prerequisite.node is not None else {}}, tag.expr) is None:
                yield _diag(a, b, "v2.undefined-template-member", locale, name=prerequisite.name, member=".".join(parts[1:]), expr=tag.expr)
        else:
            roots = ("$secrets",) if only_secrets else ("$parameters", "$secrets", "$script", "$output", "$data")
            guess = next((r for r in roots if tag.expr.startswith(r[1:] + ".") or tag.expr == r[1:]), None)
            fixes = []
            if guess is not None:
                raw = text[a:b]
                fixes = [Fix(msg.render("fix.write", locale, value="$" + tag.expr), (Edit(a, b, raw.replace(tag.expr, "$" + tag.expr, 1)),))] \
                    if tag.expr in raw else []
            yield _diag(a, b, "v2.unknown-template", locale, fixes, expr=tag.expr, hint=_hint(locale, "$" + tag.expr if guess else None))


def _undefined(text: str, a: int, b: int, code: str, expr: str, defined: dict[str, Named], section: str, job: Job,
               locale: str | None) -> Diagnostic:
    name = expr.split(".", 1)[1]
    key = name.split(".", 1)[0]
    close = _closest(key, defined) if key not in defined else None
    fixes = []
    raw = text[a:b]
    if close and key in raw:
        fixes.append(Fix(msg.render("fix.replace", locale, value=close), (Edit(a, b, raw.replace("." + key, "." + close, 1)),)))
    if key not in defined:
        mapping = job.root.get(section)
        if mapping is not None and mapping.type == "object" and mapping.children:
            edit = append_member(text, mapping, key, "")
        elif mapping is None:
            edit = append_member(text, job.root, section, {key: ""})
        else:
            edit = None
        if edit is not None:
            fixes.append(Fix(msg.render("fix.define-in", locale, key=key, section=section), (edit,)))
    return _diag(a, b, code, locale, fixes, name=name, hint=_hint(locale, close))


def _variables(text: str, job: Job, joined: _Joined, locale: str | None) -> Iterator[Diagnostic]:
    own = assigned_in(joined.text)
    names = job.names
    for name, start, end in find_variables(joined.text):
        if name in own:
            continue
        a, b = joined.where(text, start, end)
        if name in STATIC and name not in K8S_VARIABLES:
            yield _diag(a, b, "v2.yarn-variable", locale, name=name)
            continue
        found = resolve(name, names)
        if not found.problem:
            continue
        args = dict(found.args or {}, name=name)
        code = found.problem
        fixes: list[Fix] = []
        if code == "semantic.unknown-variable":
            suggestion = args.pop("suggestion", "")
            if suggestion in STATIC and suggestion not in K8S_VARIABLES:
                suggestion = ""
            args["hint"] = _hint(locale, "$" + suggestion if suggestion else None)
            if suggestion:
                fixes = [Fix(msg.render("fix.replace", locale, value="$" + suggestion), (Edit(a, b, text[a:b].replace(name, suggestion)),))]
        elif code == "semantic.undefined-port-label":
            code = "v2.undefined-port-label"
        yield _diag(a, b, code, locale, fixes, **args)


# -- secrets in plain text ----------------------------------------------------------------------------

def _secrets(doc: Any, job: Job, locale: str | None) -> Iterator[Diagnostic]:
    for item in job.prerequisites:
        auth = item.node.get("auth") if item.kind == "dockerimage" and item.node is not None else None
        password = auth.get("password") if auth is not None and auth.type == "object" else None
        if password is not None and isinstance(password.value, str) and password.value and OPEN not in password.value:
            key = re.sub(r"\W", "_", f"{item.name}_password")
            yield _diag(password.start, password.end, "v2.plain-secret", locale, _to_secret(doc, job, password, password.value, key, locale),
                        what=msg.render("v2.word.registry-password", locale), name=key)
    for name, key_node, value in pairs(job.root.get("parameters")):
        if _SECRET_KEY.match(name) and value is not None and isinstance(value.value, (str, int)) and value.value not in ("", None):
            yield _diag(key_node.start, key_node.end, "v2.plain-secret", locale,
                        what=msg.render("v2.word.parameter", locale, name=name), name=name)


def _command_secrets(doc: Any, job: Job, role: Named, locale: str | None) -> Iterator[Diagnostic]:
    text = doc.text
    for node in items(role_field(role, "commands")):
        if node.type != "string" or not isinstance(node.value, str) or _SECRET_ANYWHERE.search(node.value) is None:
            continue
        for found in _SECRET_IN_COMMAND.finditer(node.value):
            a, b = span(text, node, found.start("value"), found.end("value"))
            key = _secret_key(found.group(0), job)
            yield _diag(a, b, "v2.plain-secret", locale, _to_secret(doc, job, node, found.group("value"), key, locale, (a, b)),
                        what=msg.render("v2.word.this-secret", locale), name=key)


def _secret_key(found: str, job: Job) -> str:
    word = re.search(rf"(?i){_SECRET_WORD}", found)
    stem = (word.group(0) if word else "secret").lower().replace("-", "_")
    return stem if stem not in job.secrets else next(f"{stem}_{i}" for i in range(1, 1000) if f"{stem}_{i}" not in job.secrets)


def _to_secret(doc: Any, job: Job, node: Node, value: str, key: str, locale: str | None,
               where: tuple[int, int] | None = None) -> list[Fix]:
    """Move a literal secret into `secrets` and write `<% $secrets.key %>` in its place."""
    text = doc.text
    template = f"<% $secrets.{key} %>"
    if where is None:
        replace = Edit(node.start, node.end, literal(template))
    else:
        raw = text[where[0]:where[1]]
        if raw != value:
            return []
        replace = Edit(where[0], where[1], template)
    secrets = job.root.get("secrets")
    if secrets is not None and secrets.type == "object" and secrets.children:
        add = append_member(text, secrets, key, value)
    elif secrets is None:
        prop = job.root.get_property("taskRoles") or next(iter(job.root.properties()))
        add = insert_member(text, _as_first(job.root, prop), "secrets", {key: value})
    else:
        return []
    return [Fix(msg.render("fix.to-secret", locale, key=key), tuple(sorted((replace, add), key=lambda e: e.start)))]


# -- each task role (kept on its node while the role and what it refers to stay the same) -----------

def _roles(doc: Any, job: Job, locale: str | None) -> Iterator[Diagnostic]:
    key = _context(job, locale)
    for role in job.roles.values():
        node = role.node
        if node is None:
            continue
        memory = role_memory(node)
        cached = memory.get("checks")
        if cached is not None and cached[0] is key:
            yield from (d.moved(node.start) for d in cached[1])
            continue
        found = list(_role_checks(doc, job, role, locale))
        if _within(found, node) and deployment_hooks(job, role.name) == ([], []):
            memory["checks"] = (key, tuple(d.moved(-node.start) for d in found))
        yield from found


_CONTEXTS: dict[int, tuple] = {}  # the one object of each context seen: roles compare theirs by identity


def _context(job: Job, locale: str | None) -> tuple:
    """What a role's findings depend on besides its own text: the names and values of the rest of
    the job. Equal contexts are the same object (compared once here, not once per role)."""
    value = job.value
    extras = value.get("extras") if isinstance(value.get("extras"), dict) else {}
    names = job.names
    rest = (value.get("parameters"), value.get("secrets"), value.get("prerequisites"), value.get("defaults"),
            value.get("deployments"), extras.get("gangAllocation"), [k in value for k in ("parameters", "secrets", "extras")])
    key = (locale, repr(rest), tuple(names.roles.items()), tuple(sorted(names.labels)))
    known = _CONTEXTS.get(hash(key))
    if known is not None and known == key:
        return known
    if len(_CONTEXTS) > 64:
        _CONTEXTS.clear()
    _CONTEXTS[hash(key)] = key
    return key


def _within(found: list[Diagnostic], node: Node) -> bool:
    """Whether the findings and their fixes touch the role's own text only (then they move with it)."""
    return all(node.start <= d.start and d.end <= node.end and all(node.start <= e.start and e.end <= node.end
                                                                  for fix in d.fixes for e in fix.edits) for d in found)


def _role_checks(doc: Any, job: Job, role: Named, locale: str | None) -> Iterator[Diagnostic]:
    every = {p.name for p in job.prerequisites}
    for item in items(role_field(role, "prerequisites")):
        if isinstance(item.value, str) and item.value not in every:
            close = _closest(item.value, every)
            yield _diag(item.start, item.end, "v2.unknown-prerequisite", locale, [_replace(item, close, locale)] if close else [],
                        name=item.value, hint=_hint(locale, close))
    for field, kind in PREREQUISITE_FIELDS.items():
        node = role_field(role, field)
        if node is not None and isinstance(node.value, str) and node.value not in job.by_type.get(kind, {}):
            yield _missing_prerequisite(doc, job, field, kind, node, locale)
    for field in PREREQUISITE_FIELDS:
        node = role_field(role, field)
        if node is not None and node.type == "string" and OPEN in node.value:
            yield from _not_filled(doc.text, node, locale)
    yield from _retry(doc, job, role, locale)
    nodes = command_nodes(job, role)
    if nodes:
        joined = _Joined(nodes)
        if OPEN in joined.text:
            yield from _templates(doc.text, job, role, joined, locale)
        if "PAI_" in joined.text:
            yield from _variables(doc.text, job, joined, locale)
    yield from _command_secrets(doc, job, role, locale)
