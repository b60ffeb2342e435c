"""Inputs that once broke every feature of a document: each gets one diagnostic, the rest keeps working,
in the editor and in `pai check`."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .helpers.cli import pai_lang
from .helpers.lsp import Editor

pytestmark = pytest.mark.subprocess  # the language server and `pai check`

CONFIG = '{{"jobName": "{name}", "image": "i", "taskRoles": [{{"name": "w", "command": "c", "taskNumber": {tasks}}}], "jobEnvs": {{"x": {env}}}}}\n'

HOSTILE = {
    "nesting": ("[" * 10_000, "syntax.too-deep"),
    "nesting inside a role": (CONFIG.format(name="j", tasks="[" * 10_000 + "]" * 10_000, env=1), "syntax.too-deep"),
    "nesting in an object": (CONFIG.format(name="j", tasks=1, env='{"a": ' * 10_000), "syntax.too-deep"),
    "a number of 4,301 digits": (CONFIG.format(name="j", tasks="7" * 4_301, env=1), "syntax.number-too-long"),
    "a lone surrogate escape": (CONFIG.format(name="j\\ud800", tasks=1, env='"\\udfff x"'), "syntax.lone-surrogate"),
    # What an editor holds after typing half of a pair: the character itself, not an escape.
    "a lone surrogate": (CONFIG.format(name="j", tasks=1, env='"\ud800"'), "syntax.lone-surrogate"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
async def test_every_feature_keeps_working(client, tmp_path, name):
    text, code = HOSTILE[name]
    editor = Editor(client, tmp_path / "job.pai.json")
    diagnostics = await editor.open(text)
    assert code in [d.code for d in diagnostics]
    doc = editor.doc()
    end = types.Position(0, 40)
    await client.text_document_completion_async(types.CompletionParams(doc, end))
    await client.text_document_hover_async(types.HoverParams(doc, types.Position(0, 3)))
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc))
    await client.text_document_folding_range_async(types.FoldingRangeParams(doc))
    await client.text_document_formatting_async(types.DocumentFormattingParams(doc, types.FormattingOptions(2, True)))
    await client.text_document_code_lens_async(types.CodeLensParams(doc))
    await client.text_document_code_action_async(types.CodeActionParams(
        doc, types.Range(types.Position(0, 0), end), types.CodeActionContext(diagnostics=[])))
    # Editing on goes on being checked.
    after = await editor.replace_all(text.replace('"w"', '"w x"', 1) if '"w"' in text else "{}")
    assert after
    assert not [m for m in client.messages if "Error" in m.message]


@pytest.mark.parametrize("name", [n for n in HOSTILE if n != "a lone surrogate"])
def test_pai_check_prints_the_diagnostic(tmp_path, name):
    text, code = HOSTILE[name]
    job = tmp_path / "job.pai.json"
    job.write_text(text, encoding="utf-8")
    result = pai_lang("check", str(job))
    assert "Traceback" not in result.stderr and result.stderr == ""
    assert f" {code} " in result.stdout
    assert result.returncode == 1
