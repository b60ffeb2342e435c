"""The daemon's SSH tunnels (pai_lsp/daemon/ssh_tunnel.py) through a real sshd on 127.0.0.1 (Debian's
openssh-server, configured as the local cluster configures a task's): a TCP echo server behind it is
reached through the local end, one tunnel per job and port, each failure in one line (a key refused, no
key, a key that cannot be read, no sshd, a port where nothing listens), and the tunnel gone once
released or once its job ends."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import os

import pytest

from pai_lsp.api import JobStatus
from pai_lsp.core.openpai_rest import TaskStatus
from pai_lsp.daemon.ssh_tunnel import SshAccess, SshTarget, TunnelRegistry, listening, new_key, open_tunnel
from pai_lsp.errors import AuthFailed, ConfigError, NotFound, Unreachable

from .helpers.servers import free_port
from .helpers.sshd import key_pair, sshd

ME = getpass.getuser()


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """(the key sshd lets in, its public line, a key it does not know)."""
    folder = tmp_path_factory.mktemp("keys")
    good, public = key_pair(folder, "good")
    stranger, _ = key_pair(folder, "stranger")
    return good, public, stranger


@pytest.fixture(scope="module")
def server(tmp_path_factory, keys, starts_processes):
    with sshd(tmp_path_factory.mktemp("sshd"), (keys[1],)) as running:
        yield running


@contextlib.asynccontextmanager
async def echo_server():
    """A TCP echo server on 127.0.0.1: what a task's debugger port stands for here."""

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()

    listener = await asyncio.start_server(echo, "127.0.0.1", 0)
    try:
        yield listener.sockets[0].getsockname()[1]
    finally:
        listener.close()
        await listener.wait_closed()


