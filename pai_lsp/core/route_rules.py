"""How a job's code reaches its cluster, decided on plain data: shared by submit (service/code_route.py),
which acts on it, and the editor, which says before submit when no way exists.

A job's commands run files of the workspace by relative paths (`python3 train.py`, `bash run.sh`,
`python -m pkg`); those files reach the container through `codeDir` (HDFS, the YARN era) or through a
storage the job mounts (Kubernetes era, the local cluster): a per-cluster setting's storage
(`pai.job.upload.storage`), else the user's default storage, else a storage the job lists already —
each only when the user may write to it. Nothing here reads a file or the network: which candidate
paths exist in the workspace, and what the cluster holds (`ClusterFacts`), are handed in.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

DEFAULT_FOLDER = "$PAI_USER_NAME~$PAI_JOB_NAME"  # as the old VS Code client put it: <user>~<job>
HDFS_CODE_DIR = "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME"  # OpenPAI's HDFS guide
_INTERPRETERS = re.compile(r"^(?:python[\d.]*|pypy[\d.]*)$")
# Programs whose first argument that is no option is a file they run.
_RUNNERS = re.compile(r"^(?:python[\d.]*|pypy[\d.]*|bash|sh|zsh|dash|ksh|perl|ruby|node|Rscript|julia|torchrun|deepspeed|horovodrun|mpirun|source|\.)$")
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})
# Modules that run a script named after their options (`python -m debugpy --listen 5678 train.py`), with
# the options that take a value (the value is no file).
_LAUNCHER_MODULES = {"debugpy": frozenset({"--listen", "--connect", "--log-to", "--pid", "--configure-subProcess"}),
                     "pdb": frozenset({"-c"}), "cProfile": frozenset({"-o", "-s"}), "profile": frozenset({"-o", "-s"}),
                     "trace": frozenset({"-f", "--file", "-C", "--coverdir", "--ignore-module", "--ignore-dir"})}


@dataclass(frozen=True, slots=True)
class StorageFact:
    """One storage the user may mount, as the cluster describes it (never a credential)."""

    name: str
    type: str | None
    server: str
    read_only: bool
    mount_path: str
    default: bool
    share: bool


@dataclass(frozen=True, slots=True)
class ClusterFacts:
    """What the editor knows of the cluster a job goes to, fetched off the typing path."""

    cluster: str
    user: str
    takes_v2: bool  # its server reads v2 jobs as written (else a v2 job goes as v1, its code by codeDir)
    storages: tuple[StorageFact, ...] | None  # None: its jobs mount no storages (YARN era, another kind)
    stale: bool = False  # older than the cache's age: still said, refreshed in the background

    def storage(self, name: str) -> StorageFact | None:
        return next((s for s in self.storages or () if s.name == name), None)

    def writable(self) -> list[StorageFact]:
        return [s for s in self.storages or () if not s.read_only]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A word of a command that may name a workspace file: its `paths` (relative, `/`-separated; one
    ending in `/` names a folder), for `python -m pkg` the module's forms (`pkg.py`, `pkg/`)."""

    word: str
    paths: tuple[str, ...]
    command: int  # the index of the command it is in
    start: int  # where the word is in that command's text (-1: not found as written)
    runs: bool = False  # the command runs it (`python3 train.py`, `bash run.sh`, `./run.sh`, `python -m pkg`), not only names it


# A shell word: unquoted text, '…' or "…" runs, glued (what the shell reads as one word, near enough to
# find relative paths; 100 times faster than shlex, which a 3,000-role job would wait a second for).
_WORD = re.compile(r"""(?:[^\s'"`;&|<>()]+|'[^']*'|"(?:[^"\\]|\\.)*")+|[;&|<>()]+""")


def candidates(commands: list[str]) -> list[Candidate]:
    """Words of `commands` that may name files of the workspace, in order; none after a `cd` (the
    commands then run elsewhere, as the user chose)."""
    out: list[Candidate] = []
    for index, command in enumerate(commands):
        found, cd = _words(command)
        out.extend(Candidate(word, paths, index, start, runs) for word, paths, start, runs in found)
        if cd:
            break
    return out


