"""A job's submission record: what exactly it ran. Pure: the model, its JSON form, its
hashes and the comparison of two records; the service layer (service/records.py) gathers the facts
and keeps the record beside the job's code and in the daemon's journal.

A record is written as canonical JSON (sorted keys, no spaces), so the SHA-256 of its bytes is a
stable fingerprint: the job carries that fingerprint (in its config's `extras`, under `REFERENCE_KEY`)
and the journal keeps it, so a record changed or replaced on the cluster is told apart from the one
that was written. Each file sent is listed with its size and SHA-256, so the code itself is checked
file by file, and `code_hash` names the whole tree in one value.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .messages import Message, message, render

VERSION = 1
REFERENCE_KEY = "paiLspRecord"  # the job config's `extras` key that points at the record (v1 `extras` keys match [A-Za-z0-9._]+)
RECORDS_FOLDER = ".pai-records"  # beside the job's code folder: `<parent>/.pai-records/<job>.json`
DIFF_LIMIT = 256 * 1024  # bytes of `git diff` kept in a record; a bigger diff is left out, and said so
TEXT_DIFF_LINES = 400  # lines of unified diff shown per changed file


class RecordError(ValueError):
    """A record that cannot be read (not JSON, not a record, a version this tool does not know);
    its one argument is the catalogue's `Message` saying why."""

    @property
    def reason(self) -> Message:
        return self.args[0]


@dataclass(frozen=True)
class FileEntry:
    size: int
    sha256: str | None  # None only for a file too big to hash (the upload knows it by size and time then)

    def to_json(self) -> dict:
        return {"size": self.size, "sha256": self.sha256}


@dataclass(frozen=True)
class GitState:
    """The workspace's git facts at submit time. `diff` is `git diff HEAD` (tracked files), None when
    it was over DIFF_LIMIT (`diff_bytes` says how big it was); `untracked` lists the files sent that git
    does not track."""

    commit: str
    branch: str | None = None
    remote: str | None = None  # the `origin` URL, without any user name or password in it
    dirty: bool = False
    diff: str | None = ""
    diff_bytes: int = 0
    untracked: tuple[str, ...] = ()

    @property
    def diff_too_large(self) -> bool:
        return self.diff is None

    def to_json(self) -> dict:
        return {"commit": self.commit, "branch": self.branch, "remote": self.remote, "dirty": self.dirty, "diff": self.diff,
                "diffBytes": self.diff_bytes, "untracked": list(self.untracked)}

    @classmethod
    def from_json(cls, data: dict) -> GitState:
        return cls(commit=str(data["commit"]), branch=data.get("branch"), remote=data.get("remote"), dirty=bool(data.get("dirty")),
                   diff=data.get("diff"), diff_bytes=int(data.get("diffBytes") or 0),
                   untracked=tuple(str(u) for u in data.get("untracked") or ()))


