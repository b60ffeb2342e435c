"""Workspace files to a job's codeDir: selection by VS Code globs, a manifest (size, time, SHA-256)
so an unchanged tree is not sent again, parallel streamed writes with bounded memory, and a new
tree switched into place atomically, so nothing half-done is ever in place."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, as_completed, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from ..core.messages import message
from ..errors import Interrupted, InvalidInput, NotFound, PaiError
from .base import Body, Storage

if TYPE_CHECKING:
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


class Ignore(Protocol):
    """What `select` asks of the ignore rules (storage/ignore.py) as it walks."""

    def enter(self, folder: str, prefix: str, names: list[str]) -> None: ...

    def folder_ignored(self, rel: str) -> bool: ...

    def keep(self, rels: list[str]) -> list[str]: ...


def select(root: Path, include: list[str], exclude: list[str] | None, ignore: Ignore | None = None) -> list[Selected]:
    """Files under `root` that match `include` and not `exclude` (VS Code glob semantics:
    `**`, `{a,b}`, `[..]`, and `!pattern` to take files back out), nor the `ignore` rules
    (default excludes, `.paiignore`, `.gitignore`: storage/ignore.py)."""
    wanted = matcher(include)
    unwanted = matcher(exclude) if exclude else (None, None)
    skip_folder = _pruned_folders(exclude)
    batches: list[str] = []
    stack = [(str(root), "")]
    while stack:
        folder, prefix = stack.pop()
        names, folders = [], []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry)
                    elif entry.is_file(follow_symlinks=False):
                        names.append(entry.name)
        except OSError:
            continue
        if ignore is not None:
            ignore.enter(folder, prefix, names)
        for entry in folders:
            rel = prefix + entry.name
            if (skip_folder is None or skip_folder.match(rel) is None) and (ignore is None or not ignore.folder_ignored(rel)):
                stack.append((entry.path, rel + "/"))
        if names:
            # "prefix/a\nprefix/b…" built in C; all folders are matched in one regex scan below.
            batches.append(prefix + ("\n" + prefix).join(n for n in names if "\n" not in n))
    out = _filter("\n".join(batches), wanted)
    if unwanted[0] is not None and out:
        excluded = set(_filter("\n".join(out), unwanted))
        out = [c for c in out if c not in excluded]
    if ignore is not None:
        out = ignore.keep(out)
    out.sort()
    base = str(root)
    return [Selected(rel, base) for rel in out]


STAGING = ".pai-staging"  # beside the code folder: new trees are written here, then swapped into place
SMALL = 1 << 20  # files up to this size are read in one piece; bigger ones are streamed
HASHED = 64 << 20  # files up to this size are also fingerprinted by content (SHA-256, while sent), so one
# touched but unchanged is not sent again; hashing a bigger one would cost more CPU than sending it
_ACTIVE: set[str] = set()  # staging folders this process is writing now (never cleaned as stale)
_ACTIVE_LOCK = threading.Lock()


@dataclass
class UploadResult:
    remote: str
    sent_files: int
    sent_bytes: int
    unchanged_files: int
    removed_files: int
    seconds: float
    changed_files: int = 0  # new or different since the last upload there
    cleaned: list[str] = field(default_factory=list)  # unfinished earlier uploads removed first

    def to_json(self) -> dict:
        return asdict(self)


def upload(hdfs: Hdfs, files: list[Selected], remote: str, threads: int = 8, progress: Progress | None = None) -> UploadResult:
    """Make `remote` hold exactly `files`, switched atomically: a tree is written whole into a new
    folder and swapped into place, so a job never starts on a half-new tree, and an upload that
    stops half-way changes nothing. A tree equal to the last upload's (by its manifest) is not
    sent at all. Unfinished uploads to the same place, left by a killed daemon, are removed first."""
    started = time.perf_counter()
    remote = "/" + remote.strip("/")
    parent, name = remote.rsplit("/", 1)
    parent = parent or "/"
    staging_root = f"{parent.rstrip('/')}/{STAGING}"
    status = hdfs.status(remote)
    if status is not None and not status.is_dir:
        raise InvalidInput(message("upload.code-dir-file", remote=remote))
    cleaned = _clean_stale(hdfs, staging_root, name)
    local = {f.rel: os.path.join(f.root, f.rel) for f in files}
    previous = read_manifest(hdfs, remote) if status is not None else {}
    unchanged = _unchanged(local, previous, threads)
    removed = [rel for rel in previous if rel not in local]
    intact = bool(previous) and _intact(hdfs, remote, previous)
    if intact and len(unchanged) == len(local) and not removed:
        return UploadResult(remote, 0, 0, len(local), 0, time.perf_counter() - started, cleaned=cleaned)
    same = len(unchanged) if intact else 0  # someone changed the folder: count nothing as kept
    staging = f"{staging_root}/{name}.{secrets.token_hex(4)}"
    with _ACTIVE_LOCK:
        _ACTIVE.add(staging)
    try:
        sent, sent_bytes = _send_tree(hdfs, local, staging, threads, progress, remote)
        _swap(hdfs, staging, remote, exists=status is not None)
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE.discard(staging)
    return UploadResult(remote, sent, sent_bytes, same, len(removed), time.perf_counter() - started,
                        changed_files=len(local) - same, cleaned=cleaned)


def _send_tree(hdfs: Hdfs, local: dict[str, str], staging: str, threads: int, progress: Progress | None,
               remote: str) -> tuple[int, int]:
    """Every file into `staging`, then the manifest of what was sent (hashed while sent). On any
    failure the staging folder is removed and the error says exactly what did not arrive."""
    sizes = {rel: os.stat(path).st_size for rel, path in local.items()}
    total = sum(sizes.values())
    manifest: dict[str, dict] = {}
    done_bytes = 0
    try:
        hdfs.mkdir(staging)
        for rel, entry in bounded(lambda rel: send_file(hdfs, local[rel], f"{staging}/{rel}"), list(local), threads):
            manifest[rel] = entry
            done_bytes += entry["size"]
            if progress:
                progress(done_bytes, total, len(manifest), len(local))
        hdfs.write(f"{staging}/{MANIFEST}", json.dumps({"version": 2, "files": manifest}).encode())
    except (PaiError, OSError) as exc:
        reason = exc.said if isinstance(exc, PaiError) else str(exc)
        with contextlib.suppress(PaiError, OSError):
            hdfs.delete(staging, recursive=True)
        # The reason first: the start of a message is what a notification shows.
        raise Interrupted(message("upload.stopped", reason=reason, remote=remote, left=len(local) - len(manifest), total=len(local))) from None
    return len(manifest), done_bytes


def send_file(hdfs: Storage, path: str, target: str) -> dict:
    """One file, read once: sent (streamed when big) and fingerprinted on the way."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if st.st_size <= SMALL:
            data = f.read()
            hdfs.write(target, data)
            return {"size": len(data), "mtime": st.st_mtime_ns, "sha256": hashlib.sha256(data).hexdigest()}
        if st.st_size > HASHED:  # sent as fast as `hdfscli` sends it: a big file is known by size and time only
            with Body(f, st.st_size, digest=None) as body:
                hdfs.write(target, body)
                return {"size": body.size, "mtime": st.st_mtime_ns}
        with Body(f, st.st_size) as body:
            hdfs.write(target, body)
            return {"size": body.size, "mtime": st.st_mtime_ns, "sha256": body.hexdigest()}


