"""Submission records, the I/O side of `core.record`: gathered at every submit (git
facts, every file sent with its hash, the final config), kept beside the job's code on the
cluster's storage and in the local journal, found again and checked by their hashes, and used to
hand back exactly what a job ran (`code`), to run it again (`rerun`) and to compare two runs (`diff`).

The journal (`<state>/records/`) keeps each record and a copy of every file sent (by content, so a
file sent a hundred times is kept once): when the code folder on the cluster has been overwritten
or changed, what the job ran can still be given back and rerun from this machine.
"""

from __future__ import annotations

import calendar
import contextlib
import copy
import functools
import getpass
import hashlib
import os
import platform
import re
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..api import (
    RecordCodeResult,
    RecordCompareResult,
    RecordDiffResult,
    RecordRerunResult,
    RecordShowResult,
    RecordSummary,
    SubmissionRecord,
    UploadSummary,
)
from ..clusters.kinds import kind_of
from ..common.atomic import atomic_writer, write_atomic
from ..common.folders import state_dir
from ..core import formats
from ..core import record as rec
from ..core.job_format import Unsendable
from ..core.messages import Message, message, render
from ..core.record import FileEntry, GitState, Record, RecordError
from ..errors import InvalidInput, NotFound, PaiError
from ..storage.upload import MANIFEST, Progress, Selected, bounded, file_hash, read_manifest, select

if TYPE_CHECKING:
    from ..clusters.backend import Backend
    from ..core.job_format import JobFormat
    from ..storage.base import Storage

GIT_TIMEOUT = 10.0  # seconds any one git command may take: a huge or hung repository never holds a submit up
KEEP_LIMIT = 16 << 20  # files up to this size are copied into the journal (the code folder's limit is 200 MB in all)
RECORD_LIMIT = 64 << 20  # bytes: a record lists each file in ~110 bytes, so this is ~500,000 files; bigger is not a record


# -- the local journal -------------------------------------------------------------------
class LocalRecords:
    """Records by cluster and job, and the files sent, by SHA-256, on this machine (owner-only)."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder or state_dir() / "records"

    def _record_path(self, cluster: str, job: str) -> Path:
        for value in (cluster, job):
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,254}", value):
                raise InvalidInput(message("records.bad-name", name=value))
        return self.folder / cluster / f"{job}.json"

    def save(self, cluster: str, job: str, data: bytes) -> None:
        path = self._record_path(cluster, job)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(path, data, private=True)

    def load(self, cluster: str, job: str) -> bytes | None:
        try:
            return self._record_path(cluster, job).read_bytes()
        except OSError:
            return None

    def _blob_path(self, sha256: str) -> Path:
        if not re.fullmatch(r"[0-9a-f]{64}", sha256):
            raise RecordError(message("records.not-sha256", value=sha256))
        return self.folder / "blobs" / sha256[:2] / sha256

    def keep(self, sha256: str, data: bytes) -> None:
        path = self._blob_path(sha256)
        if not path.exists():
            write_atomic(path, data, private=True)

    def has(self, sha256: str) -> bool:
        return self._blob_path(sha256).is_file()

    def blob(self, sha256: str) -> bytes | None:
        """A file sent earlier, when the journal has it whole (its hash checked)."""
        try:
            data = self._blob_path(sha256).read_bytes()
        except (OSError, RecordError):
            return None
        return data if hashlib.sha256(data).hexdigest() == sha256 else None


# -- gathering a record ------------------------------------------------------------------
def _git(workspace: Path, *args: str) -> str | None:
    """One git command's output in `workspace` (None when git is missing, fails or takes too long)."""
    try:
        done = subprocess.run(["git", "-C", str(workspace), *args], capture_output=True, timeout=GIT_TIMEOUT,
                              stdin=subprocess.DEVNULL, env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def _without_credentials(url: str) -> str:
    """A remote URL as it may be shown and kept: `https://user:token@host/x` loses `user:token@`."""
    return re.sub(r"^([a-z][a-z0-9+.-]*://)[^/@]*@", r"\1", url.strip(), flags=re.I)


def git_state(workspace: Path, sent: list[str]) -> GitState | None:
    """The workspace's commit, branch, remote, whether it has uncommitted changes and their diff
    (bounded), and which of the files `sent` git does not track. None outside a git repository."""
    commit = _git(workspace, "rev-parse", "--verify", "HEAD")
    if commit is None:
        return None
    branch = (_git(workspace, "symbolic-ref", "--short", "-q", "HEAD") or "").strip() or None
    remote = _git(workspace, "remote", "get-url", "origin")
    status = _git(workspace, "status", "--porcelain", "--untracked-files=all", "-z", "--", ".") or ""
    diff, size = rec.bounded_diff(_git(workspace, "diff", "HEAD", "--no-color", "--no-ext-diff", "--", ".") or "")
    top = (_git(workspace, "rev-parse", "--show-prefix") or "").strip()  # the workspace's place in the repository
    untracked_paths = {entry[3:] for entry in status.split("\0") if entry.startswith("?? ")}
    untracked = tuple(rel for rel in sent if top + rel in untracked_paths)
    return GitState(commit=commit.strip(), branch=branch, remote=_without_credentials(remote) if remote else None,
                    dirty=bool(status.strip("\0")), diff=diff, diff_bytes=size, untracked=untracked)


_HASHES: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) -> SHA-256: the daemon lives long, files rarely change
_HASHES_LOCK = threading.Lock()


