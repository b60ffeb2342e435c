"""Property-based tests: random edits and truncations of configs never break the core or the server."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from pai_lsp.core.formats import FORMATS
from pai_lsp.core.jsonc import parse
from pai_lsp.core.model import LineIndex, Settings
from pai_lsp.core.schema_completion import complete
from pai_lsp.core.schema_outline import format_text, symbols
from pai_lsp.core.validate import diagnose

from .helpers.lsp import Editor
from .helpers.paths import config_texts

# Our own configs, and the real ones of ../shared when it is there.
TEXTS = config_texts()
JSONISH = st.text(alphabet='{}[]:,"\\ \n\t/*aPI_$019.-~eE', max_size=12)


@st.composite
def mutated(draw) -> str:
    """A corpus config after a few random deletions, insertions and maybe a truncation."""
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(0, 4))):
        a = draw(st.integers(0, len(text)))
        b = draw(st.integers(a, min(len(text), a + 40)))
        text = text[:a] + draw(JSONISH) + text[b:]
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


@pytest.mark.slow  # a search over many edits: the full suite runs it, `-m unit` stays quick
@settings(deadline=None)
@given(mutated(), st.data())
def test_the_core_survives_any_edit(text, data):
    offset = data.draw(st.integers(0, len(text)))
    for job_format in FORMATS:  # whatever the file, read in any format
        doc = job_format.parse(text)
        for dialect in ("openpai", "scm"):
            for d in job_format.diagnose(doc, Settings(dialect=dialect, locale=data.draw(st.sampled_from(["en", "zh-CN"])))):
                assert 0 <= d.start <= d.end <= len(text)
                assert d.message
        for item in job_format.complete(doc, offset, Settings()):
            assert 0 <= item.start <= item.end <= len(text)
        found = job_format.hover(doc, offset, Settings())
        assert found is None or 0 <= found.start <= found.end <= len(text)
        job_format.symbols(doc)
        job_format.folding_ranges(doc)
    LineIndex(text).position(offset)


@settings(deadline=None)
@given(mutated())
def test_lazy_and_eager_parses_agree(text):
    lazy, eager = parse(text, lazy=True), parse(text, lazy=False)
    assert (lazy.root.value if lazy.root else None) == (eager.root.value if eager.root else None)
    assert [(e.code, e.start) for e in lazy.errors] == [(e.code, e.start) for e in eager.errors]


def _shape(node) -> tuple:
    """Everything a reader of the tree sees of `node` and below (a lazy container expanded)."""
    scalar = node.value if node.type not in ("object", "array", "property") else None
    return (node.type, node.start, node.end, node.colon, scalar, tuple(_shape(child) for child in node.children))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet='ab "\\/\n\t\u00e9\u4e2d\U0001f600', max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet='k "\\\u00e9', max_size=4), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.slow  # a search over many generated values: the full suite runs it, `-m unit` stays quick
@settings(deadline=None)
@given(JSON_VALUES, st.sampled_from([None, 0, 2]), st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", " :\r\n ")]),
       st.booleans())
def test_a_lazy_container_expands_into_the_tree_an_eager_parse_builds(value, indent, separators, ascii_only):
    """A strict container read by the C scanner and expanded on demand has the very nodes (types,
    offsets, colons, values) the tolerant reader builds, however the JSON is spaced and escaped."""
    import json

    text = json.dumps({"a": {"b": [value, {"c": value}]}}, indent=indent, separators=separators, ensure_ascii=ascii_only)
    assert _shape(parse(text, lazy=True).root) == _shape(parse(text, lazy=False).root)


@settings(deadline=None)
@given(mutated())
def test_lazy_and_eager_trees_agree(text):
    lazy, eager = parse(text, lazy=True), parse(text, lazy=False)
    assert (_shape(lazy.root) if lazy.root else None) == (_shape(eager.root) if eager.root else None)


ROLE_MEMBERS = st.dictionaries(st.sampled_from(["name", "taskNumber", "portList", "command", "x"]), JSON_VALUES | st.lists(
    st.dictionaries(st.sampled_from(["label", "beginAt", "y"]), JSON_VALUES, max_size=3) | JSON_VALUES, max_size=3), max_size=5)


@pytest.mark.slow  # a search over many generated values: the full suite runs it, `-m unit` stays quick
@settings(deadline=None)
@given(st.lists(ROLE_MEMBERS | JSON_VALUES, max_size=3), st.sampled_from([None, 0, 2]),
       st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", " :\r\n ")]), st.booleans())
def test_the_outline_read_from_a_roles_text_is_the_one_its_nodes_give(roles, indent, separators, ascii_only):
    """The outline reads a strict-JSON role's name and ports from its text (no node built): the
    symbols are those an eager parse's nodes give, however the JSON is spaced and escaped."""
    import json

    text = json.dumps({"jobName": "j", "taskRoles": roles}, indent=indent, separators=separators, ensure_ascii=ascii_only)
    assert symbols(parse(text, lazy=True)) == symbols(parse(text, lazy=False))


@settings(deadline=None)
@given(mutated())
def test_the_outline_of_a_lazy_parse_is_the_eager_parses(text):
    assert symbols(parse(text, lazy=True)) == symbols(parse(text, lazy=False))


