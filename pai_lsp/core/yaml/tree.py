"""Tolerant YAML parser with exact offsets: a v2 job file (`*.pai.yaml`) as the same `Node` tree
`jsonc` gives for JSON (`Document` with `root`, `errors`, `text`, `edit`), so schema validation,
completion, hover, outline and folding run on it.

Why tree-sitter-yaml (with the `tree-sitter` bindings) and not PyYAML or ruamel.yaml:
- recovery: tree-sitter gives a whole tree with each mistake in an ERROR node, where PyYAML and
  ruamel.yaml stop at the first error; an editor needs the rest of the file while a line is half
  typed. Where tree-sitter's own recovery loses the structure (a key typed at the end of the file,
  a line indented wrongly), `yaml.repair` mends the bytes the parser sees and reports one error
  at that place.
- speed: its C parse is faster than libyaml's `compose` (PyYAML's C loader); with our nodes built
  from its tree in Python, reading a big file costs about what libyaml's `safe_load` costs, several
  times less than PyYAML's pure-Python loader and ruamel.yaml (bench/yaml_parse.py; the figures are
  in docs/benchmarks.md); and `Document.edit` reads again only the piece of a large file
  an edit touched (see below).
- values: no parser reads values as js-yaml 3.13.1 does (the v2 server's reader; tree-sitter's
  scalar kinds are YAML 1.2's, PyYAML's YAML 1.1's), so `yaml.scalars` ports js-yaml's rules, and
  tests compare the values with js-yaml itself (tests/oracle/yaml.js) and with `jsyaml.load`.
Positions are str offsets, as jsonc's (tree-sitter counts UTF-8 bytes; `yaml.cst` converts). Node
types are jsonc's, plus `timestamp` (js-yaml makes a Date of `2001-12-14`: a `datetime` here) and
`binary` (`!!binary`: bytes); mapping keys are strings, as in JavaScript.

A large text is read in pieces: its top-level entries, and a long one whose value is a block
mapping (a big `taskRoles`) entry by entry. tree-sitter-yaml cannot read more than 32,768 lines in
one go (its scanner keeps rows in 16 bits: tree-sitter-grammars/tree-sitter-yaml#49), and an edit
then costs one piece: the others are reused, moved.

Anchors, aliases and merge keys (`<<`) are resolved as js-yaml does: an alias's value IS its
anchor's node (the positions of a value reached through an alias are the anchor's), bounded in
count, size and depth so that a YAML bomb or `&a [*a]` is one error. A second document (`---`)
is one error: the server reads exactly one.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from ..jsonc import Node, ParseError
from ..model import Edit
from . import write as yaml_write
from .cst import MAX_DEPTH, read_piece
from .nodes import Alias, Piece, YamlNode, merge_sources

__all__ = ["Document", "YamlNode", "parse", "MAX_DEPTH", "MAX_ALIAS_NODES", "SPLIT_LINES"]

MAX_ALIAS_NODES = 100_000  # nodes reached through aliases, counted once per use
SPLIT_LINES = 1_000  # a text longer than this is read in pieces

# The first line of an entry of a block mapping (after its indentation): not a comment, a
# sequence item, an explicit key or value, the rest of a flow collection, a directive.
_ENTRY_START = r"(?=[^\s#\-?:\]},|>%@`])"
_TOP_ENTRY = re.compile("^" + _ENTRY_START, re.M)
_NEXT_TOP_ENTRY = re.compile("\n" + _ENTRY_START)  # finds the same lines faster, a literal first
_HEADER = re.compile(r"(?:[A-Za-z_][\w.\-]*|\"[^\"\n]*\"|'[^'\n]*'):[ \t]*(?:#[^\n]*)?\r?\n")
_INDENTED_ENTRY = re.compile(r"^( +)" + _ENTRY_START, re.M)

Plan = list[tuple[int, int, list[tuple[int, int]]]]


class Document:
    """The parse of one YAML text: `root` (None when there is no value), `errors`, `comments`;
    `anchors` (their nodes) and `aliases` ((name, start, end, the node it stands for or None)) for
    go-to-definition and rename; `documents`, how many YAML documents the text holds."""

    def __init__(self, text: str, _reuse: dict[tuple[int, int], Piece] | None = None):
        self.text = text
        self.errors: list[ParseError] = []
        self.comments: list[tuple[int, int]] = []
        self.memo: dict[str, Any] = {}  # what the analysis derived from this parse (dropped with it)
        self.anchors: list[YamlNode] = []
        self.aliases: list[tuple[str, int, int, Node | None]] = []
        self.documents = 1
        self._pieces: list[Piece] = []
        self.root = self._build(_reuse or {})

    def edit(self, start: int, end: int, new: str, text: str | None = None) -> Document:
        """The parse of this text with text[start:end] replaced by `new` (`text`: the result, if
        the caller has it). The pieces of a large text that the edit left alone are reused and
        moved: this parse must not be used after the call."""
        text = self.text[:start] + new + self.text[end:] if text is None else text
        delta = len(text) - len(self.text)
        reuse = {}  # the pieces the edit left alone, by where they are in the new text
        for piece in self._pieces if len(self._pieces) > 1 else ():
            if piece.reusable:
                a, b = piece.start, piece.start + len(piece.text)
                if b <= start:
                    reuse[(a, b)] = piece
                elif a >= end:
                    reuse[(a + delta, b + delta)] = piece
        return Document(text, _reuse=reuse)

    # -- writing YAML (quick fixes: the same methods as jsonc's Document) ------------------------
    @staticmethod
    def literal(value: Any) -> str:
        """`value` as YAML text on one line, read back by js-yaml as the same value."""
        return yaml_write.literal(value)

    def key_text(self, name: str) -> str:
        return yaml_write.literal(name)

    def insert_member(self, obj: Node, key: str, value: Any) -> Edit:
        """`key: value` as the first member of the mapping `obj`, laid out as its members are."""
        return yaml_write.insert_member(self.text, obj, key, value)

    # -- building ------------------------------------------------------------------------
    def _build(self, reuse: dict[tuple[int, int], Piece]) -> YamlNode | None:
        plan = _plan(self.text)
        if plan is None:
            piece = read_piece(self.text, 0, whole=True)
            self._pieces = [piece]
            self.documents = piece.documents
            root = piece.root
        else:
            root = self._stitch(plan, reuse)
        for piece in self._pieces:
            self.errors.extend(piece.errors)
            self.comments.extend(piece.comments)
        self._resolve()
        self.errors.sort(key=lambda e: (e.start, e.end))
        return root

    def _read(self, start: int, end: int, reuse: dict[tuple[int, int], Piece]) -> Piece:
        """The piece text[start:end]: the one an edit left alone (moved), or a fresh parse."""
        piece = reuse.pop((start, end), None)
        if piece is not None:
            piece.shift(start - piece.start)
        else:
            piece = read_piece(self.text[start:end], start, whole=False)
        self._pieces.append(piece)
        return piece

    def _stitch(self, plan: Plan, reuse: dict[tuple[int, int], Piece]) -> YamlNode:
        """The root mapping made of its entries read one by one (an entry with sub-entries is read
        as its `key:` line, then one piece per sub-entry)."""
        root = YamlNode("object", 0, len(self.text))
        keys: set[str] = set()
        for start, end, parts in plan:
            piece = self._read(start, parts[0][0] if parts else end, reuse)
            prop = self._adopt(root, piece, keys)
            if not parts or prop is None or len(prop._children) < 2:  # type: ignore[arg-type]
                continue  # no `key:` above them: the entries below wait until there is one
            value_lines = self.text[self.text.find("\n", prop.start) + 1 : parts[0][0]]
            if prop.start >= parts[0][0] or not _blank_or_comments(value_lines):  # entries indented less than the value above
                first = parts[0][0] + len(self.text[parts[0][0]:parts[0][1]]) - len(self.text[parts[0][0]:parts[0][1]].lstrip())
                self.errors.append(ParseError("syntax.yaml-indentation", first, self.text.find(":", first, parts[0][1]) + 1 or first + 1))
                continue
            body = YamlNode("object", parts[0][0], parts[-1][1], None, prop)
            inner: set[str] = set()
            for part_start, part_end in parts:
                self._adopt(body, self._read(part_start, part_end, reuse), inner)
            if body._children:
                body.start, body.end = body._children[0].start, body._children[-1].end
            prop._children = [prop._children[0], body]  # type: ignore[index]
            prop.end = body.end
        children = root._children
        if children:
            root.start, root.end = children[0].start, children[-1].end
        return root

    def _adopt(self, mapping: YamlNode, piece: Piece, keys: set[str]) -> Node | None:
        """Move the pairs of a piece's root mapping into `mapping`; returns the last one."""
        node = piece.root
        if node is None:
            return None
        if node.type != "object":
            end = self.text.find("\n", node.start)
            end = len(self.text) if end < 0 else end
            if node.type == "string" and node.end <= end:  # a key being typed, with no ':' yet
                prop = YamlNode("property", node.start, node.end, None, mapping)
                prop._children = [node]
                node.parent = prop
                mapping._children.append(prop)  # type: ignore[union-attr]
                self.errors.append(ParseError("syntax.missing-colon", node.end, node.end))
                return prop
            self.errors.append(ParseError("syntax.yaml-unexpected", node.start, end))
            return None
        last = None
        for prop in node.children:
            prop.parent = mapping
            mapping._children.append(prop)  # type: ignore[union-attr]
            last = prop
            if prop.is_merge:  # type: ignore[attr-defined]
                continue
            key = prop._children[0]  # type: ignore[index]
            if key._value in keys:
                self.errors.append(ParseError("syntax.yaml-duplicate-key", key.start, key.end, {"key": key._value}))
            keys.add(key._value)
        return last

    def _resolve(self) -> None:
        """Aliases to their anchors (the last one defined before the alias), within the bounds;
        merge keys to the mappings they merge."""
        for piece in self._pieces:
            self.anchors.extend(piece.anchors)
        aliases = sorted((a for piece in self._pieces for a in piece.aliases), key=lambda a: a.start)
        if aliases:
            self._resolve_aliases(aliases)
        for piece in self._pieces:
            for prop in piece.merges:
                value = prop.value_node
                sources = merge_sources(prop)
                if value is None or value.type not in ("object", "array") or \
                        value.type == "array" and len(sources) != len(value.children):
                    where = value if value is not None else prop
                    self.errors.append(ParseError("syntax.yaml-bad-merge", where.start, max(where.end, where.start + 1)))
                owner = prop.parent
                if isinstance(owner, YamlNode):
                    owner.merges = (owner.merges or []) + sources

    def _resolve_aliases(self, aliases: list[Alias]) -> None:
        by_name: dict[str, list[YamlNode]] = {}
        for node in sorted(self.anchors, key=lambda n: n.start):
            by_name.setdefault(node.anchor or "", []).append(node)
        budget = MAX_ALIAS_NODES
        sizes: dict[int, int] = {}
        heights: dict[int, int] = {}
        over = False
        for alias in aliases:
            candidates = by_name.get(alias.name, [])
            i = bisect.bisect_left([n.start for n in candidates], alias.start)
            target: Node | None = candidates[i - 1] if i else None
            args = {"name": alias.name}
            if target is None:
                self.errors.append(ParseError("syntax.yaml-unknown-alias", alias.start, alias.end, args))
            elif target.start <= alias.start < target.end:
                self.errors.append(ParseError("syntax.yaml-recursive-alias", alias.start, alias.end, args))
                target = None
            else:
                budget -= _size(target, sizes)
                if budget < 0 or _depth(alias) + _height(target, heights) > MAX_DEPTH:
                    if not over:
                        self.errors.append(ParseError("syntax.yaml-alias-limit", alias.start, alias.end,
                                                      {"limit": MAX_ALIAS_NODES}))
                    over = True
                    target = None
            self.aliases.append((alias.name, alias.start, alias.end, target))
            _replace(alias, target if target is not None else YamlNode("null", alias.start, alias.end, None, alias.parent))


