"""Reaching a port of a running task through the task's own sshd: a local port forward from
127.0.0.1 (a port the OS picks) to the task's `host:port`, as seen from inside the task, over one SSH
connection to the task's sshd (the ssh runtime plugin's `userssh`, openpai-k8s.md §E.4: host =
`containerIp`, port = `containerPorts.ssh`, user `root` on a real cluster).

The daemon holds one `TunnelRegistry`: a debugger's session asks it to `reach` a task's port and gets
the local end to connect to; the tunnels of a job are closed when the job's debug session ends
(`release`), when the job ends (the watcher's `ends`), and when the daemon stops (`close_all`).

AsyncSSH, because the daemon is one asyncio loop: a tunnel is a listener and a connection on that
loop, with no thread or `ssh` process per tunnel to look after. It is imported on the first tunnel.

Host keys are not checked: a task's sshd gets a new host key with each container (the runtime installs
openssh-server in it), so no known_hosts entry could ever match, and on the same node the port is
reused by other jobs' tasks. What the connection proves is the user's, by public key, which a
listener on the way cannot replay elsewhere.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.messages import Message, message
from ..errors import AuthFailed, ConfigError, NotFound, Unreachable

if TYPE_CHECKING:
    from ..api import JobStatus
    from ..core.openpai_rest import TaskStatus

LOCALHOST = "127.0.0.1"
CONNECT_TIMEOUT = 10.0  # seconds for the TCP connection, the SSH handshake and the login together
KEEPALIVE_SECONDS = 30.0  # a dead task (or network) is noticed within a few of these
CLOSE_SECONDS = 5.0  # a closing tunnel waits no longer for its peer (the daemon's stop waits for them all)
DEFAULT_KEY_NAMES = ("id_ed25519", "id_ecdsa", "id_rsa", "id_ed25519_sk", "id_ecdsa_sk", "id_dsa")  # what ssh tries


@dataclass(frozen=True)
class SshAccess:
    """Who logs in to a task's sshd, with which keys."""

    user: str = "root"  # a real cluster's tasks are logged in as root; the local cluster's as its OS user
    # Private keys: file paths, or keys in memory (`new_key`); None: the user's own, as `ssh` finds them
    # (~/.ssh/id_*, IdentityFile in ~/.ssh/config, the ssh agent).
    keys: Sequence[str | os.PathLike[str] | Any] | None = None


@dataclass(frozen=True)
class SshTarget:
    """Where a task's sshd listens."""

    host: str
    port: int
    task: str = ""  # "role:index", for its messages

    @classmethod
    def of_task(cls, task: TaskStatus, job: str) -> SshTarget:
        """The task's sshd as the job detail gives it: `containerIp` and the first `containerPorts.ssh`."""
        port = str(task.ports.get("ssh") or "").split(",")[0].strip()
        if not task.ip or not port.isdigit():
            raise NotFound(message("ssh.no-port", task=task.label, job=job))
        return cls(task.ip, int(port), task.label)

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def new_key() -> tuple[Any, str]:
    """A new Ed25519 key pair for one debug session: (the private key, for `SshAccess.keys`; its public
    half in OpenSSH's one-line form, for the job's `userssh.value`). Kept in memory only."""
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519", comment="pai-debug")
    return key, key.export_public_key().decode().strip()


@dataclass
class Tunnel:
    """One port forward: `local` (on 127.0.0.1) to `remote` inside the task, over `connection`."""

    target: SshTarget
    remote: tuple[str, int]
    local: tuple[str, int]
    connection: Any  # asyncssh.SSHClientConnection
    listener: Any  # asyncssh.SSHListener
    lost: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def open(self) -> bool:
        return not self.lost.is_set()

    async def close(self) -> None:
        """Stop listening and end the SSH connection (and every connection forwarded through it)."""
        self.listener.close()
        self.connection.close()
        try:
            await asyncio.wait_for(self.connection.wait_closed(), CLOSE_SECONDS)
        except asyncio.TimeoutError:  # a peer that never answers the close: its transport is gone all the same
            pass
        self.lost.set()


