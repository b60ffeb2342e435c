"""One piece of YAML text → nodes: tree-sitter-yaml parses it (mended by `yaml.repair` where it
could not), and its concrete syntax tree becomes `YamlNode`s with str offsets and js-yaml's values
(`yaml.scalars`). Aliases stay `Alias` placeholders here: `yaml.tree` resolves them across pieces.
"""

from __future__ import annotations

import bisect
import re
import threading
from functools import lru_cache
from typing import Any

from ..jsonc import Node, ParseError
from . import scalars
from .nodes import Alias, Piece, YamlNode
from .repair import Mend, first_error, repair

MAX_DEPTH = 64  # as jsonc: everything that walks the tree recurses
MAX_REPAIRS = 24  # mistakes named and mended per piece; past that, the rest of the piece is left out
MEND_BUDGET = 60  # the mends of a piece may parse 60 times its size (trying mends, finding the bad line)
MAX_MENDED_LINES = 30_000  # past that a piece is not mended: tree-sitter-yaml reads 32,768 lines at most

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
# Tags js-yaml's safe schema takes on a mapping / a sequence.
_COLLECTION_TAGS = {"object": {"!", scalars.CORE + "map", scalars.CORE + "set"},
                    "array": {"!", scalars.CORE + "seq", scalars.CORE + "omap", scalars.CORE + "pairs"}}
_WRAPPERS = ("flow_node", "block_node")


@lru_cache(maxsize=1)
def _grammar() -> tuple[Any, dict[int, str]]:
    """YAML's tree-sitter language, and the name of each node kind by its id: `kinds[node.kind_id]`
    is the same string as `node.type` without building it anew (asked of every node)."""
    import tree_sitter  # imported on first use, as jsonschema is
    import tree_sitter_yaml

    language = tree_sitter.Language(tree_sitter_yaml.language())
    kinds = {i: language.node_kind_for_id(i) or "" for i in range(language.node_kind_count)}
    kinds[0xFFFF] = "ERROR"  # tree-sitter's error symbol, outside the grammar's ids
    return language, kinds


_local = threading.local()


