"""Property-based tests of the v2 format (`*.pai.yaml`): random edits of real v2 jobs never break the
core or the server, always get diagnostics, and a file checked after many small edits (the roles'
findings kept on their nodes) gets the findings a fresh parse gets."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from pai_lsp.core.formats import format_for
from pai_lsp.core.job_format import RenameError
from pai_lsp.core.model import Settings

from .helpers.configs import V2_JOB
from .helpers.lsp import Editor
from .helpers.paths import SHARED

V2 = format_for("job.pai.yaml")
TEXTS = [V2_JOB] + [p.read_text(encoding="utf-8") for p in sorted((SHARED / "corpus").glob("openpai-examples/v2/*.yaml"))]
YAMLISH = st.text(alphabet="\n -:#'\"{}[],|>&*!%<$.PAI_worker0123 \t", max_size=12)


@st.composite
def mutated(draw, texts: list[str] = TEXTS) -> str:
    """A v2 job after a few random deletions and insertions, maybe truncated."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(0, 4))):
        a = draw(st.integers(0, len(text)))
        b = draw(st.integers(a, min(len(text), a + 30)))
        text = text[:a] + draw(YAMLISH) + text[b:]
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


def _within(text: str, start: int, end: int) -> bool:
    return 0 <= start <= end <= len(text)


@pytest.mark.slow  # a search over many edits: the full suite runs it, `-m unit` stays quick
@settings(deadline=None)
@given(mutated(), st.data())
def test_the_core_survives_any_edit(text, data):
    doc = V2.parse(text)
    settings_ = Settings(locale=data.draw(st.sampled_from(["en", "zh-CN"])))
    found = V2.diagnose(doc, settings_)
    for d in found:
        assert _within(text, d.start, d.end) and d.message
        for fix in d.fixes:  # a fix's edits are ranges of this text, and the result can be read again
            assert all(_within(text, e.start, e.end) for e in fix.edits)
            fixed = text
            for edit in sorted(fix.edits, key=lambda e: e.start, reverse=True):
                fixed = fixed[:edit.start] + edit.text + fixed[edit.end:]
            V2.diagnose(V2.parse(fixed), settings_)
    offset = data.draw(st.integers(0, len(text)))
    for item in V2.complete(doc, offset, settings_):
        assert _within(text, item.start, item.end)
    hover = V2.hover(doc, offset, settings_)
    assert hover is None or _within(text, hover.start, hover.end)
    for start, end in V2.definition(doc, offset) + V2.references(doc, offset):
        assert _within(text, start, end)
    if V2.prepare_rename(doc, offset) is not None:
        try:
            edits = V2.rename(doc, offset, "renamed_1")
        except RenameError:
            edits = []
        assert all(_within(text, e.start, e.end) for e in edits)
    V2.symbols(doc)
    V2.folding_ranges(doc)


def _big() -> str:
    head, roles = V2_JOB.split("taskRoles:\n")
    role, rest = roles.split("defaults:")
    body = "".join(role.replace("  worker:", f"  worker{i}:").replace("worker_", f"worker{i}_") for i in range(120))
    return head + "taskRoles:\n" + body + "defaults:" + rest


BIG = _big()  # over 1,000 lines: read in pieces, an edit reuses the others (and the findings kept on them)


@pytest.mark.slow  # a search over many edits: the full suite runs it, `-m unit` stays quick
@settings(deadline=None, max_examples=60)
@given(st.lists(st.tuples(st.integers(0, len(BIG)), st.integers(0, 30), YAMLISH), min_size=1, max_size=6))
def test_findings_after_edits_are_those_of_a_fresh_parse(edits):
    text = BIG
    doc = V2.parse(text)
    V2.diagnose(doc, Settings())
    for at, length, new in edits:
        at = min(at, len(text))
        end = min(len(text), at + length)
        text = text[:at] + new + text[end:]
        doc = doc.edit(at, end, new, text)
        kept = V2.diagnose(doc, Settings())
    fresh = V2.diagnose(V2.parse(text), Settings())
    assert [(d.start, d.end, d.code, d.message) for d in kept] == [(d.start, d.end, d.code, d.message) for d in fresh]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutated())
async def test_the_server_answers_every_edit(client, tmp_path, text):
    """One long editing session of a v2 file: whatever is typed, every change gets a diagnostics answer."""
    editor = test_the_server_answers_every_edit.editors.get(id(client))
    if editor is None:
        editor = Editor(client, tmp_path / "fuzz.pai.yaml")
        test_the_server_answers_every_edit.editors[id(client)] = editor
        await editor.open(TEXTS[0])
    diagnostics = await editor.replace_all(text)
    assert all(d.range.start.line <= d.range.end.line for d in diagnostics)
    end = types.Position(text.count("\n"), len(text) - (text.rfind("\n") + 1))
    await client.text_document_completion_async(types.CompletionParams(editor.doc(), end))
    await client.text_document_hover_async(types.HoverParams(editor.doc(), types.Position(0, 1)))
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(editor.doc()))


test_the_server_answers_every_edit.editors = {}
