"""The daemon's endpoint as a raw client sees it: a connected socket, through whichever transport
this run uses (`PAI_LSP_TRANSPORT`), for tests that speak the protocol byte by byte."""

from __future__ import annotations

import json
import secrets
import socket
from pathlib import Path

from pai_lsp.daemon.transport import endpoint_name, kind, proof


def endpoint_file(env: dict) -> Path:
    return Path(env["XDG_STATE_HOME"]) / "pai-lsp" / endpoint_name()


def open_endpoint(env: dict, secret: str | None = None, source: str | None = None) -> socket.socket:
    """A socket to the daemon of `env`, past the handshake (tcp) with the endpoint file's secret, or
    `secret` instead; `source`: the local address to connect from."""
    path = endpoint_file(env)
    if kind() == "unix":
        sock = socket.socket(getattr(socket, "AF_UNIX"))  # noqa: B009 - the tcp run's platforms have none
        sock.connect(str(path))
        return sock
    info = json.loads(path.read_text())
    sock = socket.create_connection((info["host"], info["port"]), timeout=30, source_address=(source, 0) if source else None)
    handshake(sock, f"{info['host']}:{info['port']}", secret or info["secret"])
    return sock


def handshake(sock: socket.socket, endpoint: str, secret: str) -> dict:
    """The client's half, written out as docs/architecture.md describes it; the daemon's last answer."""
    lines = sock.makefile("rb")
    challenge = json.loads(lines.readline())
    mine = secrets.token_hex(16)
    answer = {"challenge": mine, "proof": proof(secret, "client", challenge["challenge"], mine, endpoint)}
    sock.sendall(json.dumps(answer).encode() + b"\n")
    reply = json.loads(lines.readline() or b"{}")
    if "proof" in reply:
        assert reply["proof"] == proof(secret, "server", challenge["challenge"], mine, endpoint)
    return reply
