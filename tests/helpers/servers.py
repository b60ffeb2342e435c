"""Real storage servers on 127.0.0.1, each on a port of its own, started for a test and stopped with
it: Samba (Debian's smbd, with a private configuration, passwords and shares in a temporary folder)
and Azurite (Microsoft's Azure Storage emulator, from npm: tests/servers). `.ci/run` installs both;
elsewhere a test that needs one skips, saying what to install."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AZURITE = ROOT / "tests" / "servers" / "node_modules" / ".bin" / "azurite-blob"
# Azurite's well-known development account (documented by Microsoft; no secret)
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="


def missing(what: str) -> None:
    """A server this machine lacks: skipped for a contributor, a failure in CI (which installs it)."""
    if os.environ.get("CI"):
        pytest.fail(f"{what}: .ci/run installs it", pytrace=False)
    pytest.skip(what)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int, process: subprocess.Popen, log: Path, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"the server ended at start: {log.read_text(errors='replace')[-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"the server did not listen within {timeout} s: {log.read_text(errors='replace')[-2000:]}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class SambaServer:
    port: int
    user: str
    password: str
    shares: dict[str, Path]  # share name -> the folder it serves

    def address(self, share: str) -> str:
        return f"//127.0.0.1/{share}"


SAMBA_CONF = """[global]
  server role = standalone server
  smb ports = {port}
  interfaces = 127.0.0.1
  bind interfaces only = yes
  private dir = {dir}/private
  lock directory = {dir}/lock
  state directory = {dir}/state
  cache directory = {dir}/cache
  pid directory = {dir}/pid
  ncalrpc dir = {dir}/ncalrpc
  log file = {dir}/log.%m
  passdb backend = tdbsam:{dir}/private/passdb.tdb
  server min protocol = SMB2_02
  disable netbios = yes
  load printers = no
  printing = bsd
  printcap name = /dev/null
  disable spoolss = yes
[share]
  path = {dir}/share
  read only = no
[readonly]
  path = {dir}/readonly
  read only = yes
"""


@contextlib.contextmanager
def samba(folder: Path) -> Iterator[SambaServer]:
    """smbd serving `share` (writable) and `readonly` under `folder`, to this machine's user with a
    password of the test's; smbd maps an SMB user to a Unix one, so it runs as root (as in CI)."""
    smbd = shutil.which("smbd") or ("/usr/sbin/smbd" if os.path.exists("/usr/sbin/smbd") else None)
    if smbd is None or shutil.which("smbpasswd") is None:
        missing("needs Samba's smbd (Debian: apt-get install samba)")
    if os.geteuid() != 0:
        missing("smbd serves Unix users' files, so it runs as root here (as .ci/run does)")
    for sub in ("private", "lock", "state", "cache", "pid", "ncalrpc", "share", "readonly"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = folder / "smb.conf"
    conf.write_text(SAMBA_CONF.format(port=port, dir=folder))
    user, password = "root", "pai-test-" + os.urandom(6).hex()
    subprocess.run(["smbpasswd", "-c", str(conf), "-a", "-s", user], input=f"{password}\n{password}\n", text=True,
                   check=True, capture_output=True)
    log = folder / "smbd.out"
    with open(log, "wb") as out:
        # a session of its own: smbd ends its whole process group when it stops
        process = subprocess.Popen([smbd, "-F", "--no-process-group", "-s", str(conf), "-d", "1"], stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        _listening(port, process, log)
        yield SambaServer(port, user, password, {"share": folder / "share", "readonly": folder / "readonly"})
    finally:
        _stop(process)


@dataclass
class AzuriteServer:
    port: int
    account: str = AZURITE_ACCOUNT
    key: str = AZURITE_KEY

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/{self.account}"


@contextlib.contextmanager
def azurite(folder: Path) -> Iterator[AzuriteServer]:
    """Azurite's blob service, its data in `folder`."""
    if not AZURITE.exists():
        missing("needs Azurite (cd tests/servers && npm ci)")
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = folder / "azurite.out"
    with open(log, "wb") as out:
        process = subprocess.Popen([str(AZURITE), "--blobHost", "127.0.0.1", "--blobPort", str(port), "--location", str(folder),
                                    "--skipApiVersionCheck", "--loose", "--silent"], stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        _listening(port, process, log)
        yield AzuriteServer(port)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 15)
        _stop(process)
