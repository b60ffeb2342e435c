"""`pai debug FILE`: submit a job so that the chosen tasks run their Python command under debugpy
waiting for a debugger (the daemon's `job.debug`), then say where each waits as soon as it listens
(`job.debugTargets`), until the job ends. With `-o json`, one JSON line per attachable process —
{"host", "port", "pathMappings": [{"localRoot", "remoteRoot"}], "job", "task"}, and "worker" (LOCAL_RANK) where a
task starts several (torchrun) — which a Debug Adapter Protocol client passes to debugpy's `attach` as it
is; everything else goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path

from .. import api
from ..daemon import client as daemon
from .args import _, command
from .cmd_daemon import restart_if_stale
from .output import add_output_option, bar_updater, progress_bar, visible, visible_lines

WAIT_SECONDS = 30.0  # one long poll of `job.debugTargets`
FINAL = ("SUCCEEDED", "FAILED", "STOPPED")


def add_commands(sub) -> None:
    p = command(sub, "debug", "run a job with its Python command under a debugger: say where each task waits for one", [
        ("pai debug train.pai.yaml", "on the local cluster: the first task waits for a debugger; where it waits is printed"),
        ("pai debug train.pai.yaml --task worker -o json", "every worker; a JSON line per task for a DAP client's attach"),
        ("pai debug train.pai.yaml --post-mortem 10", "run at full speed; a task that fails waits 10 minutes, stopped at the "
                                                      "exception"),
        ("pai debug train.pai.yaml --dry-run", "the job as it would be sent, the debug wrapping shown; nothing is sent")])
    p.add_argument("file", metavar="FILE", help="the job file (*.pai.json, *.pai.yaml)")
    p.add_argument("--cluster", metavar="PROFILE", help="cluster profile (default: the embedded local cluster)")
    p.add_argument("--task", default="first", metavar="SEL",
                   help="which tasks wait for a debugger: first (the first instance of the first task role; the default), "
                        "all, ROLE (each instance of it) or ROLE:INDEX")
    p.add_argument("--post-mortem", type=int, metavar="MINUTES",
                   help="do not wait at the start: a task whose program fails stops at the exception and waits this many "
                        "minutes for a debugger, then fails as it would have")
    p.add_argument("--via", choices=["direct", "ssh"], default="direct",
                   help="how the debugger reaches the task: direct (its address and port; the default) or ssh (a tunnel "
                        "through the task's sshd, to a port that listens on the task's 127.0.0.1 only)")
    p.add_argument("--dry-run", action="store_true", help="show the job as it would be submitted; send nothing")
    add_output_option(p)


def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    restart_if_stale()
    return cmd_debug(args)


def cmd_debug(args: argparse.Namespace) -> int:
    from .output import terminal_locale

    cluster = args.cluster or "local"
    options = api.DebugOptions(tasks=args.task, post_mortem_minutes=args.post_mortem, via=args.via)
    file, locale = str(Path(args.file).resolve()), terminal_locale()
    if args.dry_run:
        shown = daemon.call_sync(api.Preview(file=file, shown=args.file, cluster=cluster, locale=locale, debug=options))
        sys.stdout.write(visible_lines(shown.text))
        return 0
    talk = sys.stderr if args.output == "json" else sys.stdout
    with progress_bar() as bar:
        result = daemon.call_sync(api.Debug(file=file, shown=args.file, cluster=cluster, progress_token="cli",
                                            request_id=secrets.token_hex(16), locale=locale, debug=options),
                                  bar_updater(bar, bar.add_task("uploading code", total=None)))
    for warning in result.warnings:
        print(_("warning: {warning}").format(warning=visible(warning)), file=sys.stderr)
    print(visible(_("submitted {job} to {cluster}; waiting for a debugger: {tasks}").format(
        job=result.job, cluster=result.cluster, tasks=", ".join(result.tasks))), file=talk, flush=True)
    try:
        return _announce(result.job, result.cluster, args.output, locale, talk)
    except KeyboardInterrupt:  # stop waiting; the job goes on (`pai stop` ends it)
        print(visible(_("stopped waiting; {job} goes on (pai stop {job} ends it)").format(job=result.job)), file=sys.stderr)
        return 130


def _announce(job: str, cluster: str, output: str, locale: str | None, talk) -> int:
    """Each process as soon as it listens, once; then the job's end."""
    told: set[tuple[str, int]] = set()
    said_message, known = None, 0
    while True:
        answer = daemon.call_sync(api.DebugTargets(job=job, cluster=cluster, wait=WAIT_SECONDS, known=known, locale=locale))
        for target in answer.targets:
            key = (target.task, target.port)
            if target.state != "listening" or key in told:
                continue
            told.add(key)
            mappings = [m.to_json() for m in target.path_mappings]
            if output == "json":
                print(json.dumps({"host": target.host, "port": target.port, "pathMappings": mappings, "job": job,
                                  "task": target.task, **({"worker": target.worker} if target.worker is not None else {})}),
                      flush=True)
                continue
            where = ", ".join(f"{m['localRoot']} -> {m['remoteRoot']}" for m in mappings) or "-"
            if target.post_mortem:
                line = _("{task}: {exception} ended its program; it waits for a debugger at {host}:{port} "
                         "(path mappings: {mappings})")
            else:
                line = _("{task} waits for a debugger at {host}:{port} (path mappings: {mappings})")
            task = target.task if target.worker is None else _("{task} worker {worker}").format(task=target.task,
                                                                                                worker=target.worker)
            print(visible(line.format(task=task, exception=target.post_mortem, host=target.host, port=target.port,
                                      mappings=where)), flush=True)
        if answer.message and answer.message != said_message:
            said_message = answer.message
            print(visible(answer.message), file=sys.stderr, flush=True)
        if answer.state in FINAL:
            print(visible(_("{job} ended: {state}").format(job=job, state=answer.state)), file=talk, flush=True)
            daemon.call_sync(api.DebugEnd(job=job, cluster=cluster))
            return 0 if answer.state == "SUCCEEDED" else 1
        known = sum(1 for t in answer.targets if t.state == "listening")  # the next answer waits for one more
