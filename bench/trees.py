"""Workspaces for the upload benchmarks: many small source files, or one big file.

Random bytes so that no layer (disk, compression, dedup) gets the data cheaper than a user's would.
"""

from __future__ import annotations

import os
from pathlib import Path


def make_tree(root: Path, files: int, size: int = 10_000) -> None:
    """`files` files of `size` bytes spread over 50 × 7 folders, as a Python project's sources are."""
    for i in range(files):
        folder = root / f"pkg{i % 50}" / f"mod{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.py").write_bytes(os.urandom(size))


def make_big(root: Path, mb: int, name: str = "model.bin") -> Path:
    """One file of `mb` MiB (a model checkpoint), written 1 MiB at a time; no two MiB alike."""
    root.mkdir(parents=True, exist_ok=True)
    block = os.urandom(1 << 20)
    path = root / name
    with open(path, "wb") as f:
        for i in range(mb):
            f.write(block[i % 7:] + block[: i % 7])
    return path
