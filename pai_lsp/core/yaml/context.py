"""Where a cursor stands in a half-typed YAML job file, for completion: which mapping or sequence a
key, value or item typed at the cursor belongs to. In YAML that is a matter of indentation, which
the tree alone cannot tell on a blank or half-typed line (`    dock|` under `taskRoles.worker`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..jsonc import Node, find, node_at
from .tree import Document

# A line: its indentation, its `- ` item markers, the rest.
_LINE = re.compile(r"(?P<indent> *)(?P<dashes>(?:-(?: +|$))*)(?P<rest>.*)")
# `key:` at the start of the rest of a line (then a value, or nothing).
_KEY = re.compile(r"(?P<key>\"[^\"]*\"|'[^']*'|[^\s#:\-?,\[\]{}'\"][^:#]*?) *:(?= |$)(?P<value>.*)")


@dataclass(frozen=True, slots=True)
class Context:
    """`path`: the JSON path of the mapping or sequence the cursor types into. `kind`: "key" (a key of
    that mapping is being typed, or a new one would go there), "value" (the value of `key`, typed on
    its line), "item" (a new item of the sequence at `path`). `start`: where the word being typed
    starts (what a completion replaces)."""

    path: list[str | int]
    kind: str
    key: str | None
    start: int


def context_at(doc: Document, offset: int) -> Context:
    text = doc.text
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    m = _LINE.match(before)
    assert m is not None  # it matches any line
    indent, dashes, rest = len(m.group("indent")), m.group("dashes"), m.group("rest")
    column = indent + len(dashes)  # where this line's key starts (after any `- `)
    word = offset - len(re.search(r"[^\s:\[\]{},]*\Z", before).group())  # type: ignore[union-attr]
    key = _KEY.match(rest)
    if key is not None:  # `key: |`: the value of that key
        return Context(_holder_of_key(doc, line_start + column), "value", _unquote(key.group("key")), word)
    if dashes and not rest.strip():  # `- |`: a new item
        return Context(_above(doc, line_start, indent, item=True), "item", None, offset)
    return Context(_above(doc, line_start, column, item=False), "key", None, word)


def _above(doc: Document, line_start: int, column: int, item: bool) -> list[str | int]:
    """The path of what a line starting at `column` belongs to, read from the lines above: a sibling
    (a key, or with `item` a `- `, at the same column: its mapping or sequence), else the nearest
    less indented line (`key:`: its value; `- `: that item)."""
    text = doc.text
    pos = line_start
    while pos > 0:
        start = text.rfind("\n", 0, pos - 1) + 1
        m = _LINE.match(text, start, pos - 1)
        pos = start
        if m is None or not (m.group("dashes") or m.group("rest").strip()) or m.group("rest").startswith("#"):
            continue  # blank, or a comment
        indent, dashes = len(m.group("indent")), m.group("dashes")
        key_column = indent + len(dashes)
        key = _KEY.match(m.group("rest"))
        if item and dashes and indent == column:
            return _sequence_at(doc, start + indent)
        if not item and key is not None and key_column == column:
            return _holder_of_key(doc, start + key_column)
        if key is not None and key_column < column or item and key is not None and key_column <= column \
                and not key.group("value").strip():
            return _holder_of_key(doc, start + key_column) + [_unquote(key.group("key"))]
        if dashes and indent < column:
            sequence = _sequence_at(doc, start + indent)
            node = find(doc.root, sequence)
            return sequence + [max(len(node.children) - 1, 0) if node is not None and node.type == "array" else 0]
        if key_column < column:
            break
    return []


def _holder_of_key(doc: Document, offset: int) -> list[str | int]:
    """The path of the mapping whose key starts at `offset`."""
    node = node_at(doc.root, offset, include_end=False)
    while node is not None and node.type != "property":
        node = node.parent
    return node.parent.path() if node is not None and node.parent is not None else []


def _sequence_at(doc: Document, offset: int) -> list[str | int]:
    """The path of the sequence whose item marker `-` is at `offset`."""
    node: Node | None = node_at(doc.root, offset, include_end=False)
    while node is not None and node.type != "array":
        node = node.parent
    return node.path() if node is not None else []


def _unquote(key: str) -> str:
    return key[1:-1] if len(key) > 1 and key[0] == key[-1] and key[0] in "\"'" else key.strip()
