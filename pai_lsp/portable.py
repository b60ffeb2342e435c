"""Where an OS offers a better primitive (Linux's PR_SET_PDEATHSIG and pidfds, POSIX sessions and
signals), pai-lsp uses it, and falls back to a portable way elsewhere (macOS, Windows). Setting
PAI_LSP_PORTABLE_PROCESSES=1 forces the portable ways on any OS, so that they run, and are tested,
on Linux too (CI runs the process tests a second time so)."""

from __future__ import annotations

import os

PORTABLE_ENV = "PAI_LSP_PORTABLE_PROCESSES"


def forced() -> bool:
    """Whether the portable ways are forced."""
    return os.environ.get(PORTABLE_ENV, "") not in ("", "0")
