"""Watching and sizing jobs in a real VS Code, on the embedded local cluster shaped as a small cluster
with virtual clusters (tests/helpers/vc_jobs.py) and metrics from the real Prometheus it runs. A running
job's tasks in the Jobs view show their CPU and memory (of the limit) and keep them current; Show Metrics
draws its history as a chart with a line per task, refreshed while it shows (a cluster with no metrics
says so in one line instead). While a job is written, `virtualCluster` completes and hovers with each
VC's free/total resources and a diagnostic says with numbers when the job can never run or will wait;
submitted, the waiting job's row in the Jobs view says why (reason, jobs ahead, what is free now) until
it starts. The tests run in order and share one window."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ..helpers.vc_jobs import LAYOUT, v2_job
from .harness import copy_example
from .workbench import HOVER, QUICK_INPUT_BOX, SUGGEST_ROWS

pytestmark = pytest.mark.timeout(600)

BURN = {"jobName": "burn", "image": "local", "taskRoles": [{
    "name": "train", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
    "command": "end=$((SECONDS + 150)); while [ $SECONDS -lt $end ]; do :; done"}, {
    "name": "idle", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": "sleep 150"}]}

session: dict[str, str] = {}  # what earlier steps learned (the burning job's name), for the later ones


@pytest.fixture(scope="module")
def workspace(user) -> Path:
    """The mnist example with a CPU-burning job and two v2 jobs for vc1 (4 GPUs, 2 per node): `wait` asks
    2 × 2 GPUs, `never` 5 on one instance. The local cluster is shaped before anything starts it, and
    `holder` (submitted from the terminal, from a folder of its own) holds 2 of vc1's GPUs."""
    (user.local_cluster / "virtual-clusters.json").write_text(json.dumps(LAYOUT))
    folder = copy_example("mnist", user.home / "mnist")
    (folder / "burn.pai.json").write_text(json.dumps(BURN, indent=2))
    (folder / "wait.pai.yaml").write_text(v2_job("wait", gpu=2, instances=2))
    (folder / "never.pai.yaml").write_text(v2_job("never", gpu=5))
    holder = user.home / "holder"
    (holder / ".vscode").mkdir(parents=True)
    (holder / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.enabled": False,
                                                                  "pai.job.generateJobName.enabled": False}))
    (holder / "holder.pai.yaml").write_text(v2_job("holder", gpu=2))
    sent = user.pai("submit", "--cluster", "local", str(holder / "holder.pai.yaml"))
    assert sent.returncode == 0, sent.stdout + sent.stderr
    return folder


def test_a_running_tasks_row_shows_its_cpu_and_memory(workbench):
    workbench.open_file("burn.pai.json")
    workbench.context_menu(workbench.explorer_row("burn.pai.json"), "Run Job Locally")
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: burn_"), "the job's Output channel", timeout=60)
    job = session["job"] = workbench.output_channel().removeprefix("PAI: ")
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


def test_show_metrics_draws_the_jobs_history_with_a_line_per_task(workbench):
    job = session.get("job") or pytest.fail("no job: the first test runs it")
    row = workbench.view_rows("Jobs").filter(has_text=job).filter(has_text="RUNNING")
    workbench.context_menu(row.first, "Show Metrics")
    line = "svg.chart[data-panel='cpu'] g.series[data-series='train:0'] polyline"
    idle = "svg.chart[data-panel='cpu'] g.series[data-series='idle:0'] polyline"
    chart = workbench.webview(line, timeout=60)
    workbench.wait_for(lambda: chart.locator(idle).count(), "the idle task's line")
    assert chart.locator("svg.chart[data-panel='memory'] g.series[data-series='train:0'] polyline").count() == 1
    assert chart.locator(".legend").inner_text().split() == ["idle:0", "train:0"]
    # A CPU-only job: one line says so where the GPU charts would be, never an empty chart.
    assert chart.locator("p.note").all_inner_texts() == ["No GPU in this job's tasks."]
    assert chart.locator("svg.chart").evaluate_all("charts => charts.map(c => c.dataset.panel)") == ["cpu", "memory"]
    points = lambda: len(chart.locator(line).first.get_attribute("points").split())  # noqa: E731
    before = points()
    # The burner's line runs above the idle task's on the CPU chart (y grows downwards; 0% is at y=156 of 180).
    def heights(selector: str) -> list[float]:
        return [float(p.split(",")[1]) for p in chart.locator(selector).first.get_attribute("points").split()]
    assert min(heights(line)) < min(heights(idle)), (heights(line), heights(idle))
    workbench.wait_for(lambda: points() > before, "the chart to refresh with a new sample", timeout=40)
    workbench.command("View: Hide Panel")  # the whole chart in sight
    workbench.page.mouse.move(900, 700)  # no tooltip over it
    workbench.screenshot("metrics-chart", docs="vscode-metrics-chart.png")
    # Last Hour: the same lines over the hour before now (the time axis starts an hour back).
    axis = chart.locator("svg.chart[data-panel='cpu'] text.tick").nth(3)
    since_start = axis.text_content()
    chart.locator("button#hour").click()
    workbench.wait_for(lambda: chart.locator("button#hour.on").count() and axis.text_content() != since_start, "the last hour's chart")
    assert chart.locator(line).count() == 1
    close_metrics(workbench)


def close_metrics(workbench) -> None:
    """Close the chart's tab with its own close button (the keyboard may be inside the webview's page)."""
    tab = workbench.page.locator(".tabs-container .tab[aria-label^='Metrics: ']")
    tab.first.hover()
    tab.first.locator(".tab-actions .action-label").click()
    workbench.wait_for(lambda: not tab.count(), "the chart's tab to close")