def _size(node: Node, memo: dict[int, int]) -> int:
    """How many nodes `node` stands for, aliases in it expanded (a node reached twice counts twice)."""
    known = memo.get(id(node))
    if known is None:
        known = memo[id(node)] = 1 + sum(_size(child, memo) for child in node.children)
    return known


def _height(node: Node, memo: dict[int, int]) -> int:
    """How many collections deep `node` goes, aliases in it expanded."""
    known = memo.get(id(node))
    if known is None:
        below = max((_height(child, memo) for child in node.children), default=0)
        known = memo[id(node)] = below + (node.type in ("object", "array"))
    return known


def _depth(node: Node) -> int:
    depth = 0
    current = node.parent
    while current is not None:
        depth += current.type in ("object", "array")
        current = current.parent
    return depth


def _replace(alias: Alias, node: Node) -> None:
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


# -- reading a large text in pieces -------------------------------------------------------------

def _plan(text: str) -> Plan | None:
    """The pieces of a large text: its top-level entries (start, end, and for a long one whose value
    is a block mapping, its sub-entries), or None to read it whole (a small text, several
    documents, directives, a root that is no block mapping)."""
    if text.count("\n") < SPLIT_LINES or any(marker in text for marker in ("\n---", "\n...", "\n%")) \
            or text.startswith(("---", "...", "%")):
        return None
    first = _TOP_ENTRY.search(text)
    if first is None or not _blank_or_comments(text[: first.start()]):
        return None
    starts = [0] + [m.start() + 1 for m in _NEXT_TOP_ENTRY.finditer(text, first.start())]
    ends = starts[1:] + [len(text)]
    return [(start, end, _sub_entries(text, start, end)) for start, end in zip(starts, ends, strict=True)]


def _blank_or_comments(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())


def _sub_entries(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The entries of a long top-level entry whose value is a block mapping (`key:` on a line of its
    own, then indented entries), or []. A first line that is no `key:` (a key being typed at the
    top level of a big file) still splits what follows: those entries are left out until it is."""
    if text.count("\n", start, end) < SPLIT_LINES:
        return []
    line = _TOP_ENTRY.search(text, start, end)  # after the comments before the first entry
    if line is None:
        return []
    header = _HEADER.match(text, line.start())
    body = header.end() if header is not None else text.find("\n", line.start()) + 1
    first = _INDENTED_ENTRY.search(text, body, end)
    if body == 0 or first is None or not _blank_or_comments(text[body : first.start()]):
        return []
    indent = len(first.group(1))
    for less in range(1, indent):  # the least indentation of an entry below (a regex scan each, in C)
        if re.compile("\n" + " " * less + _ENTRY_START).search(text, first.start() - 1, end) is not None:
            indent = less
            break
    entry = re.compile("\n" + " " * indent + _ENTRY_START)
    starts = [m.start() + 1 for m in entry.finditer(text, first.start() - 1, end)]
    return list(zip(starts, starts[1:] + [end], strict=True))


def parse(text: str) -> Document:
    return Document(text)
