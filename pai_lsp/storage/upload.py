"""Workspace files to a job's codeDir: selection by VS Code globs, a size + MD5 manifest so
unchanged files are not sent again, parallel writes, and nothing half-done left in place."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ..errors import Interrupted, InvalidInput, PaiError
from .webhdfs import Hdfs

MANIFEST = ".pai-manifest.json"

Progress = Callable[[int, int, int, int], None]  # bytes done, bytes total, files done, files total


@dataclass(slots=True)
class Selected:
    rel: str  # posix path relative to the workspace
    root: str

    @property
    def path(self) -> Path:
        return Path(self.root, self.rel)


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


def glob_regex(pattern: str) -> str:
    """A VS Code glob as a regex over a relative posix path: `**` spans folders, `*` and `?` stay
    within one, `{a,b}` picks one, `[...]` is a character class."""
    rest = pattern[4:]
    if pattern.startswith("**/*") and not any(c in rest for c in "/*?["):
        # `**/*.py`: any path whose name ends so. Said this way the regex never backtracks far.
        return "[^\n]*" + glob_regex(rest)
    out, i, depth = [], 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^\n]*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append("[^\n]*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/\n]*")
        elif ch == "?":
            out.append("[^/\n]")
        elif ch == "{":
            out.append("(?:")
            depth += 1
        elif ch == "}" and depth:
            out.append(")")
            depth -= 1
        elif ch == "," and depth:
            out.append("|")
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append("\\[")
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out) + ")" * depth


def matcher(patterns: list[str]):
    """All of a list of globs as one multi-line regex; `!pattern` entries take paths back out."""
    positive = [p for p in patterns if not p.startswith("!")]
    negative = [p[1:] for p in patterns if p.startswith("!")]

    def compile_(globs: list[str]):
        if not globs:
            return None
        return re.compile("^(?:" + "|".join(glob_regex(g.lstrip("/")) for g in globs) + ")$", re.M)

    return compile_(positive), compile_(negative)


def _filter(lines: str, regexes) -> list[str]:
    """The lines (newline-separated relative paths) matched, with one regex scan for the batch."""
    positive, negative = regexes
    if positive is None or not lines:
        return []
    chosen = positive.findall(lines)
    if negative is not None and chosen:
        dropped = set(negative.findall("\n".join(chosen)))
        chosen = [c for c in chosen if c not in dropped]
    return chosen


def _pruned_folders(exclude: list[str] | None):
    """Excludes such as `**/node_modules/**` name whole folders: those are never walked. (Only
    when no `!pattern` could take something inside them back.)"""
    if not exclude or any(p.startswith("!") for p in exclude):
        return None
    folders = [p[:-3] for p in exclude if p.endswith("/**") and "*" not in p[:-3].replace("**/", "")]
    return matcher(folders)[0] if folders else None


def select(root: Path, include: list[str], exclude: list[str] | None) -> list[Selected]:
    """Files under `root` that match `include` and not `exclude` (VS Code glob semantics:
    `**`, `{a,b}`, `[..]`, and `!pattern` to take files back out)."""
    wanted = matcher(include)
    unwanted = matcher(exclude) if exclude else (None, None)
    skip_folder = _pruned_folders(exclude)
    batches: list[str] = []
    stack = [(str(root), "")]
    while stack:
        folder, prefix = stack.pop()
        names = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        rel = prefix + entry.name
                        if skip_folder is None or skip_folder.match(rel) is None:
                            stack.append((entry.path, rel + "/"))
                    elif entry.is_file(follow_symlinks=False):
                        names.append(entry.name)
        except OSError:
            continue
        if names:
            # "prefix/a\nprefix/b…" built in C; all folders are matched in one regex scan below.
            batches.append(prefix + ("\n" + prefix).join(n for n in names if "\n" not in n))
    out = _filter("\n".join(batches), wanted)
    if unwanted[0] is not None and out:
        excluded = set(_filter("\n".join(out), unwanted))
        out = [c for c in out if c not in excluded]
    out.sort()
    base = str(root)
    return [Selected(rel, base) for rel in out]


# (path, size, mtime) -> MD5: the daemon lives long, so a re-submit hashes only what changed.
_HASHES: dict[tuple[str, int, int], str] = {}


def fingerprint(path: str) -> dict:
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    md5 = _HASHES.get(key)
    if md5 is None:
        with open(path, "rb") as f:
            md5 = _HASHES[key] = hashlib.md5(f.read()).hexdigest()
    return {"size": st.st_size, "md5": md5}


def upload(hdfs: Hdfs, files: list[Selected], remote: str, threads: int = 8, progress: Progress | None = None) -> UploadResult:
    """Make `remote` hold exactly `files`. A first upload goes to a temporary folder renamed into
    place; later ones send only what changed since the manifest of the last upload there."""
    started = time.perf_counter()
    remote = "/" + remote.strip("/")
    paths = {f.rel: os.path.join(f.root, f.rel) for f in files}
    manifest = {"version": 1, "files": {rel: fingerprint(path) for rel, path in paths.items()}}
    status = hdfs.status(remote)
    if status is not None and status["type"] != "DIRECTORY":
        raise InvalidInput(f"codeDir {remote} is a file on HDFS, not a folder")
    if status is None:
        target = f"{remote}.pai-upload-{secrets.token_hex(4)}"
        changed, removed, unchanged = list(paths), [], 0
    else:
        target = remote
        previous = _read_manifest(hdfs, remote)
        changed = [rel for rel, entry in manifest["files"].items() if previous.get(rel) != entry]
        removed = [rel for rel in previous if rel not in manifest["files"]]
        unchanged = len(paths) - len(changed)
        if not changed and not removed and _intact(hdfs, remote, previous):
            return UploadResult(remote, 0, 0, unchanged, 0, time.perf_counter() - started)
        if previous and not _intact(hdfs, remote, previous):
            changed, unchanged = list(paths), 0  # someone changed the folder: send everything
    total = sum(manifest["files"][rel]["size"] for rel in changed)
    done_bytes = done_files = 0
    sent: list[str] = []
    try:
        pool = ThreadPoolExecutor(max_workers=max(1, threads))
        try:
            futures = {pool.submit(lambda rel: hdfs.write(f"{target}/{rel}", Path(paths[rel]).read_bytes()), rel): rel
                       for rel in changed}
            for future in as_completed(futures):
                future.result()
                rel = futures[future]
                sent.append(rel)
                done_files += 1
                done_bytes += manifest["files"][rel]["size"]
                if progress:
                    progress(done_bytes, total, done_files, len(changed))  # may raise to cancel the upload
        finally:
            pool.shutdown(wait=True, cancel_futures=True)  # a failure or a cancel sends nothing more
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
        # The reason first: the start of a message is what a notification shows.
        raise Interrupted(f"{reason}: upload to {remote} stopped with {missing} of {len(changed)} file(s) not sent; "
                          f"{where}") from None
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
