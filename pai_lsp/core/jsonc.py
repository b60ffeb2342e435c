"""Tolerant JSON/JSONC parser that keeps exact offsets and survives half-typed text.

The tree is made of `Node`s. Strict-JSON containers below the top level are read with
the C scanner of the standard library and expanded into child nodes only when someone
asks for them, so a 1 MB config costs little more than `json.loads` until a
diagnostic, a completion or a hover needs a precise position inside it.
"""

from __future__ import annotations

import bisect
import json
import json.scanner
import re
from collections.abc import Iterator, Set
from dataclasses import dataclass, field
from typing import Any

from .model import Edit

# One token at a time; group 1 is the token without leading white space.
_TOKEN = re.compile(
    r"""[ \t\r\n\ufeff]*(
        "(?:[^"\\\n\r]|\\.)*"?              # string, possibly unterminated
      | -?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d*)?   # number (validated later)
      | [{}\[\]:,]
      | //[^\n]*
      | /\*(?:.|\n)*?(?:\*/|\Z)
      | [A-Za-z_$][\w$]*                    # true/false/null or a bare word
      | [^\s]                                # anything else: one stray character
    )""",
    re.VERBOSE,
)
# Inside strict JSON (a lazily scanned container): a member's key (group 1) and colon (group 2),
# white space around them; a string, number or literal; the comma after a value.
_MEMBER = re.compile(r'[ \t\r\n]*("[^"\\]*(?:\\.[^"\\]*)*")[ \t\r\n]*(:)[ \t\r\n]*')
_SCALAR = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[-+.\w]+')
_SEPARATOR = re.compile(r"[ \t\r\n]*,?[ \t\r\n]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?\Z")
_LITERALS = {"true": True, "false": False, "null": None}
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# Deeper containers are reported and skipped: no job config nests more than a handful of
# levels, and everything that walks the tree (validation included) recurses.
MAX_DEPTH = 64


class _DuplicateKey(Exception):
    pass


