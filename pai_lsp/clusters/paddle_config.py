"""`~/.paddle/config`, the paddlecloud client's datacenters (paddlecloud-scm.md §A.1), in both layouts
the manuals show: `current-datacenter: NAME` (the `paddlectl` guide) or `active: true` on one entry (the
`paddlecloud` client's guide)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..core.messages import message
from ..errors import ConfigError, InvalidInput


@dataclass
class Datacenter:
    name: str
    username: str
    password: str | None
    endpoint: str  # without trailing slashes (the Go client meant to strip them)
    active: bool


def default_path(platform: str = sys.platform, environ: Mapping[str, str] = os.environ) -> Path:
    """`~/.paddle/config`, where the manuals put it on each OS (`platform`: a `sys.platform` value).
    Windows: `.paddle\\config` under the user's folder (the `paddlectl` guide), `%USERPROFILE%`; the paddlecloud
    client itself reads it under `%HOMEDRIVE%%HOMEPATH%` (§A.1), which a domain account may map
    elsewhere: the first of the two that holds the file, else the manual's."""
    if platform != "win32":
        return Path(os.path.expanduser("~")) / ".paddle" / "config"
    client_home = environ.get("HOMEDRIVE", "") + environ.get("HOMEPATH", "")
    homes = [home for home in (client_home, environ.get("USERPROFILE", "")) if home]
    candidates = [Path(home) / ".paddle" / "config" for home in homes]
    found = next((path for path in candidates if path.is_file()), None)
    return found or Path(environ.get("USERPROFILE") or client_home or os.path.expanduser("~")) / ".paddle" / "config"


def read(path: Path) -> list[Datacenter]:
    """The datacenters of a config file; one clear line for anything wrong with it."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(message("paddle-config.missing", path=str(path))) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(message("file.unreadable", path=str(path), why=str(exc))) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        raise InvalidInput(message("paddle-config.yaml", path=str(path), where=where, why=str(getattr(exc, "problem", None) or exc))) from None
    entries = data.get("datacenters") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise InvalidInput(message("paddle-config.no-list", path=str(path)))
    current = data.get("current-datacenter")
    out = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise InvalidInput(message("paddle-config.not-mapping", path=str(path), n=i + 1))
        missing = [key for key in ("name", "username", "endpoint") if not entry.get(key)]
        if missing:
            raise InvalidInput(message("paddle-config.missing-keys", path=str(path), name=entry.get("name") or i + 1, keys=", ".join(missing)))
        endpoint = str(entry["endpoint"]).strip()
        if not re.match(r"^https?://[^/\s]+", endpoint):
            raise InvalidInput(message("paddle-config.bad-endpoint", path=str(path), name=entry["name"], endpoint=endpoint))
        active = entry.get("active") is True or (current is not None and str(entry["name"]) == str(current))
        password = entry.get("password")
        out.append(Datacenter(str(entry["name"]), str(entry["username"]), None if password is None else str(password),
                              re.sub(r"[/\\]+$", "", endpoint), active))
    if current is not None and not any(dc.name == str(current) for dc in out):
        raise InvalidInput(message("paddle-config.bad-current", path=str(path), current=str(current),
                                   names=", ".join(dc.name for dc in out)))
    return out


def without_passwords(path: Path) -> str:
    """The file's text with its `password:` entries taken out (comments and layout kept)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        first = re.match(r"^(\s*-)\s+password\s*:", line)
        if first:
            out.append(first.group(1) + "\n")  # the entry goes on with its next key
        elif not re.match(r"^\s*password\s*:", line):
            out.append(line)
    return "".join(out)
