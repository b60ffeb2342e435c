"""What each task role contributes to a config's analysis, remembered by the role's source text.

A 10,000-role config changes one role per keystroke; everything the other roles contribute (the
names they define, their schema errors, their diagnostics) is found here again by their text,
whether the document was re-read incrementally or from scratch. Diagnostics are kept relative to
the role's start, so a role that merely moved (text inserted above it) is a hit too.

An entry is found by its text for as long as a parse holds it (on its role's node), and the most
recently made ones besides, up to a bound in entries and in characters: typing into one role
makes a new text at every keystroke, and keeping each (as long as the line typed into) would grow
the memory with the square of the line's length.
"""

from __future__ import annotations

import weakref
from typing import Any

from .bounded import SizedCache
from .envvars import ConfigNames, RoleNames, role_names
from .model import Diagnostic

# Entries kept besides those a parse holds (an undo, a document closed and opened again).
RECENT_ENTRIES = 1_000
RECENT_CHARS = 1 << 20


class RoleEntry:
    """What the analysis found in one role's text."""

    __slots__ = ("names", "schema", "key", "index", "diagnostics", "__weakref__")

    def __init__(self, names: RoleNames):
        self.names = names
        self.schema: dict[str, tuple] = {}  # dialect -> schema errors, paths relative to the role
        self.key: tuple | None = None  # the `context` (settings, names generation) the diagnostics were made in
        self.index = -1  # and the role's index then
        self.diagnostics: tuple[Diagnostic, ...] = ()  # offsets relative to the role's start


_held: weakref.WeakValueDictionary[str, RoleEntry] = weakref.WeakValueDictionary()  # on a live node
_recent_entries: SizedCache[str, RoleEntry] = SizedCache(RECENT_ENTRIES, RECENT_CHARS)


def entry(text: str, node: Any) -> RoleEntry:
    """The entry of the role `node` (a `jsonc.Node`) of the document text `text`: kept on the
    node while it lives (an edit elsewhere moves it but never changes its text), else found by
    the role's text."""
    found = node.cache
    if found is not None:
        return found
    source = text[node.start : node.end]
    found = _held.get(source)
    if found is None:
        found = _recent_entries.get(source)
        if found is None:
            found = RoleEntry(role_names(node.value))
            _recent_entries.put(source, found, len(source))
        _held[source] = found
    node.cache = found
    return found


# The names of the last few configs: with one role edited, the others' names are the same.
_recent: list[tuple[list[RoleNames], Any, ConfigNames, int]] = []
_generations = [0]


def config_names(roles: list[RoleNames], job_envs: Any) -> tuple[ConfigNames, int]:
    """The names a config defines, from each role's names and its jobEnvs, and a generation
    number that is the same whenever the names are: role diagnostics made under one hold under
    the other."""
    envs = sorted(job_envs) if isinstance(job_envs, dict) else None
    for seen_roles, seen_envs, names, number in _recent:
        if seen_envs == envs and seen_roles == roles:
            return names, number
    names = ConfigNames.from_roles(roles, job_envs)
    number = next((n for _, _, seen, n in _recent if seen == names), 0)
    if not number:
        _generations[0] += 1
        number = _generations[0]
    _recent.insert(0, (roles, envs, names, number))
    del _recent[4:]
    return names, number


_contexts: dict[tuple, tuple] = {}


def context(settings: Any, generation: int) -> tuple:
    """One object for each (settings, generation): entries compare it by identity."""
    key = (settings, generation)
    found = _contexts.get(key)
    if found is None:
        if len(_contexts) > 64:
            _contexts.clear()
        found = _contexts[key] = key
    return found


def clear() -> None:
    """Forget every role (for a reference run that must not reuse anything)."""
    _held.clear()
    _recent_entries.clear()
    _recent.clear()