async def round_trip(host: str, port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(data)
    await writer.drain()
    answer = await asyncio.wait_for(reader.readexactly(len(data)), 10)
    writer.close()
    return answer


async def test_the_local_end_reaches_a_server_behind_the_tasks_sshd_and_closes_when_released(server, keys):
    registry = TunnelRegistry()
    target = SshTarget("127.0.0.1", server.port, "worker:0")
    async with echo_server() as port:
        host, local = await registry.reach("local", "job1", target, port, SshAccess(ME, (keys[0],)))
        assert host == "127.0.0.1" and local != port
        payload = os.urandom(200_000)
        assert await round_trip(host, local, payload) == payload
        # Asked again, the open tunnel is given; another job gets its own.
        assert await registry.reach("local", "job1", target, port, SshAccess(ME, (keys[0],))) == (host, local)
        other = await registry.reach("local", "job2", target, port, SshAccess(ME, (keys[0],)))
        assert other != (host, local)
        assert len(registry.held("local", "job1")) == 1

        assert await registry.release("local", "job1") == 1
        assert registry.held("local", "job1") == []
        with pytest.raises(OSError):
            await round_trip(host, local, b"x")
        assert await round_trip(*other, b"still") == b"still"  # the other job's tunnel is untouched

        # The job's end (as the watcher tells it) closes its tunnels too.
        await registry.on_end(JobStatus(job="job2", cluster="local", state="SUCCEEDED"), "SUCCEEDED")
        with pytest.raises(OSError):
            await round_trip(*other, b"x")
        await registry.close_all()


async def test_a_key_in_memory_logs_in_and_closing_the_daemons_tunnels_ends_them(server, tmp_path):
    private, public = new_key()
    assert public.startswith("ssh-ed25519 ") and public.endswith("pai-debug")
    async with echo_server() as port:
        with sshd(tmp_path / "sshd", (public,)) as own:
            registry = TunnelRegistry()
            registry.keep_key(None, "job", private)  # as the debug submit keeps it, the public half in the job
            task = TaskStatus(role="main", index=0, state="RUNNING", ip="127.0.0.1", ports={"ssh": str(own.port)})
            access = SshAccess(ME, (registry.kept_key(None, "job"),))
            local = await registry.reach_task(None, "job", task, port, access)
            assert await round_trip(*local, b"hello") == b"hello"
            await registry.close_all()
            assert registry.kept_key(None, "job") is None
            with pytest.raises(OSError):
                await round_trip(*local, b"x")


async def test_a_key_the_task_does_not_hold_is_refused_in_one_line(server, keys):
    with pytest.raises(AuthFailed) as refused:
        await open_tunnel(SshTarget("127.0.0.1", server.port), SshAccess(ME, (keys[2],)), 9)
    assert refused.value.message == (f"the task's SSH server 127.0.0.1:{server.port} refused the key for {ME}: "
                                     "the job's ssh plugin (userssh) must hold its public key")
    assert "\n" not in refused.value.render("zh-cn")


async def test_no_key_and_an_unreadable_key_are_said_by_name(server, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh/id_*, and no agent
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    target = SshTarget("127.0.0.1", server.port)
    with pytest.raises(ConfigError) as none:
        await open_tunnel(target, SshAccess(ME), 9)
    assert none.value.message.startswith(f"no SSH key to log in to 127.0.0.1:{server.port} as {ME}: none in ~/.ssh")
    with pytest.raises(ConfigError) as unreadable:
        await open_tunnel(target, SshAccess(ME, (tmp_path / "missing_key",)), 9)
    assert unreadable.value.message.startswith(f"cannot read the SSH key {tmp_path / 'missing_key'}: ")
    (tmp_path / "garbage").write_text("not a key\n")
    with pytest.raises(ConfigError, match="cannot read the SSH key"):
        await open_tunnel(target, SshAccess(ME, (tmp_path / "garbage",)), 9)


async def test_no_sshd_and_a_closed_port_in_the_task_are_unreachable(server, keys):
    nobody = free_port()
    with pytest.raises(Unreachable) as unreachable:
        await open_tunnel(SshTarget("127.0.0.1", nobody), SshAccess(ME, (keys[0],)), 9)
    assert unreachable.value.message.startswith(f"cannot reach the task's SSH server 127.0.0.1:{nobody}: ")
    closed = free_port()
    with pytest.raises(Unreachable) as port_closed:
        await open_tunnel(SshTarget("127.0.0.1", server.port), SshAccess(ME, (keys[0],)), closed)
    assert port_closed.value.message == (f"nothing listens on 127.0.0.1:{closed} in the task (asked through its SSH server "
                                         f"127.0.0.1:{server.port}): not yet, or on another address")


async def test_a_tunnel_waits_for_its_port_to_listen_without_connecting_to_it(server, keys):
    """The check reads the task's socket table: the server's first connection is the client's own (a
    debugpy waiting for its client takes any connection for it)."""
    port = free_port()
    accepted: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(1)
        writer.write(await reader.read(100))
        await writer.drain()
        writer.close()

    async def listen_later() -> asyncio.Server:
        await asyncio.sleep(0.8)
        return await asyncio.start_server(serve, "127.0.0.1", port)

    later = asyncio.ensure_future(listen_later())
    registry = TunnelRegistry()
    local = await registry.reach("c", "j", SshTarget("127.0.0.1", server.port), port, SshAccess(ME, (keys[0],)), wait=20)
    listener = await later
    assert accepted == []
    assert await round_trip(*local, b"first") == b"first" and accepted == [1]
    await registry.close_all()
    listener.close()
    await listener.wait_closed()


def test_what_listens_is_read_from_the_kernels_socket_tables():
    tables = """\
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0 100 0 0 10 0
   2: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1
   3: 0500000A:2710 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4 1 0 100 0 0 10 0
  sl  local_address                         remote_address                        st tx_queue rx_queue
   0: 00000000000000000000000000000000:1389 00000000000000000000000000000000:0000 0A 00000000:00000000
   1: 00000000000000000000000001000000:1B58 00000000000000000000000000000000:0000 0A 00000000:00000000
"""
    assert listening(tables, "127.0.0.1", 8080)  # on loopback
    assert listening(tables, "127.0.0.1", 22) and listening(tables, "10.0.0.5", 22)  # on every IPv4 address
    assert listening(tables, "127.0.0.1", 5001)  # IPv6's :: takes IPv4 too
    assert not listening(tables, "127.0.0.1", 7000)  # ::1 only
    assert not listening(tables, "127.0.0.1", 50000)  # a connected socket, not a listener
    assert not listening(tables, "127.0.0.1", 10000) and listening(tables, "10.0.0.5", 10000)  # the task's address only
    assert listening(tables, "localhost", 10000) and not listening(tables, "localhost", 9)


def test_a_tasks_sshd_is_where_the_job_detail_says():
    task = TaskStatus(role="worker", index=1, state="RUNNING", ip="10.0.0.5", ports={"ssh": "23117", "http": "31552"})
    assert SshTarget.of_task(task, "alice~job") == SshTarget("10.0.0.5", 23117, "worker:1")
    with pytest.raises(NotFound, match="task worker:1 of alice~job has no ssh port"):
        SshTarget.of_task(TaskStatus(role="worker", index=1, state="WAITING"), "alice~job")


def test_a_real_clusters_tasks_are_logged_in_as_root_the_local_clusters_as_its_user():
    from pai_lsp.clusters.profiles import Profile
    from pai_lsp.service.jobs import ssh_user

    assert ssh_user(Profile("prod", "https://pai.example/rest-server", "", "alice")) == "root"
    assert ssh_user(Profile("local", "http://127.0.0.1:1", "", "me")) == "me"


async def test_a_debugpy_waiting_for_its_client_is_attached_through_the_tunnel(server, keys, tmp_path, starts_processes):
    """What the debug job does: the tunnel waits for debugpy to listen, and the debugger's own first
    connection through it is the one debugpy takes for its client (the check never connects)."""
    pytest.importorskip("debugpy")
    import json
    import sys

    script = tmp_path / "train.py"
    script.write_text("value = 6 * 7\nprint('value', value, flush=True)\n")
    port = free_port()
    debuggee = await asyncio.create_subprocess_exec(
        sys.executable, "-Xfrozen_modules=off", "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--wait-for-client",
        str(script), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    registry = TunnelRegistry()
    try:
        host, local = await registry.reach(None, "j", SshTarget("127.0.0.1", server.port), port, SshAccess(ME, (keys[0],)),
                                           wait=30)
        reader, writer = await asyncio.open_connection(host, local)

        async def send(seq: int, command: str, **arguments) -> None:
            body = json.dumps({"seq": seq, "type": "request", "command": command, "arguments": arguments}).encode()
            writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await writer.drain()

        async def until(kind: str, name: str) -> dict:
            while True:
                length = int((await reader.readuntil(b"\r\n\r\n")).split(b":")[1])
                said = json.loads(await reader.readexactly(length))
                if said["type"] == kind and name in (said.get("event"), said.get("command")):
                    return said

        await send(1, "initialize", adapterID="pai")
        assert (await asyncio.wait_for(until("response", "initialize"), 30))["success"]
        await send(2, "attach", justMyCode=True)  # (debugpy takes empty arguments for none)
        await asyncio.wait_for(until("event", "initialized"), 30)
        await send(3, "configurationDone")
        await asyncio.wait_for(until("response", "attach"), 30)
        started = await asyncio.wait_for(until("event", "thread"), 60)
        assert started["body"]["reason"] == "started"
        ended = await asyncio.wait_for(until("event", "thread"), 60)  # the script ran to its end under the debugger
        assert ended["body"]["reason"] == "exited"
        writer.close()  # the client leaves: debugpy's adapter (which shares the output) ends too
        output, _ = await asyncio.wait_for(debuggee.communicate(), 60)
        assert debuggee.returncode == 0 and b"value 42" in output
    finally:
        if debuggee.returncode is None:
            debuggee.kill()
            await debuggee.wait()
        await registry.close_all()


async def test_a_session_key_outlives_a_debug_session_and_a_retry_but_not_the_jobs_end():
    registry = TunnelRegistry()
    registry.keep_key("local", "job", "key")
    await registry.release("local", "job")  # the debugger detached: attaching again needs the key
    await registry.on_end(JobStatus(job="job", cluster="local", state="RUNNING", retries=1), "RETRIED")
    assert registry.kept_key("local", "job") == "key"  # the retry's tasks let in the same key
    await registry.on_end(JobStatus(job="job", cluster="local", state="SUCCEEDED"), "SUCCEEDED")
    assert registry.kept_key("local", "job") is None
