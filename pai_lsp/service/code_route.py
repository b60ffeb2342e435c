"""How a job's code reaches a cluster whose jobs see files only through storages (Kubernetes-era
OpenPAI, the local cluster): a job that names no `codeDir` but whose commands run files of the
workspace gets its upload into the user's default storage, under `<user>~<job>/` as the old VS Code
client put it, and is made to mount that storage and run its commands there (the format's
`mount_code`: for a v2 job, an `extras.storages` entry and `cd /mnt/<storage>/<user>~<job>` first).
The file on disk is never changed; the dry run shows the job with what was added.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from ..api import CodeStorage
from ..errors import PaiError

if TYPE_CHECKING:
    from ..clusters.backend import Backend
    from ..core.job_format import JobFormat


def runs_workspace_files(commands: list[str], workspace: Path) -> bool:
    """Whether a command names a file of the workspace by a relative path (`python3 train.py`)."""
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        for word in words:
            if word and not word.startswith(("/", "-", "$", "~")) and "$" not in word and (workspace / word).is_file():
                return True
    return False


def route(backend: Backend, job: dict, name: str, job_format: JobFormat, workspace: Path) -> CodeStorage | None:
    """The route for `job` (changed in place to use it), or None when it needs none or the cluster
    has no storage for it (a cluster kind without storages, no default storage)."""
    if not runs_workspace_files(job_format.commands(job), workspace):
        return None
    try:
        listed = backend.storages()
    except PaiError:
        return None
    default = next((s for s in listed if s.get("default")), None)
    if default is None:
        return None
    folder = f"{backend.profile.user}~{name}"
    where = job_format.mount_code(job, default["name"], folder)
    if where is None:
        return None
    return CodeStorage(storage=default["name"], path=f"/{folder}", mount_path=where.removesuffix(f"/{folder}"), job_folder=where)
