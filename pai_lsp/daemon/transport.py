"""How the CLI and the editor reach the daemon, and how each side knows the other is this user's.

- `unix`, where the OS has Unix sockets (Linux, macOS): `daemon.sock` in a folder only the user may
  enter (700), the socket itself 600. The OS turns everyone else away.
- `tcp`, where it has none (Windows), or anywhere with `PAI_LSP_TRANSPORT=tcp` (CI runs the daemon
  tests a second time so): the daemon listens on 127.0.0.1 at a port the OS picks and writes
  `daemon.json` (host, port, a random secret made at each start) readable by the user only, as
  Jupyter's connection files do. Every connection opens with a challenge-response both ways (HMAC-SHA256
  over both sides' nonces and the endpoint): the secret never crosses the wire, a client that does
  not hold it is refused, and a client talks to nothing that cannot prove it holds it (another
  program on a stale port). Peers that are not loopback are refused before a byte is sent.

Why this design and not a named pipe: docs/architecture.md, "Daemon transport".
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.messages import Message, message

if TYPE_CHECKING:
    import asyncio

# asyncio, hmac and secrets load where they are used: a `pai` command that asks a running daemon
# over its Unix socket (daemon/client.py) needs none of them, and they take longer to load than the
# call takes.

ENV = "PAI_LSP_TRANSPORT"
UNIX_SOCKETS = hasattr(socket, "AF_UNIX")  # (asyncio has its Unix servers and connections exactly where socket has AF_UNIX)
HOST = "127.0.0.1"
SOCKET = "daemon.sock"
SUN_PATH = 108 if sys.platform.startswith("linux") else 104  # a Unix socket's path, its NUL included
HANDSHAKE_SECONDS = 10.0  # a client (or a listener) that says nothing for this long is not ours
_MAGIC = "pai-daemon"

Handler = Callable[["asyncio.StreamReader", "asyncio.StreamWriter"], Awaitable[None]]
Streams = tuple["asyncio.StreamReader", "asyncio.StreamWriter"]


def kind(folder: Path | None = None) -> str:
    """`unix` where the OS has Unix sockets, else `tcp`; `PAI_LSP_TRANSPORT=tcp` (or `unix`) chooses.
    Also `tcp` where the socket's path in `folder` is longer than the OS holds (108 bytes on Linux,
    104 on macOS: a deep `XDG_STATE_HOME` or temporary folder), unless `unix` is forced."""
    forced = os.environ.get(ENV, "").strip().lower()
    if forced == "tcp" or (forced != "unix" and not UNIX_SOCKETS):
        return "tcp"
    if forced != "unix" and folder is not None and len(os.fsencode(folder / SOCKET)) >= SUN_PATH:
        return "tcp"
    return "unix"


def endpoint_name(folder: Path | None = None) -> str:
    """The file in the runtime folder that stands for the daemon: its socket, or its endpoint file."""
    return SOCKET if kind(folder) == "unix" else "daemon.json"


class Refused(Exception):
    """The endpoint cannot be trusted: `message` is the one line for the user. `stale`: it may be a
    dead daemon's leftover (someone else now listens on its port, or its secret was replaced)."""

    def __init__(self, said: str | Message, stale: bool = False):
        super().__init__(str(said))
        self.said, self.message, self.stale = said, str(said), stale


# -- the handshake (both sides) ------------------------------------------------------------
def proof(secret: str, role: str, server_nonce: str, client_nonce: str, endpoint: str) -> str:
    """What `role` ("client" or "server") sends to show it holds `secret`: the daemon opens with
    `{"pai-daemon": 1, "challenge": <its nonce>}`, the client answers `{"challenge": <its nonce>,
    "proof": <client proof>}`, the daemon `{"proof": <server proof>}` (or `{"refused": …}` and closes);
    JSON-RPC follows. Nonces are 32 hex digits; `endpoint` is the `host:port` the daemon listens on."""
    import hmac
    from hashlib import sha256

    message = "\n".join((_MAGIC, role, server_nonce, client_nonce, endpoint)).encode()
    return hmac.new(secret.encode(), message, sha256).hexdigest()


