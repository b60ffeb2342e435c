"""The nodes of a YAML job file: jsonc's `Node`, plus what YAML adds (anchors, tags, merge keys),
and the `Piece`, a part of the text read on its own (see `yaml.tree`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..jsonc import Node, ParseError


class Base:
    """Where a piece of the text starts: its nodes keep offsets relative to it, so moving a piece
    after an edit is one addition, whatever its size."""

    __slots__ = ("offset",)

    def __init__(self, offset: int):
        self.offset = offset


ZERO = Base(0)  # for the nodes no piece owns (a stitched mapping, the null an alias became)


class YamlNode(Node):
    """A jsonc `Node` that knows its YAML anchor and tag and, for a mapping with merge keys, the
    mappings merged into it: `get` and `value` see merged keys as js-yaml does (the mapping's own
    keys win, then the first merged mapping that has the key); `properties` yields the mapping's
    own pairs, `<<` left out; `children` holds every pair, `<<` included. `start`, `end` and
    `colon` are the document's offsets, kept relative to the node's piece (`Base`)."""

    __slots__ = ("anchor", "tag", "merges", "is_merge", "_s", "_e", "_c", "_base")

    def __init__(self, type_: str, start: int, end: int, value: Any = None, parent: Node | None = None,
                 base: Base = ZERO):
        # Node.__init__, inlined: a 3,000-role file makes some 100,000 of these.
        self.type = type_
        self._base = base
        self._s = start - base.offset
        self._e = end - base.offset
        self._c = -1
        self._value = value
        self._children = [] if type_ in ("object", "array", "property") else _LEAF
        self.parent = parent
        self._lazy = None
        self.strict = False
        self.cache = None
        self.anchor: str | None = None
        self.tag: str | None = None
        self.merges: list[Node] | None = None
        self.is_merge = False  # a `<<` pair

    @property  # type: ignore[override]
    def start(self) -> int:
        return self._s + self._base.offset

    @start.setter
    def start(self, value: int) -> None:
        self._s = value - self._base.offset

    @property  # type: ignore[override]
    def end(self) -> int:
        return self._e + self._base.offset

    @end.setter
    def end(self, value: int) -> None:
        self._e = value - self._base.offset

    @property  # type: ignore[override]
    def colon(self) -> int:
        """Offset of the ':' of a pair; -1 when there is none (a key being typed)."""
        return self._c + self._base.offset if self._c >= 0 else -1

    @colon.setter
    def colon(self, value: int) -> None:
        self._c = value - self._base.offset if value >= 0 else -1

    def properties(self) -> Iterator[Node]:
        if self.type == "object":
            for prop in self._children:  # type: ignore[union-attr]
                if not getattr(prop, "is_merge", False):
                    yield prop

    def get(self, key: str) -> Node | None:
        prop = self.get_property(key)
        return prop.value_node if prop is not None else None

    def get_property(self, key: str) -> Node | None:
        found = None
        if self.type == "object":
            for prop in reversed(self._children):  # type: ignore[arg-type]  # the last pair of a repeated key wins
                pair = prop._children  # a pair's: [key] or [key, value]; a scalar key's value is its `_value`
                if pair and pair[0]._value == key and not getattr(prop, "is_merge", False):
                    found = prop
                    break
        if found is None and self.merges:
            for source in self.merges:
                found = source.get_property(key)
                if found is not None:
                    break
        return found

    @property
    def value(self) -> Any:
        kind = self.type
        if kind == "object":
            if self._value is None:
                out: dict[str, Any] = {}
                for prop in self._children:  # type: ignore[union-attr]
                    if getattr(prop, "is_merge", False):
                        for source in merge_sources(prop):
                            for key, value in source.value.items():
                                out.setdefault(key, value)
                    elif len(prop._children) > 1:
                        out[prop._children[0]._value] = prop._children[1].value
                self._value = out
            return self._value
        if kind == "array":
            if self._value is None:
                self._value = [c.value for c in self._children]  # type: ignore[union-attr]
            return self._value
        if kind == "property":
            children = self._children
            return children[1].value if children and len(children) > 1 else None
        return self._value


_LEAF: list[Node] = []  # the children of every scalar (never appended to)


def merge_sources(prop: Node) -> list[Node]:
    """The mappings a `<<` pair merges: its value, or the mappings in its list."""
    value = prop.value_node
    if value is None:
        return []
    if value.type == "object":
        return [value]
    return [item for item in value.children if item.type == "object"] if value.type == "array" else []


class Alias(YamlNode):
    """Where an alias (`*name`) stands until it is resolved; then its anchor's node takes its place."""

    __slots__ = ("name",)


class Piece:
    """One part of the text parsed on its own: its root node, errors, comments and what the
    resolution of aliases and merges needs. Offsets are the document's; `shift` moves them all
    when an edit before the piece changed the length of the text."""

    __slots__ = ("text", "base", "root", "errors", "comments", "anchors", "aliases", "merges", "documents", "spliced")

    def __init__(self, text: str, start: int):
        self.text = text
        self.base = Base(start)
        self.root: YamlNode | None = None
        self.errors: list[ParseError] = []
        self.comments: list[tuple[int, int]] = []
        self.anchors: list[YamlNode] = []
        self.aliases: list[Alias] = []
        self.merges: list[YamlNode] = []  # the `<<` pairs
        self.documents = 1
        self.spliced = False  # a `key:` line whose value the entries read after it became

    @property
    def reusable(self) -> bool:
        """Whether the piece stands alone (no anchor, alias or merge ties it to others; not a `key:`
        line holding the entries read after it, which an edit may change), so that an edit
        elsewhere can keep it."""
        return not (self.anchors or self.aliases or self.merges or self.spliced)

    @property
    def start(self) -> int:
        return self.base.offset

    def shift(self, delta: int) -> None:
        """Move the piece (its nodes follow their `Base`) by `delta` characters."""
        if not delta:
            return
        self.base.offset += delta
        for error in self.errors:
            error.start += delta
            error.end += delta
        self.comments = [(a + delta, b + delta) for a, b in self.comments]
