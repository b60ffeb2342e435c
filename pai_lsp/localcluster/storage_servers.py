"""Real storage servers of this machine, on 127.0.0.1 and a free port each, that serve the local
cluster's Samba, NFS and Azure Blob storages through their own protocols: Samba's smbd, NFS-Ganesha
(a user-space NFS server) and Azurite (Microsoft's Azure Storage emulator). The tests start the same
servers the same way (tests/helpers/servers.py).

Each runs in a session of its own with its configuration in a folder of the cluster's, and ends when
`stop` is called (the cluster's end). smbd and ganesha serve folders of this machine, so a task can
see the very files they serve; Azurite keeps blobs in its own database, so a task sees a copy (see
`served_storages.py`).

NFS-Ganesha answers NFSv4 only here: NFSv3 needs rpcbind (port 111, one per machine), which a
server on a free port of its own cannot register with, and NFSv4 needs none.
"""

from __future__ import annotations

import base64
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT = 30  # seconds a server may take to listen


class ServerError(Exception):
    """A storage server that cannot be started here: one line that says why and what to install."""


@dataclass
class Running:
    """A started server: its process, port and log."""

    process: subprocess.Popen
    port: int
    log: Path
    scratch: Path | None = None  # a folder of its own, removed when it stops

    def stop(self) -> None:
        """End it and every process it started (its session)."""
        self._end()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def _end(self) -> None:
        if self.process.poll() is None:
            self._signal(hard=False)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self._signal(hard=True)
                self.process.wait()

    def _signal(self, hard: bool) -> None:
        """To the server's whole session (it was started in one of its own); on Windows, which has no
        process groups and none of these servers, to the process."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if sys.platform == "win32":
                (self.process.kill if hard else self.process.terminate)()
            else:
                os.killpg(self.process.pid, signal.SIGKILL if hard else signal.SIGTERM)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def program(name: str, *places: str) -> str | None:
    """A server's program: on PATH, else in one of the places Debian puts it."""
    return shutil.which(name) or next((p for p in places if os.access(p, os.X_OK)), None)