def _same(given: object, expected: str) -> bool:
    """Constant time, whatever the other side sent."""
    import hmac

    return isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


def _nonce(value: object) -> str | None:
    return value if isinstance(value, str) and len(value) == 32 and all(c in "0123456789abcdef" for c in value) else None


async def _line(reader: asyncio.StreamReader) -> dict:
    """One handshake line as a JSON object (an empty one for anything else)."""
    line = await reader.readline()  # bounded by the stream's limit: a line without end is refused
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def is_loopback(peer: object) -> bool:
    """A peer address (as `getpeername` gives it) on this machine's loopback."""
    import ipaddress

    try:
        return ipaddress.ip_address(peer[0]).is_loopback if isinstance(peer, tuple) and peer else False
    except ValueError:
        return False


async def _admit(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, secret: str, endpoint: str) -> bool:
    """The daemon's side: the client proves it holds the secret, then the daemon proves it does."""
    import secrets

    server_nonce = secrets.token_hex(16)
    writer.write(json.dumps({_MAGIC: 1, "challenge": server_nonce}).encode() + b"\n")
    await writer.drain()
    hello = await _line(reader)
    client_nonce = _nonce(hello.get("challenge"))
    if client_nonce is None or not _same(hello.get("proof"), proof(secret, "client", server_nonce, client_nonce, endpoint)):
        writer.write(b'{"refused": "wrong secret"}\n')
        await writer.drain()
        return False
    writer.write(json.dumps({"proof": proof(secret, "server", server_nonce, client_nonce, endpoint)}).encode() + b"\n")
    await writer.drain()
    return True


async def _authenticate(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, info: Endpoint) -> None:
    """The client's side; Refused unless the listener proves it holds the secret of `info`."""
    import secrets

    where = f"{info.host}:{info.port}"
    not_ours = Refused(message("daemon.not-ours", where=where, file=str(info.path)), stale=True)
    challenge = await _line(reader)
    server_nonce = _nonce(challenge.get("challenge"))
    if challenge.get(_MAGIC) != 1 or server_nonce is None:
        raise not_ours
    client_nonce = secrets.token_hex(16)
    writer.write(json.dumps({"challenge": client_nonce,
                             "proof": proof(info.secret, "client", server_nonce, client_nonce, info.address)}).encode() + b"\n")
    await writer.drain()
    answer = await _line(reader)
    if "refused" in answer:
        raise Refused(message("daemon.secret-refused", where=where, file=str(info.path)), stale=True)
    if not _same(answer.get("proof"), proof(info.secret, "server", server_nonce, client_nonce, info.address)):
        raise not_ours