def test_a_cluster_without_metrics_says_so_in_one_line_instead_of_a_chart(workbench, user):
    """A PaddlePaddle Cloud job (the embedded local-paddle cluster), its chart asked from the Command Palette."""
    folder = user.home / "paddle"
    (folder / ".vscode").mkdir(parents=True)
    (folder / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.include": ["**/*.py"],
                                                                  "pai.job.generateJobName.enabled": False}))
    (folder / "train.py").write_text("print('fit')\n")
    (folder / "fit.paddle.json").write_text(json.dumps({"name": "fit-a-line", "parallelism": 1, "pservers": 1, "memory": "256Mi",
                                                        "psmemory": "256Mi", "entry": "python3 train.py"}))
    ran = user.pai("run", str(folder / "fit.paddle.json"))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    workbench.command("PAI: Refresh Jobs")
    workbench.command("PAI: Show Metrics")  # which job: the ones the Jobs view lists
    # Typed, as a user narrows a list whose rows move while the other jobs' states refresh.
    workbench.page.locator(QUICK_INPUT_BOX).fill("fit-a-line")
    workbench.pick("fit-a-line")
    page = workbench.webview("p.note:has-text('offers no job metrics')")
    assert page.locator("p.note").all_inner_texts() == ["local-paddle is a PaddlePaddle Cloud cluster: it offers no job metrics"]
    assert page.locator("svg.chart").count() == 0
    close_metrics(workbench)


def capacity_problems(workbench) -> list[str]:
    return [r for r in workbench.problems() if "This job " in r]


def test_writing_a_job_says_whether_it_fits_with_the_vcs_free_resources(workbench, workspace):
    workbench.open_file("never.pai.yaml")
    rows = workbench.wait_for(lambda: capacity_problems(workbench), "the capacity diagnostic of never.pai.yaml", timeout=90)
    assert len(rows) == 1 and "This job can never run: an instance of worker asks 5 GPUs, the largest node has 4." in rows[0], rows
    workbench.open_file("wait.pai.yaml")  # in the preview tab never.pai.yaml had: its diagnostic goes with it
    rows = workbench.wait_for(lambda: [r for r in capacity_problems(workbench) if "wait.pai.yaml" in r or "will wait" in r],
                              "the capacity diagnostic of wait.pai.yaml", timeout=60)
    assert "This job will wait: it asks 4 GPUs; vc1 has 2 free of 4, 0 jobs waiting ahead." in rows[0], rows
    line = (workspace / "wait.pai.yaml").read_text().splitlines().index("  virtualCluster: vc1") + 1
    workbench.go_to(line, 21)  # on vc1
    workbench.hover_text()  # the diagnostic's part may show before the server's answer
    parts = workbench.page.locator(HOVER)
    hover = workbench.wait_for(lambda: "vc1: free" in (t := " ".join(parts.all_inner_texts())) and t, "what is free in vc1 in the hover")
    assert "vc1: free 2 of 4 GPUs, 7 of 8 CPUs, 15360 of 16384 MB" in hover, hover
    workbench.page.keyboard.press("Escape")
    workbench.go_to(line, 19)  # the value's start: every VC is offered
    offered = workbench.completions()
    assert sorted(o.split(",")[0] for o in offered) == ["default", "vc1"], offered  # each VC once
    focused = workbench.page.locator(f"{SUGGEST_ROWS}.focused")
    # The suggestion in focus shows its detail: what is free in that VC.
    text = workbench.wait_for(lambda: "vc1" in focused.inner_text() and focused.inner_text()
                              or workbench.page.keyboard.press("ArrowDown"), "vc1 in focus in the suggestions")
    assert "free 2 of 4 GPUs, 7 of 8 CPUs, 15360 of 16384 MB" in text, text
    workbench.screenshot("capacity-completion")
    workbench.page.keyboard.press("Escape")


def test_a_waiting_jobs_row_says_why_it_waits_until_it_starts(workbench, user):
    workbench.clear_notifications()
    workbench.context_menu(workbench.explorer_row("wait.pai.yaml"), "Submit Job to PAI Cluster")
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: wait"), "the job's Output channel", timeout=90)
    job = workbench.output_channel().removeprefix("PAI: ")
    workbench.command("PAI: Focus on Jobs View")
    row = workbench.view_rows("Jobs").filter(has_text=job)
    reason = "not enough free GPUs in vc1: it asks 4, 2 free of 4"
    workbench.wait_for(lambda: row.count() and reason in row.first.inner_text(), "the reason on the waiting job's row", timeout=90)
    assert "WAITING" in row.first.inner_text()
    assert any("This job will wait" in r for r in workbench.problems())  # in sight beside the row: the file's Warning
    row.first.hover()
    tooltip = workbench.page.locator(".workbench-hover, .monaco-hover").filter(has_text="jobs ahead")
    text = workbench.wait_for(lambda: tooltip.count() and tooltip.first.is_visible() and tooltip.first.inner_text(),
                              "the row's tooltip")
    assert "jobs ahead: 0 (an estimate" in text, text
    assert "free now in vc1: 2 GPUs" in text, text
    assert "holder" in text, text  # who holds what it needs
    workbench.wait_for(lambda: not [t for t in workbench.toasts() if t.startswith("Info: Submitting wait.pai.yaml")],
                       "the submit's progress notification to close", errors=False)
    workbench.screenshot("capacity", docs="vscode-capacity.png")
    # The blocker ends: the job starts, and the explanation goes from its row.
    stopped = user.pai("stop", "holder")
    assert stopped.returncode == 0, stopped.stderr
    workbench.page.mouse.move(900, 700)
    workbench.wait_for(lambda: "RUNNING" in row.first.inner_text(), "the waiting job to start", timeout=90)
    assert reason not in row.first.inner_text()
