"""core/yaml/write.py: the YAML quick fixes write is read back as the value meant, by our reader and by
js-yaml 3.13.1 itself (tests/oracle), and edits keep the rest of the file (comments, order) as it was."""

from __future__ import annotations

import pytest

from pai_lsp.core.yaml import write as yaml_write
from pai_lsp.core.yaml.tree import parse

from ..helpers.yaml_oracle import as_js, js_yaml

VALUES = ["plain", "yes", "no", "true", "null", "~", "1", "012", "0x1F", "1_000", "1:30", ".inf", "2001-12-14", "", " lead",
          "trail ", "a: b", "a #b", "#c", "- x", "[x]", "{x}", "x, y", "é 名字", "tab\there", "new\nline", "q\"uote", "it's",
          "\u2028", "<% $secrets.pw %>", "%x", "@x", "`x", "!x", "&x", "*x", "|x", ">x", "?x", ":x", 0, -3, 1.5, 1e21,
          float("inf"), True, False, None, [], {}, ["a", 1, None], {"k": "v", "n": [1, {"x": "y"}]}]


def test_literals_read_back_as_the_value_meant():
    texts = [f"v: {yaml_write.literal(value)}\n" for value in VALUES]
    for value, text in zip(VALUES, texts, strict=True):
        doc = parse(text)
        assert doc.errors == [] and doc.root.value == {"v": value}, text
    for value, read in zip(VALUES, js_yaml(texts), strict=True):
        assert read == {"ok": True, "value": as_js({"v": value})}, value


def test_block_values_read_back_as_the_value_meant():
    value = {"name": "img", "uri": ["hdfs://x", "yes"], "auth": {"password": "<% $secrets.pw %>"}}
    text = "items:" + yaml_write.value_text([value, "two"], 2) + "\n"
    assert parse(text).root.value == {"items": [value, "two"]}
    assert js_yaml([text]) == [{"ok": True, "value": as_js({"items": [value, "two"]})}]


LAYOUT = """\
# top comment
a:
  b: 1  # b's
  c: [x]
l:
  - name: x
    t: y
f: {p: 1}
"""


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda doc: yaml_write.insert_member(LAYOUT, doc.root.get("a"), "k", {"x": 1}), "a:\n  k:\n    x: 1\n  b: 1  # b's\n"),
    (lambda doc: yaml_write.insert_member(LAYOUT, doc.root.get("l").children[0], "k", "v"), "  - k: v\n    name: x\n"),
    (lambda doc: yaml_write.insert_member(LAYOUT, doc.root.get("f"), "k", "a: b"), 'f: {k: "a: b", p: 1}'),
    (lambda doc: yaml_write.append_member(LAYOUT, doc.root.get("a"), "z", True), "  c: [x]\n  z: true\nl:"),
    (lambda doc: yaml_write.append_item(LAYOUT, doc.root.get("l"), {"name": "n"}), "    t: y\n  - name: n\nf:"),
    (lambda doc: yaml_write.remove_member(LAYOUT, doc.root.get("l").children[0].get_property("name")), "l:\n  - t: y\n"),
    (lambda doc: yaml_write.remove_member(LAYOUT, doc.root.get_property("l")), "  c: [x]\nf: {p: 1}"),
    (lambda doc: yaml_write.remove_member(LAYOUT, doc.root.get("f").get_property("p")), "f: {}"),
    (lambda doc: yaml_write.set_member(LAYOUT, doc.root.get("a"), "b", 2), "  b: 2  # b's\n"),
])
def test_edits_keep_the_layout_and_the_comments(edit, expected):
    doc = parse(LAYOUT)
    change = edit(doc)
    text = LAYOUT[:change.start] + change.text + LAYOUT[change.end:]
    assert expected in text and "# top comment\n" in text
    assert parse(text).errors == [], text