# -- the daemon's side ---------------------------------------------------------------------
async def listen(handler: Handler, path: Path, host: str = HOST) -> asyncio.AbstractServer:
    """Serve `handler` at `path` (the socket, or the endpoint file); `close` undoes it. `host` is for
    tests only: anything else than loopback is refused connection by connection anyway."""
    import asyncio
    import secrets

    from ..common.atomic import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    path.unlink(missing_ok=True)  # a dead daemon's: the live one holds daemon.lock, which we have
    if kind(path.parent) == "unix":
        return await _listen_unix(handler, path)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if sys.platform == "win32":  # nobody may bind the same port beside us (Windows lets SO_REUSEADDR do that)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    secret = secrets.token_hex(32)
    address = f"{host}:{port}"

    async def guarded(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not is_loopback(writer.get_extra_info("peername")):
            writer.close()
            return
        try:
            admitted = await asyncio.wait_for(_admit(reader, writer, secret, address), HANDSHAKE_SECONDS)
        except (asyncio.TimeoutError, ConnectionError, ValueError):  # ValueError: a line over the limit
            admitted = False
        if not admitted:
            writer.close()
            return
        await handler(reader, writer)

    server = await asyncio.start_server(guarded, sock=sock)
    write_atomic(path, json.dumps({"host": host, "port": port, "secret": secret, "pid": os.getpid()}), private=True)
    return server


async def _listen_unix(handler: Handler, path: Path) -> asyncio.AbstractServer:
    if sys.platform == "win32":  # `kind` never says unix there; this tells mypy
        raise OSError(message("daemon.no-unix-sockets"))
    import asyncio

    server = await asyncio.start_unix_server(handler, path=str(path))
    os.chmod(path, 0o600)
    return server


def close(path: Path) -> None:
    path.unlink(missing_ok=True)


# -- the client's side ---------------------------------------------------------------------
@dataclass(frozen=True)
class Endpoint:
    path: Path
    host: str
    port: int
    secret: str

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def read_endpoint(path: Path) -> Endpoint:
    """The endpoint file, if it is this user's alone and says what a daemon of ours would; Refused
    otherwise. FileNotFoundError when there is none (no daemon)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))  # never a link planted in its place
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise Refused(message("daemon.endpoint-unreadable", path=str(path), why=exc.strerror)) from None
    with os.fdopen(fd, "rb") as f:
        check_private(path, f.fileno())
        data = f.read(4096)
    try:
        info = json.loads(data)
        host, port, secret = info["host"], info["port"], info["secret"]
        ok = isinstance(port, int) and 0 < port < 65536 and isinstance(secret, str) and len(secret) >= 32
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise Refused(message("daemon.endpoint-invalid", path=str(path)))
    if not is_loopback((host,)):
        raise Refused(message("daemon.endpoint-remote", path=str(path), host=str(host)))
    return Endpoint(path, host, port, secret)


def check_private(path: Path, fd: int) -> None:
    """Refused unless the file open as `fd` is the user's and nobody else may read or change it: its
    owner and mode on POSIX, its owner and ACL on Windows (winacl.py)."""
    if sys.platform == "win32":
        from ..common import winacl

        try:
            others = winacl.others(fd)
        except OSError as exc:
            raise Refused(message("daemon.endpoint-acl-unreadable", path=str(path), why=exc.strerror)) from None
        if others:
            raise Refused(message("daemon.endpoint-others", path=str(path), who=winacl.listed(others)))
        return
    st = os.fstat(fd)
    if st.st_uid != os.geteuid():
        raise Refused(message("daemon.endpoint-owner", path=str(path), uid=st.st_uid))
    if st.st_mode & 0o077:
        raise Refused(message("daemon.endpoint-mode", path=str(path), mode=f"{st.st_mode & 0o777:o}"))


async def connect(path: Path, limit: int) -> Streams:
    """Open a connection to the daemon at `path`. FileNotFoundError / ConnectionRefusedError: no
    daemon there; Refused: something there that must not be trusted."""
    import asyncio

    if kind(path.parent) == "unix":
        return await _connect_unix(path, limit)
    info = read_endpoint(path)
    reader, writer = await asyncio.open_connection(info.host, info.port, limit=limit)
    try:
        await asyncio.wait_for(_authenticate(reader, writer, info), HANDSHAKE_SECONDS)
    except (asyncio.TimeoutError, ConnectionError, ValueError) as exc:
        writer.close()
        raise Refused(message("daemon.not-answering-as-one", where=info.address, file=str(info.path), why=type(exc).__name__),
                      stale=True) from None
    except Refused:
        writer.close()
        raise
    return reader, writer


async def _connect_unix(path: Path, limit: int) -> Streams:
    if sys.platform == "win32":  # `kind` never says unix there; this tells mypy
        raise FileNotFoundError(str(path))
    import asyncio

    return await asyncio.open_unix_connection(str(path), limit=limit)
