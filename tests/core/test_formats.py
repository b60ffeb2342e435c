"""The registry of job-file formats: which format a file is, what each format is made of, and the text
its documents write for quick fixes."""

from __future__ import annotations

import json

import pytest

from pai_lsp.core import formats, paddle, v1
from pai_lsp.core.job_format import JobFormat
from pai_lsp.core.jsonc import parse
from pai_lsp.core.model import Settings

from ..helpers.configs import PADDLE_JOB, V2_JOB, VALID


@pytest.mark.parametrize(("name", "expected"), [
    ("mnist.pai.json", "pai-v1"), ("/w/train/mnist.pai.json", "pai-v1"), ("file:///w/a%20b/mnist.pai.json", "pai-v1"),
    ("C:\\w\\mnist.pai.json", "pai-v1"), ("fit.paddle.json", "paddle"), ("file:///w/fit.paddle.json", "paddle"),
    ("package.json", None), ("x.pai.json.bak", None), (".vscode/settings.json", None), ("pai.json", None),
    ("job.pai.yaml", "pai-v2"), ("file:///w/job.pai.yml", "pai-v2"), ("job.yaml", None),
])
def test_a_file_is_recognised_by_its_name(name, expected):
    found = formats.recognise(name)
    assert (found.name if found else None) == expected
    assert formats.format_for(name) is (found or formats.DEFAULT)


def test_a_file_no_format_claims_is_read_as_the_default_one():
    assert formats.format_for("Untitled-1") is v1.FORMAT is formats.DEFAULT
    assert formats.recognise("notes.json", '{"jobName": "x"}') is None  # no format claims JSON by content


@pytest.mark.parametrize(("text", "claimed"), [
    ("protocolVersion: 2\nname: x\n", True), ("# a job\nprotocolVersion: '2'  # v2\r\n", True),
    ('name: x\nprotocolVersion: "2"\n', True), ("protocolVersion: 1\n", False), ("  protocolVersion: 2\n", False),
    ("a:\n  protocolVersion: 2\n", False), ("protocolVersion: 22\n", False),
])
def test_a_yaml_file_with_protocol_version_2_at_its_top_is_a_v2_job(text, claimed):
    found = formats.recognise("job.yaml", text)
    assert (found is not None and found.name == "pai-v2") is claimed


def test_every_format_is_complete_and_named_once():
    names = [f.name for f in formats.FORMATS]
    assert len(set(names)) == len(names) and formats.BY_NAME == {f.name: f for f in formats.FORMATS}
    patterns = formats.patterns()
    assert len(set(patterns)) == len(patterns) == sum(len(f.patterns) for f in formats.FORMATS)
    for f in formats.FORMATS:
        assert isinstance(f, JobFormat) and f.patterns and f.dialects and f.name_key and all(f.title)
        assert f.syntax in ("json", "yaml")
        for dialect in f.dialects:
            assert f.schema(dialect)["type"] == "object"
        assert f.matches(f.file_name("demo")) and f.file_name("demo").startswith("demo.")


def test_the_registry_says_of_each_format_what_the_format_says():
    """The registry recognises files and tells editors the formats without loading them: its lines
    must say what the formats themselves say."""
    assert [(e.name, e.title, e.patterns, e.syntax) for e in formats.REGISTRY] == \
        [(f.name, f.title, f.patterns, f.syntax) for f in formats.FORMATS]
    assert all(formats.named(e.name) is e.load() for e in formats.REGISTRY)
    with pytest.raises(KeyError):
        formats.named("no-such-format")


@pytest.mark.subprocess
@pytest.mark.parametrize(("name", "text", "own"), [("job.pai.json", VALID, "pai_lsp.core.v1"), ("job.pai.yaml", V2_JOB, "pai_lsp.core.v2")])
def test_a_file_loads_its_own_format_and_no_other(name, text, own):
    """Reading and checking a job file loads its own format only: a v1 config no YAML reader and
    neither other format; a v2 job not PyYAML (which only what is submitted needs) nor v1's."""
    import subprocess
    import sys

    code = ("import sys; from pai_lsp.core.formats import format_for; from pai_lsp.core.model import Settings; "
            f"f = format_for({name!r}); doc = f.parse(sys.stdin.read()); f.diagnose(doc, Settings()); f.symbols(doc); "
            "print(' '.join(m for m in ('pai_lsp.core.v1', 'pai_lsp.core.v2', 'pai_lsp.core.paddle', 'yaml') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, check=True).stdout
    assert out.split() == [own]


def test_each_format_checks_in_its_own_dialects():
    assert v1.FORMAT.dialect(Settings(dialect="scm")) == "scm"
    assert v1.FORMAT.dialect(Settings(dialect="paddle")) == "openpai"  # never another format's
    assert paddle.FORMAT.dialect(Settings(dialect="scm")) == paddle.DIALECT
    assert "storageGB" in json.dumps(v1.FORMAT.schema("scm")) and "storageGB" not in json.dumps(v1.FORMAT.schema("openpai"))
    assert set(paddle.FORMAT.schema(paddle.DIALECT)["properties"]) >= {"name", "parallelism", "entry"}


@pytest.mark.parametrize(("text", "name"), [(VALID, "job.pai.json"), (PADDLE_JOB, "fit.paddle.json"), (V2_JOB, "job.pai.yaml")])
def test_every_format_answers_every_feature_within_the_text(text, name):
    job_format = formats.format_for(name)
    doc = job_format.parse(text)
    assert doc.text == text and doc.root is not None and doc.root.type == "object"
    for d in job_format.diagnose(doc, Settings()):
        assert 0 <= d.start <= d.end <= len(text) and d.message
    for offset in range(0, len(text), 7):
        for item in job_format.complete(doc, offset, Settings()):
            assert 0 <= item.start <= item.end <= len(text)
        found = job_format.hover(doc, offset, Settings())
        assert found is None or 0 <= found.start <= found.end <= len(text)
    assert job_format.symbols(doc) and job_format.folding_ranges(doc)
    for offset in range(0, len(text), 11):
        for start, end in job_format.definition(doc, offset) + job_format.references(doc, offset):
            assert 0 <= start <= end <= len(text)
    formatted = job_format.format_text(doc, "  ")
    if job_format.syntax == "json":  # YAML is laid out by hand: not rewritten
        assert formatted is not None and job_format.parse(formatted).root.value == doc.root.value


def test_a_json_document_writes_json_for_fixes():
    doc = parse('{\n    "a": 1\n}')
    assert doc.literal("名字 \"x\"") == '"名字 \\"x\\""' and doc.literal([{"a": None}]) == '[{"a": null}]'
    assert doc.key_text("jobName") == '"jobName"'
    edit = doc.insert_member(doc.root, "b", True)
    assert (edit.start, edit.text) == (1, '\n    "b": true,')
    inline = parse('{"a": 1}')
    assert inline.insert_member(inline.root, "b", "x").text == '"b": "x", '
    empty = parse("{}")
    assert (empty.insert_member(empty.root, "b", 2).start, empty.insert_member(empty.root, "b", 2).text) == (1, '"b": 2')
