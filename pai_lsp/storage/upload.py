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


STAGING = ".pai-staging"  # beside the code folder: what is sent is written here, then switched into place
SMALL = 1 << 20  # files up to this size are read in one piece; bigger ones are streamed
HASHED = 64 << 20  # files up to this size are also fingerprinted by content (SHA-256, while sent), so one
# touched but unchanged is not sent again; hashing a bigger one would cost more CPU than sending it
PATCH_MOVES = 1000  # at most this many renames and removals patch a tree in place; a bigger change is sent whole
_ACTIVE: set[str] = set()  # staging folders this process is writing now (never cleaned as stale)
_ACTIVE_LOCK = threading.Lock()


@dataclass
class UploadResult:
    remote: str
    sent_files: int  # what went over the wire
    sent_bytes: int
    unchanged_files: int  # kept where they were: not sent
    removed_files: int
    seconds: float
    changed_files: int = 0  # new or different since the last upload there (all of them sent)
    cleaned: list[str] = field(default_factory=list)  # unfinished earlier uploads removed first
    resent_files: int = 0  # unchanged, but sent again: the folder was not as the last upload left it, or
    # so much changed that the tree was sent whole

    def to_json(self) -> dict:
        return asdict(self)


def upload(hdfs: Hdfs, files: list[Selected], remote: str, threads: int = 8, progress: Progress | None = None) -> UploadResult:
    """Make `remote` hold exactly `files`, sending only what changed since the last upload there (by
    its manifest), and never leaving a mix of old and new in place: what is sent is written into a
    staging folder first (an upload that stops there changes nothing), then switched in by renames.
    A small change is patched into the old tree while that tree is moved aside (`_patch`: a job
    starting in that moment finds no code and fails, rather than running a mix); a first upload,
    a folder not as the last upload left it, or a change of more than PATCH_MOVES files is sent
    whole and swapped in. Unfinished uploads to the same place, left by a killed daemon, are removed first.
    On a storage whose folder renames are a copy per file (a blob container), a first upload is written
    in place instead: no tree was there to keep whole, and a failure removes the folder it made (one a
    killed daemon left, without its manifest, is replaced whole by the next upload)."""
    started = time.perf_counter()
    remote = "/" + remote.strip("/")
    parent, name = remote.rsplit("/", 1)
    staging_root = f"{parent}/{STAGING}"
    status = hdfs.status(remote)
    if status is not None and not status.is_dir:
        raise InvalidInput(message("upload.code-dir-file", remote=remote))
    cleaned = _clean_stale(hdfs, staging_root, name)
    local = {f.rel: os.path.join(f.root, f.rel) for f in files}
    previous = read_manifest(hdfs, remote) if status is not None else {}
    kept = _unchanged(local, previous, threads)
    changed = {rel: path for rel, path in local.items() if rel not in kept}
    removed = [rel for rel in previous if rel not in local]
    intact = bool(previous) and _intact(hdfs, remote, previous)
    if intact and not changed and not removed:
        return UploadResult(remote, 0, 0, len(local), 0, time.perf_counter() - started, cleaned=cleaned)
    staging = f"{staging_root}/{name}.{secrets.token_hex(4)}"
    with _ACTIVE_LOCK:
        _ACTIVE.add(staging)
    try:
        plan = _plan(previous, local, changed, removed) if intact and hdfs.renames else None
        if plan is not None and plan.moves <= PATCH_MOVES:
            sent, sent_bytes = _send_tree(hdfs, changed, kept, staging, threads, progress, remote)
            _patch(hdfs, plan, staging, remote, threads)
            return UploadResult(remote, sent, sent_bytes, len(kept), len(removed), time.perf_counter() - started,
                                changed_files=len(changed), cleaned=cleaned)
        if status is None and not hdfs.folder_renames:
            # Nothing there to keep whole, and switching a folder in would copy every file once more on
            # the server: written in place, the manifest last; a failure removes the folder it made.
            hdfs.mkdir(parent or "/")
            sent, sent_bytes = _send_tree(hdfs, local, {}, remote, threads, progress, remote)
        else:
            sent, sent_bytes = _send_tree(hdfs, local, {}, staging, threads, progress, remote)
            _swap(hdfs, staging, remote, exists=status is not None)
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE.discard(staging)
    return UploadResult(remote, sent, sent_bytes, 0, len(removed), time.perf_counter() - started,
                        changed_files=len(changed), cleaned=cleaned, resent_files=len(kept))


def _send_tree(hdfs: Storage, send: dict[str, str], kept: dict[str, dict], staging: str, threads: int,
               progress: Progress | None, remote: str) -> tuple[int, int]:
    """The files `send` into `staging`, then the manifest of the whole tree (`kept`, the entries of
    the files not sent, and those sent, hashed while sent). On any failure the staging folder is
    removed and the error says exactly what did not arrive; `remote` is untouched."""
    sizes = {rel: os.stat(path).st_size for rel, path in send.items()}
    total = sum(sizes.values())
    manifest: dict[str, dict] = {}
    done_bytes = 0
    try:
        hdfs.mkdir(staging)
        for rel, entry in bounded(lambda rel: send_file(hdfs, send[rel], f"{staging}/{rel}"), list(send), threads):
            manifest[rel] = entry
            done_bytes += entry["size"]
            if progress:
                progress(done_bytes, total, len(manifest), len(send))
        hdfs.write(f"{staging}/{MANIFEST}", json.dumps({"version": 2, "files": {**kept, **manifest}}).encode())
    except (PaiError, OSError) as exc:
        reason = exc.said if isinstance(exc, PaiError) else str(exc)
        with contextlib.suppress(PaiError, OSError):
            hdfs.delete(staging, recursive=True)
        # The reason first: the start of a message is what a notification shows.
        raise Interrupted(message("upload.stopped", reason=reason, remote=remote, left=len(send) - len(manifest), total=len(send))) from None
    return len(manifest), done_bytes


