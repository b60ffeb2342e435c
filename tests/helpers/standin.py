"""Stand-ins for misbehaving real clusters, on 127.0.0.1."""

from __future__ import annotations

import json


class StandIn:
    """A stand-in for a misbehaving real cluster on 127.0.0.1: `respond(method, path, body)` returns
    (status, headers, body bytes or a JSON-able value)."""

    def __init__(self, respond):
        import threading
        from http.server import BaseHTTPRequestHandler, HTTPServer

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                status, headers, body = respond(self.command, self.path, self.rfile.read(length) if length else b"")
                if not isinstance(body, bytes):
                    body = json.dumps(body).encode()
                    headers = {"Content-Type": "application/json", **headers}
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

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