def _entry(path: str, journal: LocalRecords) -> FileEntry:
    """A file's size and hash; a copy goes to the journal (files up to KEEP_LIMIT)."""
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    with _HASHES_LOCK:
        known = _HASHES.get(key)
    if known is not None and (st.st_size > KEEP_LIMIT or journal.has(known)):
        return FileEntry(st.st_size, known)
    with open(path, "rb") as f:
        if st.st_size <= KEEP_LIMIT:
            data = f.read()
            sha = hashlib.sha256(data).hexdigest()
            journal.keep(sha, data)
        else:
            h = hashlib.sha256()
            while chunk := f.read(1 << 20):
                h.update(chunk)
            sha = h.hexdigest()
    with _HASHES_LOCK:
        _HASHES[key] = sha
    return FileEntry(st.st_size, sha)


def _environment() -> dict[str, str]:
    return {"python": platform.python_version(), "os": f"{platform.system()} {platform.release()}", "host": socket.gethostname()}


def make(backend: Backend, job: str, config: dict, source_config: dict, code_dir: str | None, workspace: Path,
         config_path: Path, files: list[Selected] | None, journal: LocalRecords) -> Record:
    """The record of a submit about to happen (its code already uploaded)."""
    entries = {f.rel: e for f, e in bounded(lambda f: _entry(str(f.path), journal), files or [], 4)}
    try:
        shown = config_path.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        shown = config_path.name
    return Record(job=job, cluster=backend.profile.name, kind=backend.profile.kind, user=backend.profile.user,
                  submitted=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), tool=__version__, environment=_environment(),
                  config_file=shown, workspace=str(workspace), source_config=_unsecret(backend, source_config),
                  config=_unsecret(backend, rec.without_reference(config)),
                  variables={"PAI_JOB_NAME": job, "PAI_USER_NAME": backend.profile.user}, code_dir=code_dir, files=entries,
                  git=git_state(workspace, sorted(entries)), sent=_as_sent(backend, rec.without_reference(config)))


def _format(backend: Backend, config: dict) -> JobFormat:
    """The format of a job for `backend`'s cluster: of those its kind runs, the one the job's content says."""
    kind = kind_of(backend.profile)
    return formats.of_job(config, (kind.job_format, *kind.other_formats))


def _unsecret(backend: Backend, config: dict) -> dict:
    """A config as a record keeps it: its secrets masked (a v2 job's), as the server shows them (the record
    is read by others on the cluster)."""
    return _format(backend, config).masked(config)


def _as_sent(backend: Backend, config: dict) -> str | None:
    """What the cluster gets when it is not the config itself: a v2 job as the server will see it (its
    templates filled in, secrets masked); a v1 config's v2 YAML on a protocol-2 cluster."""
    job_format = _format(backend, config)
    protocols = (backend.profile.protocol,) if kind_of(backend.profile).protocols else ()  # what its server reads
    rendered = job_format.rendered(config)
    if rendered is not None:
        return rendered
    try:
        return job_format.sent(config, protocols).text
    except Unsendable as exc:
        raise InvalidInput(exc.said(backend.profile.name)) from None


