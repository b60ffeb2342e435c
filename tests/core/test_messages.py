"""One message catalogue for every user-facing text: each code of core/messages.py in both languages
(the English beside the code, the Chinese in the gettext catalogues) with the same arguments, none
written as an English/Chinese pair anywhere else, and a message said before its reader is known (the
daemon's errors) rendered in the reader's language where it is shown."""

from __future__ import annotations

import ast
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
