"""Where test inputs are: the repository's own (always there) and `../shared` beside the checkout
(real configs and manuals nobody here wrote; an extra that CI requires)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mnist"
CONFIGS = ROOT / "tests" / "configs"  # ours: every field, JSONC, several roles, ports, SCM keys (`*.scm.pai.json`)
SHARED = Path(os.environ.get("PAI_SHARED_DIR") or ROOT.parent / "shared")


def own_configs() -> list[Path]:
    return sorted(CONFIGS.glob("*.pai.json"))


def dialect_of_config(path: Path) -> str:
    return "scm" if path.name.endswith(".scm.pai.json") else "openpai"


def shared(*parts: str) -> Path:
    """A path under `../shared`; without it the test is skipped, except in CI (`CI` set), where it fails."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        message = f"{path} is not there (set PAI_SHARED_DIR, or check out shared/ beside the repository)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def config_texts() -> list[str]:
    """The text of every config the property tests start from: ours, and the real examples when there."""
    return [p.read_text(encoding="utf-8") for p in [*own_configs(), *sorted((SHARED / "corpus").glob("openpai-examples/v1/*.json"))]]
