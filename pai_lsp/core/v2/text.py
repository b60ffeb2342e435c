"""Where a character of a YAML string's value is in the text. A plain one-line scalar is its own text;
quoted, folded and block scalars are not (quotes, escapes, indentation, line folding), so the value is
aligned with its source: equal characters match, a run of white space in the value matches a run of
white space (a folded line break, indentation) in the source, and anything else in the source (a
quote, an escape's backslash) is skipped."""

from __future__ import annotations

import bisect

from ..jsonc import Node


def offsets(text: str, node: Node) -> list[int]:
    """For each index of the string `node`'s value, its offset in `text`; and one more entry, where
    the value ends."""
    value = node.value if isinstance(node.value, str) else ""
    start, end = node.start, node.end
    raw = text[start:end]
    if raw == value:
        return list(range(start, end + 1))
    out = []
    j = 0
    if raw[:1] in ("'", '"'):
        j = 1
    elif raw[:1] in ("|", ">"):  # a block scalar: its value starts on the line after the header
        j = raw.find("\n") + 1 if "\n" in raw else len(raw)
        while j < len(raw) and raw[j] == " ":
            j += 1
    i = 0
    n = len(value)
    while i < n:
        if j >= len(raw):
            out.extend([end] * (n - i))
            break
        ch = value[i]
        if ch == raw[j]:
            out.append(start + j)
            i += 1
            j += 1
        elif ch.isspace() and raw[j].isspace():
            out.append(start + j)
            i += 1
            while j < len(raw) and raw[j].isspace():
                j += 1
            while i < n and value[i].isspace() and not (j < len(raw) and raw[j] == value[i]):
                out.append(start + j)
                i += 1
        else:
            j += 1
    out.append(min(start + j, end) if raw[:1] not in ("'", '"') or j < len(raw) else end - 1)
    return out


def span(text: str, node: Node, a: int, b: int) -> tuple[int, int]:
    """The source range of value[a:b] of the string `node`."""
    table = offsets(text, node)
    a, b = min(a, len(table) - 1), min(b, len(table) - 1)
    start = table[a]
    end = table[b - 1] + 1 if b > a else start
    return start, max(start, end)


def index_at(text: str, node: Node, offset: int) -> int | None:
    """The index in the value of the character at `offset` of the text (the value's length at its
    end); None when the offset is before or past the value."""
    table = offsets(text, node)
    if not table or offset < table[0] or offset > table[-1]:
        return None
    return bisect.bisect_right(table, offset) - 1
