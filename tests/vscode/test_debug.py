"""Debugging a job's Python in a real VS Code, with no extension but ours (no Python extension): the
`pai` debug type attaches to a process run under `debugpy --listen … --wait-for-client` from a folder
elsewhere (as a task runs the uploaded code), a breakpoint set in the workspace's train.py inside a loop
stops it there (the path mappings carry it), the Variables view shows the loop's variable, and Continue
lets it end. The tests run in order and share one window."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import psutil
import pytest

from .harness import VENV_BIN, free_port, wait_until
from .workbench import CURSOR_POSITION, click

pytestmark = pytest.mark.timeout(600)

TRAIN = """\
total = 0
for step in range(3):
    total += step * 10
print("total", total, flush=True)
"""
LOOP_LINE = 3  # `total += step * 10`, inside the loop

PORT = free_port()

session: dict[str, object] = {}


@pytest.fixture(scope="module")
def workspace(user) -> Path:
    folder = user.home / "debugging"
    (folder / ".vscode").mkdir(parents=True)
    (folder / "train.py").write_text(TRAIN)
    # As a task runs it: the same file, somewhere else (the code folder in the container).
    remote = user.root / "task-code"
    remote.mkdir()
    shutil.copy(folder / "train.py", remote / "train.py")
    (folder / ".vscode" / "launch.json").write_text(json.dumps({"version": "0.2.0", "configurations": [{
        "type": "pai", "request": "attach", "name": "Attach to train.py",
        "connect": {"host": "127.0.0.1", "port": PORT},
        "pathMappings": [{"localRoot": "${workspaceFolder}", "remoteRoot": str(remote)}]}]}, indent=2))
    return folder


@pytest.fixture(scope="module")
def debuggee(user, artifacts):
    """train.py under debugpy, waiting for a client, run from the task's folder (not the workspace)."""
    remote = user.root / "task-code"
    log = artifacts / "debuggee.log"
    proc = user.spawn([str(VENV_BIN / "python"), "-m", "debugpy", "--listen", f"127.0.0.1:{PORT}", "--wait-for-client", "train.py"],
                      log, cwd=remote)
    # Listening, as seen from outside: a probe connection would be taken for the debugger's.
    wait_until(lambda: proc.poll() is not None or listens(PORT), 60, f"debugpy to listen on {PORT}")
    assert proc.poll() is None, log.read_text()
    yield proc, log


def listens(port: int) -> bool:
    return any(c.status == psutil.CONN_LISTEN and c.laddr.port == port for c in psutil.net_connections("tcp4"))


def stopped_at(workbench) -> str:
    """Where the debugger stopped, as the Call Stack view's top frame says it ("train.py 3:5"); '' when it runs."""
    frames = [" ".join(t.split()) for t in workbench.view_rows("Call Stack").all_inner_texts()]
    return next((f for f in frames if re.search(r"\S+\.py \d+:\d+$", f)), "")


def variables(workbench) -> list[str]:
    """The Variables view's rows as shown ("step = 0"), its Locals opened as a user opens them."""
    rows = workbench.view_rows("Variables")
    local = rows.filter(has_text="Locals")
    if local.count() and local.first.get_attribute("aria-expanded") == "false":
        click(local.first)
    return [re.sub(r"\s*=\s*", " = ", " ".join(t.split()), count=1) for t in rows.all_inner_texts()]


def set_breakpoint(workbench, name: str, line: int) -> None:
    workbench.open_file(name)
    workbench.go_to(line)
    workbench.page.keyboard.press("F9")
    glyph = workbench.editor(name).locator("[class*='codicon-debug-breakpoint']")
    workbench.wait_for(lambda: glyph.count(), f"the breakpoint at {name}:{line}")
    workbench.go_to(1)  # the cursor away from it: where the debugger stops is then the editor's doing


def test_an_attach_configuration_stops_at_a_breakpoint_in_the_loop(workbench, debuggee):
    set_breakpoint(workbench, "train.py", LOOP_LINE)
    workbench.command("Debug: Select and Start Debugging")
    workbench.pick("Attach to train.py")
    where = workbench.wait_for(lambda: stopped_at(workbench), "the debugger to stop", timeout=90)
    assert where.startswith(f"<module> train.py {LOOP_LINE}:"), where
    assert f"Ln {LOOP_LINE}," in workbench.page.locator(CURSOR_POSITION).inner_text()  # the editor shows the line
    shown = workbench.wait_for(lambda: [v for v in variables(workbench) if v.startswith("step =")], "the loop's variable in the Variables view")
    assert shown == ["step = 0"], variables(workbench)
    assert "total = 0" in variables(workbench), variables(workbench)
    workbench.screenshot("stopped-in-the-loop")


def test_continue_stops_again_then_lets_the_process_end(workbench, debuggee):
    proc, log = debuggee
    workbench.command("Debug: Continue")
    workbench.wait_for(lambda: "step = 1" in variables(workbench), "the next pass of the loop (step = 1)")
    assert "total = 0" in variables(workbench), variables(workbench)
    workbench.command("Debug: Remove All Breakpoints")
    workbench.command("Debug: Continue")
    wait_until(lambda: proc.poll() is not None, 60, "the debugged process to end")
    assert proc.returncode == 0, log.read_text()
    assert "total 30" in log.read_text()
    toolbar = workbench.page.locator(".debug-toolbar")
    workbench.wait_for(lambda: not toolbar.count() or not toolbar.first.is_visible(), "the debug session to end")