@dataclass
class Kept:
    record: Record
    digest: str
    location: str | None  # on the cluster's storage (None: it could not be written there)
    config: dict  # the config to submit: with the reference to the record where the cluster keeps one
    warning: Message | None = None  # why it is not on the cluster's storage

    def summary(self) -> RecordSummary:
        return RecordSummary(location=self.location, sha256=self.digest, code_hash=self.record.code_hash,
                             files=len(self.record.files))

    def discard(self, backend: Backend) -> None:
        """The submit failed: no record of a job that does not exist is left on the cluster."""
        if self.location:
            with contextlib.suppress(PaiError, OSError):
                backend.storage.delete(self.location)


def keep(backend: Backend, record: Record, journal: LocalRecords, config: dict) -> Kept:
    """Write the record beside the code and in the journal; `config` (what the record keeps of it, with
    a v2 job's secrets) to submit, pointing at it."""
    data = rec.encode(record)
    digest = rec.digest(data)
    location: str | None = None
    warning = None
    if record.code_dir:  # no code sent (the upload turned off): nothing is written to the cluster's storage either
        location = rec.record_path(record.code_dir, backend.storage.home, record.job)
        try:
            backend.storage.put(location, data)
        except PaiError as exc:
            warning = message("records.not-written", location=location, why=exc.message)
            location = None
    journal.save(record.cluster, record.job, data)
    config = rec.without_reference(config)
    if location and kind_of(backend.profile).record_in_extras:
        config = rec.with_reference(config, rec.reference(location, digest, record.code_hash))
    return Kept(record, digest, location, config, warning)


def record_submit(backend: Backend, job: str, config: dict, source_config: dict, code_dir: str | None, workspace: Path,
                  config_path: Path, files: list[Selected] | None) -> Kept:
    """`make` and `keep` for a submit whose code was just uploaded: the config to submit comes back."""
    local = LocalRecords()
    return keep(backend, make(backend, job, config, source_config, code_dir, workspace, config_path, files, local), local,
                config)


# -- finding a record again --------------------------------------------------------------
@dataclass
class Found:
    record: Record
    digest: str
    source: str  # "cluster" | "journal"
    location: str | None
    notes: list[Message]  # what was found wrong on the way, one line each
    checked: bool = True  # its SHA-256 is the one the job carries, or the journal's copy's

    def said(self, locale: str | None = None) -> list[str]:
        """The notes as the result carries them, in the asker's language (English when it said none)."""
        return [note.render(locale) for note in self.notes]


def _read(storage: Storage, path: str) -> bytes | None:
    try:
        return storage.read(path)
    except NotFound:
        return None


def find(backend: Backend, job: str, journal: LocalRecords | None = None) -> Found:
    """The record of `job`, checked: the copy beside its code when its SHA-256 is the one the job
    carries (or the journal's), else the journal's copy, saying what was wrong with the other."""
    journal = journal or LocalRecords()
    cluster = backend.profile.name
    try:
        config = backend.config(job)
    except NotFound:
        if not kind_of(backend.profile).record_in_extras:
            config = {}  # PaddlePaddle Cloud keeps no configs: the record is looked for where it would be
        else:
            raise
    ref = rec.reference_of(config)
    local = journal.load(cluster, job)
    expected = ref["sha256"] if ref else rec.digest(local) if local is not None else None
    notes: list[Message] = []
    location = ref["path"] if ref else None
    if location is None and not kind_of(backend.profile).record_in_extras:
        location = rec.record_path(backend.place_job(copy.deepcopy(config), job), backend.storage.home, job)
    if location is not None:
        found_there = backend.storage.status(location)
        data = _read(backend.storage, location) if found_there is not None and found_there.size <= RECORD_LIMIT else None
        if found_there is not None and data is None:
            notes.append(message("records.too-big", job=job, location=location, size=found_there.size))
        elif data is None and ref is not None:  # (where a record would be, for a job that names none: no record)
            notes.append(message("records.deleted", job=job, location=location))
        elif data is None:
            pass
        elif expected is not None and rec.digest(data) != expected:
            notes.append(message("records.changed", job=job, location=location))
        else:
            try:
                found = rec.decode(data)
            except RecordError as exc:
                notes.append(message("records.unreadable", job=job, location=location, why=exc.reason))
            else:
                if expected is None:
                    notes.append(message("records.unchecked", job=job, location=location))
                return Found(found, rec.digest(data), "cluster", location, notes, checked=expected is not None)
    if local is not None and (ref is None or rec.digest(local) == ref["sha256"]):
        try:
            return Found(rec.decode(local), rec.digest(local), "journal", location, notes)
        except RecordError as exc:
            notes.append(message("records.journal-unreadable", why=exc.reason))
    if notes:
        said = functools.reduce(lambda first, second: message("records.and", first=first, second=second), notes)
        raise NotFound(message("records.no-good-copy", notes=said))
    raise NotFound(message("records.none", job=job))


