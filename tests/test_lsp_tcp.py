"""`pai-lsp --tcp HOST:PORT` serves the same protocol on a socket (for debugging an editor session)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.subprocess  # `pai-lsp --tcp`


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_tcp_server_answers_initialize():
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "pai_lsp", "lsp", "--tcp", f"127.0.0.1:{port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                assert time.monotonic() < deadline, "server did not listen"
                time.sleep(0.1)
        with conn:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                               "params": {"processId": None, "rootUri": None, "capabilities": {}}}).encode()
            conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            header, _, rest = data.partition(b"\r\n\r\n")
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            while len(rest) < length:
                rest += conn.recv(65536)
            answer = json.loads(rest[:length])
        assert answer["id"] == 1
        assert answer["result"]["serverInfo"]["name"] == "pai-lsp"
        assert answer["result"]["capabilities"]["completionProvider"]["triggerCharacters"] == ['"', "$", ":"]
    finally:
        server.kill()
        server.wait(timeout=10)