@functools.lru_cache(maxsize=16384)
def _words(command: str) -> tuple[tuple[tuple[str, tuple[str, ...], int, bool], ...], bool]:
    """The candidates of one command (word, paths, where, whether it is run), and whether it has a
    `cd` (after which nothing counts); remembered by the command's text: a keystroke changes one command."""
    out = []
    module_next = False
    starts = True  # the next word starts a command (`./run.sh`)
    runner = False  # an interpreter came: its first word that is no option is what it runs
    valued: frozenset[str] = frozenset()  # the options of the launcher module that came whose next word is a value
    previous = ""
    for match in _WORD.finditer(command.split("#", 1)[0] if command.lstrip().startswith("#") else command):
        raw = match.group()
        word = raw.replace("'", "").replace('"', "") if ("'" in raw or '"' in raw) else raw
        if word == "cd":
            return tuple(out), True
        if word in _SEPARATORS or word[:1] in ";&|<>()":
            starts, runner, module_next, valued = True, False, False, frozenset()
            previous = word
            continue
        if runner and previous in valued:  # `--listen 5678`: an option's value
            previous = word
            continue
        if module_next:
            module_next = False
            if word in _LAUNCHER_MODULES:
                runner, valued = True, _LAUNCHER_MODULES[word]
                previous = word
                continue
            if re.fullmatch(r"[A-Za-z_][\w.]*", word):
                base = word.replace(".", "/")
                out.append((word, (f"{base}.py", f"{base}/"), match.start(), True))
            runner = "." in word  # `python -m torch.distributed.run train.py`: a launcher runs the next word
        elif word == "-m" and _INTERPRETERS.match(previous.rsplit("/", 1)[-1]):
            module_next = True
        elif not (not word or word[0] in "/-~" or "$" in word or "<%" in word or "=" in word or "`" in word):
            out.append((word, (word.removeprefix("./"),), match.start(), runner or (starts and "/" in word)))
            runner = _RUNNERS.match(word.rsplit("/", 1)[-1]) is not None
        elif word[:1] != "-" or not runner:
            runner = _RUNNERS.match(word.rsplit("/", 1)[-1]) is not None
        starts = False
        previous = word
    return tuple(out), False


def present(found: list[Candidate], exists: frozenset[str], runs: bool = False) -> list[Candidate]:
    """The candidates whose file is in the workspace (`exists`: the candidate paths found there);
    with `runs`, only those the commands run (a file a command only names may be found elsewhere)."""
    return [c for c in found if any(p in exists for p in c.paths) and (c.runs or not runs)]


@dataclass(frozen=True, slots=True)
class StorageChoice:
    """Where the code of a job with no codeDir goes: `storage`, or why none (`problem`: a code of the
    message catalogue's `route.*`, with `args`)."""

    storage: StorageFact | None
    source: str = ""  # "setting" | "default" | "job": what chose it
    problem: str = ""
    args: tuple[tuple[str, str], ...] = ()


def choose_storage(facts: ClusterFacts, setting: tuple[str, str] | None, listed: list[str]) -> StorageChoice:
    """The storage a job's code is uploaded to: the cluster's setting (`(storage, path)`), else the
    user's default storage, else one the job lists (`listed`) — one the user may write to."""
    if facts.storages is None:
        return StorageChoice(None, problem="route.no-storages")
    if setting is not None:
        chosen = facts.storage(setting[0])
        if chosen is None:
            return StorageChoice(None, problem="route.setting-unknown", args=(("storage", setting[0]),))
        if chosen.read_only:
            return StorageChoice(None, problem="route.setting-read-only", args=(("storage", setting[0]),))
        return StorageChoice(chosen, "setting")
    default = next((s for s in facts.storages if s.default and not s.read_only), None)
    if default is not None:
        return StorageChoice(default, "default")
    mounted = next((s for name in listed if (s := facts.storage(name)) is not None and not s.read_only), None)
    if mounted is not None:
        return StorageChoice(mounted, "job")
    if not facts.writable():
        return StorageChoice(None, problem="route.no-writable-storage")
    return StorageChoice(None, problem="route.no-default-storage")


def setting_for(values: tuple[tuple[str, str, str], ...], cluster: str) -> tuple[str, str] | None:
    """`pai.job.upload.storage`'s entry for `cluster`: (storage, path), or None."""
    return next(((storage, path) for name, storage, path in values if name == cluster), None)


def code_folder(path: str, user: str, job: str) -> str:
    """The folder in the storage the code goes to: the setting's path (`$PAI_USER_NAME`,
    `$PAI_JOB_NAME` filled in), absolute, no trailing slash."""
    filled = (path or DEFAULT_FOLDER).replace("$PAI_USER_NAME", user).replace("${PAI_USER_NAME}", user)
    filled = filled.replace("$PAI_JOB_NAME", job).replace("${PAI_JOB_NAME}", job)
    parts = [p for p in filled.replace("\\", "/").split("/") if p and p != "."]
    return "/" + "/".join(parts)
