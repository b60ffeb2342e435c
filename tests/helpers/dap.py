"""A small Debug Adapter Protocol client, as an editor's debugger talks to debugpy: Content-Length
framed JSON over TCP (requests with `seq`, their responses by `request_seq`, events in between).

It drives a task started under `python -m debugpy --listen … --wait-for-client`: attach with the
path mappings `pai debug -o json` printed, set breakpoints in the workspace's files, wait for a stop,
read the stack, scopes and variables, continue, disconnect.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any


class DapError(AssertionError):
    pass


class DapClient:
    def __init__(self, host: str, port: int, timeout: float = 30.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.timeout = timeout
        self.seq = 0
        self.buffer = b""
        self.events: list[dict] = []  # every event heard, in order
        self.responses: dict[int, dict] = {}

    # -- framing -----------------------------------------------------------------------
    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _read_message(self, deadline: float) -> dict:
        while True:
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if sep:
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                if len(rest) >= length:
                    self.buffer = rest[length:]
                    return json.loads(rest[:length])
            left = deadline - time.monotonic()
            if left <= 0:
                raise DapError("no message from the debug adapter in time")
            self.sock.settimeout(left)
            data = self.sock.recv(65536)
            if not data:
                raise DapError("the debug adapter closed the connection")
            self.buffer += data

    def _pump(self, deadline: float) -> dict:
        message = self._read_message(deadline)
        if message.get("type") == "event":
            self.events.append(message)
        elif message.get("type") == "response":
            self.responses[message["request_seq"]] = message
        elif message.get("type") == "request":  # a reverse request (runInTerminal, startDebugging): not ours
            self._send({"type": "response", "seq": 0, "request_seq": message["seq"], "command": message["command"],
                        "success": False, "message": "not supported by the test client"})
        return message

    # -- requests and events ---------------------------------------------------------------
    def send(self, command: str, **arguments: Any) -> int:
        self.seq += 1
        self._send({"type": "request", "seq": self.seq, "command": command, "arguments": arguments})
        return self.seq

    def response(self, seq: int, timeout: float | None = None) -> dict:
        deadline = time.monotonic() + (timeout or self.timeout)
        while seq not in self.responses:
            self._pump(deadline)
        answer = self.responses.pop(seq)
        if not answer.get("success"):
            raise DapError(f"{answer.get('command')} failed: {answer.get('message')} {answer.get('body')}")
        return answer.get("body") or {}

    def request(self, command: str, timeout: float | None = None, **arguments: Any) -> dict:
        return self.response(self.send(command, **arguments), timeout)

    def event(self, name: str, timeout: float | None = None, after: int = 0) -> dict:
        """The first `name` event heard from index `after` of `events` on (waiting for it)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for e in self.events[after:]:
                if e.get("event") == name:
                    return e
            self._pump(deadline)

    # -- a session as an editor runs it ----------------------------------------------------
    def attach(self, path_mappings: list[dict], breakpoints: dict[str, list[int]],
               exception_filters: list[str] | None = None) -> dict[str, list[dict]]:
        """initialize, attach, breakpoints, configurationDone; the breakpoints as the adapter answered them."""
        self.request("initialize", clientID="pai-test", adapterID="python", pathFormat="path",
                     linesStartAt1=True, columnsStartAt1=True, supportsVariableType=True)
        attach = self.send("attach", justMyCode=False, pathMappings=path_mappings)
        self.event("initialized")
        answered = {path: self.request("setBreakpoints", source={"path": path},
                                       breakpoints=[{"line": n} for n in lines]).get("breakpoints", [])
                    for path, lines in breakpoints.items()}
        self.request("setExceptionBreakpoints", filters=exception_filters or [])
        self.request("configurationDone")
        self.response(attach)
        return answered

    def stopped(self, timeout: float | None = None, after: int = 0) -> dict:
        return self.event("stopped", timeout, after)["body"]

    def frames(self, thread: int) -> list[dict]:
        return self.request("stackTrace", threadId=thread, startFrame=0, levels=50)["stackFrames"]

    def variables(self, frame: int) -> dict[str, str]:
        """Every variable of every scope of `frame`, by name (the innermost scope's first)."""
        out: dict[str, str] = {}
        for scope in self.request("scopes", frameId=frame)["scopes"]:
            for v in self.request("variables", variablesReference=scope["variablesReference"])["variables"]:
                out.setdefault(v["name"], v["value"])
        return out

    def resume(self, thread: int) -> None:
        self.request("continue", threadId=thread)

    def disconnect(self) -> None:
        try:
            self.request("disconnect", timeout=10, terminateDebuggee=False)
        except (DapError, OSError):
            pass
        self.close()

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