async def open_tunnel(target: SshTarget, access: SshAccess, remote_port: int, remote_host: str = LOCALHOST,
                      timeout: float = CONNECT_TIMEOUT, wait: float = 0.0, check: bool = True) -> Tunnel:
    """A tunnel from a free port on 127.0.0.1 to `remote_host:remote_port` as the task sees it, through
    the task's sshd. With `check`, the task's own socket table says first whether anything listens
    there (waiting up to `wait` seconds for it), so a closed port is said now rather than as a broken
    connection later; it runs a command, so it costs the start of the user's login shell in the task
    (its ~/.bashrc: 0.5 s on a machine whose .bashrc starts pyenv). It never connects to the port to find out: a debugpy waiting for its client takes
    a connection that closes at once for a client that left, and stops waiting for the real one. Raises,
    each in one line: ConfigError (no key, a key that cannot be read), AuthFailed (the key refused),
    Unreachable (no answer, nothing listening)."""
    import asyncssh

    keys = _keys(access, target)
    lost = asyncio.Event()

    class Client(asyncssh.SSHClient):
        def connection_lost(self, exc: Exception | None) -> None:
            lost.set()

    try:
        connection, _ = await asyncio.wait_for(asyncssh.create_connection(
            Client, target.host, target.port, username=access.user, client_keys=keys, known_hosts=None,
            keepalive_interval=KEEPALIVE_SECONDS, keepalive_count_max=3), timeout)
    except asyncssh.PermissionDenied:
        if keys == () and not _default_keys_exist():
            raise ConfigError(message("ssh.no-key", user=access.user, target=str(target))) from None
        raise AuthFailed(message("ssh.auth-refused", user=access.user, target=str(target))) from None
    except (OSError, asyncio.TimeoutError, asyncssh.Error) as exc:
        raise Unreachable(message("ssh.unreachable", target=str(target), why=_why(exc, timeout))) from None
    try:
        if check:
            await _until_listening(connection, remote_host, remote_port, target, wait, timeout)
        listener = await connection.forward_local_port(LOCALHOST, 0, remote_host, remote_port)
    except BaseException:
        connection.close()
        raise
    return Tunnel(target, (remote_host, remote_port), (LOCALHOST, listener.get_port()), connection, listener, lost)


SOCKET_TABLES = "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null"  # the kernel's listening sockets, seen from the task
LISTEN = "0A"  # a socket's state in those tables


async def _until_listening(connection: Any, host: str, port: int, target: SshTarget, wait: float, timeout: float) -> None:
    """Return once the task's socket table shows a listener that `host:port` reaches, or at once where
    the table cannot be read (no Linux, no shell): the forward then says what it finds."""
    deadline = asyncio.get_running_loop().time() + wait
    while True:
        try:
            tables = await asyncio.wait_for(connection.run(SOCKET_TABLES), timeout)
        except Exception:  # noqa: BLE001 - a task whose table cannot be read (no shell, no Linux) is not refused
            return
        text = tables.stdout if isinstance(tables.stdout, str) else ""
        if not text.strip() or listening(text, host, port):
            return
        if asyncio.get_running_loop().time() >= deadline:
            raise Unreachable(message("ssh.port-closed", target=str(target), remote=f"{host}:{port}"))
        await asyncio.sleep(0.25)


def listening(tables: str, host: str, port: int) -> bool:
    """Whether /proc/net/tcp and /proc/net/tcp6 (`tables`) hold a listener on `port` that a connection
    to `host` reaches: one on that address, or on every address (IPv4's 0.0.0.0, IPv6's :: also takes
    IPv4); a host given by name reaches any."""
    import ipaddress

    try:
        packed = ipaddress.IPv4Address(host).packed
    except ValueError:
        wanted = None
    else:
        v4 = packed[::-1].hex().upper()  # the kernel prints an address as a little-endian word
        wanted = {f"{v4}:{port:04X}", f"00000000:{port:04X}", f"{'0' * 32}:{port:04X}",
                  f"0000000000000000FFFF0000{v4}:{port:04X}"}
    for line in tables.splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[3] != LISTEN or ":" not in fields[1]:
            continue
        if wanted is None:
            if fields[1].rsplit(":", 1)[1].upper() == f"{port:04X}":
                return True
        elif fields[1].upper() in wanted:
            return True
    return False


def _keys(access: SshAccess, target: SshTarget) -> Any:
    """What asyncssh's `client_keys` takes: () for the user's own keys; keys read here from files, so
    that a missing or locked one is said by its name."""
    if access.keys is None:
        return ()
    import asyncssh

    keys = []
    for key in access.keys:
        if isinstance(key, (str, os.PathLike)):
            try:
                keys.append(asyncssh.read_private_key(os.fspath(key)))
            except (OSError, asyncssh.KeyImportError, asyncssh.KeyEncryptionError) as exc:
                raise ConfigError(message("ssh.key-unreadable", path=os.fspath(key), why=_why(exc))) from None
        else:
            keys.append(key)
    if not keys:
        raise ConfigError(message("ssh.no-key", user=access.user, target=str(target)))
    return keys


