"""Stand-ins for misbehaving real clusters, on 127.0.0.1."""

from __future__ import annotations

import json


class StandIn:
    """A stand-in for a misbehaving real cluster on 127.0.0.1 (an HTTP/1.1 server: bodies of a stated length
    or chunked): `respond(method, path, body)` returns
    (status, headers, body bytes or a JSON-able value)."""

    def __init__(self, respond):
        import threading
        from http.server import BaseHTTPRequestHandler, HTTPServer

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                    sent = self._chunked()
                    if sent is None:  # the client gave up half-way: no answer
                        self.close_connection = True
                        return
                else:
                    length = int(self.headers.get("Content-Length") or 0)
                    sent = self.rfile.read(length) if length else b""
                status, headers, body = respond(self.command, self.path, sent)
                if not isinstance(body, bytes):
                    body = json.dumps(body).encode()
                    headers = {"Content-Type": "application/json", **headers}
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def _chunked(self) -> bytes | None:
                """A chunked body (as HTTP/1.1 servers must read one); None when it broke off."""
                pieces = []
                while True:
                    line = self.rfile.readline(1024)
                    try:
                        size = int(line.split(b";")[0], 16)
                    except ValueError:
                        return None
                    piece = self.rfile.read(size + 2)
                    if len(piece) != size + 2:
                        return None
                    if size == 0:
                        return b"".join(pieces)
                    pieces.append(piece[:-2])

            do_GET = do_PUT = do_POST = do_DELETE = _answer

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # It looks for `shutdown` this often: the default (0.5 s) is what each test would wait at its end.
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def __enter__(self) -> StandIn:
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