# -- what a job ran ----------------------------------------------------------------------
def _safe_rel(rel: str) -> str:
    parts = rel.split("/")
    if not rel or rel.startswith("/") or "\\" in rel or any(p in ("", ".", "..") for p in parts) or ":" in parts[0]:
        raise InvalidInput(message("records.outside", path=rel))
    return rel


def _git_blob(record: Record, rel: str) -> bytes | None:
    """A file as the record's commit has it (from the workspace's repository, if it is still here)."""
    git = record.git
    if git is None or not Path(record.workspace).is_dir():
        return None
    prefix = (_git(Path(record.workspace), "rev-parse", "--show-prefix") or "").strip()
    try:
        done = subprocess.run(["git", "-C", record.workspace, "cat-file", "blob", f"{git.commit}:{prefix}{rel}"],
                              capture_output=True, timeout=GIT_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def code_folder_matches(storage: Storage, record: Record) -> bool:
    """Whether the job's code folder still holds exactly what was sent: the same files (no more),
    each of the size and hash recorded, none written since the record was made."""
    if not record.code_dir:
        return False
    uploaded = read_manifest(storage, record.code_dir)
    if set(uploaded) != set(record.files):
        return False
    for rel, entry in record.files.items():
        sent = uploaded[rel]
        if not isinstance(sent, dict) or sent.get("size") != entry.size or sent.get("sha256") != entry.sha256:
            return False
    made = calendar.timegm(time.strptime(record.submitted, "%Y-%m-%dT%H:%M:%SZ")) + 1  # whole seconds: the second it was made counts
    seen: dict[str, int] = {}
    level = [""]
    try:
        while level:  # each level of folders listed in parallel: a tree of hundreds of folders costs a few round trips
            below = []
            for folder, entries in bounded(lambda f: storage.list(f"{record.code_dir}/{f}".rstrip("/")), level, 8):
                for st in entries:
                    rel = f"{folder}{st.name}"
                    if st.is_dir:
                        below.append(rel + "/")
                    elif rel != MANIFEST:
                        if st.modified / 1000 > made:
                            return False
                        seen[rel] = st.size
            level = below
    except NotFound:
        return False
    return seen == {rel: e.size for rel, e in record.files.items()}


def fetch(backend: Backend, record: Record, journal: LocalRecords, dest: Path) -> dict[str, int]:
    """Every file the job ran, into `dest`, each checked against its recorded hash: from its code
    folder on the cluster, else the journal, else the recorded git commit. How many came from where;
    NotFound naming the files none of them has as they were sent."""
    sources = {"cluster": 0, "journal": 0, "git": 0}
    missing = []
    storage = backend.storage
    for rel, entry in sorted(record.files.items()):
        target = dest / _safe_rel(rel)
        data = None
        where = ""
        if record.code_dir:
            data = _read(storage, f"{record.code_dir}/{rel}")
            where = "cluster"
            if data is not None and entry.sha256 is not None and hashlib.sha256(data).hexdigest() != entry.sha256:
                data = None
        if data is None and entry.sha256 is not None:
            data, where = journal.blob(entry.sha256), "journal"
            if data is None:
                data, where = _git_blob(record, rel), "git"
                if data is not None and hashlib.sha256(data).hexdigest() != entry.sha256:
                    data = None
        if data is None:
            missing.append(rel)
            continue
        with atomic_writer(target) as out:
            out.write(data)
        sources[where] += 1
    if missing:
        shown = ", ".join(missing[:5]) + (f", … (+{len(missing) - 5})" if len(missing) > 5 else "")
        raise NotFound(message("records.files-missing", count=len(missing), job=record.job, files=shown))
    return sources


def sources_text(sources: dict[str, int], record: Record, locale: str | None = None) -> str:
    """Where the files of what a job ran came from, in words: "2 files from its code folder …, 1 file from …"."""
    said = []
    if sources.get("cluster"):
        said.append(render("records.from-cluster", locale, count=sources["cluster"], folder=record.code_dir))
    if sources.get("journal"):
        said.append(render("records.from-journal", locale, count=sources["journal"]))
    if sources.get("git"):
        said.append(render("records.from-git", locale, count=sources["git"], commit=record.git.commit[:12] if record.git else "?"))
    return functools.reduce(lambda first, second: render("records.list", locale, first=first, second=second), said) if said \
        else render("records.no-files", locale)


def show(backend: Backend, job: str, locale: str | None = None) -> RecordShowResult:
    found = find(backend, job)
    return RecordShowResult(record=SubmissionRecord.from_json(found.record.to_json()), sha256=found.digest, source=found.source, location=found.location,
                            notes=found.said(locale), lines=rec.summary_lines(found.record, locale))


def code(backend: Backend, job: str, dest: Path, force: bool = False, locale: str | None = None) -> RecordCodeResult:
    """Download exactly what `job` ran into `dest` (a new or empty folder, unless `force`)."""
    found = find(backend, job)
    if dest.exists() and (not dest.is_dir() or (any(dest.iterdir()) and not force)):
        raise InvalidInput(message("records.dest-not-empty", dest=str(dest)))
    dest.mkdir(parents=True, exist_ok=True)
    sources = fetch(backend, found.record, LocalRecords(), dest)
    return RecordCodeResult(job=job, path=str(dest), files=len(found.record.files), bytes=found.record.code_bytes, sources=sources,
                            said_from=sources_text(sources, found.record, locale), notes=found.said(locale), code_hash=found.record.code_hash)


def file(backend: Backend, job: str, rel: str) -> bytes:
    """One file as `job` sent it (for an editor's read-only view)."""
    found = find(backend, job)
    if rel not in found.record.files:
        raise NotFound(message("records.no-file", job=job, path=rel))
    with tempfile.TemporaryDirectory(prefix="pai-record-") as tmp:
        one = replace(found.record, files={rel: found.record.files[rel]})
        fetch(backend, one, LocalRecords(), Path(tmp))
        return (Path(tmp) / rel).read_bytes()


# -- running it again --------------------------------------------------------------------
def rerun_config(record: Record, name_key: str) -> dict:
    """The config a rerun sends: the final config of the first run, where only what names the run
    itself is renewed (its outputs go to a folder of the new name, not into the first run's)."""
    config = copy.deepcopy(record.config)
    config.pop(name_key, None)
    source_output = record.source_config.get("outputDir")
    if isinstance(source_output, str) and "PAI_JOB_NAME" in source_output:
        config["outputDir"] = source_output
    return config


def _name_key(record: Record) -> str:
    from ..core.formats import format_for

    return format_for(record.config_file or "job.pai.json").name_key


def rerun(backend: Backend, job: str, config: dict | None = None, name: str | None = None, dry_run: bool = False,
          progress: Progress | None = None, locale: str | None = None) -> RecordRerunResult:
    """Submit what `job` ran again under a new generated name: its code from its own code folder when
    that still holds exactly what was sent (nothing uploaded), else from this machine's journal or the
    recorded git commit (uploaded, and said which); its final config, or `config` (edited by the user)."""
    journal = LocalRecords()
    found = find(backend, job, journal)
    if not found.checked:  # anyone who may write there could have put it there: shown, never run
        raise InvalidInput(message("records.unchecked-rerun", job=job, location=found.location))
    first = found.record
    name_key = _name_key(first)
    base = str(first.source_config.get(name_key) or job)
    name = name or backend.unique_name(base)
    config = copy.deepcopy(config) if config is not None else rerun_config(first, name_key)
    if not dry_run and _format(backend, config).secrets_lost(config):  # (a dry run shows it for --edit)
        raise InvalidInput(message("records.secrets-not-kept", job=job))
    code_dir = backend.place_job(config, name)
    if dry_run:
        return RecordRerunResult(job=name, rerun_of=job, config=config, code_dir=code_dir)
    uploaded = None
    sources: dict[str, int] = {}
    if not code_dir or not first.files:
        source = "none"
    elif code_dir == first.code_dir and code_folder_matches(backend.storage, first):
        source = "cluster"
    else:
        with tempfile.TemporaryDirectory(prefix="pai-rerun-") as tmp:
            sources = fetch(backend, first, journal, Path(tmp))
            files = select(Path(tmp), ["**"], None)
            uploaded = UploadSummary(**backend.upload(files, code_dir, progress=progress).to_json())
        source = max(sources, key=lambda k: sources[k])  # where most of it came from
        source = "copied" if source == "cluster" else source  # the first run's folder read, checked, sent to the new one
    again = replace(first, job=name, config=_unsecret(backend, rec.without_reference(config)), code_dir=code_dir if first.files else None,
                    sent=_as_sent(backend, rec.without_reference(config)),
                    submitted=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), tool=__version__, environment=_environment(),
                    variables={"PAI_JOB_NAME": name, "PAI_USER_NAME": backend.profile.user}, rerun_of=job,
                    user=backend.profile.user or getpass.getuser())
    kept = keep(backend, again, journal, config)
    try:
        warnings = backend.submit(kept.config)
    except PaiError:
        kept.discard(backend)
        raise
    if source == "cluster":
        said = render("records.code-unchanged", locale, job=job, folder=first.code_dir)
    elif source == "none":
        said = render("records.code-none", locale)
    else:
        said = render("records.code-uploaded", locale, job=job, sources=sources_text(sources, first, locale), folder=code_dir)
    return RecordRerunResult(job=name, cluster=backend.profile.name, user=backend.profile.user, rerun_of=job, code_source=source,
                             code_from=said, upload=uploaded, record=kept.summary(), code_hash=again.code_hash,
                             warnings=[*([kept.warning.render(locale)] if kept.warning else []), *warnings], notes=found.said(locale))


