"""`pai debug FILE -o json` as a subprocess and a Debug Adapter Protocol client (tests/helpers/dap.py, as an
editor's debugger) attached where it says a task waits: what the Debug Job tests share."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from .dap import DapClient

LOOP_LINE = "    loss *= 0.6\n"  # inside the epoch loop of examples/mnist/train.py


def start(env: dict, cwd: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pai_lsp", "debug", *args, "-o", "json"], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def targets(process: subprocess.Popen, count: int) -> list[dict]:
    """The first `count` JSON lines `pai debug` prints (each as soon as its task listens)."""
    out = []
    while len(out) < count:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"pai debug ended first: {process.wait()} {process.stderr.read()}")
        out.append(json.loads(line))
    return out


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


def line_of(path: Path, text: str) -> int:
    return path.read_text().splitlines(keepends=True).index(text) + 1


def stop_once_at(target: dict, source: Path, line: int, connect_for: float = 0.0) -> dict[str, str]:
    """Attach, stop at `line` of `source` (a workspace file), read the variables of its frame, then clear
    the breakpoint, continue and disconnect; the variables. `connect_for`: seconds to try again while the
    port refuses (a program that starts debugpy itself says nothing when it listens)."""
    deadline = time.monotonic() + connect_for
    while True:
        try:
            client = DapClient(target["host"], target["port"])
            break
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
    try:
        answered = client.attach(target["pathMappings"], {str(source): [line]})
        assert answered[str(source)][0]["verified"], answered
        stopped = client.stopped(timeout=60)
        assert stopped["reason"] == "breakpoint"
        frame = client.frames(stopped["threadId"])[0]
        assert (frame["source"]["path"], frame["line"]) == (str(source), line)  # mapped back to the workspace
        variables = client.variables(frame["id"])
        client.request("setBreakpoints", source={"path": str(source)}, breakpoints=[])
        client.resume(stopped["threadId"])
        return variables
    finally:
        client.disconnect()
