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
from pai_lsp.core.v2.job import job_of

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


# -- the schema checked without jsonschema -------------------------------------------------------

def _schema_words() -> list[str]:
    """Every property name of the v2 schema, and the enum values it names: keys and values a
    generated job is made of, so that the drawn values reach deep into the schema."""
    from pai_lsp.core.v2 import facts

    words: set[str] = {"unknown", "worker", "ps"}
    stack: list = [facts.schema()]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            words.update(k for k in (item.get("properties") or {}) if isinstance(k, str))
            words.update(v for v in item.get("enum", []) if isinstance(v, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return sorted(words)


WORDS = _schema_words()
PLAIN = st.none() | st.booleans() | st.sampled_from([0, 0.0, 1, 1.0, -1, -2, 2, 8192, 2**53, 2**60, 1.5, float("inf"), -float("inf")]) \
    | st.integers(-3, 3) | st.floats() | st.sampled_from(WORDS) | st.text(max_size=4)
JSONISH = st.recursive(PLAIN, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(WORDS), inner, max_size=5),
                       max_leaves=25)


def _role_like(data: st.DataObject, schema: dict) -> object:
    value = data.draw(st.dictionaries(st.sampled_from(sorted(schema.get("properties", {})) + ["unknown"]), JSONISH, max_size=8))
    if data.draw(st.booleans()):
        value.update({key: data.draw(JSONISH) for key in schema.get("required", ())})
    return data.draw(JSONISH) if data.draw(st.integers(0, 9)) == 0 else value


@pytest.mark.slow  # a search over many generated values: the full suite runs it, `-m unit` stays quick
@settings(deadline=None, max_examples=400)
@given(st.data())
def test_a_v2_value_cleared_without_jsonschema_has_no_error_for_jsonschema(data):
    """The v2 top level and roles are checked by `schema_proof` first: a value it clears (and
    jsonschema is then never loaded) is one Ajv's reading of the schema finds no error in."""
    from pai_lsp.core.v2 import schema_check

    which = data.draw(st.sampled_from((0, 1)))  # the top level, a task role
    proof, validator = schema_check._proofs()[which], schema_check._validators()[which]
    validator = getattr(validator, "validator", validator)
    assert proof is not None
    value = _role_like(data, validator.schema)
    if proof(value):
        assert not list(validator.iter_errors(value)), value


@pytest.mark.slow
@settings(deadline=None, max_examples=200)
@given(mutated())
def test_a_mutated_jobs_parts_cleared_without_jsonschema_have_no_error(text):
    """Real jobs, edited at random: each top level and role the proofs clear has no error for jsonschema."""
    from pai_lsp.core.v2 import schema_check

    value = job_of(V2.parse(text)).value
    if not isinstance(value, dict):
        return
    (top_proof, role_proof), (top, role) = schema_check._proofs(), schema_check._validators()
    if top_proof(value):
        assert not list(top.iter_errors(value))
    for each in (value.get("taskRoles") or {}).values() if isinstance(value.get("taskRoles"), dict) else ():
        if role_proof(each):
            assert not list(role.validator.iter_errors(each)), each


def _warnings_of_the_schema() -> list[dict]:
    from pai_lsp.core.v2 import facts

    found, stack = [], [facts.schema()]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.extend(item.get("x-warnings", []))
            stack.extend(v for k, v in item.items() if k != "x-warnings")
        elif isinstance(item, list):
            stack.extend(item)
    return found


WARNINGS = _warnings_of_the_schema()


@pytest.mark.slow
@settings(deadline=None, max_examples=400)
@given(st.sampled_from(range(len(WARNINGS))), st.data())
def test_a_value_a_warnings_proof_clears_breaks_no_warning(index, data):
    """Each `x-warnings` schema as a proof: a value it clears is one jsonschema finds no error in."""
    from pai_lsp.core.v2 import schema_check

    warning = WARNINGS[index]
    proof = schema_check._fragment_proof(id(warning), warning)[1]
    if proof is None:
        return
    value = _role_like(data, warning["schema"]) if data.draw(st.booleans()) else data.draw(JSONISH)
    if proof(value):
        assert not list(schema_check._fragment_validator(id(warning), warning)[1].iter_errors(value)), (warning["schema"], value)


def test_the_roles_and_top_level_of_valid_jobs_are_cleared_without_jsonschema():
    """The proofs are not empty words: a real job's top level and roles, and most warnings' schemas
    against them, are cleared without jsonschema."""
    from pai_lsp.core.v2 import schema_check

    top_proof, role_proof = schema_check._proofs()
    value = job_of(V2.parse(V2_JOB)).value
    assert top_proof(value)
    assert all(role_proof(role) for role in value["taskRoles"].values())
    assert all(schema_check.quiet_role_proof()(role) for role in value["taskRoles"].values())
    warned = dict(value["taskRoles"]["worker"], completion={"minFailedInstances": 0})  # valid, but 0 means 1: a warning
    assert role_proof(warned) and not schema_check.quiet_role_proof()(warned)
    assert sum(schema_check._fragment_proof(id(w), w)[1] is not None for w in WARNINGS) >= len(WARNINGS) - 1


@pytest.mark.slow
@settings(deadline=None, max_examples=400)
@given(st.data())
def test_a_role_cleared_of_errors_and_warnings_at_once_has_neither(data):
    """The one-pass check of a role (its schema with the warnings' schemas where they stand): a role
    it clears has no schema error for jsonschema and breaks no `x-warnings` fragment."""
    from pai_lsp.core.v2 import facts, schema_check

    quiet, validator = schema_check.quiet_role_proof(), schema_check._validators()[1].validator
    assert quiet is not None
    value = _role_like(data, validator.schema)
    if data.draw(st.booleans()):  # a role of a real job, one part replaced by a drawn value
        value = dict(job_of(V2.parse(V2_JOB)).value["taskRoles"]["worker"])
        part = data.draw(st.sampled_from(sorted(value) + ["extraContainerOptions", "completion", "taskRetryCount"]))
        inner = value.get(part)
        value[part] = _role_like(data, {"properties": {k: {} for k in inner}}) if isinstance(inner, dict) and data.draw(st.booleans()) \
            else data.draw(JSONISH)
    if quiet(value):
        assert not list(validator.iter_errors(value)), value
        assert not schema_check._warnings(facts.schema()["$defs"]["taskRole"], value, ()), value


@pytest.mark.slow
@settings(deadline=None, max_examples=200)
@given(mutated())
def test_a_mutated_jobs_roles_cleared_at_once_have_no_error_and_no_warning(text):
    from pai_lsp.core.v2 import facts, schema_check

    value = job_of(V2.parse(text)).value
    roles = value.get("taskRoles") if isinstance(value, dict) else None
    for each in roles.values() if isinstance(roles, dict) else ():
        if schema_check.quiet_role_proof()(each):
            assert not list(schema_check._validators()[1].validator.iter_errors(each)), each
            assert not schema_check._warnings(facts.schema()["$defs"]["taskRole"], each, ()), each
