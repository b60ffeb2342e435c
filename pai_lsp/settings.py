"""Workspace settings: `.vscode/settings.json` (JSONC) and the editor's LSP configuration.

Keys are the ones users already have (OpenPAI's guide to submitting through HDFS): `pai.job.upload.*`,
`pai.job.generateJobName.enabled`, plus `pai.cluster.kind` ("openpai" | "scm") and `pai.locale`
(e.g. "zh-CN", to read messages in another language than the editor's).
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

from .core.jsonc import parse
from .core.model import Settings
from .core.schema import dialect_of
from .core.settings_check import groups

SETTINGS_FILE = Path(".vscode") / "settings.json"
GROUPS = groups()  # "pai", "pai.job", "pai.job.upload", …: the keys users may write as nested objects


def is_settings_file(path: str | Path) -> bool:
    """A `.vscode/settings.json` (whose `pai.*` keys the language server checks)."""
    p = Path(path)
    return p.name == SETTINGS_FILE.name and p.parent.name == SETTINGS_FILE.parent.name


def flatten(config: Any, prefix: str = "") -> dict[str, Any]:
    """{"pai": {"cluster": {"kind": "scm"}}} and {"pai.cluster.kind": "scm"} both become the latter."""
    out: dict[str, Any] = {}
    if not isinstance(config, dict):
        return out
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name in GROUPS:
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def settings_folder(start: Path) -> Path | None:
    """The nearest folder at or above `start` (a folder, or a file's folder) holding
    `.vscode/settings.json`: the workspace a file belongs to, as VS Code sees it."""
    folder = start if start.is_dir() else start.parent
    for candidate in [folder, *folder.parents]:
        if (candidate / SETTINGS_FILE).is_file():
            return candidate
    return None


def workspace_of(config_path: Path) -> Path:
    """The folder whose files a job's upload chooses from: the one holding `.vscode/settings.json`
    at or above the config, else the config's folder."""
    folder = config_path.resolve().parent
    return settings_folder(folder) or folder


def find_workspace_settings(start: Path) -> dict[str, Any]:
    """The `pai.*` keys of the nearest `.vscode/settings.json` at or above `start`."""
    folder = settings_folder(start)
    if folder is None:
        return {}
    try:
        doc = parse((folder / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return {}
    return flatten(doc.root.value if doc.root is not None else {})


def read(values: dict[str, Any], locale: str | None = None) -> Settings:
    """The settings in `values` (flat `pai.*` keys; values of the wrong type are ignored), defaults
    for the rest. `pai.locale` (when set) overrides `locale`, the editor's or the terminal's."""
    chosen: dict[str, Any] = {}
    for f in fields(Settings):
        value = values.get(f.metadata["key"])
        if f.name == "dialect":
            chosen["dialect"] = dialect_of(value)
        elif f.name == "upload_storage":
            chosen["upload_storage"] = cluster_storages(value)
        elif f.name == "locale":
            chosen["locale"] = value if isinstance(value, str) and value else locale
        elif isinstance(f.default, bool) and isinstance(value, bool):
            chosen[f.name] = value
        elif type(f.default) is int and type(value) is int and value > 0:
            chosen[f.name] = value
        elif isinstance(f.default, tuple) and isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            chosen[f.name] = tuple(value)  # a list of globs; an empty one means the default
    return Settings(**chosen)


def cluster_storages(value: Any) -> tuple[tuple[str, str, str], ...]:
    """`pai.job.upload.storage` ({cluster: {"storage": name, "path": folder}}) as (cluster, storage,
    path) rows; entries of the wrong shape are left out (the settings check says so)."""
    if not isinstance(value, dict):
        return ()
    rows = []
    for cluster, entry in value.items():
        if isinstance(entry, dict) and isinstance(entry.get("storage"), str) and entry["storage"]:
            path = entry.get("path")
            rows.append((str(cluster), entry["storage"], path if isinstance(path, str) else ""))
    return tuple(rows)


def job_values(values: dict[str, Any]) -> dict[str, Any]:
    """The `pai.job.*` keys of `values`: what an editor passes on with a submit."""
    return {key: value for key, value in values.items() if key.startswith("pai.job.")}
