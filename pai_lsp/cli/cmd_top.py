"""`pai top JOB`: each running task's GPU utilisation and GPU memory (per GPU), CPU and memory of its limit,
from the cluster's Prometheus (the daemon's `job.metrics`). On a terminal the view is redrawn every
`--interval` seconds until Ctrl-C; piped (or `--once`) it prints once; `-o json` prints the result once."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from .. import api
from ..daemon import client as daemon
from .args import _, cluster_option, command, job_argument
from .cmd_daemon import restart_if_stale
from .output import add_output_option, console, human_size, print_json, visible

if TYPE_CHECKING:
    from pai_lsp.api import JobMetricsResult, TaskFigures

DEFAULT_INTERVAL = 10.0


def add_commands(sub) -> None:
    p = command(sub, "top", "a running job's tasks: GPU use and memory, CPU, memory of the limit", [
        ("pai top mnist_1a2b3c4d", "redrawn every 10 seconds until Ctrl-C"),
        ("pai top mnist_1a2b3c4d -o json", "the figures once, as JSON")])
    job_argument(p)
    cluster_option(p)
    p.add_argument("--interval", type=float, default=DEFAULT_INTERVAL, metavar="SECONDS",
                   help="seconds between two redraws (default: 10)")
    p.add_argument("--once", action="store_true", help="print the figures once, even on a terminal")
    add_output_option(p)


def run(args: argparse.Namespace) -> int:
    restart_if_stale()
    return cmd_top(args)


def cmd_top(args: argparse.Namespace) -> int:
    def fetch() -> JobMetricsResult:
        return daemon.call_sync(api.JobMetrics(job=args.job, cluster=args.cluster))

    if args.output == "json":
        print_json(fetch())
        return 0
    out = console()
    if args.once or not out.is_terminal:
        print(render(fetch()))
        return 0
    try:
        while True:
            shown = render(fetch())
            out.clear()
            out.print(shown, markup=False)
            time.sleep(max(args.interval, 1.0))
    except KeyboardInterrupt:
        return 0


def render(result: JobMetricsResult) -> str:
    """The table: one line per task, then one per GPU of it."""
    from ..core.messages import render as say
    from .output import terminal_locale

    stamp = time.strftime("%H:%M:%S", time.localtime(result.time))
    lines = [visible(_("{job} on {cluster} at {time}").format(job=result.job, cluster=result.cluster, time=stamp))]
    if not result.tasks:
        lines.append(say("metrics.no-tasks", terminal_locale(), job=result.job))
        return "\n".join(lines)
    lines.append(f"{'TASK':16} {'CPU':>7} {'MEMORY':>22} {'GPU':>5} {'UTIL':>6} {'GPU MEM':>8}")
    for task in result.tasks:
        gpus = task.gpus or [None]
        for n, gpu in enumerate(gpus):
            head = f"{visible(task.role)}:{task.index}" if n == 0 else ""
            cpu = _percent(task.cpu_percent) if n == 0 else ""
            memory = _memory(task) if n == 0 else ""
            if gpu is None:
                lines.append(f"{head:16} {cpu:>7} {memory:>22} {'-':>5} {'-':>6} {'-':>8}")
            else:
                lines.append(f"{head:16} {cpu:>7} {memory:>22} {visible(gpu.minor):>5} "
                             f"{_percent(gpu.utilization):>6} {_percent(gpu.memory_percent):>8}")
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}%"


def _memory(task: TaskFigures) -> str:
    """`used / limit (percent)`, or what of it is known."""
    if task.memory_bytes is None:
        return "-"
    used = human_size(task.memory_bytes)
    if task.memory_limit_bytes:
        return f"{used} / {human_size(task.memory_limit_bytes)} ({_percent(task.memory_percent)})"
    return used
