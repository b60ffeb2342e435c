"""The files an editor names by URI, in the OS's own form, and how messages name them.

pygls turns a `file:` URI into the OS's path (drive letters `file:///c%3A/…`, UNC shares
`file://server/share/…`, percent-escapes); `flavour` lets a test ask for Windows' form on any OS.
Names shown to the user and written into job configs are workspace-relative with `/`, whatever the OS.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePath

from pygls.uris import to_fs_path


def fs_path(uri: str, flavour: type[PurePath] = Path) -> PurePath | None:
    """The file a `file:` URI names; None for any other scheme."""
    path = to_fs_path(uri)
    return flavour(path) if path else None


def workspace_relative(path: PurePath, roots: Iterable[PurePath]) -> str | None:
    """`path` under the innermost of `roots` that holds it, joined with `/` (None when none does).
    Windows paths compare as Windows does: case-insensitively."""
    for root in sorted(roots, key=lambda r: len(str(r)), reverse=True):
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            continue
    return None
