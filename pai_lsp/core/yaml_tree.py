"""Tolerant YAML parser with exact offsets: a v2 job file (`*.pai.yaml`) as the same `Node` tree
`jsonc` gives for JSON, so schema validation, completion, hover, outline and folding run on it.

Why tree-sitter-yaml (with the `tree-sitter` bindings) and not PyYAML or ruamel.yaml:
- recovery: tree-sitter gives a whole tree with the mistake in an ERROR node, where PyYAML and
  ruamel.yaml stop at the first error; the editor needs the rest of the file while a line is
  half typed. Where tree-sitter's own recovery loses the structure (a key typed at the end of
  the file, a line indented wrongly), we repair the text the parser sees (a ':' after a key being
  typed, a bad line blanked) and report one error at that place, then parse again.
- speed: its C parser reads a 1.2 MB (3,000-role) file in ~0.15 s, about the time of PyYAML's
  libyaml `compose` and far below its pure-Python one (~3 s) or ruamel.yaml's (~6 s).
- values: no parser reads values as js-yaml 3.13.1 does (the v2 server's reader), tree-sitter
  included (its scalar kinds are YAML 1.2's), so `yaml_scalars` ports js-yaml's scalar rules and
  tests compare the result with js-yaml itself and with `jsyaml.load` (tests/core/test_yaml_tree.py,
  tests/oracle/yaml.js).
Positions: tree-sitter counts UTF-8 bytes; nodes carry str offsets, as jsonc's do.

Large files are parsed in pieces: a top-level entry longer than `SPLIT_LINES` lines (a big
`taskRoles`) is read entry by entry of its block mapping. tree-sitter-yaml cannot read more than
32,768 lines in one go (its scanner keeps rows in 16 bits: tree-sitter-grammars/tree-sitter-yaml#49),
and `Document.edit` reads again only the pieces an edit touches, so typing in a 3,000-role file
costs one role's parse.

Anchors, aliases and merge keys (`<<`) are resolved: an alias's value IS its anchor's node (its
positions are the anchor's), bounded in count, size and depth so that a YAML bomb or `&a [*a]`
is one error. A second document (`---`) is one error, as js-yaml refuses it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from . import yaml_scalars as scalars
from .jsonc import Node, ParseError

MAX_DEPTH = 64  # as jsonc: everything that walks the tree recurses
MAX_ALIAS_NODES = 100_000  # nodes reachable through aliases, counted once per use
MAX_REPAIRS = 24  # per piece: then the rest of the piece is left out
SPLIT_LINES = 1_000  # a top-level entry longer than this is read entry by entry

_COLLECTIONS = frozenset(("block_mapping", "flow_mapping", "block_sequence", "flow_sequence"))
# Tags js-yaml's safe schema takes on a mapping / a sequence.
_COLLECTION_TAGS = {"object": {"!", scalars.CORE + "map", scalars.CORE + "set"},
                    "array": {"!", scalars.CORE + "seq", scalars.CORE + "omap", scalars.CORE + "pairs"}}
_SCALARS = frozenset(("plain_scalar", "single_quote_scalar", "double_quote_scalar", "block_scalar"))
_BREAK = re.compile(r"\r\n|\r|\n")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
# The first line of a top-level (or, with its indentation, nested) entry of a block mapping.
_ENTRY_START = r"(?=[^\s#\-?:\]},|>%@`])"
_TAB_INDENT = re.compile(rb"^ *\t", re.M)
_NOT_SPLITTABLE = re.compile(r"^(?:---|\.\.\.|%)", re.M)


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter  # imported on first use, as jsonschema is
    import tree_sitter_yaml

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_yaml.language()))


class YamlNode(Node):
    """A jsonc `Node` that knows its YAML anchor and tag and, for a mapping with merge keys, the
    mappings merged into it (`get` and `value` see merged keys as js-yaml does; `properties`
    yields the mapping's own pairs, `<<` left out)."""

    __slots__ = ("anchor", "tag", "merges", "is_merge")

    def __init__(self, type_: str, start: int, end: int, value: Any = None, parent: Node | None = None):
        super().__init__(type_, start, end, value, parent)
        self.anchor: str | None = None
        self.tag: str | None = None
        self.merges: list[YamlNode] | None = None  # mappings merged in, first wins
        self.is_merge = False  # a `<<` pair

    def properties(self) -> Iterator[Node]:
        if self.type == "object":
            yield from (p for p in self.children if not getattr(p, "is_merge", False))

    def get(self, key: str) -> Node | None:
        found = None
        for prop in self.properties():
            if prop.key is not None and prop.key.value == key:
                found = prop.value_node
        if found is None and self.merges:
            for source in self.merges:
                found = source.get(key)
                if found is not None:
                    break
        return found

    def get_property(self, key: str) -> Node | None:
        found = None
        for prop in self.properties():
            if prop.key is not None and prop.key.value == key:
                found = prop
        if found is None and self.merges:
            for source in self.merges:
                found = source.get_property(key)
                if found is not None:
                    break
        return found

    @property
    def value(self) -> Any:
        if self.type != "object" or self._value is not None:
            return Node.value.fget(self)  # type: ignore[attr-defined]
        out: dict[str, Any] = {}
        for prop in self.children:
            if getattr(prop, "is_merge", False):
                for source in _merge_sources(prop):
                    for key, value in source.value.items():
                        out.setdefault(key, value)
            elif prop.key is not None and prop.value_node is not None:
                out[prop.key.value] = prop.value_node.value
        self._value = out
        return out


def _merge_sources(prop: Node) -> list[Node]:
    value = prop.value_node
    if value is None:
        return []
    if value.type == "object":
        return [value]
    return [item for item in value.children if item.type == "object"] if value.type == "array" else []


class _Alias(YamlNode):
    """Where an alias stands until it is resolved (then its anchor's node takes its place)."""

    __slots__ = ("name",)


class _Piece:
    """One part of the text parsed on its own: its tree, errors and what resolution needs, with
    offsets in the document (moved in place when an edit shifts the piece)."""

    __slots__ = ("text", "start", "root", "errors", "comments", "anchors", "aliases", "merges", "documents")

    def __init__(self, text: str, start: int):
        self.text = text
        self.start = start
        self.root: YamlNode | None = None
        self.errors: list[ParseError] = []
        self.comments: list[tuple[int, int]] = []
        self.anchors: list[YamlNode] = []
        self.aliases: list[_Alias] = []
        self.merges: list[YamlNode] = []  # merge pairs
        self.documents = 1

    def shift(self, delta: int) -> None:
        if not delta:
            return
        self.start += delta
        for error in self.errors:
            error.start += delta
            error.end += delta
        self.comments = [(a + delta, b + delta) for a, b in self.comments]
        stack: list[Node] = [self.root] if self.root is not None else []
        while stack:
            node = stack.pop()
            node.start += delta
            node.end += delta
            if node.colon >= 0:
                node.colon += delta
            if node._children:
                stack.extend(c for c in node._children if c.parent is node or isinstance(c, _Alias))


class Document:
    """The parse of one YAML text: `root` (None when there is no value), `errors`, `comments`,
    plus `anchors` and `aliases` (for go-to-definition and rename) and `documents` (how many
    YAML documents the text holds; the server reads exactly one)."""

    def __init__(self, text: str, _previous: Document | None = None):
        self.text = text
        self.errors: list[ParseError] = []
        self.comments: list[tuple[int, int]] = []
        self.memo: dict[str, Any] = {}
        self.anchors: list[YamlNode] = []
        self.aliases: list[tuple[str, int, int, Node | None]] = []  # name, start, end, what it stands for
        self.documents = 0
        reuse: dict[str, list[_Piece]] = {}
        if _previous is not None:
            for piece in _previous._pieces:
                reuse.setdefault(piece.text, []).append(piece)
        self._pieces: list[_Piece] = []
        self.root = self._build(reuse)

    def edit(self, start: int, end: int, new: str, text: str | None = None) -> Document:
        """The parse of this text with text[start:end] replaced by `new` (`text`: the result, if
        the caller has it). Pieces of a large file the edit leaves alone are reused (moved), so
        this parse must not be used after the call."""
        text = self.text[:start] + new + self.text[end:] if text is None else text
        return Document(text, _previous=self)

    # -- building ------------------------------------------------------------------------
    def _build(self, reuse: dict[str, list[_Piece]]) -> YamlNode | None:
        plan = _plan(self.text)
        if plan is None:
            piece = _read(self.text, 0, reuse, whole=True)
            self._pieces = [piece]
            self.documents = piece.documents
            root = piece.root
        else:
            root = self._stitch(plan, reuse)
            self.documents = 1
        for piece in self._pieces:
            self.errors.extend(piece.errors)
            self.comments.extend(piece.comments)
        self._resolve()
        self.errors.sort(key=lambda e: (e.start, e.end))
        return root

    def _stitch(self, plan: list[tuple[int, int, list[tuple[int, int]]]], reuse: dict[str, list[_Piece]]) -> YamlNode:
        """The root mapping from its entries read one by one (those in `plan` with sub-entries are
        read as a header line and one piece per sub-entry)."""
        text = self.text
        root = YamlNode("object", plan[0][0], plan[-1][1])
        root._children = []
        seen: dict[str, Node] = {}
        for start, end, parts in plan:
            if not parts:
                piece = _read(text[start:end], start, reuse)
                self._pieces.append(piece)
                self._adopt(root, piece, seen)
                continue
            header = _read(text[start:parts[0][0]], start, reuse)
            self._pieces.append(header)
            prop = self._adopt(root, header, seen)
            if prop is None or prop.key is None:
                continue
            body = YamlNode("object", parts[0][0], parts[-1][1], None, prop)
            body._children = []
            inner: dict[str, Node] = {}
            for part_start, part_end in parts:
                piece = _read(text[part_start:part_end], part_start, reuse)
                self._pieces.append(piece)
                self._adopt(body, piece, inner)
            body.end = body._children[-1].end if body._children else body.start
            prop._children = [prop.key, body]
            prop.end = body.end
        root.end = root._children[-1].end if root._children else root.start
        return root

    def _adopt(self, mapping: YamlNode, piece: _Piece, seen: dict[str, Node]) -> Node | None:
        """Move the pairs of a piece's root mapping into `mapping`; the last one is returned."""
        node = piece.root
        last = None
        if node is None:
            return None
        if node.type != "object":
            piece.errors.append(ParseError("syntax.yaml-unexpected", node.start, _line_end(self.text, node.start)))
            return None
        for prop in node.children:
            prop.parent = mapping
            mapping._children.append(prop)  # type: ignore[union-attr]
            last = prop
            key = prop.key
            if key is None or getattr(prop, "is_merge", False):
                continue
            if key.value in seen:
                piece.errors.append(ParseError("syntax.yaml-duplicate-key", key.start, key.end, {"key": key.value}))
            seen[key.value] = prop
        if node.merges:
            mapping.merges = (mapping.merges or []) + node.merges
        return last

    def _resolve(self) -> None:
        """Aliases to their anchors (the last one defined before the alias), with the bounds; merge
        keys to the mappings they merge."""
        anchors: dict[str, list[YamlNode]] = {}
        for piece in self._pieces:
            self.anchors.extend(piece.anchors)
        for node in sorted(self.anchors, key=lambda n: n.start):
            anchors.setdefault(node.anchor or "", []).append(node)
        aliases = sorted((a for piece in self._pieces for a in piece.aliases), key=lambda a: a.start)
        budget = MAX_ALIAS_NODES
        sizes: dict[int, int] = {}
        heights: dict[int, int] = {}
        reported = False
        for alias in aliases:
            target = _last_before(anchors.get(alias.name, []), alias.start)
            error = None
            if target is None:
                error = ParseError("syntax.yaml-unknown-alias", alias.start, alias.end, {"name": alias.name})
            elif target.start <= alias.start < target.end:
                error = ParseError("syntax.yaml-recursive-alias", alias.start, alias.end, {"name": alias.name})
                target = None
            else:
                budget -= _size(target, sizes)
                if budget < 0 or _depth(alias) + _height(target, heights) > MAX_DEPTH:
                    if not reported:
                        error = ParseError("syntax.yaml-alias-limit", alias.start, alias.end, {"limit": MAX_ALIAS_NODES})
                    reported = True
                    target = None
            if error is not None:
                self.errors.append(error)
            replacement = target if target is not None else YamlNode("null", alias.start, alias.end, None, alias.parent)
            self.aliases.append((alias.name, alias.start, alias.end, target))
            _replace(alias, replacement)
        for piece in self._pieces:
            for prop in piece.merges:
                value = prop.value_node
                sources = _merge_sources(prop)
                owner = prop.parent
                if value is None or (value.type == "array" and len(sources) != len(value.children)) or \
                        value.type not in ("object", "array"):
                    where = value or prop
                    self.errors.append(ParseError("syntax.yaml-bad-merge", where.start, where.end))
                if isinstance(owner, YamlNode):
                    owner.merges = (owner.merges or []) + sources  # type: ignore[operator]


def _last_before(nodes: list[YamlNode], offset: int) -> YamlNode | None:
    i = bisect.bisect_left([n.start for n in nodes], offset)
    return nodes[i - 1] if i else None


def _size(node: Node, memo: dict[int, int]) -> int:
    """How many nodes `node` stands for with every alias in it expanded (shared nodes once each)."""
    known = memo.get(id(node))
    if known is not None:
        return known
    total = 1 + sum(_size(child, memo) for child in node.children)
    memo[id(node)] = total
    return total


def _height(node: Node, memo: dict[int, int]) -> int:
    known = memo.get(id(node))
    if known is not None:
        return known
    height = 1 + max((_height(child, memo) for child in node.children), default=0) if node.type != "property" \
        else max((_height(child, memo) for child in node.children), default=0)
    memo[id(node)] = height
    return height


def _depth(node: Node) -> int:
    depth = 0
    current = node.parent
    while current is not None:
        if current.type in ("object", "array"):
            depth += 1
        current = current.parent
    return depth


def _replace(alias: _Alias, node: Node) -> None:
    parent = alias.parent
    if parent is None:
        return
    children = parent._children or []
    for i, child in enumerate(children):
        if child is alias:
            children[i] = node
            break
    if parent.type == "property" and parent.end < alias.end:
        parent.end = alias.end


def _line_end(text: str, offset: int) -> int:
    end = text.find("\n", offset)
    return len(text) if end < 0 else end


# -- splitting a large file ---------------------------------------------------------------------

def _plan(text: str) -> list[tuple[int, int, list[tuple[int, int]]]] | None:
    """How to read a large text in pieces: its top-level entries (start, end, sub-entries), or
    None to read it whole (a small text, several documents, directives, a root that is no block
    mapping)."""
    if text.count("\n") < SPLIT_LINES or _NOT_SPLITTABLE.search(text):
        return None
    starts = [m.start() for m in re.finditer("^" + _ENTRY_START, text, re.M)]
    if not starts or text[: starts[0]].strip(" \t\r\n") and not _only_comments(text[: starts[0]]):
        return None
    starts[0] = 0
    plan = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        plan.append((start, end, _sub_entries(text, start, end)))
    return plan


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())