@dataclass
class Plan:
    """How an old tree becomes the new one by renames and removals (`_patch`)."""

    folders: list[str]  # new top folders, moved in whole from staging
    files: list[str]  # changed files in folders the old tree has, each moved in over its old version
    gone: list[str]  # files and top folders the new tree no longer has

    @property
    def moves(self) -> int:
        return len(self.folders) + len(self.files) + len(self.gone)


def _folders(rels) -> set[str]:
    """Every folder the files `rels` are in, and the folders above those ("" is the top)."""
    out = {""}
    for rel in rels:
        while "/" in rel:
            rel = rel.rsplit("/", 1)[0]
            if rel in out:
                break
            out.add(rel)
    return out


def _plan(previous: dict, local: dict[str, str], changed: dict[str, str], removed: list[str]) -> Plan:
    """Changed files under a folder the old tree lacks move with the topmost such folder; folders the
    new tree lacks go whole, with the files in them."""
    old, new = _folders(previous), _folders(local)
    tops = {rel: next((f for f in _ancestors(rel) if f not in old), None) for rel in changed}
    vanished = old - new
    gone = sorted(f for f in vanished if not vanished.intersection(_ancestors(f)))
    gone += [rel for rel in removed if not vanished.intersection(_ancestors(rel))]
    return Plan(sorted({t for t in tops.values() if t is not None}), [rel for rel, t in tops.items() if t is None], gone)


def _ancestors(rel: str) -> list[str]:
    """"a/b/c.py" -> ["a", "a/b"]: the folders a file is in, top first."""
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _patch(hdfs: Storage, plan: Plan, staging: str, remote: str, threads: int) -> None:
    """The sent files (in `staging`, with the new manifest) switched into the old tree by renames
    only, with `remote` moved aside meanwhile: a job starting then finds no code rather than a mix.
    Fails loudly, never half-done: the old tree is put back if it was not touched yet, else removed."""
    work = f"{staging}.old"  # the old tree, being brought up to date where no job looks
    touched = False
    try:
        hdfs.rename(remote, work)
        moves = [(f"{staging}/{rel}", f"{work}/{rel}") for rel in plan.folders]
        moves += [(f"{staging}/{rel}", f"{work}/{rel}") for rel in plan.files]
        touched = True
        for _ in bounded(lambda move: hdfs.commit(*move), moves, threads):
            pass
        for _ in bounded(lambda rel: hdfs.delete(f"{work}/{rel}", recursive=True), plan.gone, threads):
            pass
        hdfs.commit(f"{staging}/{MANIFEST}", f"{work}/{MANIFEST}")
        hdfs.replace(work, remote)
    except (PaiError, OSError) as exc:
        reason = exc.said if isinstance(exc, PaiError) else str(exc)
        if not touched:
            with contextlib.suppress(PaiError, OSError):
                hdfs.rename(work, remote)
        for left in (work, staging) if touched else (staging,):
            with contextlib.suppress(PaiError, OSError):
                hdfs.delete(left, recursive=True)
        code = "upload.patch-removed" if touched else "upload.patch-unchanged"
        raise Interrupted(message(code, reason=reason, remote=remote)) from None
    with contextlib.suppress(PaiError, OSError):
        hdfs.delete(staging, recursive=True)  # only the folders the moved files were in


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
    ours = re.compile(re.escape(name) + r"\.[0-9a-f]{8}(?:\.old)*")
    with _ACTIVE_LOCK:
        active = set(_ACTIVE)
    cleaned = []
    for entry in entries:
        path = f"{staging_root}/{entry.name}"
        if ours.fullmatch(entry.name) and re.sub(r"(?:\.old)+$", "", path) not in active:
            with contextlib.suppress(NotFound):
                hdfs.delete(path, recursive=True)
            cleaned.append(path)
    return cleaned


def _unchanged(local: dict[str, str], previous: dict, threads: int) -> dict[str, dict]:
    """The files whose content is what the last upload sent, with their manifest entries: same size
    and modification time as recorded, else the same size and hash (so only files that were touched
    are read; their entries take the new time)."""
    same: dict[str, dict] = {}
    to_hash: dict[str, int] = {}
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
            same[rel] = entry
        elif "sha256" in entry:
            to_hash[rel] = st.st_mtime_ns
    for rel, digest in bounded(lambda rel: file_hash(local[rel]), list(to_hash), threads):
        if digest == previous[rel]["sha256"]:
            same[rel] = {**previous[rel], "mtime": to_hash[rel]}
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
    """Cheap check (two requests) that the folder still holds what the manifest says: as many files,
    bytes and folders (no folder an upload would not have made)."""
    if not previous:
        return False
    try:
        summary = hdfs.content(remote)
    except PaiError:
        return False
    manifest_size = hdfs.status(f"{remote}/{MANIFEST}")
    extra = manifest_size.size if manifest_size else 0
    return (summary["fileCount"] == len(previous) + 1
            and summary["length"] == sum(e.get("size", 0) for e in previous.values()) + extra
            and summary.get("directoryCount", len(_folders(previous))) == len(_folders(previous)))
