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


def test_every_job_file_format_is_named_in_the_contracts_that_keep_formats_apart():
    """A format left out of pyproject.toml's contracts breaks none of them, yet the client side could then
    import it and the core's generic modules could know it: each format's module is named in all three."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    from pai_lsp.core.formats import FORMATS

    contracts = {c["name"]: c for c in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]}
    registry = next(c for name, c in contracts.items() if name.startswith("Job-file formats"))
    generic = next(c for name, c in contracts.items() if name.startswith("The core's generic modules"))
    client = next(c for name, c in contracts.items() if name.startswith("The client side reads"))
    layered = {part.strip() for layer in registry["layers"] for part in layer.split("|")}
    for job_format in FORMATS:
        module = ".".join(type(job_format).__module__.split(".")[:3])  # pai_lsp.core.<format>
        assert module.rsplit(".", 1)[1] in layered, module
        assert module in generic["forbidden_modules"] and module in client["forbidden_modules"], module


def test_every_module_name_says_one_thing():
    """No two modules of pai_lsp share a file name: `api.py` is the daemon's API and nothing else, so
    a name read in a traceback, a diff or an import says where the thing lives."""
    from collections import defaultdict

    where = defaultdict(list)
    for path in sorted((ROOT / "pai_lsp").rglob("*.py")):
        if path.name != "__init__.py":
            where[path.name].append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}
