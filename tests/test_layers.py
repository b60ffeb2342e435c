"""The layout is the architecture: the import contracts in pyproject.toml (import-linter) hold — the
core is pure, the client layers only look down, the local cluster is a separate product reached
through its launcher alone, and no two sibling modules import each other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.subprocess
def test_import_contracts_are_kept():
    result = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                                                   "sys.exit(lint_imports_command())", "--no-cache"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_test_module_imports_another():
    """What tests share lives in tests/helpers/ (fixtures in conftest.py); a test module is never imported."""
    import re

    offenders = [f"{path.relative_to(ROOT)}: {line.strip()}" for path in sorted((ROOT / "tests").rglob("*.py"))
                 for line in path.read_text(encoding="utf-8").splitlines()
                 if re.match(r"\s*(from\s+\.+(\w+\.)*(test_\w+|conftest)\s+import|import\s+tests\.(\w+\.)*test_)", line)]
    assert offenders == []
