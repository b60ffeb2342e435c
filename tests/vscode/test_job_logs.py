"""A job's log and its end in a real VS Code, for jobs run from the terminal while the window is open:
the end is told in a notification (a failure with its cause in one line and "Why did it fail?"),
and the log, opened from the Jobs view, follows every task and is filtered by "Filter Job Log…"
(role, task index, a regular expression) — the lines already there and those still arriving."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.timeout(600)

TICKER = {
    "jobName": "ticker", "image": "python:3",
    "taskRoles": [
        {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
         "command": "for i in 1 2 3 4 5 6 7 8; do echo \"tick $i of $PAI_TASK_INDEX\"; echo \"noise $i\"; sleep 1.5; done"},
        {"name": "ps", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
         "command": "for i in 1 2 3 4; do echo \"ps tick $i\"; sleep 1; done"},
    ],
}
FAILING = {"jobName": "boom", "image": "python:3",
           "taskRoles": [{"name": "train", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
                          "command": "python3 -c \"raise KeyError('train')\""}]}


def test_a_terminal_jobs_log_filtered_while_it_runs(workbench, workspace, user):
    (workspace / "ticker.pai.json").write_text(json.dumps(TICKER, indent=2))
    workbench.command("PAI: Focus on Jobs View")  # the window lists jobs: it hears of their ends from now on
    submitted = user.pai("run", str(workspace / "ticker.pai.json"))
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.split()[1]
    workbench.command("PAI: Refresh Jobs")
    row = workbench.view_rows("Jobs").filter(has_text=job)
    workbench.wait_for(lambda: row.count(), f"{job} in the Jobs view")
    workbench.context_menu(row.first, "Show Logs")
    workbench.wait_for(lambda: "[worker:0] tick 1 of 0" in workbench.output_text(), "every task's log, prefixed")
    workbench.context_menu(row.first, "Filter Job Log…")
    workbench.type_into_input("role:worker task:1 tick", "role:NAME")
    workbench.wait_for(lambda: "[worker:1] tick 1 of 1" in workbench.output_text(), "the filtered log")

    def shown() -> list[str]:
        return [line for line in workbench.output_text().splitlines() if line.strip()]

    workbench.wait_for(lambda: "[worker:1] tick 8 of 1" in workbench.output_text(), "the lines that came after, filtered",
                       timeout=90)
    assert all(line.startswith("[worker:1] tick ") for line in shown() if not line.startswith("[pai]")), shown()
    # An empty filter shows every line again, those that came while it was filtered too.
    workbench.command("PAI: Filter Job Log…")
    workbench.type_into_input("", "role:NAME")
    workbench.wait_for(lambda: "[worker:0] noise 8" in workbench.output_text(), "every line again")
    workbench.filter_output("ps tick")  # the panel's own filter: the ps role's lines sit above the fold
    workbench.wait_for(lambda: "[ps:0] ps tick 4" in workbench.output_text(), "the other role's lines again")
    workbench.filter_output("")
    workbench.screenshot("job-log-filtered")


def test_a_terminal_jobs_failure_is_told_with_why(workbench, workspace, user):
    (workspace / "boom.pai.json").write_text(json.dumps(FAILING, indent=2))
    workbench.command("PAI: Focus on Jobs View")
    submitted = user.pai("run", str(workspace / "boom.pai.json"))
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.split()[1]
    workbench.wait_for(lambda: any(f"Job {job} FAILED: " in toast and "KeyError" in toast for toast in workbench.notifications()),
                       "the end notification with its cause", timeout=90)
    workbench.screenshot("job-ended-notification")
