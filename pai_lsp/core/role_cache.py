"""What each task role contributes to a config's analysis, remembered by the role's source text.

A 10,000-role config changes one role per keystroke; everything the other roles contribute (the
names they define, their schema errors, their diagnostics) is found here again by their text,
whether the document was re-read incrementally or from scratch. Diagnostics are kept relative to
the role's start, so a role that merely moved (text inserted above it) is a hit too.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from .envvars import ConfigNames, RoleNames, role_names
from .model import Diagnostic

# Roles kept: a few documents of 10,000 roles, plus the versions of the roles being edited.
CAPACITY = 40_000


@dataclass(slots=True)
class RoleEntry:
    names: RoleNames
    schema: dict[str, tuple] = field(default_factory=dict)  # dialect -> schema errors, paths relative to the role
    key: tuple | None = None  # (settings, names generation, index) the diagnostics below were made for
    diagnostics: tuple[Diagnostic, ...] = ()  # offsets relative to the role's start


_entries: OrderedDict[str, RoleEntry] = OrderedDict()


def entry(text: str, node: Any) -> RoleEntry:
    """The entry of the role `node` (a `jsonc.Node`), whose source text is `text`."""
    found = _entries.get(text)
    if found is not None:
        _entries.move_to_end(text)
        return found
    found = _entries[text] = RoleEntry(role_names(node.value))
    if len(_entries) > CAPACITY:
        _entries.popitem(last=False)
    return found


_generations: list[tuple[ConfigNames, int]] = []
_next_generation = [0]


def generation(names: ConfigNames) -> int:
    """A number that is the same for equal `names` (among the last few seen): role diagnostics
    made under one generation hold under the other."""
    for seen, number in _generations:
        if seen == names:
            return number
    _next_generation[0] += 1
    _generations.insert(0, (names, _next_generation[0]))
    del _generations[4:]
    return _next_generation[0]
