"""Talking to the daemon: start it when it is not running, call methods, receive notifications."""

from __future__ import annotations

import itertools
import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from ..errors import PaiError, Unreachable
from . import socket_path, state_dir

START_TIMEOUT = 15.0


def start_daemon() -> None:
    """Start the daemon in the background (its own session: it outlives the caller)."""
    state_dir().mkdir(parents=True, exist_ok=True)
    log = open(state_dir() / "daemon.log", "ab")
    subprocess.Popen([sys.executable, "-m", "pai_lsp", "daemon", "serve"], stdin=subprocess.DEVNULL,
                     stdout=log, stderr=log, start_new_session=True)


def connect(start: bool = True) -> socket.socket:
    path = socket_path()
    deadline = time.monotonic() + START_TIMEOUT
    started = False
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(path))
            return sock
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            if not start:
                raise Unreachable("the pai daemon is not running") from None
            if not started:
                start_daemon()
                started = True
            if time.monotonic() > deadline:
                raise Unreachable(f"the pai daemon did not start: see {state_dir() / 'daemon.log'}") from None
            time.sleep(0.05)


def classify(message: dict, rid: int) -> tuple[str, Any]:
    """What one line from the daemon is for a caller waiting on request `rid`:
    ("notification", (method, params)), ("result", value), or ("other", None); errors raise."""
    if "method" in message and "id" not in message:
        return "notification", (message["method"], message.get("params") or {})
    if message.get("id") != rid:
        return "other", None
    if "error" in message:
        error = message["error"]
        raise PaiError.from_wire((error.get("data") or {}).get("kind"), error["message"])
    return "result", message["result"]


class DaemonClient:
    def __init__(self, start: bool = True):
        self.sock = connect(start)
        self.file = self.sock.makefile("rwb")
        self.ids = itertools.count(1)

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def call(self, method: str, params: dict | None = None,
             on_notification: Callable[[str, dict], None] | None = None) -> Any:
        rid = next(self.ids)
        self.file.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}).encode() + b"\n")
        self.file.flush()
        while True:
            line = self.file.readline()
            if not line:
                raise ConnectionError("the pai daemon closed the connection")
            kind, value = classify(json.loads(line), rid)
            if kind == "notification" and on_notification:
                on_notification(*value)
            elif kind == "result":
                return value


def call(method: str, params: dict | None = None, on_notification: Callable[[str, dict], None] | None = None) -> Any:
    client = DaemonClient()
    try:
        return client.call(method, params, on_notification)
    finally:
        client.close()


class LogCursor:
    """What a follower has of each task's log, so a resumed stream prints nothing twice."""

    def __init__(self) -> None:
        self.offsets: dict[str, int] = {}

    def accept(self, params: dict) -> bytes:
        """The part of a `job.log` notification not seen before (may be empty)."""
        data, start = params["text"].encode("utf-8"), params["offset"]
        have = self.offsets.get(params["task"], 0)
        if start + len(data) <= have:
            return b""
        if start < have:
            data, start = data[have - start :], have
        self.offsets[params["task"]] = start + len(data)
        return data
