"""What reaching a task through its sshd costs (pai_lsp/daemon/ssh_tunnel.py), against a real sshd on
127.0.0.1 configured as the local cluster configures a task's (tests/helpers/sshd.py) and a TCP echo
server standing for the task's debugger port:

- opening a tunnel (`TunnelRegistry.reach` of a job with none: TCP, the SSH handshake and login, the
  task's socket table read, the local listener), the same without the socket table (`check=False`), and
  asking again (the open one given back);
- a small request and its answer (100 bytes, as a DAP message) directly and through the tunnel;
- 64 MiB echoed back, directly and through the tunnel.

    .venv/bin/python bench/ssh_tunnel.py [ROUNDS]      (default: 20)
"""

from __future__ import annotations

import asyncio
import getpass
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pai_lsp.daemon.ssh_tunnel import SshAccess, SshTarget, TunnelRegistry  # noqa: E402
from tests.helpers.sshd import key_pair, sshd  # noqa: E402

BULK = 64 * 2**20


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(2**16):
        writer.write(data)
        await writer.drain()
    writer.close()


async def round_trips(port: int, count: int) -> list[float]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    times = []
    for _ in range(count):
        started = time.perf_counter()
        writer.write(b"x" * 100)
        await writer.drain()
        await reader.readexactly(100)
        times.append(time.perf_counter() - started)
    writer.close()
    return times


async def bulk(port: int) -> float:
    """Seconds to send BULK bytes and read them all back."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    block = b"\0" * 2**20
    started = time.perf_counter()

    async def send() -> None:
        for _ in range(BULK // len(block)):
            writer.write(block)
            await writer.drain()

    sending = asyncio.ensure_future(send())
    await reader.readexactly(BULK)
    await sending
    writer.close()
    return time.perf_counter() - started


def line(name: str, values: list[float], unit: str = "ms", scale: float = 1000) -> str:
    return (f"| {name} | {statistics.median(values) * scale:.2f} {unit} | {min(values) * scale:.2f} {unit} | "
            f"{max(values) * scale:.2f} {unit} |")


async def main(rounds: int, folder: Path) -> None:
    key, public = key_pair(folder / "keys")
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    with sshd(folder / "sshd", (public,)) as daemon:
        registry = TunnelRegistry()
        target, access = SshTarget("127.0.0.1", daemon.port), SshAccess(getpass.getuser(), (key,))
        await registry.reach(None, "warm-up", target, port, access)
        await registry.release(None, "warm-up")
        cold, unchecked, warm = [], [], []
        for i in range(rounds):  # alternated: with the socket-table check, and without (as Debug Job asks)
            started = time.perf_counter()
            await registry.reach(None, f"job{i}", target, port, access)
            cold.append(time.perf_counter() - started)
            started = time.perf_counter()
            await registry.reach(None, f"job{i}", target, port, access)
            warm.append(time.perf_counter() - started)
            await registry.release(None, f"job{i}")
            started = time.perf_counter()
            await registry.reach(None, f"job{i}", target, port, access, check=False)
            unchecked.append(time.perf_counter() - started)
            await registry.release(None, f"job{i}")
        local = await registry.reach(None, "measured", target, port, access)
        direct_trips, tunnel_trips = await round_trips(port, 50 * rounds), await round_trips(local[1], 50 * rounds)
        direct_bulk = [await bulk(port) for _ in range(3)]
        tunnel_bulk = [await bulk(local[1]) for _ in range(3)]
        await registry.close_all()
    server.close()
    print("| | median | min | max |\n|---|---|---|---|")
    print(line("open a tunnel (`reach`, none open), reading the task's socket table first", cold))
    print(line("open a tunnel without the check (`check=False`, as Debug Job asks)", unchecked))
    print(line("the open tunnel asked again", warm))
    print(line("100-byte request and answer, direct", direct_trips))
    print(line("100-byte request and answer, through the tunnel", tunnel_trips))
    mib = BULK / 2**20
    print(line("64 MiB echoed, direct (MiB/s)", [mib / t for t in direct_bulk], "MiB/s", 1))
    print(line("64 MiB echoed, through the tunnel (MiB/s)", [mib / t for t in tunnel_bulk], "MiB/s", 1))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20, Path(tmp)))
