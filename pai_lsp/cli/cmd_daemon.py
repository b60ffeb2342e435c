"""`pai daemon status|stop|serve`, and the check every other command of the daemon's makes first: that
the daemon running has this command's settings."""

from __future__ import annotations

import argparse
import sys

from .. import api
from ..daemon import client as daemon
from ..daemon import settings as daemon_settings
from ..errors import PaiError, Unreachable
from .args import _, command, group, ngettext
from .output import human_duration


def add_commands(sub) -> None:
    d = command(sub, "daemon", "the background job daemon (started on demand)", [
        ("pai daemon status", "is it running, and what does it watch"), ("pai daemon stop", "stop it")])
    dsub = group(d, "daemon_command")
    command(dsub, "status", "is it running, and what does it watch", [("pai daemon status", "")])
    command(dsub, "stop", "stop it (the next command starts it again)", [("pai daemon stop", "")])
    command(dsub, "serve", "run it in the foreground", [("pai daemon serve", "what `pai` starts in the background")])


def run(args: argparse.Namespace) -> int:
    return cmd_daemon(args)


def restart_if_stale() -> None:
    """A daemon started under other settings (PAI_LSP_SECRETS, where profiles or the local cluster
    live) would read secrets and profiles other than this command's: it is stopped, with one line,
    and the call below starts one with this command's settings."""
    try:
        info = daemon.call_sync(api.Ping(), start=False)
    except PaiError:
        return  # none runs (or it cannot be asked): the next call starts one with these settings
    theirs, ours = info.settings, daemon_settings()
    if theirs is None or theirs == ours:
        return
    changed = ", ".join(f"{key} ({theirs.get(key) or 'unset'} → {ours.get(key) or 'unset'})" for key in ours
                        if theirs.get(key) != ours.get(key))
    print("pai: " + _("restarting the pai daemon, which runs with other settings: {changed}").format(changed=changed), file=sys.stderr)
    daemon.restart()


def cmd_daemon(args: argparse.Namespace) -> int:
    if args.daemon_command == "serve":
        from ..daemon.server import serve

        return serve()
    try:
        if args.daemon_command == "stop":
            daemon.call_sync(api.StopDaemon(), start=False)
            print(_("stopped the pai daemon"))
        else:
            info = daemon.call_sync(api.Ping(), start=False)
            print(ngettext("the pai daemon runs (pid {pid}, up {uptime}, watching {jobs} job)",
                           "the pai daemon runs (pid {pid}, up {uptime}, watching {jobs} jobs)", info.watched).format(
                pid=info.pid, uptime=human_duration(info.uptime), jobs=info.watched))
    except Unreachable:
        print(_("the pai daemon is not running"))
        return 0 if args.daemon_command == "stop" else 1
    return 0

