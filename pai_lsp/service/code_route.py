"""How a job's code reaches a cluster whose jobs see files only through storages (Kubernetes-era
OpenPAI, the local cluster): a job that names no `codeDir` but whose commands run files of the
workspace gets its upload into a storage — the cluster's `pai.job.upload.storage` setting, else the
user's default storage, else one the job mounts already (core/route_rules.py decides, as the editor
does) — under `<user>~<job>/` as the old VS Code client put it (or the setting's path), and is made to
mount that storage and run its commands there (the format's `mount_code`: for a v2 job, an
`extras.storages` entry and `cd /mnt/<storage>/<user>~<job>` first). The file on disk is never
changed; the dry run shows the job with what was added. When no way exists, `missing` says why,
before anything is uploaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..api import CodeStorage, StorageListResult
from ..core.messages import Message, message
from ..core.route_rules import Candidate, ClusterFacts, StorageFact, candidates, choose_storage, code_folder, present, setting_for
from ..errors import PaiError, Unsupported

if TYPE_CHECKING:
    from ..clusters.backend import Backend
    from ..core.job_format import JobFormat
    from ..core.model import Settings


def existing(commands: list[str], workspace: Path) -> frozenset[str]:
    """The candidate paths of `commands` that are in the workspace (a path ending in `/`: a folder)."""
    found = set()
    for candidate in candidates(commands):
        for path in candidate.paths:
            target = workspace / path
            try:
                if target.is_dir() if path.endswith("/") else target.is_file():
                    found.add(path)
            except (OSError, ValueError):
                continue
    return frozenset(found)


def workspace_files_run(commands: list[str], workspace: Path, runs: bool = True) -> list[Candidate]:
    """The words of `commands` that run files of the workspace (`python3 train.py`: `train.py`; with
    `runs` false, also those that only name one: `echo train.py`)."""
    return present(candidates(commands), existing(commands, workspace), runs)


def runs_workspace_files(commands: list[str], workspace: Path) -> bool:
    """Whether a command names a file of the workspace by a relative path (`python3 train.py`)."""
    return bool(workspace_files_run(commands, workspace, runs=False))


def facts_of(backend: Backend, listed: StorageListResult | None) -> ClusterFacts:
    """The cluster as core/route_rules.py reads it (`listed`: its storages; None: it has none)."""
    storages = None if listed is None else tuple(
        StorageFact(s.name, s.type, s.server, s.read_only, s.mount_path, s.default, s.share) for s in listed.storages)
    return ClusterFacts(backend.profile.name, backend.profile.user or "", bool(getattr(backend, "takes_v2", False)), storages)


def storages_of(backend: Backend) -> StorageListResult | None:
    """The cluster's storages with their details, or None for a cluster whose jobs mount none."""
    from .mounted_storages import listing

    try:
        return listing(backend)
    except Unsupported:
        return None


def route(backend: Backend, job: dict, name: str, job_format: JobFormat, workspace: Path,
          settings: Settings) -> tuple[CodeStorage | None, Message | None]:
    """The route for `job` (changed in place to use it), or why there is none when its commands run
    files of the workspace (None, None: it needs none)."""
    commands = job_format.commands(job)
    named = workspace_files_run(commands, workspace, runs=False)  # any file it names goes up (harmless)
    if not named:
        return None, None
    ran = [f for f in named if f.runs]  # only a file it runs makes a missing route worth a word

    def missing(code: str, **args: object) -> tuple[None, Message | None]:
        return None, (message(code, **{**args, "path": ran[0].word}) if ran else None)

    if not job_format.mounts_storages:
        return missing("route.no-code-dir", cluster=backend.profile.name, field=job_format.code_dir_key)
    try:
        listed = storages_of(backend)
    except PaiError:
        return None, None  # the cluster cannot be asked now: the submit says what it says
    facts = facts_of(backend, listed)
    args = {"cluster": facts.cluster, "field": job_format.code_dir_key,
            "storages": ", ".join(s.name for s in facts.storages or ()) or message("route.none")}
    if not facts.takes_v2 or facts.storages is None:
        return missing("route.no-storages", **args)
    setting = setting_for(settings.upload_storage, facts.cluster)
    extras = job.get("extras") if isinstance(job.get("extras"), dict) else {}
    listed_names = [e["name"] for e in extras.get("storages") or [] if isinstance(e, dict) and isinstance(e.get("name"), str)] \
        if isinstance(extras.get("storages"), list) else []
    choice = choose_storage(facts, setting, listed_names)
    if choice.storage is None:
        return missing(choice.problem, **{**args, **dict(choice.args)})
    folder = code_folder(setting[1] if setting is not None else "", backend.profile.user or "", name)
    where = job_format.mount_code(job, choice.storage.name, folder.lstrip("/"))
    if where is None:
        return None, None
    return CodeStorage(storage=choice.storage.name, path=folder, mount_path=where.removesuffix(folder),
                       job_folder=where, chosen_by=choice.source), None
