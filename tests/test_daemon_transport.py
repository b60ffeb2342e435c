"""The daemon's endpoint is the user's alone, on either transport: a Unix socket only the user can
open, or (Windows' design, forced here with PAI_LSP_TRANSPORT=tcp so it runs on Linux) loopback TCP
with a per-start secret in a file only the user can read, proven both ways at each connection.

These tests talk to a real daemon (`pai daemon serve`, started on demand) over real sockets."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import stat
import threading
from pathlib import Path

import psutil
import pytest

from pai_lsp import api
from pai_lsp.daemon import transport
from pai_lsp.errors import ConfigError, Unreachable

from .helpers.cli import isolated_env, pai, stop_all
from .helpers.daemon import handshake


@pytest.fixture(scope="module")
def tcp_env(tmp_path_factory, starts_processes):
    """A set-up of its own whose daemon listens on loopback TCP, running."""
    environment = dict(isolated_env(tmp_path_factory.mktemp("pai-tcp")), PAI_LSP_TRANSPORT="tcp")
    assert pai(environment, "cluster", "list").returncode == 0  # starts the daemon
    yield environment
    stop_all(environment)


def endpoint_file(env: dict) -> Path:
    return Path(env["XDG_STATE_HOME"]) / "pai-lsp" / "daemon.json"


def endpoint(env: dict) -> dict:
    return json.loads(endpoint_file(env).read_text())


@pytest.fixture
def in_process(tcp_env, monkeypatch):
    """This test process as a client of `tcp_env`'s daemon."""
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "PAI_LOCAL_CLUSTER_DIR", "PAI_LSP_SECRETS", "PAI_LSP_TRANSPORT"):
        monkeypatch.setenv(name, tcp_env[name])
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr("pai_lsp.daemon.client.STALE_GRACE", 0.3)
    return tcp_env


def ping(start: bool = False):
    from pai_lsp.daemon.client import call_once

    return asyncio.run(call_once(api.Ping(), start=start))


class Restore:
    """Put the endpoint file back as it was after a test changed it."""

    def __init__(self, env: dict):
        self.path = endpoint_file(env)
        self.data, self.mode = self.path.read_bytes(), self.path.stat().st_mode

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        self.path.unlink(missing_ok=True)
        self.path.write_bytes(self.data)
        os.chmod(self.path, stat.S_IMODE(self.mode))
        os.chown(self.path, os.geteuid(), os.getegid())


def test_the_transport_is_chosen_by_capability_and_the_setting(monkeypatch):
    monkeypatch.delenv("PAI_LSP_TRANSPORT", raising=False)
    assert transport.kind() == ("unix" if hasattr(socket, "AF_UNIX") else "tcp")
    monkeypatch.setenv("PAI_LSP_TRANSPORT", "tcp")
    assert transport.kind() == "tcp" and transport.endpoint_name() == "daemon.json"


def test_the_endpoint_file_is_the_users_alone_and_names_loopback(tcp_env):
    path = endpoint_file(tcp_env)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    info = endpoint(tcp_env)
    assert info["host"] == "127.0.0.1" and len(info["secret"]) == 64
    assert psutil.Process(info["pid"]).is_running()
    with socket.create_connection((info["host"], info["port"]), timeout=30) as sock:  # the secret is never sent
        hello = json.loads(sock.makefile("rb").readline())
        assert hello["pai-daemon"] == 1 and info["secret"] not in json.dumps(hello)


