"""Where a cursor stands in a half-typed YAML job file (pai_lsp/core/yaml/context.py): the mapping or
sequence a key, value or item typed there belongs to, by YAML's indentation."""

from __future__ import annotations

import pytest

from pai_lsp.core.yaml.context import context_at
from pai_lsp.core.yaml.tree import parse

JOB = """\
protocolVersion: 2
name: demo
prerequisites:
  - name: img
    type: dockerimage
    uri: ubuntu
taskRoles:
  worker:
    instances: 2
    resourcePerInstance:
      gpu: 1
    commands:
      - echo hi
defaults:
  virtualCluster: default
"""


def at(marker: str, typed: str) -> tuple:
    """The context after typing `typed` on a new line after the line holding `marker`."""
    line_end = JOB.index("\n", JOB.index(marker)) + 1
    text = JOB[:line_end] + typed + "\n" + JOB[line_end:]
    context = context_at(parse(text), line_end + len(typed))
    return context.path, context.kind, context.key, text[context.start:line_end + len(typed)]


@pytest.mark.parametrize("marker, typed, expected", [
    ("instances: 2", "    ", (["taskRoles", "worker"], "key", None, "")),  # a blank line among a role's keys
    ("instances: 2", "    dock", (["taskRoles", "worker"], "key", None, "dock")),  # a key half typed, no colon
    ("gpu: 1", "      c", (["taskRoles", "worker", "resourcePerInstance"], "key", None, "c")),
    ("gpu: 1", "    s", (["taskRoles", "worker"], "key", None, "s")),  # back one level
    ("  worker:", "    ", (["taskRoles", "worker"], "key", None, "")),  # the first key of a block
    ("taskRoles:", "  ", (["taskRoles"], "key", None, "")),  # a new role
    ("virtualCluster: default", "j", ([], "key", None, "j")),  # the top level
    ("instances: 2", "    dockerImage: im", (["taskRoles", "worker"], "value", "dockerImage", "im")),
    ("instances: 2", "    dockerImage: ", (["taskRoles", "worker"], "value", "dockerImage", "")),
    ("echo hi", "      - ", (["taskRoles", "worker", "commands"], "item", None, "")),  # a new item
    ("uri: ubuntu", "    pl", (["prerequisites", 0], "key", None, "pl")),  # a key of a list item's mapping
    ("uri: ubuntu", "  - ", (["prerequisites"], "item", None, "")),
])
def test_the_context_of_a_cursor_follows_the_indentation(marker, typed, expected):
    assert at(marker, typed) == expected


def test_a_first_item_and_a_list_at_its_keys_indentation():
    text = "commands:\n- \n"
    assert context_at(parse(text), len("commands:\n- ")).path == ["commands"]
    text = "taskRoles:\n  w:\n    commands:\n      - \n"
    assert context_at(parse(text), text.index("- ") + 2).path == ["taskRoles", "w", "commands"]
