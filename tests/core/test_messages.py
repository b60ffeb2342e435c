"""One message catalogue for every user-facing text: each code of core/messages.py in both languages
(the English beside the code, the Chinese in the gettext catalogues) with the same arguments, none
written as an English/Chinese pair anywhere else, and a message said before its reader is known (the
daemon's errors) rendered in the reader's language where it is shown."""

from __future__ import annotations

import ast
import builtins
import functools
import re
import string
from pathlib import Path

import pytest

from pai_lsp import errors
from pai_lsp.core.messages import CATALOGUE, ERROR, INFO, TEXT, WARNING, Message, Plural, message, render, template

PACKAGE = Path(__file__).resolve().parents[2] / "pai_lsp"
CJK = re.compile(r"[\u4e00-\u9fff]")

# Data tables that keep their texts beside their records (each row is a thing, not a message): the
# environment variables' docs, the triage explanations (keyed by rule), the v2 runtime plugins and
# extras keys with their parameters (core/v2/facts.py), a format's and a kind's title.
TABLE_MODULES = {"core/messages.py", "core/envvars.py", "core/triage/catalogue.py", "core/v2/facts.py"}
TABLE_NAMES = {"VARIABLES", "title"}


def _fields(template: str) -> set[str]:
    return {name.split("!")[0].split(":")[0] for _, name, _, _ in string.Formatter().parse(template) if name}


def test_no_text_names_an_argument_that_render_and_message_take_themselves():
    """`render(code, locale, **args)`, `message(code, **args)`: a text with `{code}` could never be given it."""
    taken = [code for code, entry in CATALOGUE.items()
             for text in (entry[1] if isinstance(entry[1], Plural) else (entry[1],)) if _fields(text) & {"code", "locale"}]
    assert not taken, taken


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_code_is_said_in_both_languages_with_the_same_arguments(code):
    severity, text = CATALOGUE[code][:2]
    assert severity in (ERROR, WARNING, INFO, TEXT)
    english = [text.one, text.other] if isinstance(text, Plural) else [text]
    said = set().union(*map(_fields, english)) | ({text.count} if isinstance(text, Plural) else set())
    for count in (1, 2):
        zh = template(code, "zh-CN", count)
        assert zh.strip() and _fields(zh) <= said, code  # (that each has its Chinese: test_the_catalogues_are_whole_and_fresh)
    assert all(e.strip() and not CJK.search(e) for e in english), f"{code}: no English, or Chinese in it"