def test_a_client_with_the_secret_is_served(tcp_env):
    info = endpoint(tcp_env)
    with socket.create_connection((info["host"], info["port"]), timeout=30) as sock:
        assert "proof" in handshake(sock, f"{info['host']}:{info['port']}", info["secret"])
        sock.sendall(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')
        assert json.loads(sock.makefile("rb").readline())["result"]["pid"] == info["pid"]


def closed_unanswered(sock: socket.socket) -> bool:
    """The daemon closed the connection without an answer: an end of stream, or a reset when what
    the client sent arrived after the close (the kernel answers it with RST)."""
    try:
        return sock.recv(100) == b""
    except ConnectionResetError:
        return True


def test_a_wrong_secret_is_refused_and_nothing_is_served(tcp_env):
    info = endpoint(tcp_env)
    with socket.create_connection((info["host"], info["port"]), timeout=30) as sock:
        assert handshake(sock, f"{info['host']}:{info['port']}", secrets.token_hex(32)) == {"refused": "wrong secret"}
        sock.sendall(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')
        assert closed_unanswered(sock)  # no request is ever read


@pytest.mark.parametrize("line", [b"nonsense\n", b'{"challenge": "x", "proof": "y"}\n', b"x" * (1 << 17)])
def test_anything_but_the_handshake_is_refused(tcp_env, line):
    info = endpoint(tcp_env)
    with socket.create_connection((info["host"], info["port"]), timeout=30) as sock:
        sock.makefile("rb").readline()
        data = b""
        try:
            sock.sendall(line + b'\n{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')
            while chunk := sock.recv(4096):
                data += chunk
        except (ConnectionResetError, BrokenPipeError):
            pass  # closed while we sent: refused
        assert b"result" not in data


def test_a_non_loopback_peer_is_refused_before_a_byte(tcp_env):
    """From this machine's own non-loopback address to the daemon's 127.0.0.1 port (nothing leaves
    the machine): the daemon closes at once, without its challenge."""
    ours = [a.address for addrs in psutil.net_if_addrs().values() for a in addrs
            if a.family == socket.AF_INET and not a.address.startswith("127.")]
    if not ours:
        pytest.skip("this machine has no non-loopback IPv4 address to connect from")
    info = endpoint(tcp_env)
    with socket.create_connection((info["host"], info["port"]), timeout=30, source_address=(ours[0], 0)) as sock:
        assert sock.getsockname()[0] == ours[0]
        assert closed_unanswered(sock)


def test_a_client_refuses_an_endpoint_file_others_can_read(tcp_env):
    with Restore(tcp_env) as path:
        os.chmod(path, 0o644)
        result = pai(tcp_env, "jobs")
        assert result.returncode == 2
        assert result.stderr.strip() == (f"pai jobs: {path} can be read or changed by other users (mode 644): refusing to "
                                         "use the secret in it; delete it and try again (the daemon writes a new one, mode 600)")
        chinese = pai({**tcp_env, "LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}, "jobs")
        assert chinese.returncode == 2
        assert chinese.stderr.strip() == f"pai jobs: {path} 可被其他用户读取或修改（权限 644）：拒绝使用其中的密钥；请删除它后重试（守护进程会写入新文件，权限 600）"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_client_refuses_an_endpoint_file_of_another_user(tcp_env):
    with Restore(tcp_env) as path:
        os.chown(path, 65534, 65534)
        result = pai(tcp_env, "jobs")
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
        assert f"{path} belongs to another user (uid 65534)" in result.stderr


def test_a_client_refuses_a_link_in_place_of_the_endpoint_file(tcp_env, tmp_path):
    with Restore(tcp_env) as path:
        (tmp_path / "planted.json").write_text(path.read_text())
        os.chmod(tmp_path / "planted.json", 0o600)
        path.unlink()
        path.symlink_to(tmp_path / "planted.json")
        result = pai(tcp_env, "jobs")
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
        assert "cannot read the pai daemon's endpoint" in result.stderr


def test_a_client_never_sends_anything_to_a_remote_host(in_process):
    with Restore(in_process) as path:
        info = json.loads(path.read_text())
        path.write_text(json.dumps({**info, "host": "192.0.2.7"}))
        os.chmod(path, 0o600)
        with pytest.raises(ConfigError, match="names 192.0.2.7, not this machine's loopback"):
            ping()


def test_a_client_with_a_stale_secret_refuses_with_one_line(in_process):
    with Restore(in_process) as path:
        info = json.loads(path.read_text())
        path.write_text(json.dumps({**info, "secret": secrets.token_hex(32)}))
        os.chmod(path, 0o600)
        with pytest.raises(ConfigError) as refused:
            ping()
        assert refused.value.message.startswith(f"the pai daemon at 127.0.0.1:{info['port']} (from {path}) refused the secret")


class Squatter:
    """Someone else's program on a loopback port: it plays the daemon's opening and records what
    it is sent, but holds no secret."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.received = b""
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(json.dumps({"pai-daemon": 1, "challenge": secrets.token_hex(16)}).encode() + b"\n")
                self.received += conn.makefile("rb").readline()
                conn.sendall(json.dumps({"proof": secrets.token_hex(32)}).encode() + b"\n")

    def close(self) -> None:
        self.server.close()


def test_a_client_refuses_a_squatted_endpoint_and_never_sends_the_secret(in_process):
    squatter = Squatter()
    try:
        with Restore(in_process) as path:  # the daemon runs (it holds its lock), the file names the squatter
            info = json.loads(path.read_text())
            path.write_text(json.dumps({**info, "port": squatter.port}))
            os.chmod(path, 0o600)
            with pytest.raises(ConfigError) as refused:
                ping()
            assert refused.value.message == (f"127.0.0.1:{squatter.port} (from {path}) is not your pai daemon: another "
                                             f"program listens there; stop it, or delete {path} and try again")
            assert squatter.received and info["secret"].encode() not in squatter.received
    finally:
        squatter.close()


@pytest.mark.subprocess
def test_a_dead_daemons_endpoint_squatted_since_is_replaced_by_a_new_daemon(tmp_path):
    """No daemon runs; its endpoint file names a port someone else listens on now: the next command
    starts a daemon, which writes a new endpoint, and works."""
    env = dict(isolated_env(tmp_path), PAI_LSP_TRANSPORT="tcp")
    squatter = Squatter()
    try:
        path = endpoint_file(env)
        path.parent.mkdir(parents=True, mode=0o700)
        path.write_text(json.dumps({"host": "127.0.0.1", "port": squatter.port, "secret": secrets.token_hex(32), "pid": 1}))
        os.chmod(path, 0o600)
        result = pai(env, "cluster", "list")
        assert result.returncode == 0, result.stderr
        assert endpoint(env)["port"] != squatter.port
        assert pai(env, "daemon", "status").stdout.startswith("the pai daemon runs")
    finally:
        squatter.close()
        stop_all(env)


def test_without_a_daemon_a_squatted_endpoint_means_not_running(in_process, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    squatter = Squatter()
    try:
        path = tmp_path / "state" / "pai-lsp" / "daemon.json"
        path.parent.mkdir(parents=True, mode=0o700)
        path.write_text(json.dumps({"host": "127.0.0.1", "port": squatter.port, "secret": secrets.token_hex(32)}))
        os.chmod(path, 0o600)
        with pytest.raises(Unreachable, match="the pai daemon is not running"):
            ping()
    finally:
        squatter.close()


@pytest.mark.subprocess
@pytest.mark.skipif(not transport.UNIX_SOCKETS, reason="no Unix sockets here")
def test_the_unix_socket_is_the_users_alone(tmp_path):
    env = dict(isolated_env(tmp_path), PAI_LSP_TRANSPORT="unix")
    try:
        assert pai(env, "cluster", "list").returncode == 0
        sock = Path(env["XDG_STATE_HOME"]) / "pai-lsp" / "daemon.sock"
        assert stat.S_ISSOCK(sock.stat().st_mode) and stat.S_IMODE(sock.stat().st_mode) == 0o600
        assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
        assert not (sock.parent / "daemon.json").exists()
    finally:
        stop_all(env)


@pytest.mark.subprocess
@pytest.mark.skipif(not transport.UNIX_SOCKETS, reason="no Unix sockets here")
def test_a_folder_too_deep_for_a_unix_socket_gets_the_tcp_transport(tmp_path, monkeypatch):
    """A socket's path has a limit (108 bytes on Linux, 104 on macOS, whose temporary folders are deep):
    where the socket would not fit, the daemon is reached as on Windows, not refused with a traceback."""
    env = isolated_env(tmp_path / ("d" * 100))
    env.pop("PAI_LSP_TRANSPORT", None)
    folder = Path(env["XDG_STATE_HOME"]) / "pai-lsp"
    assert len(os.fsencode(folder / "daemon.sock")) >= transport.SUN_PATH
    try:
        listed = pai(env, "cluster", "list")
        assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
        assert stat.S_IMODE((folder / "daemon.json").stat().st_mode) == 0o600 and not (folder / "daemon.sock").exists()
        assert pai(env, "cluster", "list").returncode == 0  # and found again
    finally:
        stop_all(env)
    monkeypatch.delenv("PAI_LSP_TRANSPORT", raising=False)
    assert transport.kind(folder) == "tcp" and transport.kind(tmp_path) == "unix"
    monkeypatch.setenv("PAI_LSP_TRANSPORT", "unix")
    assert transport.kind(folder) == "unix"  # as asked
