"""Which tasks a debug run stops: "first" (the first instance of the first task role), "all",
"ROLE" (each instance of it), "ROLE:INDEX" (one)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..messages import Message, message

FIRST, ALL = "first", "all"


@dataclass(frozen=True)
class Selection:
    """Per chosen role, the instances chosen (None: every one)."""

    roles: dict[str, frozenset[int] | None]

    def tasks(self, counts: dict[str, int]) -> list[str]:
        """The chosen tasks as "role:index", in the job's order."""
        return [f"{role}:{i}" for role, chosen in self.roles.items() for i in range(counts.get(role, 1))
                if chosen is None or i in chosen]


class SelectionError(ValueError):
    def __init__(self, said: Message):
        super().__init__(str(said))
        self.said = said


def select(tasks: str, roles: list[tuple[str, int]]) -> Selection:
    """`tasks` against the job's roles (name, instances); SelectionError says what is wrong."""
    if not roles:
        raise SelectionError(message("debug.no-roles"))
    names = [name for name, _ in roles]
    counts = dict(roles)
    tasks = (tasks or FIRST).strip()
    if tasks == FIRST:
        return Selection({names[0]: frozenset({0})})
    if tasks == ALL:
        return Selection({name: None for name in names})
    match = re.fullmatch(r"([^:\s]+)(?::(\d+))?", tasks)
    if match is None:
        raise SelectionError(message("debug.bad-selector", tasks=tasks))
    role, index = match.group(1), match.group(2)
    if role not in counts:
        raise SelectionError(message("debug.unknown-role", role=role, roles=", ".join(names)))
    if index is None:
        return Selection({role: None})
    if int(index) >= counts[role]:
        raise SelectionError(message("debug.no-index", role=role, index=int(index), count=counts[role]))
    return Selection({role: frozenset({int(index)})})