@functools.cache
def _modules() -> tuple[tuple[str, ast.Module], ...]:
    """Every module of the package, parsed once for the tests that read them all."""
    return tuple((path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
                 for path in sorted(PACKAGE.rglob("*.py")))


def _literal(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_no_english_chinese_pair_is_written_outside_the_catalogue():
    """`pick(locale, "…", "…")` with literals, and any Chinese literal outside the catalogue and the
    data tables, is a message that belongs in core/messages.py under a code."""
    found = []
    for name, tree in _modules():
        allowed: set[int] = set()
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id in TABLE_NAMES for t in targets):
                allowed |= {id(n) for n in ast.walk(node)}
            if isinstance(node, ast.keyword) and node.arg in TABLE_NAMES:  # `title=(…)`: the same table, as an argument
                allowed |= {id(n) for n in ast.walk(node)}
            if isinstance(node, ast.Expr):  # a docstring says no message
                allowed.add(id(node.value))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "pick" \
                    and any(_literal(a) for a in node.args[1:]):
                found.append(f"{name}:{node.lineno}: pick() with a literal")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CJK.search(node.value) \
                    and name not in TABLE_MODULES and id(node) not in allowed:
                found.append(f"{name}:{node.lineno}: {node.value[:40]!r}")
    assert not found, "\n".join(found)


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_every_code_the_code_names_is_in_the_catalogue():
    """`message("…")` / `render("…", …)` / `msg.render(...)` with a literal code: that code exists."""
    missing = []
    for name, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("message", "render") \
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                    and re.fullmatch(r"[a-z0-9]+(\.[a-z0-9-]+)+", node.args[0].value) and node.args[0].value not in CATALOGUE:
                missing.append(f"{name}:{node.lineno}: {node.args[0].value}")
    assert not missing, "\n".join(missing)


def test_a_message_is_said_in_its_readers_language_where_it_is_shown():
    inner = message("storage.missing", path="/data", storage="HDFS")
    said = message("clusters.not-added", name="c1", reason=inner)
    assert str(said) == "cluster c1 was not added: /data: no such file or directory on HDFS"
    assert said.render("zh-CN") == "集群 c1 未添加：/data：HDFS 上没有这个文件或目录"
    assert Message.from_json(said.to_json()) == said
    assert Message.from_json({"code": "no.such-code", "args": {}}) is None  # a newer sender's: its English line is kept
    with pytest.raises(KeyError):
        message("no.such-code")


def test_an_error_travels_as_one_wire_form_and_is_said_again_on_the_other_side():
    exc = errors.NotFound(message("jobs.no-output-dir", job="j1"))
    wire = exc.to_wire()
    assert wire == {"kind": "not-found", "code": "jobs.no-output-dir", "args": {"job": "j1"}}
    again = errors.PaiError.from_wire(wire, exc.message)
    assert type(again) is errors.NotFound and again.message == "job j1 has no outputDir"
    assert again.render("zh_CN") == "作业 j1 没有 outputDir"
    plain = errors.PaiError.from_wire({"kind": "auth", "code": "from.a-newer-daemon"}, "the cluster refused the credentials")
    assert type(plain) is errors.AuthFailed and plain.render("zh-CN") == "the cluster refused the credentials"
    assert errors.PaiError.from_wire(None, "?").kind == "server"


def test_a_broken_connection_pai_said_with_a_message_keeps_it():
    """An OSError made with a message (`ConnectionError(message(…))`) becomes `Unreachable` said by
    that message, in the reader's language; one the system made keeps its own words."""
    cut = errors.as_pai_error(ConnectionError(message("daemon.cut-off")))
    assert type(cut) is errors.Unreachable and cut.message == "the connection closed in the middle of a message"
    assert cut.render("zh-CN") == "连接在一条消息的中途关闭"
    refused = errors.as_pai_error(ConnectionRefusedError(111, "Connection refused"))
    assert refused.render("zh-CN") == "[Errno 111] Connection refused"


def test_the_catalogue_keeps_its_public_form():
    """code -> (severity, English), or (severity, Plural(one, other, count)); the Chinese is in the
    gettext catalogue (an entry written the old way, (severity, English, 中文), is moved there by
    scripts/catalogue, and works until then)."""
    assert all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], (str, Plural)) for v in CATALOGUE.values()), \
        "run scripts/catalogue update"
    assert render("schema.required", "zh", missing="jobName") == "缺少必填字段 \"jobName\"。"
    assert render("schema.required", "zh_CN.UTF-8", missing="x") == render("schema.required", "zh-CN", missing="x")


def test_a_count_chooses_the_english_form_and_chinese_has_one():
    assert render("hover.role-tasks", None, tasks=1) == "1 task"
    assert render("hover.role-tasks", "en", tasks=2) == "2 tasks"
    assert render("hover.role-tasks", "zh-CN", tasks=1) == render("hover.role-tasks", "zh-CN", tasks=2).replace("2", "1") == "1 个任务"
    said = message("hdfs.get-stopped", done=1, total=1, path="/p")
    assert str(said) == "cancelled: 1 of 1 file downloaded to /p (each whole; none is there in part)"
    assert "1 个文件" in said.render("zh")