def _swap(hdfs: Hdfs, staging: str, remote: str, exists: bool) -> None:
    """`staging` becomes `remote` by renames only (`Storage.replace`: the old tree, if any, is moved
    aside first and removed after, put back if the new one cannot take its place)."""
    try:
        if not exists:
            hdfs.mkdir(remote.rsplit("/", 1)[0] or "/")
        hdfs.replace(staging, remote)
    except PaiError as exc:
        with contextlib.suppress(PaiError, OSError):
            hdfs.delete(staging, recursive=True)
        raise Interrupted(message("upload.not-switched", remote=remote, why=exc.said)) from None


def _clean_stale(hdfs: Hdfs, staging_root: str, name: str) -> list[str]:
    """Remove what earlier uploads to `name` left in the staging folder when they were killed."""
    try:
        entries = hdfs.list(staging_root)
    except NotFound:
        return []
    ours = re.compile(re.escape(name) + r"\.[0-9a-f]{8}(?:\.old)?")
    with _ACTIVE_LOCK:
        active = set(_ACTIVE)
    cleaned = []
    for entry in entries:
        path = f"{staging_root}/{entry.name}"
        if ours.fullmatch(entry.name) and path.removesuffix(".old") not in active:
            with contextlib.suppress(NotFound):
                hdfs.delete(path, recursive=True)
            cleaned.append(path)
    return cleaned