def _strict_pairs(pairs: list[tuple[str, Any]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _DuplicateKey
    return obj


def _no_constant(name: str) -> Any:
    raise ValueError(name)


_decoder = json.JSONDecoder(object_pairs_hook=_strict_pairs, parse_constant=_no_constant)
_scan_once = json.scanner.make_scanner(_decoder)


@dataclass(slots=True)
class ParseError:
    code: str  # key into messages, e.g. "syntax.missing-comma"
    start: int
    end: int
    args: dict = field(default_factory=dict)


class Node:
    """One JSON value, or a property (`type == "property"`: children are [key, value?])."""

    __slots__ = ("type", "start", "end", "_value", "_children", "parent", "colon", "_lazy", "strict", "cache")

    def __init__(self, type_: str, start: int, end: int, value: Any = None, parent: Node | None = None):
        self.type = type_
        self.start = start
        self.end = end
        self._value = value
        self._children: list[Node] | None = None if type_ in ("object", "array", "property") else []
        self.parent = parent
        self.colon = -1
        self._lazy: Document | None = None
        self.strict = False  # read by the C scanner as a whole: strict JSON inside, no errors
        self.cache: Any = None  # what the analysis keeps about this node's text (dropped when it changes)

    # -- structure -------------------------------------------------------------------
    @property
    def children(self) -> list[Node]:
        if self._children is None:
            if self._lazy is not None:
                self._lazy._expand(self)
            else:
                self._children = []
        return self._children  # type: ignore[return-value]

    @property
    def key(self) -> Node | None:
        """For a property: its key node."""
        return self.children[0] if self.type == "property" and self.children else None

    @property
    def value_node(self) -> Node | None:
        """For a property: its value node, if one was typed."""
        if self.type == "property" and len(self.children) > 1:
            return self.children[1]
        return None

    @property
    def value(self) -> Any:
        """The plain Python value (objects keep the last of duplicate keys)."""
        if self.type == "object":
            if self._value is None:
                self._value = {
                    p.key.value: p.value_node.value
                    for p in self.children
                    if p.key is not None and p.value_node is not None
                }
            return self._value
        if self.type == "array":
            if self._value is None:
                self._value = [c.value for c in self.children]
            return self._value
        if self.type == "property":
            v = self.value_node
            return v.value if v is not None else None
        return self._value

    def properties(self) -> Iterator[Node]:
        if self.type == "object":
            yield from self.children

    def get(self, key: str) -> Node | None:
        """Value node of `key` in an object (the last one when duplicated)."""
        if self.type != "object":
            return None
        found = None
        for prop in self.children:
            pair = prop._children  # a property's: [key] or [key, value]
            if pair and pair[0]._value == key:
                found = pair[1] if len(pair) > 1 else None
        return found

    def get_property(self, key: str) -> Node | None:
        found = None
        for prop in self.properties():
            if prop.key is not None and prop.key.value == key:
                found = prop
        return found

    def path(self) -> list[str | int]:
        """JSON path from the root to this node."""
        out: list[str | int] = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            parent = node.parent
            if parent.type == "property":
                if parent.key is not None:
                    out.append(parent.key.value)
                node = parent.parent
                continue
            if parent.type == "array":
                out.append(parent.children.index(node))
            node = parent
        out.reverse()
        return out

    def __repr__(self) -> str:
        return f"Node({self.type}, {self.start}, {self.end})"


class Document:
    """The parse of one text: a root node (or None), syntax errors and comments."""

    def __init__(self, text: str, lazy: bool = True):
        self.text = text
        self.errors: list[ParseError] = []
        self.comments: list[tuple[int, int]] = []
        self.memo: dict[str, Any] = {}  # what the analysis derived from this parse (dropped with it)
        self._lazy_enabled = lazy
        self._pos = 0
        self._peeked: tuple[str, int, int] | None = None
        self._eof_reported = False
        # Escapes such as \\ud800 (or an editor's lone surrogate) need the careful string reader.
        self._surrogates_possible = "\\u" in text or (not text.isascii() and _SURROGATE.search(text) is not None)
        self.root = self._parse_root()

    # -- tokens ----------------------------------------------------------------------
    def _next(self) -> tuple[str, int, int]:
        """(token text, start, end); ("", len, len) at the end of the text."""
        if self._peeked is not None:
            tok, self._peeked = self._peeked, None
            return tok
        text = self.text
        while True:
            m = _TOKEN.match(text, self._pos)
            if m is None:
                self._pos = len(text)
                return ("", len(text), len(text))
            start, end = m.span(1)
            self._pos = end
            tok = m.group(1)
            if tok[0] == "/" and len(tok) > 1 and tok[1] in "/*":
                self.comments.append((start, end))
                if tok[1] == "*" and (len(tok) < 4 or not tok.endswith("*/")):
                    self.errors.append(ParseError("syntax.unterminated-comment", start, end))
                self.errors.append(ParseError("syntax.comment", start, end))
                continue
            return (tok, start, end)

    def _peek(self) -> tuple[str, int, int]:
        if self._peeked is None:
            self._peeked = self._next()
        return self._peeked

    def _error(self, code: str, start: int, end: int, **args: Any) -> None:
        # Report one error per place, and one for running out of text: recovery must not cascade.
        if self._pos >= len(self.text) and self._peeked is not None and not self._peeked[0]:
            if self._eof_reported:
                return
            self._eof_reported = True
        if self.errors and self.errors[-1].start == start and self.errors[-1].code.startswith("syntax.") \
                and self.errors[-1].code != "syntax.comment":
            return
        self.errors.append(ParseError(code, start, end, args))

    # -- grammar ---------------------------------------------------------------------
    def _parse_root(self) -> Node | None:
        tok, start, end = self._peek()
        if not tok:
            self._error("syntax.empty", 0, 0)
            return None
        root = self._value(None, depth=0)
        tok, start, end = self._peek()
        while tok:
            self._next()
            self._error("syntax.trailing-content", start, end)
            # Skip the rest; a second top-level value is never meaningful.
            tok, start, end = self._peek()
            if tok:
                self._pos = len(self.text)
                self._peeked = None
                break
        return root

    def _value(self, parent: Node | None, depth: int) -> Node | None:
        tok, start, end = self._peek()
        c = tok[:1]
        if c in ("{", "[") and depth >= MAX_DEPTH:
            return self._too_deep(parent, c, start, end)
        if c in ("{", "[") and depth >= 2 and self._lazy_enabled:
            node = self._try_lazy(parent, start, depth)
            if node is not None:
                return node
        if c == "{":
            self._next()
            return self._object(parent, start, depth)
        if c == "[":
            self._next()
            return self._array(parent, start, depth)
        if c == '"':
            self._next()
            return self._string(parent, tok, start, end)
        if c == "-" or c == "." or c.isdigit():
            self._next()
            if not _NUMBER.match(tok):
                self._error("syntax.invalid-number", start, end, text=tok)
                try:
                    return Node("number", start, end, float(tok), parent)
                except ValueError:
                    return Node("number", start, end, 0, parent)
            try:
                return Node("number", start, end, json.loads(tok), parent)
            except ValueError:
                # More digits than Python turns into an int (4,300): read it as JavaScript does.
                self._error("syntax.number-too-long", start, end, digits=sum(ch.isdigit() for ch in tok))
                return Node("number", start, end, float(tok), parent)
        if tok in _LITERALS:
            self._next()
            kind = "null" if tok == "null" else "boolean"
            return Node(kind, start, end, _LITERALS[tok], parent)
        if c and (c.isalpha() or c in "_$"):
            # A bare word such as True, None or an unquoted string: keep it as a string.
            self._next()
            self._error("syntax.bare-word", start, end, text=tok)
            return Node("string", start, end, tok, parent)
        self._error("syntax.expected-value", start, end if tok else start)
        return None

    def _too_deep(self, parent: Node | None, bracket: str, start: int, end: int) -> Node:
        """Report a container nested beyond MAX_DEPTH and skip it whole (without recursion): it
        stands in the tree as an empty container."""
        self._error("syntax.too-deep", start, end, limit=MAX_DEPTH)
        open_count = 0
        while True:
            tok, _, tend = self._peek()
            if not tok:
                break
            self._next()
            end = tend
            if tok in ("[", "{"):
                open_count += 1
            elif tok in ("]", "}"):
                open_count -= 1
                if open_count == 0:
                    break
        node = Node("object" if bracket == "{" else "array", start, end, None, parent)
        node._children = []
        return node

    def _try_lazy(self, parent: Node | None, start: int, depth: int) -> Node | None:
        scanned = self._scan_strict(start, depth)
        if scanned is None:
            return None
        value, end = scanned
        node = Node("object" if isinstance(value, dict) else "array", start, end, value, parent)
        node._lazy = self
        node.strict = True
        self._pos = end
        self._peeked = None
        return node

    def _scan_strict(self, start: int, depth: int) -> tuple[Any, int] | None:
        """(value, end) of the strict-JSON container at `start`, or None when it is not one, or
        is one the tolerant reader must see (possibly too deep, lone surrogates)."""
        text = self.text
        try:
            value, end = _scan_once(text, start)
        except (ValueError, StopIteration, _DuplicateKey, RecursionError):
            return None
        if text.count("[", start, end) + text.count("{", start, end) > MAX_DEPTH - depth:
            return None  # possibly too deep: the tolerant reader limits the depth
        if self._surrogates_possible and (
            _SURROGATE_ESCAPE.search(text, start, end) is not None or _SURROGATE.search(text, start, end) is not None
        ):
            return None  # the tolerant reader reports lone surrogates
        return value, end

    # -- writing text (quick fixes) ---------------------------------------------------
    # What a fix writes into a job file, in the file's own syntax: a format whose files are
    # another syntax (YAML) parses into a document class of its own with these same methods.
    @staticmethod
    def literal(value: Any) -> str:
        """`value` as text of this syntax (JSON; non-ASCII kept as it is)."""
        return json.dumps(value, ensure_ascii=False)

    def key_text(self, name: str) -> str:
        """The text of a key named `name`."""
        return self.literal(name)

    def insert_member(self, obj: Node, key: str, value: Any) -> Edit:
        """Insert `"key": value` as the first member of the object `obj`, matching the layout of
        the member already there (on a line of its own, with its indentation, or on the same line)."""
        member = f"{self.key_text(key)}: {self.literal(value)}"
        first = obj.children[0] if obj.children else None
        if first is None:
            return Edit(obj.start + 1, obj.start + 1, member)
        line_start = self.text.rfind("\n", 0, first.start) + 1
        indent = self.text[line_start : first.start]
        if indent.strip() == "" and line_start > obj.start:
            return Edit(obj.start + 1, obj.start + 1, f"\n{indent}{member},")
        return Edit(first.start, first.start, f"{member}, ")

    # -- edits -----------------------------------------------------------------------
    def edit(self, start: int, end: int, new: str, text: str | None = None) -> Document:
        """The parse of this text with text[start:end] replaced by `new` (`text`: the result, if
        the caller has it). When the edit lies inside one strict-JSON container (a task role,
        typically), only that container is read again and this parse is updated in place and
        returned; everything outside it is the same, merely moved. Otherwise: a fresh parse."""
        text = self.text[:start] + new + self.text[end:] if text is None else text
        path = self._strict_path(start, end)
        if path is None:
            return Document(text, self._lazy_enabled)
        *ancestors, old = path
        delta = len(new) - (end - start)
        depth = sum(1 for a in ancestors if a.type in ("object", "array"))
        saved = (self.text, self._surrogates_possible)
        self.text = text
        self._surrogates_possible = saved[1] or "\\u" in new or (not new.isascii() and _SURROGATE.search(new) is not None)
        scanned = self._scan_strict(old.start, depth)
        if scanned is None or scanned[1] != old.end + delta:
            self.text, self._surrogates_possible = saved
            return Document(text, self._lazy_enabled)
        value, _ = scanned
        fresh = Node(old.type, old.start, scanned[1], value, old.parent)
        fresh._lazy = self
        fresh.strict = True
        parent = old.parent
        siblings = parent._children  # type: ignore[union-attr]  (a strict node is never the root)
        index = siblings.index(old)
        siblings[index] = fresh
        unlink(old)
        pivot = old.end
        if parent.type == "array" and parent._value is not None:  # type: ignore[union-attr]
            # The values above hold this very list: patched, they all stay right.
            parent._value[index] = value  # type: ignore[union-attr]
            stale: list[Node] = []
        else:
            stale = ancestors
        for node in ancestors:
            node.end += delta
            node.cache = None
        for node in stale:
            node._value = None
        moved: list[Node] = []
        for node in ancestors:
            children = node._children or []
            moved.extend(c for c in children if c.start >= pivot)
        while moved:
            node = moved.pop()
            node.start += delta
            node.end += delta
            if node.colon >= pivot:
                node.colon += delta
            if node._children:
                moved.extend(node._children)
        for error in self.errors:
            if error.start >= pivot:
                error.start += delta
            if error.end >= pivot:
                error.end += delta
        self.comments = [(a + delta, b + delta) if a >= pivot else (a, b) for a, b in self.comments]
        self.memo.clear()
        return self

    def _strict_path(self, start: int, end: int) -> list[Node] | None:
        """The nodes from the root down to the outermost strict container whose brackets the
        edit of text[start:end] leaves alone, or None."""
        node = self.root
        path: list[Node] = []
        while node is not None:
            if not (node.start < start and end < node.end):
                return None
            path.append(node)
            if node.strict:
                return path if len(path) > 1 else None
            children = node._children or []
            i = bisect.bisect_right(children, start, key=lambda c: c.start) - 1
            node = children[i] if i >= 0 else None
        return None

    def _expand(self, node: Node) -> None:
        """The children of a lazily scanned container, one level: strict JSON (no comments, no
        errors, no duplicate keys) whose values the C scanner already gave, in source order, so
        only their offsets are looked for. A container inside it stays lazy in turn (its end found
        by the C scanner, its value the one already read): asking for a role's name builds no node
        for each word of its commands."""
        node._lazy = None
        text = self.text
        pos = node.start + 1
        children: list[Node] = []
        if node.type == "object":
            for key, item in node._value.items():
                m = _MEMBER.match(text, pos)
                assert m is not None  # strict JSON: a key and its colon come next
                kstart, kend = m.span(1)
                prop = Node("property", kstart, kend, None, node)
                prop.colon = m.start(2)
                child, pos = self._strict_child(prop, item, m.end())
                prop._children = [Node("string", kstart, kend, key, prop), child]
                prop.end = child.end
                children.append(prop)
        else:
            pos = _space_end(text, pos)
            for item in node._value:
                child, pos = self._strict_child(node, item, pos)
                children.append(child)
        node._children = children

    def strict_members(self, start: int, value: dict | list) -> Iterator[tuple[Any, int, int, Any]]:
        """(key or index, value start, value end, value) of each member of the strict-JSON container
        whose text starts at `start` and whose value the C scanner read as `value` (a strict node's
        `start` and `value`, or a member's found here), in source order, building no node: the
        outline of a 3,000-role config reads three members of each role, where expanding builds
        every member's key and value nodes."""
        text = self.text
        pos = start + 1
        if isinstance(value, dict):
            for key, item in value.items():
                m = _MEMBER.match(text, pos)
                assert m is not None  # strict JSON: a key and its colon come next
                begin = m.end()
                end = self._strict_end(item, begin)
                yield key, begin, end, item
                pos = _SEPARATOR.match(text, end).end()  # type: ignore[union-attr]  (matches the empty string)
        else:
            pos = _space_end(text, pos)
            for index, item in enumerate(value):
                end = self._strict_end(item, pos)
                yield index, pos, end, item
                pos = _SEPARATOR.match(text, end).end()  # type: ignore[union-attr]

    def _strict_end(self, value: Any, start: int) -> int:
        """Where `value`, found at `start` inside a strict container, ends."""
        if isinstance(value, (dict, list)):
            return _scan_once(self.text, start)[1]
        m = _SCALAR.match(self.text, start)
        assert m is not None  # strict JSON: the value the scanner read is here
        return m.end()

    def _strict_child(self, parent: Node, value: Any, start: int) -> tuple[Node, int]:
        """The node of `value`, found at `start` inside a strict container, and where the next
        one begins (past the comma and white space after it)."""
        text = self.text
        if isinstance(value, (dict, list)):
            child = Node("object" if isinstance(value, dict) else "array", start, _scan_once(text, start)[1], value, parent)
            child._lazy = self
            child.strict = True
        else:
            m = _SCALAR.match(text, start)
            assert m is not None  # strict JSON: the value the scanner read is here
            kind = "string" if isinstance(value, str) else "null" if value is None else "boolean" if isinstance(value, bool) else "number"
            child = Node(kind, start, m.end(), value, parent)
        m = _SEPARATOR.match(text, child.end)
        assert m is not None  # (matches the empty string)
        return child, m.end()

    def _string(self, parent: Node | None, tok: str, start: int, end: int) -> Node:
        if len(tok) < 2 or not tok.endswith('"') or tok.endswith('\\"') and _odd_backslashes(tok):
            self._error("syntax.unterminated-string", start, end)
            body = tok[1:]
        else:
            body = tok[1:-1]
        if "\\" in body:
            try:
                value = json.loads('"' + body + '"')
            except ValueError:
                self._error("syntax.invalid-escape", start, end)
                value = body
        else:
            value = body
        if self._surrogates_possible and _SURROGATE.search(value) is not None:
            # Half of a UTF-16 pair is no character: nothing can print or send it as UTF-8.
            value = _SURROGATE.sub("\ufffd", value)
            self.errors.append(ParseError("syntax.lone-surrogate", start, end))
        return Node("string", start, end, value, parent)

    def _object(self, parent: Node | None, start: int, depth: int) -> Node:
        node = Node("object", start, start + 1, None, parent)
        node._children = []
        seen: dict[str, Node] = {}
        expect_member = True
        last_comma = -1
        while True:
            tok, tstart, tend = self._peek()
            if tok == "}":
                self._next()
                if last_comma >= 0 and expect_member:
                    self._error("syntax.trailing-comma", last_comma, last_comma + 1)
                node.end = tend
                return node
            if not tok or tok in ("]",):
                self._error("syntax.unclosed-object", start, start + 1)
                node.end = node._children[-1].end if node._children else start + 1
                return node
            if tok == ",":
                self._next()
                if expect_member:
                    self._error("syntax.expected-property", tstart, tend)
                expect_member = True
                last_comma = tstart
                continue
            if not expect_member:
                prev_end = node._children[-1].end if node._children else tstart
                self._error("syntax.missing-comma", prev_end, prev_end)
            expect_member = False
            last_comma = -1
            prop = self._property(node, depth)
            if prop is None:
                continue
            node._children.append(prop)
            node.end = prop.end
            key = prop.key
            if key is not None and key.value in seen:
                self.errors.append(ParseError("syntax.duplicate-key", key.start, key.end, {"key": key.value}))
            elif key is not None:
                seen[key.value] = prop

    def _property(self, obj: Node, depth: int) -> Node | None:
        tok, start, end = self._peek()
        c = tok[:1]
        if c == '"':
            self._next()
            key = self._string(None, tok, start, end)
        elif c.isalpha() or c in "_$":
            self._next()
            self._error("syntax.unquoted-key", start, end, text=tok)
            key = Node("string", start, end, tok)
        else:
            # Not a key: skip one token (or a whole container) and go on.
            self._error("syntax.expected-property", start, end)
            if c in ("{", "["):
                self._value(None, depth + 1)
            else:
                self._next()
            return None
        prop = Node("property", start, end, None, obj)
        prop._children = [key]
        key.parent = prop
        tok, cstart, cend = self._peek()
        if tok == ":":
            self._next()
            prop.colon = cstart
            prop.end = cend
        else:
            self._error("syntax.missing-colon", key.end, key.end)
            # Recover when a value follows on the same line: `"a" 1`.
            if not tok or tok in (",", "}", "]") or tok[:1] == '"' and self._newline_between(key.end, cstart):
                return prop
        tok, vstart, vend = self._peek()
        if not tok or tok in (",", "}", "]"):
            self._error("syntax.expected-value", prop.end, prop.end if not tok else vstart)
            return prop
        # A key on the next line means the value was never typed: `"a":\n "b": 1`.
        if tok[:1] == '"' and self._newline_between(prop.end, vstart):
            after = _TOKEN.match(self.text, vend)
            if after is not None and after.group(1) == ":":
                self._error("syntax.expected-value", prop.end, prop.end)
                return prop
        value = self._value(prop, depth + 1)
        if value is not None:
            prop._children.append(value)
            prop.end = value.end
        return prop

    def _newline_between(self, a: int, b: int) -> bool:
        return "\n" in self.text[a:b]

    def _array(self, parent: Node | None, start: int, depth: int) -> Node:
        node = Node("array", start, start + 1, None, parent)
        node._children = []
        expect_item = True
        last_comma = -1
        while True:
            tok, tstart, tend = self._peek()
            if tok == "]":
                self._next()
                if last_comma >= 0 and expect_item:
                    self._error("syntax.trailing-comma", last_comma, last_comma + 1)
                node.end = tend
                return node
            if not tok or tok == "}":
                self._error("syntax.unclosed-array", start, start + 1)
                node.end = node._children[-1].end if node._children else start + 1
                return node
            if tok == ",":
                self._next()
                if expect_item:
                    self._error("syntax.expected-value", tstart, tend)
                expect_item = True
                last_comma = tstart
                continue
            if tok == ":":
                self._next()
                self._error("syntax.expected-value", tstart, tend)
                continue
            if not expect_item:
                prev_end = node._children[-1].end if node._children else tstart
                self._error("syntax.missing-comma", prev_end, prev_end)
            expect_item = False
            last_comma = -1
            item = self._value(node, depth + 1)
            if item is None:
                self._next()  # guarantee progress past the bad token
                continue
            node._children.append(item)
            node.end = item.end


def _odd_backslashes(tok: str) -> bool:
    """True when the final quote of `tok` is escaped."""
    count = 0
    i = len(tok) - 2
    while i >= 0 and tok[i] == "\\":
        count += 1
        i -= 1
    return count % 2 == 1


def _space_end(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def unlink(node: Node, keep: Set[int] = frozenset()) -> None:
    """Cut the parent links below `node`, a subtree taken out of its tree (but the subtrees whose
    root's id is in `keep`, still in use): its nodes are then freed as soon as nothing holds them.
    Linked, they are a cycle that waits for a full garbage collection, which may be long coming,
    with the text of each version of a line being typed into."""
    stack = list(node._children or ())
    while stack:
        child = stack.pop()
        if id(child) in keep:
            continue
        child.parent = None
        if child._children:
            stack.extend(child._children)


def tokens(text: str) -> Iterator[tuple[str, int, int]]:
    """Every token, comments included: (text, start, end)."""
    pos = 0
    while True:
        m = _TOKEN.match(text, pos)
        if m is None or m.start(1) == m.end(1):
            return
        yield m.group(1), m.start(1), m.end(1)
        pos = m.end(1)


def parse(text: str, lazy: bool = True) -> Document:
    return Document(text, lazy=lazy)


def node_at(root: Node | None, offset: int, include_end: bool = True) -> Node | None:
    """Innermost node whose range contains `offset`."""
    node = root
    if node is None or not (node.start <= offset < node.end or include_end and offset == node.end):
        return None
    while True:
        for child in node.children:
            if child.start <= offset < child.end or include_end and offset == child.end:
                node = child
                break
        else:
            return node


def find(root: Node | None, path: list[str | int] | tuple) -> Node | None:
    """Value node at a JSON path."""
    node = root
    for part in path:
        if node is None:
            return None
        if isinstance(part, int):
            if node.type != "array" or part >= len(node.children):
                return None
            node = node.children[part]
        else:
            if node.type != "object":
                return None
            node = node.get(part)
    return node


def string_offset(node: Node, text: str, index: int) -> int:
    """Source offset of character `index` of a string node's value (escapes accounted)."""
    raw = text[node.start + 1 : node.end]
    if "\\" not in raw:
        return node.start + 1 + index
    i = 0
    pos = 0
    while i < index and pos < len(raw):
        if raw[pos] == "\\" and pos + 1 < len(raw):
            pos += 6 if raw[pos + 1] == "u" else 2
        else:
            pos += 1
        i += 1
    return node.start + 1 + pos
