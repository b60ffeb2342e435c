"""Workspace settings: `.vscode/settings.json` (JSONC) and the editor's LSP configuration.

Keys are the ones users already have (seed 000): `pai.job.upload.*`,
`pai.job.generateJobName.enabled`, plus `pai.cluster.kind` ("openpai" | "scm") and `pai.locale`
(e.g. "zh-CN", to read messages in another language than the editor's).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .core.jsonc import parse
from .core.model import Settings

SETTINGS_FILE = Path(".vscode") / "settings.json"


def flatten(config: Any, prefix: str = "") -> dict[str, Any]:
    """{"pai": {"cluster": {"kind": "scm"}}} and {"pai.cluster.kind": "scm"} both become the latter."""
    out: dict[str, Any] = {}
    if not isinstance(config, dict):
        return out
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name in ("pai", "pai.job", "pai.cluster", "pai.job.upload", "pai.job.generateJobName", "pai.server"):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def find_workspace_settings(start: Path) -> dict[str, Any]:
    """The `pai.*` keys of the nearest `.vscode/settings.json` at or above `start`."""
    folder = start if start.is_dir() else start.parent
    for candidate in [folder, *folder.parents]:
        path = candidate / SETTINGS_FILE
        if path.is_file():
            try:
                doc = parse(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                return {}
            return flatten(doc.root.value if doc.root is not None else {})
    return {}


def to_settings(values: dict[str, Any], locale: str | None) -> Settings:
    """`pai.locale` (when set) overrides the editor's or terminal's locale."""
    kind = values.get("pai.cluster.kind")
    chosen = values.get("pai.locale")
    return Settings(dialect="scm" if kind == "scm" else "openpai", locale=chosen if isinstance(chosen, str) and chosen else locale)


def terminal_locale() -> str | None:
    """Locale of a terminal user: LC_ALL, LC_MESSAGES, then LANG (e.g. zh_CN.UTF-8)."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return value.split(".")[0]
    return None