def test_an_english_text_in_the_catalogue_is_no_plural_made_by_hand():
    """"file(s)", "task{s}": a count is said with `Plural` (ngettext), whose forms a translator sees."""
    found = [code for code, entry in CATALOGUE.items() for text in (entry[1] if isinstance(entry[1], Plural) else (entry[1],))
             if re.search(r"\w\(s\)|\{s\}", text) and "http(s)" not in text]
    assert not found, found


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_no_text_outside_the_catalogue_makes_a_plural_by_hand():
    """Nor anywhere else: "file(s)" in an f-string is a count said outside the catalogue (the local
    cluster says its servers' own words, HDFS's "snapshot(s)" among them)."""
    found = []
    for name, tree in _modules():
        if name.startswith("localcluster/"):
            continue
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        found += [f"{name}:{node.lineno}: {node.value[:60]!r}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                  and re.search(r"[a-z]\(s\)", node.value) and "http(s)" not in node.value]
    assert not found, "\n".join(found)


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_a_quick_fix_is_titled_by_the_catalogue():
    """A quick fix's title is a line of the editor's menu: `Fix(msg.render("fix.…", locale, …), …)`, never a literal."""
    found = [f"{name}:{node.lineno}: {ast.unparse(node)[:80]}" for name, tree in _modules() for node in ast.walk(tree)
             if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Fix" and node.args and _literal(node.args[0])]
    assert not found, "\n".join(found)


ERROR_CLASSES = {name for name, value in vars(errors).items() if isinstance(value, type) and issubclass(value, errors.PaiError)}
# Said to a peer, not to a user: JSON-RPC's own errors (not JSON, not a request) and an unexpected
# exception's repr; the local cluster is a product of its own, with its servers' words.
PLAIN_ERRORS = {"daemon/server.py", "daemon/watcher.py"}


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_every_error_a_user_reads_is_a_catalogue_message():
    """An error class raised with a literal line (`NotFound(f"…")`) is English only: the daemon can
    say it to a Chinese editor in no other way. Say it by a code (`message("…", …)`)."""
    found = []
    for name, tree in _modules():
        if name.startswith("localcluster/") or name in PLAIN_ERRORS:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ERROR_CLASSES and node.args and _literal(node.args[0]):
                found.append(f"{name}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert not found, "\n".join(found)


def test_a_message_is_one_sentence_for_its_translator():
    """A kind's reason a name is taken is its own whole message, not an English phrase put inside
    the Chinese (PaddlePaddle Cloud's pods may hold a finished job's name a while)."""
    from pai_lsp.clusters.kinds import BY_NAME

    said = message(BY_NAME["paddlecloud"].name_taken, job="j1", cluster="c1")
    assert "pods are still terminating" in str(said)
    assert said.render("zh-CN") == "c1 上已有名为 j1 的作业（或它的 pod 仍在终止中）：请改名，或启用 pai.job.generateJobName.enabled"
    assert message(BY_NAME["openpai"].name_taken, job="j1", cluster="c1").render("zh-CN").startswith("c1 上已有名为 j1 的作业：")


# -- English said to a user without the catalogue, found by where it goes ------------------------
# The tests above find a literal only where it is the whole message: an error class's first argument,
# a `pick` pair, a line `pai` prints. English also reaches a user as a part: the `why` a helper puts
# into a message (`self.denied(path, "read-only storage")`), a field the user is shown (a job's
# `diagnostics`, an ignore file's `Problem`), a class's name for itself in messages (`name = "the
# local storage"`), what a function returns into a message (`why=_why(exc)`), and an OSError's text
# (`PermissionError(errno.EACCES, "…")`: its `strerror`, and `str()`, are what pai says of it).

PROSE = re.compile(r"\b[a-z]{2,}[,:]? +\(?[a-z]{2,}\b")  # two words: "access denied", "trainer {w} failed"
COMMAND = re.compile(r"pai( [a-z-]+)*:? ?")  # a command's name, said as it is typed
# Modules that quote others' words, in English because those say it so: the v2 server's own refusals
# (its JavaScript's errors, word for word) and the log lines triage looks for.
QUOTING = {"core/v2/server_code.py", "core/triage/rules.py"}
SHOWN_FIELDS = {"message", "diagnostics", "reason", "problem", "why", "detail"}
LOGGERS = {"logger", "log", "logging", "_log", "LOG"}
OS_ERRORS = {name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, OSError)}


def _prose(node: ast.AST) -> list[str]:
    """The English literals in an expression, through `or`, `… if … else …`, `+`, lists and f-strings
    (not into calls: a call's arguments are its own)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    elif isinstance(node, ast.BoolOp):
        return [w for v in node.values for w in _prose(v)]
    elif isinstance(node, ast.IfExp):
        return _prose(node.body) + _prose(node.orelse)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _prose(node.left) + _prose(node.right)
    elif isinstance(node, (ast.List, ast.Tuple)):
        return [w for e in node.elts for w in _prose(e)]
    else:
        return []
    return [ast.unparse(node)[:80]] if PROSE.search(text) and not COMMAND.fullmatch(text) else []


def _name(call: ast.Call) -> str | None:
    return getattr(call.func, "id", getattr(call.func, "attr", None))


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _params(f: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[list[str], bool]:
    """Its parameters (without `self`/`cls`), and whether it is a method."""
    names = [a.arg for a in f.args.posonlyargs + f.args.args]
    method = bool(names) and names[0] in ("self", "cls")
    return (names[1:] if method else names) + [a.arg for a in f.args.kwonlyargs], method


class _Flow:
    """Where the package's code puts a value into a message: the arguments of `message`/`render`, and
    the parameters of functions (and methods) that pass theirs on into one, found to a fixed point."""

    def __init__(self, modules: tuple[tuple[str, ast.Module], ...]):
        self.modules = [(name, tree) for name, tree in modules if not name.startswith("localcluster/")]
        self.aliases = {name: {a.asname or a.name.split(".")[-1] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                               for a in n.names} for name, tree in self.modules}
        self.said: dict[tuple[bool, str], dict[str, int]] = {}  # (method?, name) -> parameter -> position
        self.defs: dict[tuple[str, str], list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}  # (module, name) -> its defs
        for name, tree in self.modules:
            for f in _functions(tree):
                self.defs.setdefault((name, f.name), []).append(f)
        self.imported = {name: _imports(name, tree) for name, tree in self.modules}
        changed = True
        while changed:
            changed = False
            for name, tree in self.modules:
                for f in _functions(tree):
                    params, method = _params(f)
                    for call in (c for c in ast.walk(f) if isinstance(c, ast.Call)):
                        for value in self.into_message(call, name):
                            for n in ast.walk(value):
                                if isinstance(n, ast.Name) and n.id in params:
                                    known = self.said.setdefault((method, f.name), {})
                                    if n.id not in known:
                                        known[n.id] = params.index(n.id)
                                        changed = True

    def _callee(self, call: ast.Call, module: str) -> tuple[bool, str] | None:
        """Which kind of def a call reaches: a function (`f()`, `module.f()`) or a method (`x.f()`)."""
        if isinstance(call.func, ast.Name):
            return False, call.func.id
        if isinstance(call.func, ast.Attribute):
            receiver = call.func.value
            function = isinstance(receiver, ast.Name) and receiver.id in self.aliases.get(module, set())
            return (not function), call.func.attr
        return None

    def into_message(self, call: ast.Call, module: str) -> list[ast.AST]:
        """The argument values of `call` that become arguments of a message."""
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id in LOGGERS:
            return []  # a log line, in English by design
        if _name(call) in ("message", "render") and call.args and _literal(call.args[0]):
            return [k.value for k in call.keywords]
        said = self.said.get(self._callee(call, module) or (False, ""), {})
        positions = set(said.values())
        return [k.value for k in call.keywords if k.arg in said] + [a for i, a in enumerate(call.args) if i in positions]

    def _def(self, call: ast.Call, module: str) -> tuple[str, str] | None:
        """The function of the package a call runs, where the call says which: `f()` (of this module,
        or imported by name), `module.f()`, `self.f()` (a method of this module)."""
        imported = self.imported.get(module, {})
        if isinstance(call.func, ast.Name):
            return imported.get(call.func.id) or (module, call.func.id)
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
            if call.func.value.id == "self":
                return module, call.func.attr
            target = imported.get(call.func.value.id)
            if target is not None and target[1] == "":
                return target[0], call.func.attr
        return None

    def returns(self, callee: tuple[str, str], seen: set) -> list[str]:
        """The English a function returns, itself or through another's return."""
        if callee in seen:
            return []
        seen.add(callee)
        found = []
        for f in self.defs.get(callee, []):
            assigned = _assigned(f)
            for r in (n for n in ast.walk(f) if isinstance(n, ast.Return) and n.value is not None):
                found += self.english(r.value, assigned, callee[0], seen)
        return found

    def english(self, value: ast.AST, assigned: dict[str, list[ast.AST]], module: str, seen: set | None = None) -> list[str]:
        """The English in a value: its literals, a local variable's, what a called function of the
        package returns (`", ".join(x)` passes x on)."""
        seen = set() if seen is None else seen
        found = _prose(value)
        if isinstance(value, ast.Name):
            for v in assigned.get(value.id, []):
                found += self.english(v, {**assigned, value.id: []}, module, seen)
        if isinstance(value, ast.Call):
            if _name(value) == "join" and value.args:
                found += self.english(value.args[0], assigned, module, seen)
            elif (callee := self._def(value, module)) in self.defs:
                found += self.returns(callee, seen)
        return found


def _imports(module: str, tree: ast.Module) -> dict[str, tuple[str, str]]:
    """What a module's imports of the package name: alias -> (module, "") for a module, (module,
    function) for a function."""
    here = module.split("/")[:-1]
    found = {}
    for node in (n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level):
        base = here[:len(here) - node.level + 1] + (node.module.split(".") if node.module else [])
        for alias in node.names:
            as_module = "/".join([*base, alias.name]) + ".py"
            if (PACKAGE / as_module).is_file() or (PACKAGE / as_module[:-3] / "__init__.py").is_file():
                found[alias.asname or alias.name] = (as_module if (PACKAGE / as_module).is_file() else as_module[:-3] + "/__init__.py", "")
            else:
                found[alias.asname or alias.name] = ("/".join(base) + ".py" if (PACKAGE / ("/".join(base) + ".py")).is_file()
                                                     else "/".join([*base, "__init__.py"]), alias.name)
    return found


def _assigned(f: ast.AST) -> dict[str, list[ast.AST]]:
    """What each local name of a function is given: `x = …`, `x.append(…)`, `x += […]`."""
    values: dict[str, list[ast.AST]] = {}
    for n in ast.walk(f):
        if isinstance(n, ast.Assign):
            for target in n.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(n.value)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            values.setdefault(n.target.id, []).append(n.value)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                and isinstance(n.func.value, ast.Name) and n.args:
            values.setdefault(n.func.value.id, []).append(n.args[0])
    return values


def _scoped_calls(flow: _Flow):
    """Every call in the package's modules (but those quoting other programs' words), with what its
    scope assigns: where the scans look for English going into a message or a shown field."""
    for name, tree in flow.modules:
        if name in QUOTING:
            continue
        for scope in _scopes(tree):
            assigned = _assigned(scope)
            for call in (c for c in ast.walk(scope) if isinstance(c, ast.Call)):
                yield name, call, assigned


def _scopes(tree: ast.Module) -> list[ast.AST]:
    return [tree, *_functions(tree)]


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_no_english_goes_into_a_message_from_outside_the_catalogue():
    """A `why` (or any argument of a message) given as English, directly or through the helpers that
    pass theirs on (`self.denied(path, "access denied")`), through a local variable, or as what a
    function returns (`why=_why(exc)`): the message is translated, its argument not."""
    flow = _Flow(_modules())
    found = set()
    for name, call, assigned in _scoped_calls(flow):
        for value in flow.into_message(call, name):
            found |= {f"{name}:{call.lineno}: {_name(call)}(… {w!r} …)" for w in flow.english(value, assigned, name)}
    assert not found, "\n".join(sorted(found))


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_no_english_is_a_field_the_user_is_shown():
    """A class's field a user reads (`message`, `diagnostics`, `reason`, …: a job's diagnostics, an
    ignore file's problem) given English when the object is made; and a class's own name for itself
    in messages (`name = "the local storage"`, said as `self.name`)."""
    flow = _Flow(_modules())
    fields = {}
    for _, tree in flow.modules:
        for cls in (c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)):
            names = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            if SHOWN_FIELDS & set(names):
                fields[cls.name] = names
    said_of_self = {v.attr for name, tree in flow.modules for call in ast.walk(tree) if isinstance(call, ast.Call)
                    for value in flow.into_message(call, name) for v in ast.walk(value)
                    if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self"}
    found = set()
    for name, call, assigned in _scoped_calls(flow):
        if (order := fields.get(_name(call))) is not None:
            values = [k.value for k in call.keywords if k.arg in SHOWN_FIELDS]
            values += [a for i, a in enumerate(call.args) if i < len(order) and order[i] in SHOWN_FIELDS]
            found |= {f"{name}:{call.lineno}: {_name(call)}(… {w!r} …)" for v in values for w in flow.english(v, assigned, name)}
    for name, tree in flow.modules:
        if name in QUOTING:
            continue
        for cls in (c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)):
            for stmt in cls.body:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
                if any(isinstance(t, ast.Name) and t.id in said_of_self for t in targets) and stmt.value is not None:
                    found |= {f"{name}:{stmt.lineno}: {cls.name}.{ast.unparse(targets[0])} = {w!r}" for w in _prose(stmt.value)}
    assert not found, "\n".join(sorted(found))


@pytest.mark.slow  # reads every module of the package: the full suite runs it, `-m unit` stays quick
def test_no_os_error_is_raised_with_english():
    """An OSError's text is its `strerror`, which pai says as the cause (`why=exc.strerror`), and
    `str(exc)`, which a broken connection becomes (`as_pai_error`): English written there reaches
    a Chinese reader as it is. Give it a message (`PermissionError(errno.EACCES, message(…))`)."""
    classes = set(OS_ERRORS)
    for _module, tree in _modules():
        classes |= {c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                    and any(getattr(b, "id", None) in OS_ERRORS for b in c.bases)}
    found = [f"{name}:{call.lineno}: {ast.unparse(call)[:80]}" for name, tree in _modules()
             if not name.startswith("localcluster/") and name not in PLAIN_ERRORS
             for call in ast.walk(tree) if isinstance(call, ast.Call) and _name(call) in classes
             and isinstance(call.func, ast.Name) and any(_prose(a) for a in call.args)]
    assert not found, "\n".join(found)
