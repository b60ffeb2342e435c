"""Completion in a half-typed v2 job file."""

from __future__ import annotations

from typing import Any

from ..model import Completion, Settings


def complete(doc: Any, offset: int, settings: Settings) -> list[Completion]:
    return []
