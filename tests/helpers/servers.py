"""Real storage servers on 127.0.0.1, each on a port of its own, started for a test and stopped with
it: Samba (Debian's smbd, with a private configuration, passwords and shares in a temporary folder),
NFS (Debian's nfs-ganesha, a user-space NFS server, its configuration in a temporary folder) and
Azurite (Microsoft's Azure Storage emulator, from npm: tests/servers). `.ci/run` installs them;
elsewhere a test that needs one skips, saying what to install. The same starts serve the local
cluster's storages (pai_lsp/localcluster/storage_servers.py); here they are a test's."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pai_lsp.localcluster.storage_servers import free_port, ganesha_program, program, start_azurite, start_nfs, start_samba

__all__ = ["free_port", "samba", "nfs", "azurite", "missing"]

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


@dataclass
class SambaServer:
    port: int
    user: str
    password: str
    shares: dict[str, Path]  # share name -> the folder it serves

    def address(self, share: str) -> str:
        return f"//127.0.0.1/{share}"


@contextlib.contextmanager
def samba(folder: Path) -> Iterator[SambaServer]:
    """smbd serving `share` (writable) and `readonly` under `folder`, to this machine's user with a
    password of the test's; smbd maps an SMB user to a Unix one, so it runs as root (as in CI)."""
    if program("smbd", "/usr/sbin/smbd") is None or program("smbpasswd", "/usr/bin/smbpasswd") is None:
        missing("needs Samba's smbd (Debian: apt-get install samba)")
    if os.geteuid() != 0:
        missing("smbd serves Unix users' files, so it runs as root here (as .ci/run does)")
    shares = {"share": folder / "share", "readonly": folder / "readonly"}
    user, password = "root", "pai-test-" + os.urandom(6).hex()
    server = start_samba(folder, {"share": (shares["share"], False), "readonly": (shares["readonly"], True)}, user, password)
    try:
        yield SambaServer(server.port, user, password, shares)
    finally:
        server.stop()


@dataclass
class NfsServer:
    port: int
    exports: dict[str, Path]  # NFSv4 path (without its `/`) -> the folder it serves

    def options(self) -> list[str]:
        """The volume's mount options a cluster would give for it."""
        return [f"port={self.port}", "nfsvers=4.1"]


@contextlib.contextmanager
def nfs(folder: Path) -> Iterator[NfsServer]:
    """NFS-Ganesha serving `/share` (writable) and `/readonly` under `folder` over NFSv4; its VFS back
    end opens files by handle, so it runs as root (as in CI)."""
    if ganesha_program() is None:
        missing("needs NFS-Ganesha (Debian: apt-get install nfs-ganesha nfs-ganesha-vfs)")
    if os.geteuid() != 0:
        missing("ganesha.nfsd opens files by handle, so it runs as root here (as .ci/run does)")
    exports = {"share": folder / "share", "readonly": folder / "readonly"}
    server = start_nfs(folder, {"share": (exports["share"], False), "readonly": (exports["readonly"], True)})
    try:
        yield NfsServer(server.port, exports)
    finally:
        server.stop()


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
    server = start_azurite(folder, AZURITE_ACCOUNT, AZURITE_KEY, AZURITE)
    try:
        yield AzuriteServer(server.port)
    finally:
        server.stop()
