"""A TCP proxy to a local server that cuts connections once they carried a given number of bytes
upstream: the network failing half-way through an upload, on 127.0.0.1."""

from __future__ import annotations

import socket
import threading


class _Listener:
    """A server socket on 127.0.0.1 whose connections are each served on a thread (`_serve`)."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.server.close()


class CuttingProxy(_Listener):
    """Cuts every connection once `budget` bytes went upstream in all (`per_connection` False: the
    server is gone for good), or each connection that carried `budget` bytes itself (True: one
    transfer breaks, the next connection works)."""

    def __init__(self, port: int, budget: int, per_connection: bool = False):
        self.port, self.budget, self.per_connection = port, budget, per_connection
        self.sent = 0
        self.cuts = 0
        self.lock = threading.Lock()
        super().__init__()

    def _serve(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.port))
        threading.Thread(target=self._pipe, args=(upstream, client, None), daemon=True).start()
        self._pipe(client, upstream, [0])

    def _pipe(self, src: socket.socket, dst: socket.socket, carried: list[int] | None) -> None:
        try:
            while data := src.recv(65536):
                if carried is not None:
                    with self.lock:
                        self.sent += len(data)
                        carried[0] += len(data)
                        over = (carried[0] if self.per_connection else self.sent) > self.budget
                        self.cuts += over
                    if over:
                        break
                dst.sendall(data)
        except OSError:
            pass
        _close(src, dst)


class ForwardProxy(_Listener):
    """An HTTPS forward proxy on 127.0.0.1, as `HTTPS_PROXY` names one: each `CONNECT host:port`
    opens a tunnel to it (recorded in `tunnels`) and carries the TLS bytes both ways untouched."""

    def __init__(self) -> None:
        self.tunnels: list[str] = []
        super().__init__()

    def _serve(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            piece = client.recv(4096)
            if not piece:
                client.close()
                return
            head += piece
        method, target = head.split(b" ", 2)[:2]
        if method != b"CONNECT":
            client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        host, _, port = target.decode().rpartition(":")
        try:
            upstream = socket.create_connection((host.strip("[]"), int(port)))
        except OSError:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        self.tunnels.append(target.decode())
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        rest = head.split(b"\r\n\r\n", 1)[1]
        if rest:
            upstream.sendall(rest)
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()
        _pipe(client, upstream)


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    _close(src, dst)


def _close(*sockets: socket.socket) -> None:
    for s in sockets:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()
