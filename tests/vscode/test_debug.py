"""Debugging a job's Python in a real VS Code, with no extension but ours (no Python extension). First the
`pai` debug type alone: a launch configuration attaches to train.py run under `debugpy --listen …
--wait-for-client` from a folder elsewhere (as a task runs the uploaded code), the breakpoint set in the
workspace's train.py inside its loop stops it there (the path mappings carry it), the Variables view shows
the loop's variable, and Continue lets it end. Then Debug Job from the job file's code lens on the embedded
local cluster: the editor stops at the same breakpoint in the job's task, and after Continue the job
SUCCEEDS. The tests run in order and share one window."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import psutil
import pytest

from .harness import VENV_BIN, copy_example, free_port, wait_until
from .workbench import CURSOR_POSITION, QUICK_INPUT, click

pytestmark = pytest.mark.timeout(600)

PORT = free_port()
session: dict[str, str] = {}  # what earlier steps learned (the job's name), for the later ones


def loop_line(workspace: Path) -> int:
    """`loss *= 0.6`, inside train.py's loop over `epoch`."""
    return (workspace / "train.py").read_text().splitlines().index("    loss *= 0.6") + 1


@pytest.fixture(scope="module")
def workspace(user) -> Path:
    folder = copy_example("mnist", user.home / "mnist")
    # As a task runs it: the same file, somewhere else (the code folder in the container).
    remote = user.root / "task-code"
    remote.mkdir()
    shutil.copy(folder / "train.py", remote / "train.py")
    # The same job with two instances of its role (for debugging all of them).
    (folder / "two.pai.yaml").write_text((folder / "mnist.pai.yaml").read_text()
                                         .replace("name: mnist", "name: two").replace("instances: 1", "instances: 2"))
    (folder / ".vscode" / "launch.json").write_text(json.dumps({"version": "0.2.0", "configurations": [{
        "type": "pai", "request": "attach", "name": "Attach to train.py",
        "connect": {"host": "127.0.0.1", "port": PORT},
        "pathMappings": [{"localRoot": "${workspaceFolder}", "remoteRoot": str(remote)}]}, {
        "type": "pai", "request": "launch", "name": "Run train.py here",
        "program": "${workspaceFolder}/train.py", "args": ["--epochs", "2"]}]}, indent=2))
    return folder


@pytest.fixture(scope="module")
def debuggee(user, artifacts):
    """train.py under debugpy, waiting for a client, run from the task's folder (not the workspace)."""
    log = artifacts / "debuggee.log"
    proc = user.spawn([str(VENV_BIN / "python"), "-m", "debugpy", "--listen", f"127.0.0.1:{PORT}", "--wait-for-client",
                       "train.py", "--epochs", "3"], log, cwd=user.root / "task-code")
    # Listening, as seen from outside: a probe connection would be taken for the debugger's.
    wait_until(lambda: proc.poll() is not None or listens(PORT), 60, f"debugpy to listen on {PORT}")
    assert proc.poll() is None, log.read_text()
    yield proc, log


def listens(port: int) -> bool:
    return any(c.status == psutil.CONN_LISTEN and c.laddr.port == port for c in psutil.net_connections("tcp4"))


def stopped_at(workbench) -> str:
    """Where the debugger stopped, as the Call Stack view's top frame says it ("<module> train.py 20:1");
    '' while it runs."""
    frames = [" ".join(t.split()) for t in workbench.view_rows("Call Stack").all_inner_texts()]
    return next((f for f in frames if re.search(r"\S+\.py \d+:\d+$", f)), "")


def variables(workbench) -> list[str]:
    """The Variables view's rows as shown ("epoch = 1"), its Locals opened as a user opens them."""
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


