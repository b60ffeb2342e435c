"""`pai vc`: the cluster's virtual clusters — free / used / total per resource, waiting and running
jobs — and with `--nodes` each node's GPUs (the daemon's `vc.list`); and the lines `pai status` and
`pai why` print for a WAITING job (the daemon's `job.waiting`)."""

from __future__ import annotations

import argparse

from .. import api
from ..daemon import client as daemon
from ..errors import PaiError
from .args import cluster_option, command
from .cmd_daemon import restart_if_stale
from .output import add_output_option, print_json, visible


def add_commands(sub) -> None:
    p = command(sub, "vc", "the cluster's virtual clusters: free, used and total resources, waiting and running jobs", [
        ("pai vc", "one line per virtual cluster of the default cluster"),
        ("pai vc --nodes", "and each node's free GPUs"),
        ("pai vc -o json", "the daemon's vc.list result")])
    cluster_option(p)
    p.add_argument("--nodes", action="store_true", help="also list each node: GPUs used, free and in all")
    add_output_option(p)


def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    restart_if_stale()
    return cmd_vc(args)


def cmd_vc(args: argparse.Namespace) -> int:
    from ..core.messages import render
    from .output import terminal_locale

    locale = terminal_locale()
    result = daemon.call_sync(api.VirtualClusters(cluster=args.cluster))
    if args.output == "json":
        print_json(result)
        return 0
    print(f"{'VC':16} {'GPU FREE/USED/TOTAL':>20} {'CPU FREE/USED/TOTAL':>20} {'MEMORY MB FREE/USED/TOTAL':>27} "
          f"{'WAITING':>7} {'RUNNING':>7}")
    for row in result.vcs:
        mark = "" if row.permitted is not False else render("capacity.not-yours", locale)
        gpu, cpu, memory = (f"{free}/{used}/{total}" for free, used, total in zip(
            (row.free.gpu, row.free.cpu, row.free.memory), (row.used.gpu, row.used.cpu, row.used.memory),
            (row.total.gpu, row.total.cpu, row.total.memory), strict=True))
        print(visible(f"{row.name:16} {gpu:>20} {cpu:>20} {memory:>27} {row.waiting:>7} {row.running:>7}{mark}"))
    if args.nodes:
        print()
        if not result.nodes:
            print(render("capacity.no-nodes", locale))
        else:
            print(f"{'NODE':24} {'GPU FREE':>8} {'USED':>5} {'TOTAL':>6}")
            for node in result.nodes:
                print(visible(f"{node.name:24} {node.gpu_available:>8} {node.gpu_used:>5} {node.gpu_total:>6}"))
    return 0


def waiting_lines(cluster: str | None, job: str, locale: str | None) -> list[str]:
    """Why a WAITING job waits, a line per fact ([] when the daemon cannot say, or the job no longer waits)."""
    from ..core.waiting import Explanation

    try:
        result = daemon.call_sync(api.Waiting(job=job, cluster=cluster))
    except PaiError:
        return []
    explanation = Explanation.from_json(result.explanation) if result.explanation is not None else None
    return [] if explanation is None else [visible(line) for line in explanation.lines(locale)]
