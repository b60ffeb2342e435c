"""Where an OS offers a better primitive (Linux's PR_SET_PDEATHSIG and pidfds, POSIX sessions and
signals), pai-lsp uses it, and falls back to a portable way elsewhere (macOS, Windows). Setting
PAI_LSP_PORTABLE_PROCESSES=1 forces the portable ways on any OS, so that they run, and are tested,
on Linux too (tests/localcluster/test_portable_processes.py; CI runs the daemon and editor-job tests a
second time so). Likewise PAI_LSP_WINDOWS_NAMES=1 applies Windows' rules for file names
(winnames.unfit_name) on any OS."""

from __future__ import annotations

import os
import sys

PORTABLE_ENV = "PAI_LSP_PORTABLE_PROCESSES"
WINDOWS_NAMES_ENV = "PAI_LSP_WINDOWS_NAMES"


def forced() -> bool:
    """Whether the portable ways are forced."""
    return os.environ.get(PORTABLE_ENV, "") not in ("", "0")


def windows_names() -> bool:
    """Whether file names must be ones Windows can hold: on Windows, or forced."""
    return sys.platform == "win32" or os.environ.get(WINDOWS_NAMES_ENV, "") not in ("", "0")
