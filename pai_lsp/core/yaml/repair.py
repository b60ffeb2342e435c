"""Mending what tree-sitter-yaml could not place, one mistake at a time.

tree-sitter wraps a mistake in an ERROR node, or inserts a MISSING token, and reads on; but at
the end of a file, or after a badly indented line, its recovery can swallow the whole document.
So the first mistake is named (one error, at its place) and mended in the bytes the parser sees
(the user's text is untouched): a ':' after a key being typed, the closing bracket or quote
tree-sitter found missing, a line moved to an indentation that fits, or else the line blanked;
then the text is parsed again. Each mend says how its bytes map back to the text's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# A mend: the new bytes, the (start, end, shift) ranges of the new bytes whose offset in the old
# ones is offset + shift (end included: a node may end there), and where bytes that are not in the
# text were inserted.
Mend = tuple[bytearray, list[tuple[int, int, int]], list[int]]
Report = Callable[..., None]  # report(code, start byte, end byte, **args)
Apply = Callable[[bytearray, Mend], bytearray]  # the caller keeps the mend and returns its bytes
Parse = Callable[[bytes], Any]  # bytes → tree-sitter's root node

_TAB_INDENT = re.compile(rb"^ *\t", re.M)
_NEWLINE = re.compile(rb"\n")
# A line holding one plain word or phrase and nothing else: a key being typed, if it is in a mapping.
_LONE_PLAIN = re.compile(rb"^ *[^\s#:\-\[\]{}'\"!&*|>%@`,?][^:#\n]*?(?<=[^ \t\r])[ \t\r]*$", re.M)
_INDENT = re.compile(rb"^( *)(?:- +)?[^\s#]", re.M)
MAX_PROBES = 6  # mends of each kind tried for one mistake
_END = 1 << 62


def repair(root: Any, data: bytearray, report: Report, apply: Apply, parse: Parse) -> tuple[bytearray, Any] | None:
    """Report the first mistake in the tree and return the bytes with it mended and their tree,
    or None when nothing is left to mend.

    The mistake's line is the first line at which the text stops being YAML (found by parsing
    prefixes, a binary search): tree-sitter's ERROR node often starts far above it. Then a few
    mends are tried (a ':' after a key being typed on that line or above it; that line, or the one
    above, at another indentation; that line blanked) and the one after which the text reads
    furthest is kept."""
    node = first_error(root)
    if node is None:
        return None
    if node.is_missing:
        _missing(node, report)
        if node.type in ("]", "}", '"', "'"):
            mend: Mend | None = _insertion(data, node.start_byte, node.type.encode())
        else:
            mend = _blanking(data, data.rfind(b"\n", 0, node.start_byte) + 1)
        return _kept(data, mend, apply, parse)
    bad = _first_bad_line(data, parse)
    guess = _error_line(node, data)
    best: tuple[int, str, int, Mend, Any] | None = None
    for kind, where, mend in _mends(node, data, bad, guess):
        tried = parse(bytes(mend[0]))
        reached = _first_error_at(tried, len(mend[0]) - len(data))
        if reached > _line_end(data, bad) and (best is None or reached > best[0]):
            best = (reached, kind, where, mend, tried)
            if reached == _END:
                break
    if best is None:
        _classify(node, data, bad, report)
        return _kept(data, _blanking(data, bad) or _blanking(data, guess), apply, parse)
    _, kind, where, mend, tried = best
    if kind == "colon":
        report("syntax.missing-colon", where, where)
    else:
        _classify(node, data, where, report)
    return apply(data, mend), tried


def _mends(node: Any, data: bytearray, bad: int, guess: int) -> list[tuple[str, int, Mend]]:
    """The mends worth trying for a mistake first seen on the line at `bad`, the likeliest first:
    (kind, where it names the mistake, the mend)."""
    bad_end = _line_end(data, bad)
    indent = len(data[bad:bad_end]) - len(data[bad:bad_end].lstrip(b" "))
    prev = _previous_line(data, bad)
    colons = _colon_candidates(node, data, bad_end)[:MAX_PROBES]
    colons += [c for c in (_colon_after_word(data, line) for line in (bad, prev)) if c is not None and c not in colons]
    out = [("colon", colon, _insertion(data, colon, b":")) for colon in colons]
    if data[bad + indent:bad + indent + 1] != b"\t":
        moves = [("indent", bad, _reindent(data, bad, indent, other)) for other in _indent_candidates(data, bad, indent)[:4]]
        for above in dict.fromkeys([prev, _previous_line(data, bad, comments=True)]):
            if above is None:  # the line above may have set an indentation its siblings do not keep
                continue
            above_line = data[above:_line_end(data, above)]
            above_indent = len(above_line) - len(above_line.lstrip(b" "))
            if above_indent != indent:
                moved = ("indent", above, _reindent(data, above, above_indent, indent))
                # The odd one out is the line above when more lines below keep the bad line's indentation.
                moves = [moved] + moves if _siblings_below(data, bad, indent, min(above_indent, indent)) >= 2 else moves + [moved]
        out += moves
        stray = data[bad + indent:bad + indent + 1]
        if stray and stray in b",[]{}&*!|>%@`":  # a character typed by mistake before a key
            cleared = bytearray(data)
            cleared[bad + indent] = 0x20
            rest = len(cleared[bad:bad_end]) - len(cleared[bad:bad_end].lstrip(b" "))
            out += [("indent", bad, _reindent(cleared, bad, rest, other)) for other in _indent_candidates(data, bad, rest)[:2]]
    for line in dict.fromkeys([bad, guess]):
        blank = _blanking(data, line)
        if blank is not None:
            out.append(("blank", line, blank))
    return out


def _previous_line(data: bytearray, line_start: int, comments: bool = False) -> int | None:
    """The start of the nearest line above with content (not blank; not a comment, unless
    `comments`: in a block scalar a line starting with '#' is text)."""
    pos = line_start
    while pos > 0:
        start = data.rfind(b"\n", 0, pos - 1) + 1
        content = data[start:pos - 1].strip()
        if content and (comments or not content.startswith(b"#")):
            return start
        pos = start
    return None


_WORD_VALUE = re.compile(rb" *(?:- +)?[A-Za-z_][\w.\-]*(?= +[^\s:#])")


def _colon_after_word(data: bytearray, line_start: int | None) -> int | None:
    """In a line `key value` with no ':' (e.g. `- plugin ssh`), where the ':' after `key` goes."""
    if line_start is None:
        return None
    end = _line_end(data, line_start)
    if b":" in data[line_start:end]:
        return None
    m = _WORD_VALUE.match(bytes(data), line_start, end)
    return m.end() if m is not None else None


def _siblings_below(data: bytearray, line_start: int, indent: int, floor: int) -> int:
    """How many lines from `line_start` on have exactly `indent`, before one indented less than `floor`."""
    count = 0
    for m in _INDENT.finditer(bytes(data), line_start):
        found = len(m.group(1))
        if found < floor:
            break
        count += found == indent
    return count


def _kept(data: bytearray, mend: Mend | None, apply: Apply, parse: Parse) -> tuple[bytearray, Any] | None:
    if mend is None:
        return None
    fixed = apply(data, mend)
    return fixed, parse(bytes(fixed))


def _insertion(data: bytearray, at: int, token: bytes) -> Mend:
    """`token` inserted at `at` (a ':' or a closing bracket or quote that is not in the text)."""
    fixed = bytearray(data)
    fixed[at:at] = token
    return fixed, [(at + len(token), _END, -len(token))], list(range(at, at + len(token)))


def _blanking(data: bytearray, line_start: int) -> Mend | None:
    """The line emptied, its bytes turned into spaces at the end of the line above (a line of
    spaces alone can end a block scalar, or start one wrongly): None when it is empty already."""
    end = _line_end(data, line_start)
    if not data[line_start:end].strip():
        return None
    fixed = bytearray(data)
    if line_start == 0:
        fixed[0:end] = b" " * end
    else:
        fixed[line_start - 1:end] = b" " * (end - line_start) + b"\n"
    return fixed, [], []


def _reindent(data: bytearray, line_start: int, old: int, new: int) -> Mend:
    """The line moved from indentation `old` to `new`."""
    if new > old:
        return _insertion(data, line_start, b" " * (new - old))
    end = _line_end(data, line_start)
    fixed = bytearray(data)
    shift = old - new
    fixed[line_start:end] = b" " * new + data[line_start + old:end] + b" " * shift
    return fixed, [(line_start + new, end - shift, shift)], []


def _indent_candidates(data: bytearray, line_start: int, indent: int) -> list[int]:
    """Indentations of the lines above (entries and list items), the nearest to `indent` first."""
    seen = {len(m.group(1)) for m in _INDENT.finditer(bytes(data), 0, line_start)} - {indent}
    return sorted(seen, key=lambda i: (abs(i - indent), i))


def _first_bad_line(data: bytearray, parse: Parse) -> int:
    """The start of the first line at which the text (broken as a whole) stops being YAML: the
    shortest prefix of whole lines that tree-sitter cannot read."""
    limit = len(data)
    starts = [0] + [m.end() for m in _NEWLINE.finditer(bytes(data))]
    lo, hi = 0, len(starts) - 1  # the prefix ending with line hi is broken
    while lo < hi:
        mid = (lo + hi) // 2
        end = starts[mid + 1] if mid + 1 < len(starts) else limit
        if parse(bytes(data[:end])).has_error:
            hi = mid
        else:
            lo = mid + 1
    return starts[lo]


def _colon_candidates(node: Any, data: bytearray, bad_end: int) -> list[int]:
    """Where a ':' may be missing: after the plain scalar tree-sitter left alone on its line in the
    ERROR node, then after each line that holds one plain phrase, up to the first bad line and
    the nearest first."""
    first = _lone_scalar(node, data)
    out = [first] if first is not None else []
    start = data.rfind(b"\n", 0, node.start_byte) + 1
    for m in reversed(list(_LONE_PLAIN.finditer(bytes(data), start, bad_end))):
        end = m.start() + len(m.group().rstrip(b" \t\r"))
        if end not in out:
            out.append(end)
    return out


def _first_error_at(root: Any, grown: int) -> int:
    """Where the first mistake tree-sitter finds now is, in the bytes before the mend (`grown`:
    how many bytes the mend added), or _END when there is none."""
    node = first_error(root)
    return _END if node is None else node.start_byte - grown


def _line_end(data: bytearray, offset: int) -> int:
    end = data.find(b"\n", offset)
    return len(data) if end < 0 else end


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