@dataclass(frozen=True)
class Record:
    job: str
    cluster: str  # the profile's name
    kind: str  # the cluster kind (openpai, scm, paddlecloud)
    user: str
    submitted: str  # ISO 8601 UTC
    tool: str  # pai-lsp's version
    environment: dict[str, str]  # python, os, host
    config_file: str  # the job file, relative to the workspace
    workspace: str  # the workspace's folder on the submitting machine
    source_config: dict  # the config as written (comments and `$schema` gone), before names were filled in
    config: dict  # the final config sent (name, `$PAI_…` values filled in), without the record's own reference
    variables: dict[str, str]  # the `$PAI_…` values filled in
    code_dir: str | None  # where the code went on the cluster's storage (None: no code uploaded)
    files: dict[str, FileEntry] = field(default_factory=dict)
    git: GitState | None = None
    rerun_of: str | None = None  # the job this one reran
    sent: str | None = None  # the job as the cluster got it when that is not `config` itself: the v2 YAML a protocol-2 cluster gets

    @property
    def code_hash(self) -> str:
        """One value for the whole tree sent: equal trees, equal hashes."""
        h = hashlib.sha256()
        for rel in sorted(self.files):
            entry = self.files[rel]
            h.update(f"{rel}\0{entry.size}\0{entry.sha256 or ''}\n".encode())
        return h.hexdigest()

    @property
    def code_bytes(self) -> int:
        return sum(e.size for e in self.files.values())

    def to_json(self) -> dict:
        return {"version": VERSION, "job": self.job, "cluster": self.cluster, "kind": self.kind, "user": self.user,
                "submitted": self.submitted, "tool": self.tool, "environment": dict(self.environment),
                "configFile": self.config_file, "workspace": self.workspace, "sourceConfig": self.source_config,
                "config": self.config, "variables": dict(self.variables), "codeDir": self.code_dir,
                "codeHash": self.code_hash, "files": {rel: e.to_json() for rel, e in sorted(self.files.items())},
                "git": self.git.to_json() if self.git else None, "rerunOf": self.rerun_of, "sent": self.sent}

    @classmethod
    def from_json(cls, data: Any) -> Record:
        if not isinstance(data, dict) or "job" not in data or "files" not in data:
            raise RecordError(message("records.not-a-record"))
        if data.get("version") != VERSION:
            raise RecordError(message("records.version", version=repr(data.get("version")), known=VERSION))
        try:
            files = {str(rel): FileEntry(int(e["size"]), e.get("sha256")) for rel, e in data["files"].items()}
            record = cls(job=str(data["job"]), cluster=str(data["cluster"]), kind=str(data["kind"]), user=str(data["user"]),
                         submitted=str(data["submitted"]), tool=str(data["tool"]), environment=dict(data.get("environment") or {}),
                         config_file=str(data.get("configFile") or ""), workspace=str(data.get("workspace") or ""),
                         source_config=dict(data["sourceConfig"]), config=dict(data["config"]),
                         variables=dict(data.get("variables") or {}), code_dir=data.get("codeDir"), files=files,
                         git=GitState.from_json(data["git"]) if data.get("git") else None, rerun_of=data.get("rerunOf"),
                         sent=data.get("sent"))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RecordError(message("records.damaged", why=f"{type(exc).__name__}: {exc}")) from None
        if data.get("codeHash") not in (None, record.code_hash):
            raise RecordError(message("records.code-hash"))
        return record