def _default_keys_exist() -> bool:
    """Whether the user has a key `ssh` would try by itself: a default key file or an agent."""
    folder = Path.home() / ".ssh"
    return bool(os.environ.get("SSH_AUTH_SOCK")) or any((folder / name).is_file() for name in DEFAULT_KEY_NAMES)


def _why(exc: BaseException, timeout: float | None = None) -> str | Message:
    """The cause in a few words (the system's for an OSError: "Connection refused")."""
    if isinstance(exc, asyncio.TimeoutError):
        return message("ssh.no-answer-in", seconds=timeout) if timeout else message("ssh.no-answer")
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno)
    reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc)
    return str(reason).rstrip(".") or type(exc).__name__


JobKey = tuple[str | None, str]  # (cluster, job)


class TunnelRegistry:
    """The tunnels the daemon holds, by job: opened on request, one per task and port (asked again, the
    open one is given), closed with the job's debug session, the job, or the daemon."""

    def __init__(self) -> None:
        self._tunnels: dict[JobKey, dict[tuple[str, int, str, int], Tunnel]] = {}
        self._opening: dict[tuple[JobKey, tuple[str, int, str, int]], asyncio.Lock] = {}  # two callers, one tunnel
        self._keys: dict[JobKey, Any] = {}  # a debug session's own key (`new_key`), in memory only

    async def reach(self, cluster: str | None, job: str, target: SshTarget, remote_port: int, access: SshAccess,
                    remote_host: str = LOCALHOST, wait: float = 0.0, check: bool = True) -> tuple[str, int]:
        """The local (host, port) that leads to `remote_host:remote_port` inside the task whose sshd is
        `target`; the job's tunnel when one is open, else a new one, once something listens there
        (waiting up to `wait` seconds; `check=False` when the caller knows it listens, which spares the
        task's login shell a start: `open_tunnel`, whose errors it raises)."""
        key, where = (cluster, job), (target.host, target.port, remote_host, remote_port)
        async with self._opening.setdefault((key, where), asyncio.Lock()):
            tunnel = self._tunnels.get(key, {}).get(where)
            if tunnel is not None and tunnel.open:
                return tunnel.local
            if tunnel is not None:  # its connection was lost (the task restarted, the network went): a new one
                await tunnel.close()
            tunnel = await open_tunnel(target, access, remote_port, remote_host, wait=wait, check=check)
            self._tunnels.setdefault(key, {})[where] = tunnel
            return tunnel.local

    async def reach_task(self, cluster: str | None, job: str, task: TaskStatus, remote_port: int, access: SshAccess,
                         remote_host: str = LOCALHOST, wait: float = 0.0, check: bool = True) -> tuple[str, int]:
        """`reach` for a task of the job's detail: its sshd where the detail says (`SshTarget.of_task`)."""
        return await self.reach(cluster, job, SshTarget.of_task(task, job), remote_port, access, remote_host, wait, check)

    def keep_key(self, cluster: str | None, job: str, key: Any) -> None:
        """Keep the private key a job was submitted for (its public half in the job's `userssh`) until the
        job ends for good (a retry's new tasks let in the same key; a debugger attached again needs it):
        what `kept_key` gives for its `SshAccess`."""
        self._keys[(cluster, job)] = key

    def kept_key(self, cluster: str | None, job: str) -> Any | None:
        return self._keys.get((cluster, job))

    def held(self, cluster: str | None, job: str) -> list[Tunnel]:
        """The job's open tunnels."""
        return [t for t in self._tunnels.get((cluster, job), {}).values() if t.open]

    async def release(self, cluster: str | None, job: str, forget_key: bool = False) -> int:
        """Close the job's tunnels (its debug session ended); how many were open. `forget_key`: the job
        ended, so the key kept for it opens nothing any more."""
        tunnels = self._tunnels.pop((cluster, job), {})
        if forget_key:
            self._keys.pop((cluster, job), None)
        for opening in [k for k in self._opening if k[0] == (cluster, job)]:
            del self._opening[opening]
        await asyncio.gather(*(t.close() for t in tunnels.values()), return_exceptions=True)
        return len(tunnels)

    async def on_end(self, status: JobStatus, end: str) -> None:
        """The watcher saw the job end (or retry: its tasks are new ones): its tunnels lead nowhere now."""
        await self.release(status.cluster, status.job, forget_key=end != "RETRIED")

    async def close_all(self) -> None:
        """The daemon stops: every tunnel ends."""
        jobs, self._tunnels, self._opening, self._keys = self._tunnels, {}, {}, {}
        await asyncio.gather(*(t.close() for tunnels in jobs.values() for t in tunnels.values()), return_exceptions=True)
