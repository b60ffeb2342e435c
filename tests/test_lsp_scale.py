"""Large configs in the editor: what the server reuses between edits never shows, and `$PAI_`
completion stays short. Each edit's diagnostics are compared with `pai check` run afresh on the
same text (a new process: nothing remembered)."""

from __future__ import annotations

import json
import re

import pytest
from lsprotocol import types

from .helpers.cli import pai_lang
from .helpers.lsp import Editor

pytestmark = pytest.mark.subprocess  # the language server over stdio

ROLES = 300


def config(roles: int = ROLES) -> str:
    return json.dumps({
        "jobName": "big",
        "image": "img",
        "taskRoles": [{
            "name": f"worker{i}",
            "taskNumber": 2,
            "memoryMB": 8192,
            "shmMB": 512,
            "portList": [{"label": "tb", "beginAt": 0, "portNumber": 1}],
            "command": f"python train.py --peers $PAI_TASK_ROLE_worker{(i + 1) % roles}_HOST_LIST --me $PAI_HOST_IP_worker{i}_1",
        } for i in range(roles)],
    }, indent=2) + "\n"


def fresh_check(tmp_path, text: str) -> list[tuple]:
    """(line, column, code, message) of each problem `pai check` finds in `text` (ASCII)."""
    job = tmp_path / "fresh.pai.json"
    job.write_text(text)
    out = []
    for line in pai_lang("check", str(job)).stdout.splitlines():
        m = re.match(rf"{re.escape(str(job))}:(\d+):(\d+): \w+ (\S+) (.*)", line)
        assert m, line
        out.append((int(m.group(1)) - 1, int(m.group(2)) - 1, m.group(3), m.group(4)))
    return sorted(out)


def seen(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    return sorted((d.range.start.line, d.range.start.character, d.code, d.message) for d in diagnostics)


def replace(editor: Editor, old: str, new: str, nth: int = 0) -> types.TextEdit:
    start = -1
    for _ in range(nth + 1):
        start = editor.text.index(old, start + 1)
    offset = start
    line = editor.text.count("\n", 0, offset)
    col = offset - (editor.text.rfind("\n", 0, offset) + 1)
    end_line = editor.text.count("\n", 0, offset + len(old))
    end_col = offset + len(old) - (editor.text.rfind("\n", 0, offset + len(old)) + 1)
    return types.TextEdit(types.Range(types.Position(line, col), types.Position(end_line, end_col)), new)


async def test_edits_in_a_large_config_give_what_a_fresh_check_gives(client, tmp_path):
    editor = Editor(client, tmp_path / "big.pai.json")
    assert seen(await editor.open(config())) == []
    role7 = editor.text.index('    {\n      "name": "worker7",')
    role7 = editor.text[role7 : editor.text.index("    },\n", role7) + len("    },\n")]
    steps = [
        # Inside one role: its own problem appears.
        ('"shmMB": 512', '"shmMB": 9000', 150),
        # A role renamed: another role's command now names a role that is gone.
        ('"name": "worker151"', '"name": "worker151x"', 0),
        # Text inserted above every role moves them all.
        ('"image": "img",', '"image": "img",\n  "retryCount": 1,', 0),
        # A syntax error, then its repair (the whole document is read again, twice).
        ('"taskNumber": 2,', '"taskNumber": 2', 40),
        ('"taskNumber": 2\n', '"taskNumber": 2,\n', 0),
        # A whole role removed: the roles after it change index, and worker6 names a role that is gone.
        (role7, "", 0),
        ('"worker151x"', '"worker151"', 0),
        ('"name": "worker8",', '"name": "worker8", "bogus": 1,', 0),
    ]
    for old, new, nth in steps:
        after = await editor.edit([replace(editor, old, new, nth)])
        assert seen(after) == fresh_check(tmp_path, editor.text), (old, new)
    assert {d.code for d in after} == {"schema.unknown-key", "semantic.shm-exceeds-memory", "semantic.undefined-role"}


async def test_pai_variable_completion_in_a_large_config_is_short_and_starts_with_the_roles_own(client, tmp_path):
    editor = Editor(client, tmp_path / "big.pai.json")
    text = config().replace("--me $PAI_HOST_IP_worker200_1", "--me $PAI_")
    await editor.open(text)
    where = editor.position('--me $PAI_"', len("--me $PAI_"))
    result = await client.text_document_completion_async(types.CompletionParams(editor.doc(), where))
    labels = [item.label for item in result.items]
    assert result.is_incomplete and 40 < len(labels) <= 100
    assert "PAI_JOB_NAME" in labels and "PAI_HOST_IP_worker200_1" in labels
    assert not any("worker299" in label for label in labels)  # other roles come after the role's own
    # Typing on narrows the list to what starts with the text typed, from any role.
    await editor.edit([replace(editor, '--me $PAI_"', '--me $PAI_HOST_IP_worker29"')])
    where = editor.position('$PAI_HOST_IP_worker29"', len("$PAI_HOST_IP_worker29"))
    result = await client.text_document_completion_async(types.CompletionParams(editor.doc(), where))
    labels = {item.label for item in result.items}
    assert labels == {f"PAI_HOST_IP_worker{n}_{i}" for n in [29, *range(290, 300)] for i in (0, 1)}
    item = next(i for i in result.items if i.label == "PAI_HOST_IP_worker295_1")
    assert item.text_edit.new_text == "$PAI_HOST_IP_worker295_1"
    assert "task 1 of role worker295" in item.detail
