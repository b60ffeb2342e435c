"""The translation catalogues (locale/zh_CN/LC_MESSAGES/*.po, managed by scripts/catalogue): whole,
compiled and the editors' bundles made from them; an entry written the old way moved into them; and
no line the CLI or an editor shows that bypasses them."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers.cli import pai

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "catalogue"


def _catalogue(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(root / "scripts" / "catalogue"), *args], capture_output=True, text=True,
                          cwd=root, timeout=120)


@pytest.mark.subprocess
def test_the_catalogues_are_whole_and_fresh():
    """Every text translated (none fuzzy), the .mo compiled from its .po, the editors' bundles made
    from editors.po, no entry of messages.py written the old way: else `scripts/catalogue update`."""
    done = _catalogue(ROOT, "check")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.subprocess
def test_an_old_form_entry_and_a_hand_added_bundle_entry_move_into_the_catalogue(tmp_path):
    """What a branch written before the catalogue adds (a 3-tuple in messages.py, a row in Neovim's
    table) is taken in by `update`, which a second time changes nothing."""
    copy = tmp_path / "repo"
    for part in ("scripts", "pai_lsp", "locale", "editor-clients/nvim", "editor-clients/vscode/src", "editor-clients/vscode/l10n"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__", "node_modules", "out"))
    for name in ("package.nls.json", "package.nls.zh-cn.json"):
        shutil.copy(ROOT / "editor-clients/vscode" / name, copy / "editor-clients/vscode" / name)
    messages = copy / "pai_lsp/core/messages.py"
    messages.write_text(messages.read_text(encoding="utf-8").replace(
        '    "params.not-object":',
        '    "jobs.added-here": (TEXT, "job {job} was added here", "作业 {job} 已在此添加"),\n    "params.not-object":', 1), encoding="utf-8")
    lua = copy / "editor-clients/nvim/lua/pai_lsp/i18n.lua"
    lua.write_text(lua.read_text(encoding="utf-8").replace('  ["no upload to cancel"]', '  ["Pods"] = "容器组",\n  ["no upload to cancel"]', 1),
                   encoding="utf-8")

    first = _catalogue(copy, "update")
    assert first.returncode == 0, first.stderr
    assert '"jobs.added-here": (TEXT, "job {job} was added here"),' in messages.read_text(encoding="utf-8")
    service = (copy / "locale/zh_CN/LC_MESSAGES/service.po").read_text(encoding="utf-8")
    assert 'msgctxt "jobs.added-here"\nmsgid "job {job} was added here"\nmsgstr "作业 {job} 已在此添加"' in service
    assert 'msgctxt "nvim"\nmsgid "Pods"\nmsgstr "容器组"' in (copy / "locale/zh_CN/LC_MESSAGES/editors.po").read_text(encoding="utf-8")
    said = subprocess.run([sys.executable, "-c", "from pai_lsp.core.messages import render;"
                           "print(render('jobs.added-here', 'zh-CN', job='j1'))"],
                          capture_output=True, text=True, cwd=copy, env={**os.environ, "PYTHONPATH": str(copy)}, timeout=60)
    assert said.stdout.strip() == "作业 j1 已在此添加", said.stderr

    again = _catalogue(copy, "update")
    assert again.returncode == 0 and "wrote" not in again.stdout, again.stdout
    assert _catalogue(copy, "check").returncode == 0


@pytest.mark.subprocess
def test_a_changed_english_text_asks_for_its_translation_again(tmp_path):
    copy = tmp_path / "repo"
    for part in ("scripts", "pai_lsp", "locale", "editor-clients"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__", "node_modules", "out", "server"))
    messages = copy / "pai_lsp/core/messages.py"
    before = '"syntax.missing-colon": (ERROR, "Missing \':\' after the key."),'
    assert before in messages.read_text(encoding="utf-8")
    messages.write_text(messages.read_text(encoding="utf-8").replace(before, before.replace("Missing ':'", "No ':'")), encoding="utf-8")
    assert _catalogue(copy, "update").returncode == 0
    core = (copy / "locale/zh_CN/LC_MESSAGES/core.po").read_text(encoding="utf-8")
    assert "#. was: Missing ':' after the key.\n#, fuzzy\nmsgctxt \"syntax.missing-colon\"" in core
    checked = _catalogue(copy, "check")
    assert checked.returncode == 1 and "syntax.missing-colon" in checked.stdout and "fuzzy" in checked.stdout


# -- no line that bypasses the catalogue ----------------------------------------------------------

SAID_THROUGH = {"_", "ngettext", "N_", "render", "message", "dumps"}  # a catalogue's, or not words (JSON)
SHOWN_BY = {"print", "write", "error"}  # print(), out.print(), sys.stderr.write(), parser.error()


def _words_outside_the_catalogue(node: ast.AST) -> list[str]:
    """The literal words in `node`, except those said through the catalogue; column headers (NAME,
    CPU), punctuation and a command's name (`pai hdfs: `) are no words."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in SAID_THROUGH:
        return []
    if isinstance(node, ast.Compare):  # `op == "rm"` chooses a text, says none
        return []
    if isinstance(node, ast.FormattedValue):
        return _words_outside_the_catalogue(node.value)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        command = re.fullmatch(r"pai( [a-z-]+)*:? ?", node.value)  # a command's name, said as it is typed
        return [node.value] if re.search(r"[a-z]{2,}", node.value) and not command else []
    return [w for child in ast.iter_child_nodes(node) for w in _words_outside_the_catalogue(child)]