def _started(argv: list[str], port: int, log: Path, env: dict | None = None) -> Running:
    with open(log, "wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True, env=env)
    running = Running(process, port, log)
    end = time.monotonic() + START_TIMEOUT
    while time.monotonic() < end:
        if process.poll() is not None:
            raise ServerError(f"{Path(argv[0]).name} ended at start: {_tail(log)}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return running
        time.sleep(0.05)
    running.stop()
    raise ServerError(f"{Path(argv[0]).name} did not listen within {START_TIMEOUT} s: {_tail(log)}")


def _tail(log: Path) -> str:
    lines = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    return " | ".join(lines[-3:]) or "(it said nothing)"


def _as_root(what: str) -> None:
    if sys.platform == "win32" or os.geteuid() != 0:
        raise ServerError(f"{what} serves Unix users' files and runs as root: run the local cluster as root for it")


# -- Samba ------------------------------------------------------------------------------------------
SAMBA_GLOBAL = """[global]
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
"""


def start_samba(folder: Path, shares: dict[str, tuple[Path, bool]], user: str, password: str) -> Running:
    """smbd serving each share (name -> (folder, read-only)) to `user` (a Unix user: smbd maps an SMB
    user to one) with `password`, its state in `folder` (a short path: smbd's sockets are made in it,
    and a socket's path is at most 107 bytes)."""
    smbd, smbpasswd = program("smbd", "/usr/sbin/smbd"), program("smbpasswd", "/usr/bin/smbpasswd")
    if smbd is None or smbpasswd is None:
        raise ServerError("a Samba storage needs Samba's smbd (Debian: apt-get install samba)")
    _as_root("smbd")
    for sub in ("private", "lock", "state", "cache", "pid", "ncalrpc"):
        (folder / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
    port = free_port()
    conf = SAMBA_GLOBAL.format(port=port, dir=folder)
    for name, (path, read_only) in shares.items():
        path.mkdir(parents=True, exist_ok=True)
        conf += f"[{name}]\n  path = {path}\n  read only = {'yes' if read_only else 'no'}\n"
    (folder / "smb.conf").write_text(conf, encoding="utf-8")
    subprocess.run([smbpasswd, "-c", str(folder / "smb.conf"), "-a", "-s", user], input=f"{password}\n{password}\n",
                   text=True, check=True, capture_output=True)
    # -F: in the foreground; no process group of its own, so that its session is the one `stop` ends
    return _started([smbd, "-F", "--no-process-group", "-s", str(folder / "smb.conf"), "-d", "1"], port,
                    folder / "smbd.out")


# -- NFS (NFS-Ganesha) --------------------------------------------------------------------------
GANESHA_CORE = """NFS_CORE_PARAM {{
  NFS_Port = {port};
  Bind_addr = 127.0.0.1;
  Protocols = 4;
  Enable_NLM = false;
  Enable_RQUOTA = false;
  Enable_UDP = false;
}}
NFSV4 {{
  RecoveryBackend = fs;
  RecoveryRoot = {dir}/recovery;
  Graceless = true;
}}
NFS_KRB5 {{ Active_krb5 = false; }}
"""
GANESHA_EXPORT = """EXPORT {{
  Export_Id = {id};
  Path = {path};
  Pseudo = /{name};
  Access_Type = {access};
  Squash = No_Root_Squash;
  SecType = sys;
  Protocols = 4;
  Transports = TCP;
  Attr_Expiration_Time = 0;
  FSAL {{ Name = VFS; }}
}}
"""


def ganesha_program() -> str | None:
    """ganesha.nfsd, when it is here with its VFS back end (a separate Debian package)."""
    ganesha = program("ganesha.nfsd", "/usr/bin/ganesha.nfsd", "/usr/sbin/ganesha.nfsd")
    vfs = any(Path(p).exists() for p in ("/usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so",
                                          "/usr/lib/aarch64-linux-gnu/ganesha/libfsalvfs.so",
                                          "/usr/lib64/ganesha/libfsalvfs.so", "/usr/lib/ganesha/libfsalvfs.so"))
    return ganesha if vfs else None


def start_nfs(folder: Path, exports: dict[str, tuple[Path, bool]]) -> Running:
    """NFS-Ganesha serving each folder (name -> (folder, read-only)) as the NFSv4 path `/<name>`, its
    configuration, recovery records and log in `folder`. Its cache of what a folder holds is checked
    again on every call (`Attr_Expiration_Time = 0`): tasks change the served folders directly (they
    see it bind-mounted), and a cached entry for a file removed that way would otherwise still be
    said to exist, or answer "stale file handle"."""
    ganesha = ganesha_program()
    if ganesha is None:
        raise ServerError("an NFS storage needs NFS-Ganesha with its VFS back end "
                          "(Debian: apt-get install nfs-ganesha nfs-ganesha-vfs)")
    _as_root("ganesha.nfsd")
    (folder / "recovery").mkdir(mode=0o700, parents=True, exist_ok=True)
    port = free_port()
    conf = GANESHA_CORE.format(port=port, dir=folder)
    for number, (name, (path, read_only)) in enumerate(exports.items(), 1):
        path.mkdir(parents=True, exist_ok=True)
        conf += GANESHA_EXPORT.format(id=number, path=path, name=name, access="RO" if read_only else "RW")
    (folder / "ganesha.conf").write_text(conf, encoding="utf-8")
    return _started([ganesha, "-F", "-L", str(folder / "ganesha.log"), "-f", str(folder / "ganesha.conf"),
                     "-p", str(folder / "ganesha.pid"), "-N", "NIV_EVENT"], port, folder / "ganesha.log")


# -- Azure Blob (Azurite) -------------------------------------------------------------------------
def azurite_program(given: str | Path | None = None) -> str | None:
    """Azurite's blob server: `given`, else the one tests/servers installs beside a source checkout,
    else `azurite-blob` on PATH."""
    if given:
        return str(given) if os.access(given, os.X_OK) else None
    beside = Path(__file__).resolve().parents[2] / "tests" / "servers" / "node_modules" / ".bin" / "azurite-blob"
    return str(beside) if beside.exists() else shutil.which("azurite-blob")


def account_key() -> str:
    """A fresh account key, in the base64 form Azure's keys take."""
    return base64.b64encode(secrets.token_bytes(64)).decode()


def start_azurite(folder: Path, account: str, key: str, given: str | Path | None = None) -> Running:
    """Azurite's blob service with one account (`account`, `key`), its data in `folder`."""
    azurite = azurite_program(given)
    if azurite is None:
        raise ServerError(f"an Azure Blob storage needs Azurite ({'not a program: ' + str(given) if given else 'npm install azurite'})")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    port = free_port()
    env = {**os.environ, "AZURITE_ACCOUNTS": f"{account}:{key}"}
    return _started([azurite, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--location", str(folder),
                     "--skipApiVersionCheck", "--loose", "--silent"], port, folder / "azurite.out", env)
