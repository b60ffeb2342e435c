"""One message catalogue (core/messages.py) for every user-facing text: each code in both languages
with the same arguments, none written as an English/Chinese pair anywhere else, and a message said
before its reader is known (the daemon's errors) rendered in the reader's language where it is shown."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from pai_lsp import errors
from pai_lsp.core.messages import CATALOGUE, ERROR, INFO, TEXT, WARNING, Message, message, render

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
    severity, en, zh = CATALOGUE[code]
    assert severity in (ERROR, WARNING, INFO, TEXT)
    assert en.strip() and zh.strip(), code
    assert _fields(zh) <= _fields(en) and _fields(en) - _fields(zh) <= {"s"}, code  # `s`: an English plural's ending
    assert not CJK.search(en), f"{code}: Chinese in the English text"


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _literal(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


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
    """Other parts add plain entries: code -> (severity, English, 中文), rendered with str.format."""
    assert all(isinstance(v, tuple) and len(v) == 3 for v in CATALOGUE.values())
    assert render("schema.required", "zh", missing="jobName") == "缺少必填字段 \"jobName\"。"


ERROR_CLASSES = {name for name, value in vars(errors).items() if isinstance(value, type) and issubclass(value, errors.PaiError)}
# Said to a peer, not to a user: JSON-RPC's own errors (not JSON, not a request) and an unexpected
# exception's repr; the local cluster is a product of its own, with its servers' words.
PLAIN_ERRORS = {"daemon/server.py", "daemon/watcher.py"}


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
