"""Mending what tree-sitter-yaml could not place, one mistake at a time.

tree-sitter wraps a mistake in an ERROR node, or inserts a MISSING token, and reads on; but at
the end of a file, or after a badly indented line, its recovery can swallow the whole document.
So the first mistake is named (one error, at its place) and mended in the bytes the parser sees
(the user's text is untouched): a ':' after a key being typed, the closing bracket or quote
tree-sitter found missing, or else the offending line blanked; then the text is parsed again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Report = Callable[..., None]  # report(code, start byte, end byte, **args)
Insert = Callable[[bytearray, int, bytes], bytearray]

_TAB_INDENT = re.compile(rb"^ *\t", re.M)


def repair(root: Any, data: bytearray, report: Report, insert: Insert) -> bytearray | None:
    """Report the first mistake in the tree and return the bytes with it mended, or None when
    nothing is left to mend."""
    node = first_error(root)
    if node is None:
        return None
    if node.is_missing:
        _missing(node, report)
        if node.type in ("]", "}", '"', "'"):
            return insert(data, node.start_byte, node.type.encode())
        return _blank_line(data, data.rfind(b"\n", 0, node.start_byte) + 1)
    colon = _lone_scalar(node, data)
    if colon is not None:
        report("syntax.missing-colon", colon, colon)
        return insert(data, colon, b":")
    line_start = _error_line(node, data)
    _classify(node, data, line_start, report)
    return _blank_line(data, line_start)


def first_error(node: Any) -> Any:
    """The first ERROR or MISSING node in document order, or None."""
    while True:
        if node.is_error or node.is_missing:
            return node
        for child in node.children:
            if child.has_error or child.is_missing:
                node = child
                break
        else:
            return None


def _missing(node: Any, report: Report) -> None:
    """tree-sitter inserted a token that is not there: a closing bracket or quote."""
    opener = {"]": "[", "}": "{", '"': '"', "'": "'"}.get(node.type)
    parent = node.parent
    open_at = parent.start_byte if parent is not None else node.start_byte
    if opener in ("[", "{"):
        report("syntax.unclosed-array" if opener == "[" else "syntax.unclosed-object", open_at, open_at + 1)
    elif opener is not None:
        report("syntax.yaml-unclosed-quote", open_at, open_at + 1, quote=opener)
    else:
        report("syntax.yaml-unexpected", node.start_byte, node.end_byte)


def _lone_scalar(node: Any, data: bytearray) -> int | None:
    """Where a ':' is missing in an ERROR node: after a plain scalar alone on its line (a key being
    typed), or after the first line of a plain scalar that starts its line and runs on into a
    `key:` line (`dock` typed above `instances: 2` reads as the multi-line key `dock instances`)."""
    for child in node.children:
        if child.type == "block_mapping_pair":
            child = child.child_by_field_name("value")
            if child is None:
                continue
        if child.type != "flow_node" or child.child_count != 1 or child.children[0].type != "plain_scalar":
            continue
        start, end = child.start_byte, child.end_byte
        line_start = data.rfind(b"\n", 0, start) + 1
        if data[line_start:start].strip(b" "):
            continue
        first_end = data.find(b"\n", start)
        first_end = len(data) if first_end < 0 else first_end
        if first_end >= end:  # one line: alone on it?
            if not data[end:first_end].strip(b" \r\t"):
                return end
        elif data[end:end + 1] == b":" or data[end:].lstrip(b" ")[:1] == b":":
            return len(data[:first_end].rstrip(b" \r\t"))
    return None


def _error_line(node: Any, data: bytearray) -> int:
    """The start of the line where the mistake inside ERROR `node` is: a line indented with a
    tab, else the line of its first stray token, or where it ends when it holds only well-formed
    entries (the next line did not fit)."""
    after = data.find(b"\n", node.end_byte + 1)
    tab = _TAB_INDENT.search(bytes(data), node.start_byte, len(data) if after < 0 else after)
    if tab is not None:
        return tab.start()
    for child in node.children:
        kind = child.type
        if kind in ("block_mapping_pair", "block_sequence_item", "comment") or child.is_missing:
            continue
        if kind == "flow_node" and child.next_sibling is not None and child.next_sibling.type == ":":
            continue  # a key whose value did not fit: the mistake is further on
        if kind == ":" and child.prev_sibling is not None and child.prev_sibling.type == "flow_node":
            continue
        return data.rfind(b"\n", 0, child.start_byte) + 1
    end = node.end_byte
    return data.rfind(b"\n", 0, end if end < len(data) else max(end - 1, 0)) + 1


def _classify(node: Any, data: bytearray, line_start: int, report: Report) -> None:
    """Name the mistake on the line starting at `line_start`."""
    line_end = data.find(b"\n", line_start)
    line_end = len(data) if line_end < 0 else line_end
    line = bytes(data[line_start:line_end])
    content = line.lstrip(b" ")
    first = line_start + len(line) - len(content)
    last = max(line_start + len(line.rstrip(b" \t\r")), first + 1)
    if content.startswith(b"\t"):
        report("syntax.yaml-tab", line_start, first + 1)
        return
    for child in node.children:
        if line_start <= child.start_byte < line_end and child.type in ('"', "'"):
            report("syntax.yaml-unclosed-quote", child.start_byte, child.end_byte, quote=child.type)
            return
        if line_start <= child.start_byte < line_end and child.type in ("[", "{"):
            report("syntax.unclosed-array" if child.type == "[" else "syntax.unclosed-object", child.start_byte, child.end_byte)
            return
    report("syntax.yaml-indentation" if _odd_indent(data, line_start, first) else "syntax.yaml-unexpected", first, last)


def _odd_indent(data: bytearray, line_start: int, first: int) -> bool:
    """Whether this line's indentation lines up with no line above it (a usual mistake)."""
    indent = first - line_start
    pos = line_start
    while pos > 0:
        prev_end = pos - 1
        prev_start = data.rfind(b"\n", 0, prev_end) + 1
        line = bytes(data[prev_start:prev_end])
        stripped = line.lstrip(b" ")
        if stripped and not stripped.startswith(b"#"):
            other = len(line) - len(stripped)
            if other == indent or (stripped.startswith(b"- ") and other + 2 == indent):
                return False
            if other < indent and not stripped.rstrip().endswith(b":"):
                return True
        pos = prev_start
    return indent > 0


def _blank_line(data: bytearray, line_start: int) -> bytearray | None:
    end = data.find(b"\n", line_start)
    end = len(data) if end < 0 else end
    if not data[line_start:end].strip():
        return None  # nothing left to blank: give up
    fixed = bytearray(data)
    fixed[line_start:end] = b" " * (end - line_start)
    return fixed
