"""YAML as the real v2 server reads it: js-yaml 3.13's `safeLoad` (YAML 1.2 core types plus timestamps
and merge keys), not PyYAML's YAML 1.1. So `yes`, `on` and `off` stay strings, `1e3` is a number,
`0o17` is a string, `1_000` and `0x1F` are integers, a duplicated key is an error, and an anchor may
be defined again (the later one counts).

Where js-yaml has no bound this loader has three, so that a small text cannot become a huge or
endless value (everything that later walks the value, validation and JSON included, would hang):
nesting deeper than `MAX_DEPTH` levels (counted through aliases), aliases that add more than
`MAX_ALIAS_EXPANSION` (characters of scalars plus one per node) beyond what the text holds, and an
alias inside the very node it names (js-yaml builds a circular value; no job config is one). Each
is a `LimitError`, a `yaml.YAMLError` with the line and column where it was found.

`load(text)` is the whole API. The text's own size is the caller's to bound (the local cluster's
body limit, the editor's document limit): what is written out is parsed, what aliases repeat is not
free.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent, MappingStartEvent, SequenceStartEvent
from yaml.nodes import MappingNode, Node

from ..jsonc import MAX_DEPTH  # one nesting limit for job configs, JSON or YAML

# What aliases may add beyond the text: a job config repeats a role or a block of environment a few
# times; "nine levels of nine aliases" (the billion laughs) asks for 9^9 nodes.
MAX_ALIAS_EXPANSION = 1_000_000

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
# js-yaml 3's resolveYamlInteger: binary, hexadecimal, octal (a leading 0), decimal with '_', base 60.
_INT = re.compile(r"""^[-+]?(?:
      0b[01_]*[01][01_]*
    | 0x[0-9a-fA-F_]*[0-9a-fA-F][0-9a-fA-F_]*
    | 0[0-7_]*
    | [1-9][0-9_]*(?::[0-5]?[0-9])*
    )(?<!_)$""", re.X)
_FLOAT = re.compile(r"""^(?:[-+]?(?:0|[1-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?
    |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))(?<!_)$""", re.X)
_TIMESTAMP = re.compile(r"""^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}
    |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)$""", re.X)


class LimitError(yaml.MarkedYAMLError):
    """The text is YAML, but its value would be too deep, too large or circular."""


class JsYamlLoader(yaml.SafeLoader):
    """PyYAML's safe loader with js-yaml 3's implicit types, anchors and refusal of duplicated keys,
    and the bounds above, checked while the text is composed (before any value is built)."""

    yaml_implicit_resolvers: dict = {}

    def __init__(self, stream: str, max_depth: int = MAX_DEPTH, max_alias_expansion: int = MAX_ALIAS_EXPANSION):
        super().__init__(stream)
        self.max_depth, self.max_alias_expansion = max_depth, max_alias_expansion
        self._open: list[list[int]] = []  # per collection being composed: [its size so far, its deepest child's depth]
        self._expanded = 0  # what the aliases met so far add
        self._anchored: dict[int, tuple[int, int]] = {}  # id(anchored node) -> (size, depth) once it is complete

    def compose_node(self, parent: Node | None, index: object) -> Node:
        """PyYAML's, measuring each node as its value will be (size: characters of scalars plus one per
        node; depth: levels of collections), aliases expanded, in memory that grows with the nesting and
        the anchors only."""
        if self.check_event(AliasEvent):
            event = self.peek_event()
            node = self.anchors.get(event.anchor)
            if node is not None:
                measure = self._anchored.get(id(node))
                if measure is None:
                    raise LimitError(None, None, f"alias *{event.anchor} is inside the node it names: the value would "
                                     "be circular", event.start_mark)
                self._expanded += measure[0]
                if self._expanded > self.max_alias_expansion:
                    raise LimitError(None, None, f"aliases expand to more than {self.max_alias_expansion:,} characters "
                                     "and nodes beyond the text", event.start_mark)
                self._check_depth(len(self._open) + measure[1], event)
                self._add(measure)
            return super().compose_node(parent, index)  # an undefined alias: PyYAML's own error
        event = self.peek_event()
        collection = isinstance(event, (SequenceStartEvent, MappingStartEvent))
        if collection:
            self._check_depth(len(self._open) + 1, event)
            self._open.append([1, 0])
        if event.anchor is not None:
            self.anchors.pop(event.anchor, None)  # js-yaml: an anchor defined again names the new node
        try:
            node = super().compose_node(parent, index)
        finally:
            mine = self._open.pop() if collection else None
        measure = (mine[0], mine[1] + 1) if mine else (len(node.value) + 1, 0)
        if event.anchor is not None:
            self._anchored[id(node)] = measure
        self._add(measure)
        return node

    def _add(self, measure: tuple[int, int]) -> None:
        """Count a complete child (or an alias) into the collection around it."""
        if self._open:
            around = self._open[-1]
            around[0] += measure[0]
            around[1] = max(around[1], measure[1])

    def _check_depth(self, depth: int, event: yaml.Event) -> None:
        if depth > self.max_depth:
            raise LimitError(None, None, f"nested more than {self.max_depth} levels deep", event.start_mark)

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict:
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:
                continue  # an unhashable key: the base class reports it
            if duplicate:
                raise ConstructorError("while constructing a mapping", node.start_mark, "duplicated mapping key",
                                       key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _int(loader: JsYamlLoader, node: yaml.ScalarNode) -> int:
    text = loader.construct_scalar(node).replace("_", "")
    sign = -1 if text.startswith("-") else 1
    text = text.lstrip("+-")
    if text.startswith("0b"):
        return sign * int(text[2:], 2)
    if text.startswith("0x"):
        return sign * int(text[2:], 16)
    if text.startswith("0") and len(text) > 1:
        return sign * int(text, 8)
    if ":" in text:
        value = 0
        for part in text.split(":"):
            value = value * 60 + int(part)
        return sign * value
    return sign * int(text)


def _float(loader: JsYamlLoader, node: yaml.ScalarNode) -> float:
    text = loader.construct_scalar(node).replace("_", "").lower()
    sign = -1.0 if text.startswith("-") else 1.0
    if text.lstrip("+-") == ".inf":
        return sign * math.inf
    if text == ".nan":
        return math.nan
    if ":" in text:
        value = 0.0
        for part in text.lstrip("+-").split(":"):
            value = value * 60 + float(part)
        return sign * value
    return float(text)


def _bool(loader: JsYamlLoader, node: yaml.ScalarNode) -> bool:
    return loader.construct_scalar(node).lower() == "true"


for tag, pattern, first in (
    ("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", _BOOL, list("tTfF")),
    ("tag:yaml.org,2002:int", _INT, list("-+0123456789")),
    ("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789")),
    ("tag:yaml.org,2002:timestamp", _TIMESTAMP, list("0123456789")),
    ("tag:yaml.org,2002:merge", re.compile(r"^<<$"), ["<"]),
):
    JsYamlLoader.add_implicit_resolver(tag, pattern, first)
JsYamlLoader.add_constructor("tag:yaml.org,2002:int", _int)
JsYamlLoader.add_constructor("tag:yaml.org,2002:float", _float)
JsYamlLoader.add_constructor("tag:yaml.org,2002:bool", _bool)


def load(text: str, max_depth: int = MAX_DEPTH, max_alias_expansion: int = MAX_ALIAS_EXPANSION) -> Any:
    """One YAML document as js-yaml 3's safeLoad reads it; yaml.YAMLError when it cannot (LimitError
    past the bounds)."""
    loader = JsYamlLoader(text, max_depth, max_alias_expansion)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
