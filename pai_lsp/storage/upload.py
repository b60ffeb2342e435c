"""Workspace files to a job's codeDir: selection by VS Code globs, a size + MD5 manifest so
unchanged files are not sent again, parallel writes, and nothing half-done left in place."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from wcmatch import glob

from ..clusters import PaiError
from .webhdfs import Hdfs

MANIFEST = ".pai-manifest.json"
FLAGS = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.NEGATE | glob.NEGATEALL
DEFAULT_INCLUDE = ["**/*.py"]

Progress = Callable[[int, int, int, int], None]  # bytes done, bytes total, files done, files total


@dataclass
class Selected:
    rel: str  # posix path relative to the workspace
    path: Path
    size: int


@dataclass
class UploadResult:
    remote: str
    sent_files: int
    sent_bytes: int
    unchanged_files: int
    removed_files: int
    seconds: float

    def to_json(self) -> dict:
        return self.__dict__.copy()


def select(root: Path, include: list[str] | None, exclude: list[str] | None) -> list[Selected]:
    """Files under `root` that match `include` and not `exclude` (VS Code glob semantics:
    `**`, `{a,b}`, `[..]`, and `!pattern` to take files back out)."""
    wanted = glob.compile(include or DEFAULT_INCLUDE, flags=FLAGS)
    unwanted = glob.compile(exclude, flags=FLAGS) if exclude else None
    out: list[Selected] = []
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    stack.append((Path(entry.path), rel + "/"))
                elif entry.is_file(follow_symlinks=False) and wanted.match(rel) and not (unwanted and unwanted.match(rel)):
                    out.append(Selected(rel, Path(entry.path), entry.stat(follow_symlinks=False).st_size))
    out.sort(key=lambda s: s.rel)
    return out


def _digest(path: Path) -> tuple[bytes, str]:
    data = path.read_bytes()
    return data, hashlib.md5(data).hexdigest()


def upload(hdfs: Hdfs, files: list[Selected], remote: str, threads: int = 8, progress: Progress | None = None) -> UploadResult:
    """Make `remote` hold exactly `files`. A first upload goes to a temporary folder renamed into
    place; later ones send only what changed since the manifest of the last upload there."""
    started = time.perf_counter()
    remote = "/" + remote.strip("/")
    contents = {f.rel: _digest(f.path) for f in files}
    manifest = {"version": 1, "files": {rel: {"size": len(data), "md5": md5} for rel, (data, md5) in contents.items()}}
    status = hdfs.status(remote)
    if status is not None and status["type"] != "DIRECTORY":
        raise PaiError("invalid", f"codeDir {remote} is a file on HDFS, not a folder")
    if status is None:
        target = f"{remote}.pai-upload-{secrets.token_hex(4)}"
        changed, removed, unchanged = list(contents), [], 0
    else:
        target = remote
        previous = _read_manifest(hdfs, remote)
        changed = [rel for rel, entry in manifest["files"].items() if previous.get(rel) != entry]
        removed = [rel for rel in previous if rel not in manifest["files"]]
        unchanged = len(contents) - len(changed)
        if not changed and not removed and _intact(hdfs, remote, previous):
            return UploadResult(remote, 0, 0, unchanged, 0, time.perf_counter() - started)
        if previous and not _intact(hdfs, remote, previous):
            changed, unchanged = list(contents), 0  # someone changed the folder: send everything
    total = sum(len(contents[rel][0]) for rel in changed)
    done_bytes = done_files = 0
    sent: list[str] = []
    try:
        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            futures = {pool.submit(hdfs.write, f"{target}/{rel}", contents[rel][0]): rel for rel in changed}
            for future in as_completed(futures):
                future.result()
                rel = futures[future]
                sent.append(rel)
                done_files += 1
                done_bytes += len(contents[rel][0])
                if progress:
                    progress(done_bytes, total, done_files, len(changed))
        for rel in removed:
            hdfs.delete(f"{target}/{rel}")
        hdfs.write(f"{target}/{MANIFEST}", json.dumps(manifest).encode())
        if target != remote:
            parent = remote.rsplit("/", 1)[0] or "/"
            hdfs.mkdir(parent)
            hdfs.rename(target, remote)
    except (PaiError, OSError) as exc:
        missing = len(changed) - len(sent)
        reason = exc.message if isinstance(exc, PaiError) else str(exc)
        if target != remote:
            try:
                hdfs.delete(target, recursive=True)
            except PaiError:
                pass
            where = f"nothing was changed at {remote}"
        else:
            where = f"{len(sent)} changed file(s) arrived; the next upload re-sends the rest"
        raise PaiError("interrupted", f"upload to {remote} stopped with {missing} of {len(changed)} file(s) not sent "
                                      f"({reason}); {where}") from None
    return UploadResult(remote, len(changed), total, unchanged, len(removed), time.perf_counter() - started)


def _read_manifest(hdfs: Hdfs, remote: str) -> dict:
    try:
        data = json.loads(hdfs.read(f"{remote}/{MANIFEST}"))
    except (PaiError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return files if isinstance(files, dict) else {}


def _intact(hdfs: Hdfs, remote: str, previous: dict) -> bool:
    """Cheap check (one request) that the folder still holds what the manifest says."""
    if not previous:
        return False
    try:
        summary = hdfs.content(remote)
    except PaiError:
        return False
    manifest_size = hdfs.status(f"{remote}/{MANIFEST}")
    extra = manifest_size["length"] if manifest_size else 0
    return (summary["fileCount"] == len(previous) + 1
            and summary["length"] == sum(e["size"] for e in previous.values()) + extra)