def _unchanged(local: dict[str, str], previous: dict, threads: int) -> set[str]:
    """The files whose content is what the last upload sent: same size and modification time as
    recorded, else the same size and hash (so only files that were touched are read)."""
    same: set[str] = set()
    to_hash = []
    for rel, path in local.items():
        entry = previous.get(rel)
        if not isinstance(entry, dict):
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        if st.st_size != entry.get("size"):
            continue
        if st.st_mtime_ns == entry.get("mtime"):
            same.add(rel)
        elif "sha256" in entry:
            to_hash.append(rel)
    for rel, digest in bounded(lambda rel: file_hash(local[rel]), to_hash, threads):
        if digest == previous[rel]["sha256"]:
            same.add(rel)
    return same


# (path, size, mtime) -> MD5, for `fingerprint` (the PFS upload's manifest): the daemon lives long.
_HASHES: dict[tuple[str, int, int], str] = {}


def fingerprint(path: str) -> dict:
    """Size and MD5 of a file, read in bounded pieces (the PFS upload compares its manifest by these)."""
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    md5 = _HASHES.get(key)
    if md5 is None:
        md5 = _HASHES[key] = file_hash(path, "md5")
    return {"size": st.st_size, "md5": md5}


def file_hash(path: str, algorithm: str = "sha256") -> str:
    """The hex digest of a file, read in bounded pieces."""
    with open(path, "rb") as f:
        if hasattr(hashlib, "file_digest"):  # Python 3.11+
            return hashlib.file_digest(f, algorithm).hexdigest()
        h = hashlib.new(algorithm)
        while chunk := f.read(SMALL):
            h.update(chunk)
        return h.hexdigest()


T = TypeVar("T")
R = TypeVar("R")


def bounded(fn: Callable[[T], R], items: list[T], threads: int) -> Iterator[tuple[T, R]]:
    """(item, fn(item)) as they finish, from `threads` workers with at most twice that many items
    queued: memory stays flat however many items there are."""
    pool = ThreadPoolExecutor(max_workers=max(1, threads))
    pending: dict[Future, T] = {}
    try:
        for item in items:
            if len(pending) >= 2 * threads:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield pending.pop(future), future.result()
            pending[pool.submit(fn, item)] = item
        for future in as_completed(list(pending)):
            yield pending.pop(future), future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # a failure, or a caller that stops reading, starts nothing more


def unchanged_files(hdfs: Hdfs, files: list[Selected], remote: str) -> int:
    """How many of `files` the last upload to `remote` holds as they are now: an upload would not
    send them again (none when the folder is not as that upload left it)."""
    remote = "/" + remote.strip("/")
    status = hdfs.status(remote)
    if status is None or not status.is_dir:
        return 0
    previous = read_manifest(hdfs, remote)
    if not _intact(hdfs, remote, previous):
        return 0
    return len(_unchanged({f.rel: os.path.join(f.root, f.rel) for f in files}, previous, threads=4))


def read_manifest(hdfs: Storage, remote: str) -> dict:
    """The files the last upload to `remote` recorded ({} when it left no readable manifest)."""
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
    extra = manifest_size.size if manifest_size else 0
    return (summary["fileCount"] == len(previous) + 1
            and summary["length"] == sum(e.get("size", 0) for e in previous.values()) + extra)
