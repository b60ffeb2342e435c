"""Hover in a v2 job file."""

from __future__ import annotations

from typing import Any

from ..model import Hover, Settings


def hover(doc: Any, offset: int, settings: Settings) -> Hover | None:
    return None
