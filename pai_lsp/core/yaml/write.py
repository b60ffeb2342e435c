"""Writing YAML into a job file for quick fixes: values as text js-yaml 3 reads back as the same value,
and edits that add, remove or move members and items where the user's layout has them.

Edits are computed on the text with the node ranges of `yaml.tree`, so everything the fix does not
touch (comments, key order, quoting, blank lines) stays as the user wrote it; ruamel.yaml's
round trip would re-indent and re-quote whatever it re-emits.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ..jsonc import Node
from ..model import Edit
from .scalars import resolve_plain

# A plain scalar may not start with an indicator, hold ": " or " #", end with ":", or (as we may write
# it inside a flow collection) hold a flow indicator.
_UNSAFE_PLAIN = re.compile(r"""^[-?:,\[\]{}#&*!|>'"%@`\s]|: |:$| #|[,\[\]{}]|[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|\s$""")
_ESCAPE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff]")


def literal(value: Any) -> str:
    """`value` as YAML text on one line (flow style), read back by js-yaml as the same value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, str):
        return value if is_plain(value) else _quoted(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(str(k))}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return _quoted(str(value))


def is_plain(text: str) -> bool:
    """Whether `text` can be written unquoted and still read as this very string."""
    if not text or _UNSAFE_PLAIN.search(text):
        return False
    return resolve_plain(text) == ("string", text)


def _quoted(text: str) -> str:
    return _ESCAPE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))


def value_text(value: Any, indent: int) -> str:
    """What follows `key:` for `value`: " scalar" on the same line, or a non-empty mapping or list
    as block lines indented by `indent` spaces (on the lines below)."""
    if isinstance(value, dict) and value:
        return "".join(f"\n{' ' * indent}{literal(str(k))}:{value_text(v, indent + 2)}" for k, v in value.items())
    if isinstance(value, (list, tuple)) and value:
        return "".join(f"\n{' ' * indent}-{_item_text(v, indent + 2)}" for v in value)
    return " " + literal(value)


def _item_text(value: Any, indent: int) -> str:
    """What follows `-` for a list item: a mapping's first pair on the dash's line, the rest below."""
    if isinstance(value, dict) and value:
        return " " + value_text(value, indent)[1 + indent:]
    return value_text(value, indent)


def column(text: str, offset: int) -> int:
    return offset - (text.rfind("\n", 0, offset) + 1)


def line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def line_end(text: str, offset: int) -> int:
    """Offset just past the line break of the line holding `offset` (or the end of the text)."""
    end = text.find("\n", offset)
    return len(text) if end < 0 else end + 1


def is_flow(text: str, node: Node) -> bool:
    return text.startswith(("{", "["), node.start)


def in_flow(text: str, node: Node) -> bool:
    """Whether `node` is inside a flow collection (`{…}`, `[…]`), where only flow style may be written."""
    current = node.parent
    while current is not None:
        if current.type in ("object", "array") and is_flow(text, current):
            return True
        current = current.parent
    return False


def value_after_key(text: str, prop: Node, value: Any) -> Edit:
    """Replace the value of the pair `prop` (after its ':') with `value`: block lines below the key
    where the layout allows, flow style inside a flow collection."""
    colon = prop.colon if prop.colon >= 0 else prop.key.end
    end = prop.value_node.end if prop.value_node is not None else colon + 1
    if in_flow(text, prop):
        return Edit(colon + 1, end, " " + literal(value))
    return Edit(colon + 1, end, value_text(value, column(text, prop.start) + 2))


def insert_member(text: str, mapping: Node, key: str, value: Any) -> Edit:
    """`key: value` as the first member of `mapping`, laid out as the member already there is."""
    pair = f"{literal(key)}:"
    first = next(iter(mapping.children), None)
    if is_flow(text, mapping):
        if first is None:
            return Edit(mapping.start + 1, mapping.start + 1, f"{pair} {literal(value)}")
        return Edit(first.start, first.start, f"{pair} {literal(value)}, ")
    if first is None:  # an empty block mapping has no text of its own
        return Edit(mapping.start, mapping.start, f"{pair} {literal(value)}")
    at = column(text, first.start)
    return Edit(first.start, first.start, f"{pair}{value_text(value, at + 2)}\n{' ' * at}")


def append_member(text: str, mapping: Node, key: str, value: Any) -> Edit:
    """`key: value` as the last member of a block (or flow) mapping."""
    last = mapping.children[-1] if mapping.children else None
    if last is None or is_flow(text, mapping):
        return insert_member(text, mapping, key, value)
    at = column(text, mapping.children[0].start)
    end = _content_end(text, last)
    return Edit(end, end, f"\n{' ' * at}{literal(key)}:{value_text(value, at + 2)}")


def set_member(text: str, mapping: Node, key: str, value: Any) -> Edit:
    """`key` of `mapping` set to `value` (a scalar): its value replaced, or the pair added last."""
    prop = mapping.get_property(key) if mapping.type == "object" else None
    if prop is not None and prop.value_node is not None and prop.value_node.type not in ("object", "array"):
        node = prop.value_node
        if node.start == node.end:  # `key:` with nothing after it
            return Edit(node.start, node.end, " " + literal(value))
        return Edit(node.start, node.end, literal(value))
    return append_member(text, mapping, key, value)


def append_item(text: str, sequence: Node, value: Any) -> Edit:
    """`value` as the last item of a sequence, laid out as the items already there are."""
    items = sequence.children
    if is_flow(text, sequence):
        if not items:
            return Edit(sequence.start + 1, sequence.start + 1, literal(value))
        return Edit(items[-1].end, items[-1].end, f", {literal(value)}")
    at = column(text, sequence.start)  # the column of its `-`
    end = _content_end(text, items[-1]) if items else sequence.end
    return Edit(end, end, f"\n{' ' * at}-{_item_text(value, at + 2)}")


def remove_member(text: str, prop: Node) -> Edit:
    """Remove the pair `prop` from its mapping: its lines (a block mapping), or its text and comma."""
    mapping = prop.parent
    siblings = mapping.children if mapping is not None else [prop]
    index = next(i for i, p in enumerate(siblings) if p is prop)
    after = siblings[index + 1] if index + 1 < len(siblings) else None
    if mapping is not None and is_flow(text, mapping):
        if after is not None:
            return Edit(prop.start, after.start, "")
        before = siblings[index - 1] if index else None
        return Edit(before.end if before is not None else prop.start, prop.end, "")
    start = line_start(text, prop.start)
    if text[start:prop.start].strip():  # `- key: …`: the next pair moves up onto the dash's line
        return Edit(prop.start, after.start if after is not None else _content_end(text, prop), "")
    return Edit(start, line_end(text, _content_end(text, prop)), "")


def _content_end(text: str, node: Node) -> int:
    """Where a node's own text ends (a block scalar's range may run over the blank lines after it)."""
    end = node.end
    while end > node.start and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def block_of(text: str, node: Node) -> tuple[int, int]:
    """The lines a pair or item occupies: from its line's start to just past its last line break."""
    return line_start(text, node.start), line_end(text, _content_end(text, node))