def stops_in_the_loop(workbench, line: int, epoch: int) -> None:
    where = workbench.wait_for(lambda: stopped_at(workbench), "the debugger to stop", timeout=120)
    assert where.startswith(f"<module> train.py {line}:"), where
    assert f"Ln {line}," in workbench.page.locator(CURSOR_POSITION).inner_text()  # the editor shows the line
    shown = workbench.wait_for(lambda: [v for v in variables(workbench) if v.startswith("epoch =")], "the loop's variable in the Variables view")
    assert shown == [f"epoch = {epoch}"], variables(workbench)


def continue_to_the_end(workbench) -> None:
    workbench.command("Remove All Breakpoints")
    workbench.command("Debug: Continue")
    toolbar = workbench.page.locator(".debug-toolbar")
    workbench.wait_for(lambda: not toolbar.count() or not toolbar.first.is_visible(), "the debug session to end", timeout=120)


def test_an_attach_configuration_stops_at_a_breakpoint_in_the_loop(workbench, workspace, debuggee):
    proc, log = debuggee
    line = loop_line(workspace)
    set_breakpoint(workbench, "train.py", line)
    workbench.command("Debug: Select and Start Debugging")
    workbench.pick("Attach to train.py")
    stops_in_the_loop(workbench, line, 1)
    assert any(v.startswith("loss = 2.3") for v in variables(workbench)), variables(workbench)
    workbench.screenshot("attached-stopped-in-the-loop")
    workbench.command("Debug: Continue")
    workbench.wait_for(lambda: "epoch = 2" in variables(workbench), "the next pass of the loop (epoch = 2)")
    continue_to_the_end(workbench)
    wait_until(lambda: proc.poll() is not None, 60, "the debugged process to end")
    assert proc.returncode == 0 and "epoch 3/3" in log.read_text(), log.read_text()


def test_a_launch_configuration_runs_train_py_under_the_adapter_of_the_pai_lsp_python(workbench, workspace, user):
    line = loop_line(workspace)
    set_breakpoint(workbench, "train.py", line)
    workbench.command("Debug: Select and Start Debugging")
    workbench.pick("Run train.py here")
    stops_in_the_loop(workbench, line, 1)
    # The adapter is debugpy's, run by the Python that runs pai-lsp (pai.server.command: this checkout's venv).
    adapters = [c for c in user.command_lines() if "debugpy.adapter" in c and "--for-server" not in c]
    assert adapters and all(c.startswith(f"{VENV_BIN / 'python'} -m debugpy.adapter") for c in adapters), user.command_lines()
    continue_to_the_end(workbench)


def test_debug_job_from_the_code_lens_stops_in_the_task_then_the_job_succeeds(workbench, workspace):
    line = loop_line(workspace)
    set_breakpoint(workbench, "train.py", line)
    editor = workbench.open_file("mnist.pai.yaml")
    lens = editor.locator(".codelens-decoration a").filter(has_text="Debug Job")
    workbench.wait_for(lambda: lens.count(), "the Debug Job code lens", timeout=120)
    lens.first.click()
    # The job starts on the embedded local cluster, its task's Python waits for the debugger, VS Code attaches.
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: mnist_"), "the job's Output channel", timeout=120)
    session["job"] = job = workbench.output_channel().removeprefix("PAI: ")
    stops_in_the_loop(workbench, line, 1)
    workbench.screenshot("debug-job-stopped-in-the-task", docs="vscode-debug-job.png")
    workbench.command("PAI: Focus on Jobs View")  # listed while it runs: its end then reaches the row
    continue_to_the_end(workbench)
    row = workbench.view_rows("Jobs").filter(has_text=job).filter(has_text="SUCCEEDED")
    workbench.wait_for(lambda: row.count(), f"{job} SUCCEEDED in the Jobs view", timeout=120)


