"""`pai quota`: what you may use on a PaddlePaddle Cloud cluster, and use now (the daemon's `quota`)."""

from __future__ import annotations

import argparse

from .. import api
from ..daemon import client as daemon
from .args import cluster_option, command
from .cmd_daemon import restart_if_stale
from .output import add_output_option, print_json, visible


def add_commands(sub) -> None:
    p = command(sub, "quota", "what you may use on a PaddlePaddle Cloud cluster, and use now", [
        ("pai quota --cluster paddle", "limits and use")])
    cluster_option(p)
    add_output_option(p)


def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    restart_if_stale()
    return cmd_quota(args)


def cmd_quota(args: argparse.Namespace) -> int:
    quota = daemon.call_sync(api.Quota(cluster=args.cluster))
    if args.output == "json":
        print_json(quota)
        return 0
    print(f"{'':16} {'CPU':>8} {'MEMORY':>10} {'GPU':>5} {'MAXPARALLELISM':>15}")
    for row in ("limits", "used"):
        q = getattr(quota, row)
        print(visible(f"{row:16} {q.cpu or '-':>8} {q.memory or '-':>10} {q.gpu or '-':>5} {q.max_parallelism or '-':>15}"))
    return 0

