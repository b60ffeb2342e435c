"""A real sshd (Debian's openssh-server) on 127.0.0.1 at a free port, as a task's ssh plugin starts it
(the local cluster's own sshd_config, pai_lsp/localcluster/task_sshd.py), started for a test and ended
with it. `.ci/run` installs it; elsewhere a test that needs it skips, saying what to install."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pai_lsp.localcluster.storage_servers import free_port
from pai_lsp.localcluster.task_sshd import sshd_program, write_files

from .servers import missing


def needs_sshd() -> str:
    """sshd's path; skips (fails in CI) without it."""
    program = sshd_program()
    if program is None:
        missing("needs OpenSSH's sshd (Debian: apt-get install openssh-server)")
    return str(program)


def key_pair(folder: Path, name: str = "id_ed25519") -> tuple[Path, str]:
    """A new Ed25519 key pair in `folder`: (the private key's file, the public key's line)."""
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519", comment=f"pai-test-{name}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    key.write_private_key(str(path))
    path.chmod(0o600)
    return path, key.export_public_key().decode().strip()


@dataclass
class Sshd:
    port: int
    folder: Path
    process: subprocess.Popen

    def log(self) -> str:
        try:
            return (self.folder / "sshd.log").read_text(errors="replace")
        except OSError:
            return ""


@contextlib.contextmanager
def sshd(folder: Path, keys: tuple[str, ...], env: dict[str, str] | None = None) -> Iterator[Sshd]:
    """sshd letting in `keys` (as this user) on a free loopback port, listening before it is yielded."""
    program = needs_sshd()
    port = free_port()
    config = write_files(folder, port, keys, env or {})
    process = subprocess.Popen([program, "-D", "-f", str(config), "-E", str(folder / "sshd.log")],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = Sshd(port, folder, process)
    try:
        deadline = time.monotonic() + 10
        while "Server listening" not in server.log():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"sshd did not start: {server.log()}")
            time.sleep(0.02)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
