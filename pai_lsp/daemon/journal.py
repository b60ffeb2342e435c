"""How far each submit got, on disk, so a submit cut short by the daemon's death is finished by
the next daemon when the caller asks again with the same request id: same job name, never
submitted twice (`service.jobs.Journal`)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

KEEP = 24 * 3600  # seconds a finished or abandoned entry is kept


class SubmitJournal:
    def __init__(self, folder: Path, request: str):
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", request):
            raise ValueError("a request id is 1-64 letters, digits, '-' or '_'")
        self.path = folder / f"{request}.json"
        try:
            entry = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entry = {}
        self.job: str | None = entry.get("job")
        self.phase: str | None = entry.get("phase")
        self.result: dict | None = entry.get("result")

    def record(self, phase: str, job: str, result: dict | None = None) -> None:
        self.job, self.phase, self.result = job, phase, result
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temp = self.path.with_suffix(".tmp")
        temp.write_text(json.dumps({"job": job, "phase": phase, "result": result}), encoding="utf-8")
        os.replace(temp, self.path)


def prune(folder: Path) -> None:
    """Forget entries older than a day (their callers are long gone)."""
    if not folder.is_dir():
        return
    cutoff = time.time() - KEEP
    for entry in folder.iterdir():
        try:
            if entry.stat().st_mtime < cutoff:
                entry.unlink()
        except OSError:
            pass
