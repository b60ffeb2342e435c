"""The core's js-yaml 3 loader in-process: the server's types, and the bounds that keep a small hostile text
from becoming a huge, endless or circular value."""

from __future__ import annotations

import tracemalloc

import pytest
import yaml

from pai_lsp.core.yaml import jsyaml


def bomb(levels: int, width: int) -> str:
    lines = ["a0: &a0 [lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_values_as_js_yaml_reads_them():
    doc = jsyaml.load("a: yes\nb: 1e3\nc: 0x1F\nd: 0o17\ne: 1_000\nf: ~\ng: &x [1, 2]\nh: *x\ni: {<<: {k: 1}, j: 2}\n")
    assert doc == {"a": "yes", "b": 1000.0, "c": 31, "d": "0o17", "e": 1000, "f": None, "g": [1, 2], "h": [1, 2],
                   "i": {"k": 1, "j": 2}}
    with pytest.raises(yaml.YAMLError, match="duplicated mapping key"):
        jsyaml.load("a: 1\na: 2\n")


def test_an_anchor_defined_again_names_the_later_node():
    assert jsyaml.load("a: &x 1\nb: *x\nc: &x 2\nd: *x\n") == {"a": 1, "b": 1, "c": 2, "d": 2}


def test_an_alias_inside_the_node_it_names_is_refused():
    with pytest.raises(jsyaml.LimitError, match=r"alias \*a is inside the node it names") as caught:
        jsyaml.load("extras: {a: &a [*a]}\n")
    assert caught.value.problem_mark.line == 0 and caught.value.problem_mark.column == 16
    with pytest.raises(jsyaml.LimitError, match="circular"):
        jsyaml.load("a: &m\n  b: *m\n")


@pytest.mark.timeout(60)  # expanded, it would never end
def test_a_billion_laughs_is_refused_at_once_in_little_memory():
    tracemalloc.start()
    with pytest.raises(jsyaml.LimitError, match="aliases expand to more than 1,000,000"):
        jsyaml.load(bomb(9, 9))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20 << 20
    # Long strings repeated count by their characters, not as one node each.
    with pytest.raises(jsyaml.LimitError):
        jsyaml.load("s: &s " + "x" * 100_000 + "\nl: [" + ", ".join(["*s"] * 11) + "]\n")


def test_aliases_a_job_config_uses_are_fine():
    roles = "r0: &r {instances: 1, commands: [a, b]}\n" + "".join(f"r{i}: *r\n" for i in range(1, 2000))
    assert len(jsyaml.load(roles)) == 2000
    assert jsyaml.load(bomb(4, 9))["a4"][8][8][8][8] == ["lol"]


@pytest.mark.parametrize("text", ["[" * 65 + "]" * 65, "- " * 65 + "x", "[" * 1_000_000,
                                  "a: &a " + "[" * 40 + "]" * 40 + "\nb: " + "[" * 30 + "*a" + "]" * 30])
def test_nesting_past_the_limit_is_refused_without_recursion(text):
    with pytest.raises(jsyaml.LimitError, match="nested more than 64 levels deep"):
        jsyaml.load(text)


def test_nesting_up_to_the_limit_loads():
    value = jsyaml.load("[" * 64 + "]" * 64)
    for _ in range(63):
        (value,) = value
    assert value == []
    assert jsyaml.load("[" * 3 + "]" * 3, max_depth=3) == [[[]]]
    with pytest.raises(jsyaml.LimitError):
        jsyaml.load("[" * 4 + "]" * 4, max_depth=3)
