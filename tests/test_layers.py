"""The layout is the architecture: the import contracts in pyproject.toml (import-linter) hold — the
core is pure, the client layers only look down, the local cluster is a separate product reached
through its launcher alone, and no two sibling modules import each other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    result = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                                                   "sys.exit(lint_imports_command())", "--no-cache"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
