"""A container engine for tests, with no registry: an image imported from a small root file system of this
machine's own bash and coreutils (and the libraries they load), run as the local cluster runs a task."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

PROGRAMS = ("bash", "sleep", "cat", "true")


@dataclass
class Engine:
    program: str  # the path the local cluster also picks (the first of docker, podman that answers `info`)
    image: str
    env: dict[str, str] = field(default_factory=dict)  # what the cluster needs in its environment for this engine

    def run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([self.program, *argv], capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, **self.env))


def working_engine() -> str | None:
    """The engine the local cluster would use: the first of docker and podman whose `info` succeeds."""
    for name in ("docker", "podman"):
        program = shutil.which(name)
        if program is None:
            continue
        try:
            if subprocess.run([program, "info"], capture_output=True, timeout=30).returncode == 0:
                return program
        except (OSError, subprocess.SubprocessError):
            continue
    return None


def root_file_system() -> bytes:
    """A tar of PROGRAMS from this machine, each with the libraries `ldd` says it loads, in /bin and at the
    libraries' own paths."""
    files: dict[str, Path] = {}
    for name in PROGRAMS:
        program = Path(shutil.which(name) or f"/bin/{name}").resolve()
        files[f"bin/{name}"] = program
        linked = subprocess.run(["ldd", str(program)], capture_output=True, text=True).stdout
        for word in linked.split():
            if word.startswith("/") and Path(word).exists():
                files[word.lstrip("/")] = Path(word).resolve()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for folder in ("tmp", "proc", "sys", "dev", "etc", "pai"):
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if folder == "tmp" else 0o755
            tar.addfile(info)
        for name, source in files.items():
            tar.add(source, arcname=name)
    return buffer.getvalue()


def sandbox_settings(folder: Path) -> dict[str, str]:
    """podman settings for a machine that refuses its defaults (a VM without CAP_SYS_RESOURCE, which
    cannot raise the ulimits podman sets; hybrid cgroups, which crun refuses and runc takes)."""
    conf = folder / "containers.conf"
    runtime = '[engine]\nruntime = "runc"\n' if shutil.which("runc") else ""
    conf.write_text('[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n' + runtime)
    return {"CONTAINERS_CONF": str(conf)}


def engine_that_runs(folder: Path) -> tuple[Engine | None, str]:
    """An engine with a test image that runs a container here, or None and why not (one line)."""
    program = working_engine()
    if program is None:
        return None, "needs a working container engine (docker or podman: apt-get install podman)"
    image = f"localhost/pai-lsp-test-{uuid.uuid4().hex[:12]}:1"
    engine = Engine(program, image)
    imported = subprocess.run([program, "import", "-", image], input=root_file_system(), capture_output=True, timeout=120)
    if imported.returncode != 0:
        return None, f"{Path(program).name} cannot import an image here: {imported.stderr.decode(errors='replace').strip()[-200:]}"
    tries = [{}] + ([sandbox_settings(folder)] if Path(program).name == "podman" else [])
    why = ""
    for env in tries:
        engine.env = env
        ran = engine.run("run", "--rm", "--memory", "64m", image, "/bin/true")
        if ran.returncode == 0:
            return engine, ""
        why = ran.stderr.strip().splitlines()[-1] if ran.stderr.strip() else f"exit {ran.returncode}"
    engine.run("rmi", "-f", image)
    return None, f"{Path(program).name} cannot run a container here: {why}"