def _parser() -> Any:
    """This thread's parser: a tree-sitter parser must not parse in two threads at once."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter

        parser = _local.parser = tree_sitter.Parser(_grammar()[0])
    return parser


def read_piece(text: str, start: int, whole: bool) -> Piece:
    """Parse `text` (at offset `start` of the document). `whole`: it is the whole document, so an
    empty one or a second document is an error here."""
    piece = Piece(text, start)
    _Builder(piece, whole).run()
    return piece


class _Builder:
    def __init__(self, piece: Piece, whole: bool):
        self.piece = piece
        self.whole = whole
        self.text = piece.text
        self.base = piece.start
        self.data = self.text.encode("utf-8", "surrogatepass")
        self.inserted: list[int] = []  # offsets (in the mended bytes) of the bytes `repair` inserted
        self.mends: list[tuple[int, int, int]] = []  # (start, end, shift): mended bytes → the text's, newest last
        self.error_rows: set[int] = set()
        # byte → str: where each non-ASCII character ends (in bytes), and the extra bytes up to there
        self.marks: list[int] = []
        self.extra: list[int] = []
        extra = 0
        if not self.text.isascii():
            for m in _NON_ASCII.finditer(self.text):
                for i, ch in enumerate(m.group()):
                    extra += len(ch.encode("utf-8", "surrogatepass")) - 1
                    self.marks.append(m.start() + i + 1 + extra)
                    self.extra.append(extra)
        self.off = self._plain_off if not self.marks else self._off
        self.kinds = _grammar()[1]

    def _plain_off(self, byte: int) -> int:
        for start, end, shift in reversed(self.mends):
            if start <= byte <= end:
                byte += shift
        return self.base + byte

    def _off(self, byte: int) -> int:
        """A byte offset of the (mended) bytes → a str offset in the document."""
        for start, end, shift in reversed(self.mends):
            if start <= byte <= end:
                byte += shift
        i = bisect.bisect_right(self.marks, byte)
        return self.base + byte - (self.extra[i - 1] if i else 0)

    # -- parse and mend ----------------------------------------------------------------------
    def run(self) -> None:
        parser = _parser()
        data = bytearray(self.data)
        root = parser.parse(self.data).root_node
        budget = [MEND_BUDGET * (len(data) + 1024)]  # bytes the mends may parse: a broken file costs a few parses

        def parse(text: bytes) -> Any:
            budget[0] -= len(text)
            return parser.parse(text).root_node

        for _ in range(MAX_REPAIRS if self.data.count(b"\n") < MAX_MENDED_LINES else 0):
            if not root.has_error or budget[0] < 0:
                break
            mended = repair(root, data, self._error, self._mend, parse)
            if mended is None:
                break
            data, root = mended
        if root.has_error:  # left as it is: tree-sitter's ERROR nodes are skipped, said once
            rest = first_error(root) or root  # an error tree-sitter flags on no node of its own: the piece
            self._error("syntax.yaml-unexpected", rest.start_byte, max(rest.start_byte + 1, min(rest.end_byte, len(data))))
        self._convert(root)

    def _mend(self, _data: bytearray, mend: Mend) -> bytearray:
        """Apply a mend `repair` chose, remembering how its bytes map back to the text's."""
        fixed, shifts, inserted = mend
        if inserted:  # one run of inserted bytes: what was inserted before, past it, moves on
            self.inserted = sorted([p + len(inserted) if p >= inserted[0] else p for p in self.inserted] + inserted)
        self.mends.extend(shifts)
        return fixed

    def _error(self, code: str, start: int, end: int, **args: Any) -> None:
        """An error at bytes start..end; one per line (one mistake, one error)."""
        a, b = self.off(start), self.off(end)
        row = self.text.count("\n", 0, a - self.base)
        if row not in self.error_rows:
            self.error_rows.add(row)
            self.piece.errors.append(ParseError(code, a, b, args))

    # -- conversion ----------------------------------------------------------------------------
    def _convert(self, root: Any) -> None:
        if not self.mends and not self.marks:
            self.off = self.base.__add__  # the usual case, called for every node: no Python frame
        kinds = self.kinds
        documents = [c for c in root.children if c.type == "document"] if kinds[root.kind_id] == "stream" else [root]
        body = None
        for i, document in enumerate(documents):
            for child in document.children:
                kind = kinds[child.kind_id]
                if kind == "comment":
                    self._comment(child)
                elif i == 0 and kind in _WRAPPERS:
                    body = child
        if kinds[root.kind_id] == "stream":
            for child in root.children:
                if kinds[child.kind_id] == "comment":
                    self._comment(child)
        if self.whole:
            self.piece.documents = len(documents) if documents and (body is not None or len(documents) > 1) else 0
            if len(documents) > 1:
                second = documents[1].start_byte
                end = self.data.find(b"\n", second)
                self._error("syntax.yaml-multi-document", second, max(second + 1, len(self.data) if end < 0 else end))
        if body is None:
            if self.whole and not self.piece.errors:
                self.piece.errors.append(ParseError("syntax.yaml-empty", self.base, self.base))
            return
        self.piece.root = self._node(body, None, 0, -1)

    def _comment(self, cst: Any) -> None:
        self.piece.comments.append((self.off(cst.start_byte), self.off(cst.end_byte)))

    def _node(self, cst: Any, parent: Node | None, depth: int, indent: int) -> YamlNode:
        """The value of a flow_node / block_node: its anchor and tag, then its content."""
        kinds = self.kinds
        anchor = tag = content = None
        children = cst.children
        if len(children) == 1:
            content = children[0]
        else:
            for child in children:
                kind = kinds[child.kind_id]
                if kind == "anchor":
                    anchor = self.data[child.start_byte + 1 : child.end_byte].decode("utf-8", "replace")
                elif kind == "tag":
                    tag = self.data[child.start_byte : child.end_byte].decode("utf-8", "replace")
                elif kind == "comment":
                    self._comment(child)
                elif kind != "ERROR" and not child.is_missing:
                    content = child
        if content is None:  # `&a` or `!!str` alone
            end = self.off(cst.end_byte)
            node = self._tagged_empty(tag, end, parent) if tag is not None else YamlNode("null", end, end, None, parent, self.piece.base)
        else:
            kind = kinds[content.kind_id]
            if kind == "plain_scalar" and tag is None:
                start, end = self.off(content.start_byte), self.off(content.end_byte)
                node_type, value = scalars.resolve_plain(scalars.plain(self.text[start - self.base : end - self.base]))
                node = YamlNode(node_type, start, end, value, parent, self.piece.base)
            elif kind in ("block_mapping", "flow_mapping", "block_sequence", "flow_sequence"):
                node = self._collection(content, kind, tag, parent, depth, indent)
            elif kind == "alias":
                alias = Alias("null", self.off(content.start_byte), self.off(content.end_byte), None, parent, self.piece.base)
                alias.name = self.data[content.start_byte + 1 : content.end_byte].decode("utf-8", "replace")
                self.piece.aliases.append(alias)
                return alias
            else:
                node = self._scalar(content, kind, tag, parent, indent)
        if anchor is not None:
            node.anchor = anchor
            self.piece.anchors.append(node)
        node.tag = tag
        return node

    def _collection(self, cst: Any, kind: str, tag: str | None, parent: Node | None, depth: int, indent: int) -> YamlNode:
        mapping = kind.endswith("mapping")
        if depth >= MAX_DEPTH:
            self._error("syntax.too-deep", cst.start_byte, cst.start_byte + 1, limit=MAX_DEPTH)
            node = YamlNode("object" if mapping else "array", self.off(cst.start_byte), self.off(cst.end_byte), None, parent, self.piece.base)
        else:
            if kind[0] == "b":  # a block collection: its indentation is the column it starts at
                line_start = self.data.rfind(b"\n", 0, cst.start_byte) + 1
                indent = self.off(cst.start_byte) - self.off(line_start)
            node = self._mapping(cst, parent, depth, indent) if mapping else self._sequence(cst, parent, depth, indent)
        if tag is not None and scalars.expand_tag(tag) not in _COLLECTION_TAGS[node.type]:
            self._error("syntax.yaml-unknown-tag", cst.start_byte, cst.start_byte + 1, tag=tag)
        return node

    def _tagged_empty(self, tag: str, at: int, parent: Node | None) -> YamlNode:
        try:
            kind, value = scalars.resolve_tagged(scalars.expand_tag(tag), "", "plain")
        except scalars.ScalarError as e:
            self.piece.errors.append(ParseError(e.code, at, at, e.args_))
            kind, value = "null", None
        return YamlNode(kind, at, at, value, parent, self.piece.base)

    def _scalar(self, cst: Any, kind: str, tag: str | None, parent: Node | None, indent: int) -> YamlNode:
        start, end = self.off(cst.start_byte), self.off(cst.end_byte)
        raw = self.text[start - self.base : end - self.base]
        try:
            if kind == "plain_scalar":
                value = scalars.plain(raw)
            elif kind == "single_quote_scalar":
                value = scalars.single_quoted(raw)
            elif kind == "double_quote_scalar":
                value = scalars.double_quoted(raw)
            else:  # block_scalar: js-yaml's indentation is the enclosing collection's + 1
                value = scalars.block(self.text, start - self.base, indent + 1)
                end = start + len(raw.rstrip(" \t\r\n"))  # tree-sitter's range runs past the last line
        except scalars.ScalarError as e:
            self.piece.errors.append(ParseError(e.code, start + e.offset, min(end, start + e.offset + 2), e.args_))
            return YamlNode("string", start, end, raw, parent, self.piece.base)
        if tag is None:
            return YamlNode("string", start, end, value, parent, self.piece.base)
        try:
            node_type, resolved = scalars.resolve_tagged(scalars.expand_tag(tag), value,
                                                         "plain" if kind == "plain_scalar" else "quoted")
        except scalars.ScalarError as e:
            self.piece.errors.append(ParseError(e.code, start, end, e.args_))
            node_type, resolved = "string", value
        return YamlNode(node_type, start, end, resolved, parent, self.piece.base)

    def _mapping(self, cst: Any, parent: Node | None, depth: int, indent: int) -> YamlNode:
        kinds = self.kinds
        node = YamlNode("object", self.off(cst.start_byte), self.off(cst.end_byte), None, parent, self.piece.base)
        children = node._children
        seen: set[str] = set()
        for child in cst.children:
            kind = kinds[child.kind_id]
            if kind == "block_mapping_pair" or kind == "flow_pair":
                prop = self._pair(child, node, depth, indent)
            elif kind == "flow_node":  # `{a, b: 1}`: a key with no value
                prop = self._lone_key(child, node, depth, indent)
            else:
                if kind == "comment":
                    self._comment(child)
                continue
            children.append(prop)  # type: ignore[union-attr]
            if prop.is_merge:
                continue
            key = prop._children[0]  # type: ignore[index]
            if key._value in seen:
                self.piece.errors.append(ParseError("syntax.yaml-duplicate-key", key.start, key.end, {"key": key._value}))
            seen.add(key._value)
        if children and children[-1].end > node.end:
            node.end = children[-1].end
        return node

    def _pair(self, cst: Any, mapping: YamlNode, depth: int, indent: int) -> YamlNode:
        kinds = self.kinds
        key_cst = value_cst = None
        colon = -1
        explicit = False
        children = cst.children
        if len(children) == 3 and kinds[children[1].kind_id] == ":" and kinds[children[0].kind_id] in _WRAPPERS \
                and kinds[children[2].kind_id] in _WRAPPERS:  # `key: value`, the usual pair
            key_cst, middle, value_cst = children
            colon = middle.start_byte
            children = ()
        for child in children:
            kind = kinds[child.kind_id]
            if kind == ":":
                colon = child.start_byte
            elif kind == "flow_node" or kind == "block_node":
                if colon < 0 and key_cst is None:
                    key_cst = child
                else:
                    value_cst = child
            elif kind == "?":
                explicit = True
            elif kind == "comment":
                self._comment(child)
        prop = YamlNode("property", self.off(cst.start_byte), self.off(cst.end_byte), None, mapping, self.piece.base)
        if colon >= 0 and colon not in self.inserted:
            prop.colon = self.off(colon)
        if key_cst is not None:
            key = self._key(key_cst, prop, depth, indent)
        else:  # `: value`: js-yaml's key is null, String(null)
            key = YamlNode("string", prop.start, prop.start, "null", prop, self.piece.base)
        pair = prop._children
        pair.append(key)  # type: ignore[union-attr]
        if colon < 0 and not explicit or colon >= 0 and prop.colon < 0:
            prop.end = key.end  # a key being typed, with no ':' yet: no value either
            return prop
        if value_cst is not None:
            value = self._node(value_cst, prop, depth + 1, indent)
        else:  # `key:` is null
            at = prop.colon + 1 if prop.colon >= 0 else key.end
            value = YamlNode("null", at, at, None, prop, self.piece.base)
        pair.append(value)  # type: ignore[union-attr]
        if key_cst is not None and key.tag is None and key._value == "<<" and _is_plain(key_cst):
            prop.is_merge = True
            self.piece.merges.append(prop)
        return prop

    def _lone_key(self, cst: Any, mapping: YamlNode, depth: int, indent: int) -> YamlNode:
        prop = YamlNode("property", self.off(cst.start_byte), self.off(cst.end_byte), None, mapping, self.piece.base)
        key = self._key(cst, prop, depth, indent)
        prop._children = [key, YamlNode("null", key.end, key.end, None, prop, self.piece.base)]
        prop.colon = key.end  # `{a}` is `{a: null}`: as if the ':' were there
        return prop

    def _key(self, cst: Any, prop: YamlNode, depth: int, indent: int) -> YamlNode:
        """A key as js-yaml stores it, String(its value) (`1.0` → "1", `[a, b]` → "a,b"), at the
        key's place."""
        node = self._node(cst, prop, depth + 1, indent)
        if isinstance(node, Alias):
            self.piece.aliases.remove(node)
            self._error("syntax.yaml-alias-key", cst.start_byte, cst.end_byte)
            return YamlNode("string", node.start, node.end, "*" + node.name, prop, self.piece.base)
        if node.type == "string":
            return node
        if node.type == "array" and any(c.type == "array" for c in node.children):
            self._error("syntax.yaml-complex-key", cst.start_byte, cst.end_byte)
        key = YamlNode("string", node.start, node.end, scalars.js_string(node.value), prop, self.piece.base)
        key.anchor, key.tag = node.anchor, node.tag
        return key

    def _sequence(self, cst: Any, parent: Node | None, depth: int, indent: int) -> YamlNode:
        kinds = self.kinds
        node = YamlNode("array", self.off(cst.start_byte), self.off(cst.end_byte), None, parent, self.piece.base)
        items = node._children
        for child in cst.children:
            kind = kinds[child.kind_id]
            if kind == "block_sequence_item":
                value_cst = None
                for part in child.children:
                    if kinds[part.kind_id] in _WRAPPERS:
                        value_cst = part
                    elif kinds[part.kind_id] == "comment":
                        self._comment(part)
                if value_cst is None:  # `- ` alone: null
                    at = self.off(child.start_byte) + 1
                    item = YamlNode("null", at, at, None, node, self.piece.base)
                else:
                    item = self._node(value_cst, node, depth + 1, indent)
            elif kind == "flow_node":
                item = self._node(child, node, depth + 1, indent)
            elif kind == "flow_pair":  # `[a: 1]`: a mapping of one pair
                item = YamlNode("object", self.off(child.start_byte), self.off(child.end_byte), None, node, self.piece.base)
                item._children.append(self._pair(child, item, depth + 1, indent))  # type: ignore[union-attr]
            else:
                if kind == "comment":
                    self._comment(child)
                continue
            items.append(item)  # type: ignore[union-attr]
        return node


def _is_plain(flow_node: Any) -> bool:
    return any(c.type == "plain_scalar" for c in flow_node.children)