def encode(record: Record) -> bytes:
    """The record's bytes as kept: canonical, so its digest is stable."""
    return json.dumps(record.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def decode(data: bytes) -> Record:
    try:
        value = json.loads(data)
    except ValueError:
        raise RecordError(message("records.not-json")) from None
    return Record.from_json(value)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def reference(path: str, record_digest: str, code_hash: str) -> dict:
    """What the job itself carries (its config's `extras[REFERENCE_KEY]`): where its record is and
    the fingerprints to check it by."""
    return {"path": path, "sha256": record_digest, "codeHash": code_hash}


def reference_of(config: dict | None) -> dict | None:
    """The record reference a job's config carries, if any (v1 `extras`, or v2 `extras` as read back)."""
    extras = (config or {}).get("extras")
    ref = extras.get(REFERENCE_KEY) if isinstance(extras, dict) else None
    return ref if isinstance(ref, dict) and isinstance(ref.get("path"), str) and isinstance(ref.get("sha256"), str) else None


def without_reference(config: dict) -> dict:
    """`config` as the record keeps it: without the reference to the record (which cannot be in it)."""
    extras = config.get("extras")
    if not isinstance(extras, dict) or REFERENCE_KEY not in extras:
        return config
    rest = {k: v for k, v in extras.items() if k != REFERENCE_KEY}
    out = {k: v for k, v in config.items() if k != "extras"}
    if rest:
        out["extras"] = rest
    return out


def with_reference(config: dict, ref: dict) -> dict:
    return {**config, "extras": {**(config.get("extras") or {}), REFERENCE_KEY: ref}}


def record_path(code_dir: str | None, home: str, job: str) -> str:
    """Where a job's record is kept on the cluster's storage: beside its code folder (or in the
    user's home when no code was sent), one file per job, so a code folder shared by many jobs
    keeps each job's record."""
    parent = (code_dir.rstrip("/").rsplit("/", 1)[0] or "/") if code_dir else home.rstrip("/") or "/"
    return f"{parent.rstrip('/')}/{RECORDS_FOLDER}/{job}.json"


def bounded_diff(text: str) -> tuple[str | None, int]:
    """(`git diff` as kept, its size in bytes): None when over DIFF_LIMIT."""
    size = len(text.encode())
    return (text if size <= DIFF_LIMIT else None), size


# -- comparing two records ---------------------------------------------------------------
_MISSING = object()


def _normalized(value: Any, names: tuple[str, ...]) -> Any:
    """A config value with the run's own name (and, for a rerun, the name of the run whose code folder
    it uses) said as `$PAI_JOB_NAME`: two runs of one config differ by their names everywhere the name
    was filled in, which is no difference worth showing."""
    if isinstance(value, str):
        for name in names:
            value = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", "$PAI_JOB_NAME", value)
        return value
    if isinstance(value, dict):
        return {k: _normalized(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalized(v, names) for v in value]
    return value


def _names(record: Record) -> tuple[str, ...]:
    return tuple(n for n in (record.job, record.rerun_of) if n)


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(value, list) and value and any(isinstance(v, (dict, list)) for v in value):
        for i, v in enumerate(value):
            key = v.get("name") if isinstance(v, dict) and isinstance(v.get("name"), str) else str(i)
            _flatten(v, f"{prefix}[{key}]", out)
    else:
        out[prefix] = value


NAME_KEYS = ("jobName", "name")  # the job's own name: different in every run


def config_changes(a: Record, b: Record) -> list[dict]:
    """The config keys that differ (dotted paths; roles by name), each with both values (absent: no key)."""
    flat_a: dict[str, Any] = {}
    flat_b: dict[str, Any] = {}
    _flatten(_normalized(a.config, _names(a)), "", flat_a)
    _flatten(_normalized(b.config, _names(b)), "", flat_b)
    changes = []
    for key in sorted(set(flat_a) | set(flat_b)):
        if key in NAME_KEYS:
            continue
        va, vb = flat_a.get(key, _MISSING), flat_b.get(key, _MISSING)
        if va != vb:
            change = {"key": key, "change": "added" if va is _MISSING else "removed" if vb is _MISSING else "changed"}
            if va is not _MISSING:
                change["old"] = va
            if vb is not _MISSING:
                change["new"] = vb
            changes.append(change)
    return changes


def file_changes(a: Record, b: Record) -> dict[str, list[str]]:
    """Files added (in b only), removed (in a only) and changed (different size or hash)."""
    return {"added": sorted(set(b.files) - set(a.files)), "removed": sorted(set(a.files) - set(b.files)),
            "changed": sorted(rel for rel in set(a.files) & set(b.files) if a.files[rel] != b.files[rel])}


def commit_changes(a: Record, b: Record) -> list[dict]:
    """How the two workspaces' git states differ: commit, branch, remote, dirty, and (`diff`, in bytes)
    the uncommitted changes themselves."""
    ga, gb = a.git, b.git
    out = []
    facts_a = {"commit": ga.commit, "branch": ga.branch, "remote": ga.remote, "dirty": ga.dirty} if ga else {"commit": None}
    facts_b = {"commit": gb.commit, "branch": gb.branch, "remote": gb.remote, "dirty": gb.dirty} if gb else {"commit": None}
    for key in ("commit", "branch", "remote", "dirty"):
        if facts_a.get(key) != facts_b.get(key):
            out.append({"key": key, "old": facts_a.get(key), "new": facts_b.get(key)})
    if ga and gb and ga.diff != gb.diff and ga.dirty and gb.dirty:
        out.append({"key": "diff", "old": ga.diff_bytes, "new": gb.diff_bytes})
    return out


def environment_changes(a: Record, b: Record) -> list[dict]:
    facts_a = {**a.environment, "pai-lsp": a.tool, "cluster": a.cluster, "user": a.user}
    facts_b = {**b.environment, "pai-lsp": b.tool, "cluster": b.cluster, "user": b.user}
    return [{"key": k, "old": facts_a.get(k), "new": facts_b.get(k)} for k in sorted(set(facts_a) | set(facts_b))
            if facts_a.get(k) != facts_b.get(k)]


def is_text(data: bytes) -> bool:
    if b"\0" in data[:8192]:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def text_diff(rel: str, old: bytes, new: bytes, old_label: str, new_label: str, locale: str | None = None) -> str:
    """A unified diff of one file (at most TEXT_DIFF_LINES lines), or one line for a binary file."""
    if not (is_text(old) and is_text(new)):
        return render("records.binary-differs", locale, path=rel, old=len(old), new=len(new)) + "\n"
    lines = list(difflib.unified_diff(old.decode().splitlines(keepends=True), new.decode().splitlines(keepends=True),
                                      f"{old_label}/{rel}", f"{new_label}/{rel}"))
    lines = [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]  # diff's own marker
    if len(lines) > TEXT_DIFF_LINES:
        lines = [*lines[:TEXT_DIFF_LINES], render("records.more-diff-lines", locale, count=len(lines) - TEXT_DIFF_LINES) + "\n"]
    return "".join(lines)


def _more(items: tuple[str, ...] | list[str], shown: int) -> str:
    """The first `shown` items, and how many more there are."""
    return ", ".join(items[:shown]) + (f", … (+{len(items) - shown})" if len(items) > shown else "")


def _git_line(git: GitState, locale: str | None) -> str:
    where = {"branch": git.branch or render("records.detached", locale), "commit": git.commit[:12],
             "remote": f" ({git.remote})" if git.remote else ""}
    if not git.dirty:
        return render("records.summary-git-clean", locale, **where)
    if git.diff_too_large:
        return render("records.summary-git-diff-too-large", locale, **where, bytes=git.diff_bytes)
    return render("records.summary-git-dirty", locale, **where, bytes=git.diff_bytes)


def summary_lines(record: Record, locale: str | None = None) -> list[str]:
    """The record in words (for `pai show`), in the reader's language."""
    env = record.environment
    lines = [render("records.summary-job", locale, job=record.job, cluster=record.cluster, kind=record.kind, user=record.user),
             render("records.summary-submitted", locale, submitted=record.submitted, tool=record.tool,
                    python=env.get("python", "?"), os=env.get("os", "?"), host=env.get("host", "?")),
             render("records.summary-config", locale, file=record.config_file, workspace=record.workspace)]
    if record.rerun_of:
        lines.append(render("records.summary-rerun", locale, job=record.rerun_of))
    if record.code_dir:
        lines.append(render("records.summary-code", locale, count=len(record.files), bytes=record.code_bytes,
                            folder=record.code_dir, hash=record.code_hash[:12]))
    else:
        lines.append(render("records.summary-no-code", locale))
    git = record.git
    if git is None:
        lines.append(render("records.summary-no-git", locale))
    else:
        lines.append(_git_line(git, locale))
        if git.untracked:
            lines.append(render("records.summary-untracked", locale, files=_more(git.untracked, 10)))
    if record.sent:
        lines.append(render("records.summary-sent", locale, count=record.sent.count("\n")))
    if record.variables:
        lines.append(render("records.summary-variables", locale,
                            values=", ".join(f"${key}={value}" for key, value in sorted(record.variables.items()))))
    return lines


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _value(value: Any, locale: str | None) -> str:
    return render("records.diff-none", locale) if value is None else str(value)


def _row(row: dict, locale: str | None) -> str:
    if row["key"] == "diff":
        return render("records.diff-uncommitted", locale, old=row["old"], new=row["new"])
    return f"  ~ {row['key']}: {_value(row['old'], locale)} → {_value(row['new'], locale)}"


def diff_text(found: dict, locale: str | None = None) -> str:
    """Two runs compared (the daemon's `record.diff` result) in words: what `pai diff` prints and the
    editors show."""
    a, b = found["jobs"]
    lines = [render("records.diff-config", locale, first=a, second=b) if found["config"] else render("records.diff-config-same", locale)]
    for change in found["config"]:
        if change["change"] == "added":
            lines.append(f"  + {change['key']}: {_shown(change['new'])}")
        elif change["change"] == "removed":
            lines.append(f"  - {change['key']}: {_shown(change['old'])}")
        else:
            lines.append(f"  ~ {change['key']}: {_shown(change['old'])} → {_shown(change['new'])}")
    files = found["files"]
    if not any(files.values()):
        lines.append(render("records.diff-code-same", locale))
    else:
        lines.append(render("records.diff-code", locale))
        for kind, mark in (("added", "+"), ("removed", "-"), ("changed", "~")):
            lines += [f"  {mark} {rel}" for rel in files[kind]]
    text = "\n".join(lines) + "\n" + "".join(piece["diff"] for piece in found["diffs"])
    rest = []
    for part, rows in (("commit", found["commit"]), ("environment", found["environment"])):
        if not rows:
            rest.append(render(f"records.diff-{part}-same", locale))
            continue
        rest.append(render(f"records.diff-{part}", locale))
        rest += [_row(row, locale) for row in rows]
    return text + "\n".join(rest) + "\n"