_HEADER = re.compile(r"[ \t]*(?:[A-Za-z_][\w.\-]*|\"[^\"\n]*\"|'[^'\n]*'):[ \t]*(?:#[^\n]*)?(?:\r?\n|\r)")


def _sub_entries(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The entries of a long top-level entry `key:` whose value is a block mapping, one piece each."""
    if text.count("\n", start, end) < SPLIT_LINES:
        return []
    header = _HEADER.match(text, text.find("\n", start) + 1 if text[start] == "#" else start)
    if header is None:
        return []
    body = header.end()
    first = re.compile(r"^( +)" + _ENTRY_START, re.M).search(text, body, end)
    if first is None or text[body : first.start()].strip() and not _only_comments(text[body : first.start()]):
        return []
    indent = len(first.group(1))
    starts = [m.start() for m in re.compile("^" + " " * indent + _ENTRY_START, re.M).finditer(text, first.start(), end)]
    return [(s, starts[i + 1] if i + 1 < len(starts) else end) for i, s in enumerate(starts)]


def _read(text: str, start: int, reuse: dict[str, list[_Piece]], whole: bool = False) -> _Piece:
    """One piece: the one read before from the same text (moved), or a fresh parse."""
    if not whole:
        earlier = reuse.get(text)
        if earlier:
            piece = earlier.pop()
            if not piece.aliases and not piece.merges and not piece.anchors:
                piece.shift(start - piece.start)
                return piece
    piece = _Piece(text, start)
    _Builder(piece, whole).run()
    return piece


# -- from tree-sitter's tree to nodes -----------------------------------------------------------

class _Builder:
    """Reads one piece: parses, repairs what tree-sitter could not place, converts to nodes."""

    def __init__(self, piece: _Piece, whole: bool):
        self.piece = piece
        self.whole = whole
        self.text = piece.text
        self.base = piece.start
        self.data = self.text.encode("utf-8", "surrogatepass")
        self.inserted: list[int] = []  # byte offsets (in the repaired bytes) of inserted ':'
        self._marks: list[int] = []  # byte offsets where each non-ASCII character ends
        self._extra: list[int] = []  # the bytes beyond one per character up to there
        self.errored_lines: set[int] = set()
        extra = 0
        for m in _NON_ASCII.finditer(self.text):
            for i, ch in enumerate(m.group()):
                extra += len(ch.encode("utf-8", "surrogatepass")) - 1
                self._marks.append(m.start() + i + 1 + extra)
                self._extra.append(extra)

    def off(self, byte: int) -> int:
        """A byte offset of the repaired bytes → a str offset in the document."""
        if self.inserted:
            byte -= bisect.bisect_left(self.inserted, byte)
        if self._marks:
            i = bisect.bisect_right(self._marks, byte)
            byte -= self._extra[i - 1] if i else 0
        return self.base + byte

    def local(self, offset: int) -> int:
        return offset - self.base

    # -- parse and repair ----------------------------------------------------------------------
    def run(self) -> None:
        parser = _parser()
        data = bytearray(self.data)
        tree = parser.parse(bytes(data))
        for _ in range(MAX_REPAIRS):
            if not tree.root_node.has_error:
                break
            fixed = self._repair(tree.root_node, data)
            if fixed is None:
                break
            data = fixed
            tree = parser.parse(bytes(data))
        self.data = bytes(data)
        self._convert(tree.root_node)

    def _repair(self, root: Any, data: bytearray) -> bytearray | None:
        """Report the first mistake tree-sitter found and return the bytes with it mended (a ':'
        after a key being typed, else its line blanked), or None when nothing is left to mend."""
        node = _first_error(root)
        if node is None:
            return None
        if node.is_missing:
            self._missing(node)
            if node.type in ("]", "}", '"', "'"):
                return self._insert(data, node.start_byte, node.type.encode())
            return self._blank_line(data, data.rfind(b"\n", 0, node.start_byte) + 1)
        key = _lone_scalar(node, data)
        if key is not None:
            self._error("syntax.missing-colon", key.end_byte, key.end_byte)
            return self._insert(data, key.end_byte, b":")
        line_start = self._error_line(node, data)
        self._classify(node, data, line_start)
        return self._blank_line(data, line_start)

    def _insert(self, data: bytearray, at: int, token: bytes) -> bytearray:
        """The bytes with `token` (one byte: ':' or a closing bracket or quote) inserted at `at`;
        offsets map back to the text as if it were not there."""
        fixed = bytearray(data)
        fixed[at:at] = token
        self.inserted = [p + 1 if p >= at else p for p in self.inserted]
        bisect.insort(self.inserted, at)
        return fixed

    def _missing(self, node: Any) -> None:
        """tree-sitter inserted a token that is not there: a closing bracket or quote."""
        opener = {"]": "[", "}": "{", '"': '"', "'": "'"}.get(node.type)
        parent = node.parent
        open_at = parent.start_byte if parent is not None else node.start_byte
        if opener in ("[", "{"):
            code = "syntax.unclosed-array" if opener == "[" else "syntax.unclosed-object"
            self._error(code, open_at, open_at + 1)
        elif opener is not None:
            self._error("syntax.yaml-unclosed-quote", open_at, open_at + 1, quote=opener)
        else:
            self._error("syntax.yaml-unexpected", node.start_byte, node.end_byte)

    def _error_line(self, node: Any, data: bytearray) -> int:
        """The start of the line where the mistake inside ERROR `node` is: a line indented with a
        tab, else the line of its first stray token, or where it ends when it holds only
        well-formed entries (the next line did not fit)."""
        after = data.find(b"\n", node.end_byte + 1)
        tab = _TAB_INDENT.search(bytes(data), node.start_byte, len(data) if after < 0 else after)
        if tab is not None:
            return tab.start()
        for child in node.children:
            if child.type in ("block_mapping_pair", "block_sequence_item", "comment") or child.is_missing:
                continue
            if child.type == "flow_node" and _pair_follows(child):
                continue
            if child.type == ":" and child.prev_sibling is not None and child.prev_sibling.type == "flow_node":
                continue
            return data.rfind(b"\n", 0, child.start_byte) + 1
        end = node.end_byte
        return data.rfind(b"\n", 0, end) + 1 if end < len(data) else data.rfind(b"\n", 0, max(end - 1, 0)) + 1

    def _classify(self, node: Any, data: bytearray, line_start: int) -> None:
        line_end = data.find(b"\n", line_start)
        line_end = len(data) if line_end < 0 else line_end
        line = bytes(data[line_start:line_end])
        content = line.lstrip(b" ")
        first = line_start + len(line) - len(content)
        last = line_start + len(line.rstrip(b" \t\r"))
        if content.startswith(b"\t"):
            self._error("syntax.yaml-tab", line_start, first + 1)
            return
        quote = next((c for c in node.children if c.type in ('"', "'") and line_start <= c.start_byte < line_end), None)
        if quote is not None:
            self._error("syntax.yaml-unclosed-quote", quote.start_byte, quote.end_byte, quote=quote.type)
            return
        bracket = next((c for c in node.children if c.type in ("[", "{") and line_start <= c.start_byte < line_end), None)
        if bracket is not None:
            code = "syntax.unclosed-array" if bracket.type == "[" else "syntax.unclosed-object"
            self._error(code, bracket.start_byte, bracket.end_byte)
            return
        if _odd_indent(data, line_start, first):
            self._error("syntax.yaml-indentation", first, max(last, first + 1))
            return
        self._error("syntax.yaml-unexpected", first, max(last, first + 1))

    def _blank_line(self, data: bytearray, line_start: int) -> bytearray | None:
        end = data.find(b"\n", line_start)
        end = len(data) if end < 0 else end
        if not bytes(data[line_start:end]).strip():
            return None  # nothing left to blank: give up on this piece
        fixed = bytearray(data)
        fixed[line_start:end] = b" " * (end - line_start)
        return fixed

    def _error(self, code: str, start: int, end: int, **args: Any) -> None:
        """Record an error at bytes start..end (of the repaired bytes); one per line: one mistake,
        one error."""
        a, b = self.off(start), self.off(end)
        row = self.text.count("\n", 0, self.local(a))
        if row in self.errored_lines:
            return
        self.errored_lines.add(row)
        self.piece.errors.append(ParseError(code, a, b, args))

    # -- conversion -------------------------------------------------------------------------
    def _convert(self, root: Any) -> None:
        documents = [c for c in root.children if c.type == "document"] if root.type == "stream" else []
        for comment in _comments(root):
            self.piece.comments.append((self.off(comment.start_byte), self.off(comment.end_byte)))
        if root.type == "ERROR" and not documents:
            documents = [root]
        content = [d for d in documents if _document_content(d) is not None]
        if self.whole:
            self.piece.documents = max(len(documents), 1 if content else 0)
            if len(documents) > 1:
                second = documents[1]
                self._error("syntax.yaml-multi-document", second.start_byte,
                            max(second.start_byte + 1, _byte_line_end(self.data, second.start_byte)))
        body = _document_content(documents[0]) if documents else None
        if body is None:
            if self.whole and not self.piece.errors:
                self.piece.errors.append(ParseError("syntax.yaml-empty", self.base, self.base))
            return
        self.piece.root = self._node(body, None, 0, -1)

    def _node(self, cst: Any, parent: Node | None, depth: int, indent: int) -> YamlNode | None:
        """A value from a block_node / flow_node (its anchor and tag, then its content)."""
        anchor = tag = None
        content = None
        for child in cst.children if cst.type in ("block_node", "flow_node") else [cst]:
            kind = child.type
            if kind == "anchor":
                anchor = self.data[child.start_byte + 1 : child.end_byte].decode("utf-8", "replace")
            elif kind == "tag":
                tag = self.data[child.start_byte : child.end_byte].decode("utf-8", "replace")
            elif kind in ("comment",) or child.is_missing:
                continue
            elif kind != "ERROR":
                content = child
        end = self.off(cst.end_byte)
        if content is None:
            node = YamlNode("null", end, end, None, parent)  # `&a` alone, `!!str` alone
            if tag is not None:
                node = self._tagged_empty(tag, end, parent)
        elif content.type == "alias":
            name = self.data[content.start_byte + 1 : content.end_byte].decode("utf-8", "replace")
            node = _Alias("null", self.off(content.start_byte), self.off(content.end_byte), None, parent)
            node.name = name
            self.piece.aliases.append(node)
            return node
        elif content.type in _COLLECTIONS:
            if depth >= MAX_DEPTH:
                self._error("syntax.too-deep", content.start_byte, content.start_byte + 1, limit=MAX_DEPTH)
                node = YamlNode("object" if "mapping" in content.type else "array", self.off(content.start_byte),
                                self.off(content.end_byte), None, parent)
                node._children = []
            elif "mapping" in content.type:
                node = self._mapping(content, parent, depth, indent)
            else:
                node = self._sequence(content, parent, depth, indent)
            if tag is not None and scalars.expand_tag(tag) not in _COLLECTION_TAGS[node.type]:
                self._error("syntax.yaml-unknown-tag", cst.start_byte, content.start_byte, tag=tag)
        else:
            node = self._scalar(content, tag, parent, indent)
        node.anchor = anchor
        node.tag = tag
        if anchor is not None:
            self.piece.anchors.append(node)
        return node

    def _tagged_empty(self, tag: str, at: int, parent: Node | None) -> YamlNode:
        try:
            kind, value = scalars.resolve_tagged(scalars.expand_tag(tag), "", "plain")
        except scalars.ScalarError as e:
            self.piece.errors.append(ParseError(e.code, at, at, e.args_))
            kind, value = "null", None
        return YamlNode(kind, at, at, value, parent)

    def _scalar(self, cst: Any, tag: str | None, parent: Node | None, indent: int) -> YamlNode:
        start, end = self.off(cst.start_byte), self.off(cst.end_byte)
        kind = cst.type
        text = self.text
        raw = text[self.local(start) : self.local(end)]
        try:
            if kind == "plain_scalar":
                value = scalars.plain(raw)
            elif kind == "single_quote_scalar":
                value = scalars.single_quoted(raw)
            elif kind == "double_quote_scalar":
                value = scalars.double_quoted(raw)
            else:
                value = scalars.block(text, self.local(start), indent + 1)
        except scalars.ScalarError as e:
            self.piece.errors.append(ParseError(e.code, start + e.offset, min(end, start + e.offset + 2), e.args_))
            return YamlNode("string", start, end, raw, parent)
        if tag is not None:
            try:
                node_type, resolved = scalars.resolve_tagged(scalars.expand_tag(tag), value,
                                                             "plain" if kind == "plain_scalar" else "quoted")
            except scalars.ScalarError as e:
                self.piece.errors.append(ParseError(e.code, start, end, e.args_))
                node_type, resolved = "string", value
        elif kind == "plain_scalar":
            node_type, resolved = scalars.resolve_plain(value)
        else:
            node_type, resolved = "string", value
        return YamlNode(node_type, start, end, resolved, parent)

    def _mapping(self, cst: Any, parent: Node | None, depth: int, indent: int) -> YamlNode:
        node = YamlNode("object", self.off(cst.start_byte), self.off(cst.end_byte), None, parent)
        node._children = []
        block = cst.type == "block_mapping"
        own_indent = self._column(cst.start_byte) if block else indent
        seen: dict[str, Node] = {}
        for child in cst.children:
            if child.type in ("block_mapping_pair", "flow_pair"):
                prop = self._pair(child, node, depth, own_indent)
            elif child.type == "flow_node":  # `{a, b: 1}`: a key without a value
                prop = self._lone_key(child, node, depth, own_indent)
            else:
                continue
            if prop is None:
                continue
            node._children.append(prop)
            key = prop.key
            if key is None or prop.is_merge:
                continue
            if key.value in seen:
                self.piece.errors.append(ParseError("syntax.yaml-duplicate-key", key.start, key.end, {"key": key.value}))
            seen[key.value] = prop
        if node._children:
            node.end = max(node.end, node._children[-1].end) if not block else node._children[-1].end
        return node

    def _column(self, byte: int) -> int:
        line_start = self.data.rfind(b"\n", 0, byte) + 1
        return self.off(byte) - self.off(line_start)

    def _pair(self, cst: Any, mapping: YamlNode, depth: int, indent: int) -> YamlNode | None:
        key_cst = cst.child_by_field_name("key")
        value_cst = cst.child_by_field_name("value")
        prop = YamlNode("property", self.off(cst.start_byte), self.off(cst.end_byte), None, mapping)
        prop._children = []
        colon = next((c for c in cst.children if c.type == ":"), None)
        if colon is not None and colon.start_byte not in self.inserted:
            prop.colon = self.off(colon.start_byte)
        key = self._key(key_cst, prop, depth, indent) if key_cst is not None else \
            YamlNode("string", prop.start, prop.start, "null", prop)  # `: value`: js-yaml's key is null
        prop._children.append(key)
        prop.is_merge = key_cst is not None and key.tag is None and key_cst.type == "flow_node" \
            and key.value == "<<" and _is_plain(key_cst)
        if value_cst is not None:
            value = self._node(value_cst, prop, depth + 1, indent)
        else:
            at = prop.colon + 1 if prop.colon >= 0 else key.end
            value = YamlNode("null", at, at, None, prop)  # `key:` is null
            prop.end = max(prop.end, key.end)
        if value is not None:
            prop._children.append(value)
        if prop.is_merge:
            self.piece.merges.append(prop)
        if prop.colon < 0 and not any(c.type == "?" for c in cst.children):
            prop.end = key.end  # a key being typed, with no ':' yet: no value either
            prop._children = [key]
        return prop

    def _lone_key(self, cst: Any, mapping: YamlNode, depth: int, indent: int) -> YamlNode:
        prop = YamlNode("property", self.off(cst.start_byte), self.off(cst.end_byte), None, mapping)
        key = self._key(cst, prop, depth, indent)
        prop._children = [key, YamlNode("null", key.end, key.end, None, prop)]
        prop.colon = key.end  # a flow key with no ':' has the value null, as if `k:` were written
        return prop

    def _key(self, cst: Any, prop: YamlNode, depth: int, indent: int) -> YamlNode:
        """A key as js-yaml stores it: String(value) ([a, b] → "a,b"); positions of the key."""
        node = self._node(cst, prop, depth + 1, indent)
        if node is None:
            return YamlNode("string", prop.start, prop.start, "", prop)
        if isinstance(node, _Alias):
            self.piece.aliases.remove(node)
            key = YamlNode("string", node.start, node.end, "*" + node.name, prop)
            self._error("syntax.yaml-alias-key", cst.start_byte, cst.end_byte)
            return key
        if node.type != "string":
            if node.type == "array" and any(c.type == "array" for c in node.children):
                self._error("syntax.yaml-complex-key", cst.start_byte, cst.end_byte)
            key = YamlNode("string", node.start, node.end, scalars.js_string(node.value), prop)
            key.anchor, key.tag = node.anchor, node.tag
            return key
        return node

    def _sequence(self, cst: Any, parent: Node | None, depth: int, indent: int) -> YamlNode:
        node = YamlNode("array", self.off(cst.start_byte), self.off(cst.end_byte), None, parent)
        node._children = []
        block = cst.type == "block_sequence"
        own_indent = self._column(cst.start_byte) if block else indent
        for child in cst.children:
            if child.type == "block_sequence_item":
                value_cst = next((c for c in child.children if c.type in ("block_node", "flow_node")), None)
                if value_cst is None:  # `- ` alone: null
                    at = self.off(child.start_byte) + 1
                    item: YamlNode | None = YamlNode("null", at, at, None, node)
                else:
                    item = self._node(value_cst, node, depth + 1, own_indent)
            elif child.type == "flow_node":
                item = self._node(child, node, depth + 1, own_indent)
            elif child.type == "flow_pair":  # `[a: 1]`: a mapping of one pair
                item = YamlNode("object", self.off(child.start_byte), self.off(child.end_byte), None, node)
                item._children = []
                prop = self._pair(child, item, depth + 1, own_indent)
                if prop is not None:
                    item._children.append(prop)
            else:
                continue
            if item is not None:
                node._children.append(item)
        return node


def _first_error(node: Any) -> Any:
    """The first ERROR or MISSING node in document order."""
    while True:
        if node.is_error or node.is_missing:
            return node
        for child in node.children:
            if child.has_error or child.is_missing:
                node = child
                break
        else:
            return None


def _lone_scalar(node: Any, data: bytearray) -> Any:
    """In an ERROR node, a plain scalar alone on its line: a key being typed with no ':' yet."""
    for child in node.children:
        if child.type != "flow_node" or child.child_count != 1 or child.children[0].type != "plain_scalar":
            continue
        start, end = child.start_byte, child.end_byte
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", end)
        line_end = len(data) if line_end < 0 else line_end
        if bytes(data[line_start:start]).strip(b" ") or bytes(data[end:line_end]).strip(b" \r\t") or b"\n" in data[start:end]:
            continue
        return child
    return None


def _pair_follows(flow_node: Any) -> bool:
    sibling = flow_node.next_sibling
    return sibling is not None and sibling.type == ":"


def _odd_indent(data: bytearray, line_start: int, first: int) -> bool:
    """Whether this line's indentation matches no line above it (a usual mistake)."""
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


def _byte_line_end(data: bytes, byte: int) -> int:
    end = data.find(b"\n", byte)
    return len(data) if end < 0 else end


def _comments(root: Any) -> Iterator[Any]:
    """Every comment node (tree-sitter keeps them as extras anywhere in the tree)."""
    cursor = root.walk()
    while True:
        node = cursor.node
        if node.type == "comment":
            yield node
        if node.type not in _SCALARS and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _document_content(document: Any) -> Any:
    for child in document.children:
        if child.type in ("block_node", "flow_node"):
            return child
    return None


def _is_plain(flow_node: Any) -> bool:
    return any(c.type == "plain_scalar" for c in flow_node.children)


def parse(text: str) -> Document:
    return Document(text)