# -- comparing two runs ------------------------------------------------------------------
def diff(backend: Backend, first: str, second: str, locale: str | None = None) -> RecordDiffResult:
    """What differs between two runs: config keys, files (with a unified diff of each changed text
    file), commit and environment."""
    journal = LocalRecords()
    a, b = find(backend, first, journal), find(backend, second, journal)
    files = rec.file_changes(a.record, b.record)
    texts = []
    if files["changed"]:
        with tempfile.TemporaryDirectory(prefix="pai-diff-") as tmp:
            for found, side in ((a, "a"), (b, "b")):
                fetch(backend, replace(found.record, files={r: found.record.files[r] for r in files["changed"]}), journal,
                      Path(tmp, side))
            for rel in files["changed"]:
                texts.append({"path": rel, "diff": rec.text_diff(rel, Path(tmp, "a", rel).read_bytes(), Path(tmp, "b", rel).read_bytes(),
                                                                 first, second, locale)})
    found = {"jobs": [first, second], "config": rec.config_changes(a.record, b.record), "files": files, "diffs": texts,
             "commit": rec.commit_changes(a.record, b.record), "environment": rec.environment_changes(a.record, b.record),
             "notes": a.said(locale) + b.said(locale)}
    return RecordDiffResult.from_json({**found, "text": rec.diff_text(found, locale)})


def compare_workspace(backend: Backend, job: str, workspace: Path, locale: str | None = None) -> RecordCompareResult:
    """The files whose content differs between what `job` ran and `workspace` now (for the editor's
    "Compare with Workspace"): changed, added since (in the workspace only among files the job
    sent folders of), removed since."""
    found = find(backend, job)
    changed, removed = [], []
    for rel, entry in sorted(found.record.files.items()):
        path = workspace / _safe_rel(rel)
        if not path.is_file():
            removed.append(rel)
            continue
        try:
            same = os.path.getsize(path) == entry.size and (entry.sha256 is None or file_hash(str(path)) == entry.sha256)
        except OSError:
            same = False
        if not same:
            changed.append(rel)
    return RecordCompareResult(job=job, workspace=str(workspace), changed=changed, removed=removed, notes=found.said(locale))

