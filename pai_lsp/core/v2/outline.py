"""Outline and folding of a v2 job file."""

from __future__ import annotations

from typing import Any

from ..outline import Symbol


def symbols(doc: Any) -> list[Symbol]:
    return []


def folding_ranges(doc: Any) -> list[tuple[int, int, str]]:
    return []