@settings(deadline=None)
@given(mutated())
def test_formatting_keeps_the_value_and_is_stable(text):
    doc = parse(text)
    formatted = format_text(doc)
    if formatted is None:
        return
    again = parse(formatted)
    assert again.root.value == doc.root.value
    assert [text[a:b] for a, b in doc.comments] == [formatted[a:b] for a, b in again.comments]
    assert format_text(again) == formatted


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutated())
async def test_the_server_answers_every_edit(client, tmp_path, text):
    """One long editing session: whatever is typed, every change gets a diagnostics answer."""
    editor = test_the_server_answers_every_edit.editors.get(id(client))
    if editor is None:
        editor = Editor(client, tmp_path / "fuzz.pai.json")
        test_the_server_answers_every_edit.editors[id(client)] = editor
        await editor.open(TEXTS[0])
    diagnostics = await editor.replace_all(text)
    assert all(d.range.start.line <= d.range.end.line for d in diagnostics)
    end = types.Position(text.count("\n"), len(text) - (text.rfind("\n") + 1))
    await client.text_document_completion_async(types.CompletionParams(editor.doc(), end))
    await client.text_document_hover_async(types.HoverParams(editor.doc(), types.Position(0, 1)))


test_the_server_answers_every_edit.editors = {}


@pytest.mark.parametrize(("text", "wrong"), [
    ('{"taskRoles": [{"name": [1]}, {"name": [1]}]}', ["[1]", "[1]"]),
    ('{"taskRoles": 1}', ["1"]),  # found by the property test: `"taskRoles"1: [` leaves taskRoles = 1
    ('{"taskRoles": [{"name": "w", "portList": 3}]}', ["3"]),
    ('{"jobEnvs": []}', ["[]"]),
])
def test_wrong_container_types_are_type_errors_and_do_not_break_the_checks(text, wrong):
    found = diagnose(parse(text), Settings())
    assert [text[d.start:d.end] for d in found if d.code == "schema.type"] == wrong  # each wrong value, once
    assert isinstance(complete(parse(text), len(text) - 1), list)  # completion still answers inside it


ROLE_VALUES = st.none() | st.booleans() | st.integers(-3, 2**60) | st.floats(allow_nan=False) | st.text(max_size=6) \
    | st.lists(st.integers(0, 3) | st.text(max_size=3), max_size=3) \
    | st.dictionaries(st.sampled_from(["label", "beginAt", "portNumber", "cpu", "memoryMB", "gpu", "x"]), st.integers(-1, 3), max_size=3)


@pytest.mark.slow  # a search over many generated values: the full suite runs it, `-m unit` stays quick
@settings(deadline=None)
@given(st.data())
def test_a_roles_schema_errors_are_jsonschemas_own(data):
    """The role validators answer the usual shape of a role (every key known, the required ones
    there) without jsonschema's walk over the role's own keywords: the errors are the same as its."""
    from pai_lsp.core import validate
    from pai_lsp.core.v2 import schema_check

    roles = [validate._validators(dialect)[1] for dialect in ("openpai", "scm")] + [schema_check._validators()[1]]
    role_validator = data.draw(st.sampled_from(roles))
    known = sorted(role_validator.validator.schema["properties"]) + ["unknown"]
    role = data.draw(st.dictionaries(st.sampled_from(known), ROLE_VALUES, max_size=8))
    if data.draw(st.booleans()):
        role.update({key: "x" for key in role_validator.validator.schema.get("required", ())})
    if data.draw(st.booleans()):
        role = data.draw(ROLE_VALUES)
    assert validate._reduce(role_validator.iter_errors(role)) == validate._reduce(role_validator.validator.iter_errors(role))


TOP_VALUES = ROLE_VALUES | st.dictionaries(st.text(alphabet="aZ_ 1.é", max_size=3), st.booleans() | st.text(max_size=2), max_size=3)


@pytest.mark.slow  # a search over many generated values: the full suite runs it, `-m unit` stays quick
@settings(deadline=None)
@given(st.data())
def test_a_v1_value_is_cleared_without_jsonschema_exactly_when_jsonschema_finds_no_error(data):
    """A v1 config's top level and task roles are checked by `schema_proof` first; it clears a value
    (and jsonschema is then never loaded) only where jsonschema finds nothing, and for the v1
    schemas it leaves nothing valid to jsonschema either."""
    from pai_lsp.core import validate

    dialect = data.draw(st.sampled_from(("openpai", "scm")))
    which = data.draw(st.sampled_from((0, 1)))  # the top level, a task role
    proof, validator = validate._proofs(dialect)[which], validate._validators(dialect)[which]
    validator = getattr(validator, "validator", validator)
    schema = validator.schema
    values = TOP_VALUES if which == 0 else ROLE_VALUES
    if which == 1 and data.draw(st.booleans()):
        values = values | st.lists(st.dictionaries(st.sampled_from(["label", "beginAt", "portNumber", "x"]), ROLE_VALUES, max_size=3),
                                   max_size=2)
    value = data.draw(st.dictionaries(st.sampled_from(sorted(schema["properties"]) + ["unknown"]), values, max_size=8))
    if data.draw(st.booleans()):
        value.update({key: "x" for key in schema.get("required", ())})
    if data.draw(st.booleans()):
        value = data.draw(ROLE_VALUES)
    assert proof is not None
    assert proof(value) == (not list(validator.iter_errors(value))), value
