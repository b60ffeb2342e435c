"""YAML as the real v2 server reads it: js-yaml 3's `safeLoad` (YAML 1.2 core types plus timestamps
and merge keys), not PyYAML's YAML 1.1. So `yes`, `on` and `off` stay strings, `1e3` is a number,
`0o17` is a string, `1_000` and `0x1F` are integers, and a duplicated key is an error."""

from __future__ import annotations

import math
import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode

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


class JsYamlLoader(yaml.SafeLoader):
    """PyYAML's safe loader with js-yaml 3's implicit types and its refusal of duplicated keys."""

    yaml_implicit_resolvers: dict = {}

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


def load(text: str) -> Any:
    """One YAML document as js-yaml 3's safeLoad reads it; yaml.YAMLError when it cannot."""
    return yaml.load(text, Loader=JsYamlLoader)  # noqa: S506 - a SafeLoader subclass
