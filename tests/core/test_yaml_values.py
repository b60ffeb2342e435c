"""Values as the v2 server reads them: ours (pai_lsp/core/yaml/tree.py) against js-yaml 3.13.1 itself
(the server's reader, run by Node.js: tests/oracle/yaml.js) on every real v2 example and on a table
of tricky YAML; and against `jsyaml.load` (the local cluster's loader) wherever that one agrees
with js-yaml. An extra: skipped without ../shared or the oracle's packages, required in CI."""

from __future__ import annotations

import random

import pytest

from pai_lsp.core.yaml import jsyaml
from pai_lsp.core.yaml.tree import parse

from ..helpers.paths import shared
from ..helpers.yaml_oracle import as_js, js_yaml

SCALARS = [
    # YAML 1.1 words that js-yaml 3 (YAML 1.2 core) keeps as strings
    "yes", "no", "on", "off", "y", "n", "Yes", "ON",
    # null and booleans
    "~", "null", "Null", "NULL", "nULL", "true", "True", "TRUE", "tRue", "false", "FALSE",
    # numbers
    ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "0o17", "0x1F", "0x1f", "0x_1F", "-0x1F", "1_000", "1__0", "1_", "0_",
    "1e3", "1E3", "1e+3", "1.5e-3", "1e", "+12", "-12", "012", "019", "007", "00", "0", "-0", "0.0", "-0.0", "0.",
    "3.", "1.", "+.5", ".5", "-.5", "._5", "0b101", "0b", "0b_1", "1:30", "1:30:15", "-1:30", "1:60", "1:30.5",
    "12345678901234567890", "9007199254740993", "1e400",
    # timestamps
    "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "2001-12-14T21:59:43Z",
    "2001-12-14 21:59:43.1234567", "2001-1-1", "2001-01-01T00:00:00Z", "2002-02-30",
    # quoted forms and escapes
    "'yes'", '"yes"', "'1'", '"1"', '"\\x41\\u263A\\U0001F600"', '"\\t\\n\\\\\\"\\/\\ \\_\\N\\L\\P\\0\\a\\b\\e\\v\\f\\r"',
    "'it''s'", "'a ''b'' c'", '"multi\n  line"', "'multi\n\n  line'", '"a\\\n   b"', '"a  \n  b"', "'trail  \n  x'",
    # plain text that looks like something else
    "true ", "x y", "a#b", "a #b", "-a", "--", "a:b", "http://x:80/y", "<% $parameters.x %>", "$PAI_JOB_NAME",
    "plain\n  multi\n\n  line", "é ü 训练",
    # tags
    "!!str 1", "!!int '12'", "!!float 1", "!!bool true", "!!str", "!!timestamp 2001-12-14", "!!binary aGk=",
    # flow collections
    "[]", "{}", "[1, [2, 3]]", "{a: 1, b: [x, y]}", "[a: 1]", "{b, c: 1}", "[1, 2, ]", "{a: 1, }",
]

DOCUMENTS = [
    # block scalars with every chomping and indentation indicator
    "a: |\n  x\n  y\n", "a: |-\n  x\n\n", "a: |+\n  x\n\n", "a: >\n  x\n  y\n\n  z\n", "a: >-\n  x\n   more\n  y\n",
    "a: >+\n  x\n\n\nb: 1", "a: |2\n    x\n   y\n", "a: |1-\n  x\n", "- |\n  x\n- >\n  y\n  z\n",
    "a:\n  - b: |\n      x\n        y\n      z\n", "a: |\n\n  x\n", "a: >\n\n  x\n\n  y\n", "a: |  # c\n  x\n",
    "a: |\n  x\n  # not a comment\n", "a: >\n  x\n  \ty\n", "a: |-\n", "a: |\nb: 1\n", "a: >2-\n   x\n  y\n",
    "top: |\n  l1\n\n  l3",
    # anchors, aliases and merge keys
    "a: &x {k: 1}\nb: *x", "b: &x {k: 1}\nc:\n  <<: *x\n  k: 2", "c:\n  k: 0\n  <<: {k: 1}",
    "c: {<<: [{a: 1}, {a: 2, b: 2}], z: 0}", "<<: {a: 1}\na: 2", "a: 2\n<<: {a: 1}", "'<<': {a: 1}",
    "a: &x 1\nb: &x 2\nc: *x", "base: &b\n  cpu: 1\n  gpu: 0\nr:\n  <<: *b\n  gpu: 2",
    # keys as JavaScript makes them strings
    "? [a, b]\n: 1", "~: x", "true: 1", "1: a\n2: b", "1.5: x", ".inf: x", "0x1F: x", "? a\n? b\n",
    # documents and comments
    "---\na: 1\n...\n", "[1,2]", "a: 1 # c\n# d\nb: 2", "a: b\n  c\n\n  d", "a: 1\r\nb: 2\r\n", "\"ключ\": значение\n",
    "- a\n- b: c\n  d: e", "a:\n- x\n- y",
    # Windows line ends, a byte order mark, non-ASCII text
    "a: |\r\n  x\r\n  y\r\n", "a: >\r\n  x\r\n\r\n  y\r\n", "a: 'x\r\n  y'", 'a: "x\r\n  y"', "a: x\r\n  y\r\n",
    "\ufeffa: 1\n", "a: 1 # c\r\nb: [1,\r\n 2]\r\n", 'a: "\\u00e9"', "a: éè # x\nb: 1",
]