def test_the_cli_prints_no_words_of_its_own():
    """A line `pai` prints is said through `_`/`ngettext` (its words in cli.po) or a catalogue code
    (`render`): a literal in `print(f"…")` would be English to a Chinese terminal."""
    found = []
    for path in sorted((ROOT / "pai_lsp" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in SHOWN_BY:
                found += [f"{path.name}:{node.lineno}: {word!r}" for arg in node.args for word in _words_outside_the_catalogue(arg)]
    assert not found, "\n".join(found)


def test_the_editors_show_no_words_of_their_own():
    """VS Code's messages go through `vscode.l10n.t`, Neovim's through `t` (both checked against
    editors.po by scripts/catalogue): a literal handed straight to a notification bypasses them."""
    found = []
    for path in sorted((ROOT / "editor-clients/vscode/src").glob("*.ts")):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {m.group(0)}" for m in re.finditer(r"show(?:Information|Warning|Error)Message\(\s*[\"'`][^\"'`]*[a-z]{2,}", text)]
    for path in sorted((ROOT / "editor-clients/nvim").rglob("*.lua")):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {m.group(0)}" for m in re.finditer(r"(?:vim\.notify|ui\.notify|ui\.error|ui\.info|ui\.warn)\(\s*\"(?!pai: \")[^\"]*[a-z]{2,}", text)]
    assert not found, "\n".join(found)


@pytest.mark.subprocess
def test_pai_speaks_chinese_to_a_chinese_terminal(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    chinese = pai({**env, "LANG": "zh_CN.UTF-8"}, "hdfs", "ls", "--help")
    assert chinese.returncode == 0, chinese.stderr
    assert chinese.stdout.startswith("用法：pai hdfs ls") and "列出文件夹。" in chinese.stdout and "--cluster PROFILE" in chinese.stdout
    top = pai({**env, "LC_ALL": "zh_CN.UTF-8"}, "--help")
    assert "退出码：" in top.stdout and "检查作业配置并打印其中的问题" in top.stdout
    english = pai({**env, "LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "hdfs", "ls", "--help")  # LC_ALL first, as cli.output.terminal_locale
    assert english.stdout.startswith("usage: pai hdfs ls") and "List a folder." in english.stdout
    # argparse's own refusals too, by the same rule (gettext's would read LANGUAGE first)
    missing = pai({**env, "LANG": "zh_CN.UTF-8", "LANGUAGE": "en"}, "show")
    assert missing.returncode == 2 and missing.stderr.endswith("pai show：错误：缺少以下必需的参数：JOB\n"), missing.stderr
    ambiguous = pai({**env, "LC_ALL": "zh_CN.UTF-8"}, "logs", "--t")
    assert ambiguous.stderr.endswith("pai logs：错误：有歧义的选项：--t 可能是 --task, --tail\n"), ambiguous.stderr
    wrong = pai({**env, "LC_ALL": "zh_CN.UTF-8"}, "bogus")
    assert "pai：错误：参数 COMMAND：无效的选择：'bogus'（可选：'check'" in wrong.stderr, wrong.stderr
