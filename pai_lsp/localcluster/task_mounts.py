"""A job's storages in its tasks: each storage's folder (its `<user>/` when it is not shared) at the
entry's `mountPath`, read-only when the storage is, as Kubernetes mounts a claim in the task's pod.

In a container (`--runtime container`) that is the engine's `--volume`. On the host, the command is
started through `mountns.py`, which mounts them in a mount namespace of the task's own and then
becomes the command, so the task's commands see the real path (`/mnt/<name>`) though the user cannot
write `/mnt`. Where that cannot be done — no Linux, the portable process path
(PAI_LSP_PORTABLE_PROCESSES=1, Windows' way: no namespaces), a kernel or policy that refuses user
namespaces — a job that uses storages is refused at submit with one line that says why, rather than
run with its files missing.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
import subprocess
import sys
from pathlib import Path

from ..common import portable
from .storages import Storages

MOUNTNS = Path(__file__).with_name("mountns.py")  # run as a script: never imported by the cluster


def helper_argv() -> list[str]:
    """How `mountns.py` is run: this Python, isolated (no PYTHON* variables, no folder of ours on sys.path) and
    without `site` (it needs only the standard library: a third less start-up, before every such task)."""
    return [sys.executable, "-I", "-S", str(MOUNTNS)]


class TaskMounts:
    """Whether this machine can mount storages in tasks (found once, when a job first needs it), and
    what a task's mounts are."""

    def __init__(self, data_dir: Path, table: Storages):
        self.data_dir = data_dir
        self.table = table
        self._probed: str | None = None

    def specs(self, user: str, storages: list[dict]) -> list[dict]:
        """What `mountns.py` (or the container engine) mounts for a task of `user`."""
        out = []
        for entry in storages:
            storage = self.table.get(entry["name"])
            source = storage.source(user) if storage is not None else None
            if source is not None:
                out.append({"name": entry["name"], "source": str(source), "target": posixpath.normpath(entry["mountPath"]),
                            "readOnly": bool(entry["readOnly"])})
        return out

    @staticmethod
    def prepare(specs: list[dict]) -> None:
        """Make the folders mounted (a user's `<user>/` of a storage that is not shared appears on first
        use, as Kubernetes makes a missing subPath)."""
        for spec in specs:
            Path(spec["source"]).mkdir(mode=0o700, parents=True, exist_ok=True)

    async def problem(self, user: str, storages: list[dict], container: bool) -> str:
        """Why this job's storages cannot be mounted in its tasks here, in one line ("" when they can)."""
        for entry in storages:
            storage = self.table.get(entry["name"])
            if storage is not None and storage.path is None and storage.serve and storage.type == "azureBlob":
                return (f"Storage {entry['name']} is an Azure Blob storage the local cluster serves with Azurite, which "
                        "keeps blobs in a database of its own: there is no folder of its files to mount in the task "
                        "(reach them with `pai storage`; mount a Samba or NFS storage in jobs here).")
            if storage is None or storage.path is None:
                return (f"Storage {entry['name']} has no folder on this machine for the local cluster to mount in the task "
                        f"(`path` in {self.table.path.name}).")
            target = entry["mountPath"]
            if not target.startswith("/"):
                return f"The mountPath {target!r} of storage {entry['name']} is not an absolute path."
            if posixpath.normpath(target) == "/":
                return f"Storage {entry['name']} cannot be mounted at /, over the whole file system."
        if not storages or container:
            return ""
        if portable.forced() or not sys.platform.startswith("linux"):
            why = ("PAI_LSP_PORTABLE_PROCESSES=1 starts tasks the portable way, which has no mount namespaces"
                   if portable.forced() else f"only Linux has them (this is {sys.platform})")
            return (f"The local cluster mounts a job's storages in a mount namespace of the task's own, and {why}: "
                    "run it with --runtime container, or use no extras.storages here.")
        for entry in storages:
            top = _new_top_level(posixpath.normpath(entry["mountPath"]))
            if top:
                return (f"The mountPath {entry['mountPath']} of storage {entry['name']} needs a new top-level folder {top}, "
                        "which the local cluster cannot make on the host: use a path under an existing folder such as "
                        f"/mnt/{entry['name']}, or --runtime container.")
        if self._probed is None:
            self._probed = await asyncio.to_thread(self._probe)
        return self._probed

    def _probe(self) -> str:
        """A read-only bind mount tried once in a namespace of its own: "" when it works, else why not."""
        try:
            result = subprocess.run([*helper_argv(), "--probe", str(self.data_dir)], capture_output=True, text=True,
                                    timeout=30)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"The local cluster cannot mount storages in tasks here: its mount helper did not run ({exc})."
        if result.returncode == 0:
            return ""
        reason = (result.stderr.strip().splitlines() or [f"exit code {result.returncode}"])[-1]
        reason = reason.removeprefix("[PAI local cluster] ")
        return (f"The local cluster cannot mount storages in tasks on this machine: {reason}. Allow unprivileged user "
                "namespaces (Ubuntu 24.04: sysctl kernel.apparmor_restrict_unprivileged_userns=0), run the cluster as "
                "root, or run it with --runtime container.")


def _new_top_level(target: str) -> str:
    """The new folder directly under / that mounting at `target` would need, or "" (its nearest
    existing folder is deeper)."""
    path = target
    while not os.path.lexists(path):
        parent = posixpath.dirname(path)
        if parent == "/":
            return path
        path = parent
    return ""