def test_attach_debugger_from_a_running_tasks_row_in_the_jobs_view(workbench, workspace, user, artifacts):
    """A job started to debug elsewhere (`pai debug` in a terminal): its task's row offers Attach Debugger."""
    log = artifacts / "pai-debug.log"
    log.unlink(missing_ok=True)  # the line read below is this run's
    user.spawn([str(VENV_BIN / "pai"), "debug", "mnist.pai.yaml"], log, cwd=workspace)
    said = wait_until(lambda: re.search(r"submitted (\S+) to local", log.read_text()), 120, "pai debug to submit the job")
    job = said.group(1)
    line = loop_line(workspace)
    set_breakpoint(workbench, "train.py", line)
    workbench.command("PAI: Focus on Jobs View")
    workbench.command("PAI: Refresh Jobs")  # a job started in a terminal: the user refreshes the view to see it
    row = workbench.view_rows("Jobs").filter(has_text=job).filter(has_text="RUNNING")
    workbench.wait_for(lambda: row.count(), f"{job} RUNNING in the Jobs view", timeout=120)
    workbench.context_menu(row.first, "Show Tasks")
    task = workbench.view_rows("Jobs").filter(has_text="train:0").filter(has_text="RUNNING")
    workbench.wait_for(lambda: task.count(), "the running task train:0")
    for _ in range(3):
        workbench.context_menu(task.first, "Attach Debugger")
        # A menu chosen while the view refreshes the running task's figures (every 10 s) reaches the command
        # without its row, which then asks which job: the user tries the row again.
        asked = workbench.wait_for(lambda: stopped_at(workbench) or workbench.page.locator(QUICK_INPUT).is_visible(),
                                   "the debugger to attach", timeout=120)
        if asked is True:
            workbench.page.keyboard.press("Escape")
            continue
        break
    stops_in_the_loop(workbench, line, 1)
    workbench.screenshot("attached-from-the-jobs-view")
    continue_to_the_end(workbench)
    workbench.command("PAI: Focus on Jobs View")
    done = workbench.view_rows("Jobs").filter(has_text=job).filter(has_text="SUCCEEDED")
    workbench.wait_for(lambda: done.count(), f"{job} SUCCEEDED in the Jobs view", timeout=120)


def test_debug_job_with_options_all_tasks_stops_in_each_of_two_instances(workbench, workspace):
    """Two instances, all debugged: one debug session each, named "<job> train:<index>", both stop in the loop."""
    line = loop_line(workspace)
    set_breakpoint(workbench, "train.py", line)
    workbench.open_file("two.pai.yaml")
    workbench.command("PAI: Debug Job With Options…")
    workbench.pick("local")
    workbench.type_into_input("all", "Which tasks wait for the debugger")
    workbench.type_into_input("", "Post-mortem")
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: two_"), "the job's Output channel", timeout=120)
    job = workbench.output_channel().removeprefix("PAI: ")
    calls = workbench.view_rows("Call Stack")
    sessions = lambda: sorted(t.split("\n")[0].strip() for t in calls.all_inner_texts() if t.startswith(job))  # noqa: E731
    workbench.wait_for(lambda: sessions() == [f"{job} train:0", f"{job} train:1"], "a debug session for each task", timeout=120)
    workbench.wait_for(lambda: len([t for t in calls.all_inner_texts() if "paused on breakpoint" in t.lower()]) == 2, "both tasks stopped")
    workbench.screenshot("two-tasks-stopped")
    workbench.command("PAI: Focus on Jobs View")  # listed while it runs: its end then reaches the row
    workbench.command("Remove All Breakpoints")
    for _ in range(2):  # each session: disconnecting lets its task run on to the end
        workbench.command("Debug: Disconnect")
    toolbar = workbench.page.locator(".debug-toolbar")
    workbench.wait_for(lambda: not toolbar.count() or not toolbar.first.is_visible(), "both debug sessions to end", timeout=120)
    done = workbench.view_rows("Jobs").filter(has_text=job).filter(has_text="SUCCEEDED")
    workbench.wait_for(lambda: done.count(), f"{job} SUCCEEDED in the Jobs view", timeout=120)
