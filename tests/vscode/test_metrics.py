"""A running job's tasks in the Jobs view of a real VS Code show their CPU and memory (of the limit), from the
local cluster's Prometheus, and keep them current while the job runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .harness import copy_example

pytestmark = pytest.mark.timeout(600)

BURN = {"jobName": "burn", "image": "local", "taskRoles": [{
    "name": "train", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
    "command": "end=$((SECONDS + 90)); while [ $SECONDS -lt $end ]; do :; done"}]}


@pytest.fixture(scope="module")
def workspace(user) -> Path:
    folder = copy_example("mnist", user.home / "mnist")
    (folder / "burn.pai.json").write_text(json.dumps(BURN, indent=2))
    return folder


def test_a_running_tasks_row_shows_its_cpu_and_memory(workbench):
    workbench.open_file("burn.pai.json")
    workbench.context_menu(workbench.explorer_row("burn.pai.json"), "Run Job Locally")
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: burn_"), "the job's Output channel", timeout=60)
    job = workbench.output_channel().removeprefix("PAI: ")
    workbench.command("PAI: Focus on Jobs View")
    row = workbench.view_rows("Jobs").filter(has_text=job).filter(has_text="RUNNING")
    workbench.wait_for(lambda: row.count(), f"{job} RUNNING in the Jobs view", timeout=60)
    workbench.context_menu(row.first, "Show Tasks")
    task = workbench.view_rows("Jobs").filter(has_text="train:0")
    # The first scrape (every 10 s) and the view's refresh (every 10 s) bring the figures without a click.
    workbench.wait_for(lambda: task.count() and re.search(r"CPU \d+%", task.first.inner_text()), "the task's CPU", timeout=60)
    text = task.first.inner_text()
    assert re.search(r"mem [\d.]+ [KMG]iB/512\.0 MiB \(\d+%\)", text), text
    workbench.screenshot("task-metrics")