# Where the errors are js-yaml's too (the server refuses the file): only that both refuse is compared.
REFUSED = ["a: 1\na: 2", "1: a\n1.0: b", "a: 1\n---\nb: 2", "a: 1\n---\n", "a: [1, 2", "a: {x: 1", 'a: "abc\nb: 2',
           "a:\n  - b\n - c", "&a [*a]", "a: *nope", "a: {<<: 1}", "!!int 1.5", "!foo x", "a: b: c", "x: 1\n  y: 2",
           "a: >\n  x\n\ty\n", 'a: "\\x"', 'a: "\\q"']

# Where we knowingly differ from js-yaml 3.13.1 (each is an error for us; js-yaml reads something
# no one meant): a tab that indents (`\tb: 1` is read as a key of the outer mapping) and an anchor
# on an empty value (an alias to it is read as []).
KNOWN = ["a:\n\tb: 1", "a: &anc\nb: *anc"]

# Where the local cluster's PyYAML-based `jsyaml.load` is not js-yaml (reported to its owners): it drops
# the spaces before a line break in a quoted scalar and the last line break of a block scalar at the
# end of a file that has none, and refuses what js-yaml reads after a tab or in some flow collections.
JSYAML_DIFFERS = {'v: "a  \n  b"', "v: 'trail  \n  x'", "top: |\n  l1\n\n  l3", "v: !!binary aGk="}


def cases() -> list[str]:
    return [f"v: {s}" for s in SCALARS] + DOCUMENTS


def ours(text: str):
    doc = parse(text)
    errors = [e.code for e in doc.errors if e.code != "syntax.yaml-empty"]
    return errors, as_js(doc.root.value) if doc.root is not None else None


def test_values_are_js_yamls_on_tricky_yaml():
    texts = cases()
    for text, theirs in zip(texts, js_yaml(texts), strict=True):
        errors, value = ours(text)
        assert theirs["ok"], (text, theirs)
        assert errors == [] and value == theirs["value"], text


def test_what_js_yaml_refuses_is_an_error():
    for text, theirs in zip(REFUSED, js_yaml(REFUSED), strict=True):
        errors, _ = ours(text)
        assert not theirs["ok"] and errors, (text, theirs, errors)


def test_the_known_differences_are_still_errors_here():
    for text, theirs in zip(KNOWN, js_yaml(KNOWN), strict=True):
        errors, _ = ours(text)
        assert theirs["ok"] and errors, text


def test_values_are_js_yamls_on_every_corpus_file():
    files = sorted(shared("corpus", "openpai-examples", "v2").glob("*.yaml"))
    assert len(files) >= 30
    texts = [f.read_text(encoding="utf-8") for f in files]
    for path, text, theirs in zip(files, texts, js_yaml(texts), strict=True):
        errors, value = ours(text)
        assert theirs["ok"] and errors == [] and value == theirs["value"], path.name
        assert value == as_js(jsyaml.load(text)), path.name


@pytest.mark.parametrize("text", [t for t in cases() if t not in JSYAML_DIFFERS])
def test_values_are_the_local_clusters_where_it_reads_as_js_yaml(text):
    try:
        expected = as_js(jsyaml.load(text))
    except Exception:  # noqa: BLE001 - a refusal of PyYAML's own (tabs, some flow forms): not compared
        pytest.skip("jsyaml refuses it")
    assert ours(text)[1] == expected


def test_number_like_scalars_resolve_as_js_yaml_resolves_them():
    """Random plain scalars made of what numbers, dates and booleans are made of, against js-yaml."""
    rng = random.Random(2013)
    alphabet = "0123456789_.:+-eExXbBoO"
    texts = [f"v: {rng.choice(['', '-', '+', '.', '0'])}{''.join(rng.choice(alphabet) for _ in range(rng.randint(1, 7)))}"
             for _ in range(600)]
    texts += [f"v: {rng.randint(1990, 2030)}-{rng.randint(0, 13):02d}-{rng.randint(0, 33):02d}"
              + rng.choice(["", "T10:11:12Z", " 1:02:03.5 +8", "t23:59:60.123456-05:30"]) for _ in range(100)]
    for text, theirs in zip(texts, js_yaml(texts), strict=True):
        errors, value = ours(text)
        if theirs["ok"]:
            assert errors == [] and value == theirs["value"], (text, theirs)
        else:
            assert errors, (text, theirs)
