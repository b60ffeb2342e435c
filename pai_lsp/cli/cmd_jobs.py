"""`pai submit|run|jobs|status|logs|stop|ssh|outputs`: thin clients of the daemon, which runs
`service.jobs`.

Every failure is one line on stderr and a non-zero exit; never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import api
from ..core.messages import message
from ..daemon import client as daemon
from ..errors import ConfigError, InvalidInput, NotFound
from . import complete
from .args import _, cluster_option, command, job_argument, local_path, ngettext
from .cmd_daemon import restart_if_stale
from .cmd_why import failure_line
from .output import (
    add_output_option,
    bar_updater,
    console,
    human_duration,
    print_json,
    print_row,
    progress_bar,
    state_style,
    visible,
    visible_lines,
)

WATCH_SECONDS = 2.0  # how often --watch asks again


def add_commands(sub) -> None:
    for name, helptext, examples in (
            ("submit", "submit a job file, v1 JSON or v2 YAML (uploading its code first)", [
                ("pai submit mnist.pai.json", "to the default cluster profile"),
                ("pai submit mnist.pai.json --cluster prod --follow", "to prod, then print its log until it ends"),
                ("pai submit mnist.pai.json --dry-run --list", "what would be uploaded and submitted; nothing is sent")]),
            ("run", "submit a job file to the local cluster", [
                ("pai run mnist.pai.json -f", "run it on this machine and print its log until it ends"),
                ("pai run mnist.pai.json --dry-run", "what would be uploaded and submitted; nothing is sent")])):
        p = command(sub, name, helptext, examples)
        p.add_argument("file", metavar="FILE", help="the job file (*.pai.json, *.pai.yaml, *.paddle.json)")
        if name == "submit":
            cluster_option(p)
        p.add_argument("--follow", "-f", action="store_true", help="stream the logs until the job ends")
        p.add_argument("--dry-run", action="store_true",
                       help="show what would be uploaded and submitted (files, job name, final config); send nothing")
        p.add_argument("--list", action="store_true", help="with --dry-run: list every file that would be uploaded")
        p.add_argument("--show-secrets", action="store_true",
                       help="with --dry-run: a v2 job's secrets in plain text in the rendered job (masked otherwise)")
        p.add_argument("--force", action="store_true",
                       help="upload even when over pai.job.upload.maxBytes / maxFiles (or .paiignore has a bad line)")
        p.add_argument("--without-code", action="store_true",
                       help="submit even when the job runs workspace files that no upload can reach (a warning instead "
                            "of a refusal; the setting pai.job.upload.requireRoute: false does the same)")
    p = command(sub, "jobs", "list your jobs", [
        ("pai jobs", "on the default cluster, newest first"),
        ("pai jobs --cluster prod -o json", "as JSON, for scripts"),
        ("pai jobs --watch", "kept current until Ctrl-C")])
    cluster_option(p)
    p.add_argument("-w", "--watch", action="store_true", help="print the list again whenever a job changes, until Ctrl-C")
    add_output_option(p)
    p = command(sub, "status", "show a job's state and tasks", [
        ("pai status mnist_1a2b3c4d", "its state, why it ended, each task"),
        ("pai status mnist_1a2b3c4d --watch", "kept current until the job ends"),
        ("pai status mnist_1a2b3c4d -o json", "as JSON")])
    job_argument(p)
    cluster_option(p)
    p.add_argument("-w", "--watch", action="store_true", help="print the status again whenever it changes, until the job ends")
    p.add_argument("--idle-below", type=float, default=10.0, metavar="PERCENT",
                   help="a running job's GPUs count as idle below this average utilisation (default: 10, the portal's rule)")
    p.add_argument("--idle-for", type=float, default=10.0, metavar="MINUTES",
                   help="... over this many minutes (default: 10)")
    add_output_option(p)
    p = command(sub, "logs", "print a job's logs", [
        ("pai logs mnist_1a2b3c4d", "every task's log so far"),
        ("pai logs mnist_1a2b3c4d --task worker:1 -f", "one task's, until the job ends"),
        ("pai logs mnist_1a2b3c4d --role worker --grep 'loss=' -f", "the workers' lines with loss=, as they come"),
        ("pai logs mnist_1a2b3c4d --tail 100", "each task's last 100 lines (a long log is not read from its start)")])
    job_argument(p)
    cluster_option(p)
    p.add_argument("--task", metavar="ROLE:IDX", help="one task only, e.g. worker:0 (on PaddlePaddle Cloud also a "
                   "worker's name; `pai status JOB` lists them)").completer = complete.tasks  # type: ignore[attr-defined]
    p.add_argument("--role", action="append", default=[], metavar="ROLE", help="the tasks of this role only (again for more roles)")
    p.add_argument("--index", action="append", default=[], type=int, metavar="N",
                   help="the tasks of this index only, in each role (again for more)")
    p.add_argument("--grep", metavar="PATTERN", help="only the lines this regular expression (Python's) finds")
    p.add_argument("-F", "--fixed-strings", action="store_true", help="--grep's PATTERN is plain text, not a regular expression")
    p.add_argument("-i", "--ignore-case", action="store_true", help="--grep ignores case")
    p.add_argument("-n", "--tail", type=int, metavar="LINES", help="each task's last LINES lines first (then, with -f, "
                   "what comes)")
    p.add_argument("-f", "--follow", action="store_true", help="keep printing until the job ends")
    p = command(sub, "stop", "stop a job", [("pai stop mnist_1a2b3c4d", "stop it (an error if it has ended already)")])
    job_argument(p)
    cluster_option(p)
    p = command(sub, "ssh", "how to reach a task: SSH and its labelled ports (Jupyter, TensorBoard, …)", [
        ("pai ssh mnist_1a2b3c4d", "each running task's ssh command and URLs"),
        ("pai ssh mnist_1a2b3c4d --task worker:0 --connect", "open ssh to that task")])
    job_argument(p)
    p.add_argument("--task", metavar="ROLE:IDX", help="one task only, e.g. worker:0").completer = complete.tasks  # type: ignore[attr-defined]
    cluster_option(p)
    p.add_argument("--connect", action="store_true", help="run ssh to the task (needs an ssh client and the job's key)")
    p.add_argument("-i", "--identity", metavar="KEY", help="with --connect: the private key to log in with (ssh's -i); "
                   "default: ssh's own (~/.ssh, the agent)")
    p = command(sub, "outputs", "download a job's outputDir", [
        ("pai outputs mnist_1a2b3c4d", "into ./<last part of its outputDir>"),
        ("pai outputs mnist_1a2b3c4d results/ -f", "into results/, replacing what is there")])
    job_argument(p)
    p.add_argument("dest", nargs="?", default=".", metavar="DEST", help="the local folder to download into (default: .)")
    cluster_option(p)
    p.add_argument("-f", "--force", action="store_true", help="replace files that are there already")


def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    restart_if_stale()
    return COMMANDS[args.command](args)


def _route_settings(args: argparse.Namespace) -> dict | None:
    """`--without-code`: the setting that sends a job whose workspace files no upload reaches (with a warning)."""
    return {"pai.job.upload.requireRoute": False} if args.without_code else None


def cmd_submit(args: argparse.Namespace) -> int:
    cluster = "local" if args.command == "run" else args.cluster
    if args.list and not args.dry_run:
        raise InvalidInput(message("cli.list-needs-dry-run"))
    if args.dry_run:
        from .output import terminal_locale

        shown = daemon.call_sync(api.Preview(file=str(Path(args.file).resolve()), shown=args.file, cluster=cluster,
                                                  list_files=args.list, locale=terminal_locale(),
                                                  show_secrets=args.show_secrets, settings=_route_settings(args)))
        sys.stdout.write(visible_lines(shown.text))
        upload = shown.upload
        refused = upload is not None and bool(upload.over_limits or any(upload.problems)) and not args.force
        return 1 if refused else 0
    with progress_bar() as bar:
        task = bar.add_task("uploading code", total=None)

        def on_restart() -> None:
            bar.update(task, completed=0)
            print(f"pai {args.command}: " + _("the pai daemon stopped while submitting; a new one takes over where it "
                                             "stopped (the job is submitted once)"), file=sys.stderr)

        # The request id lets a new daemon finish what one that died started, without submitting twice.
        import secrets

        result = daemon.call_sync(api.Submit(file=str(Path(args.file).resolve()), shown=args.file, cluster=cluster,
                                                  force=args.force, progress_token="cli", request_id=secrets.token_hex(16),
                                                  settings=_route_settings(args)),
                                  bar_updater(bar, task), on_restart=on_restart)
    if result.upload:
        print(_upload_line(result.upload), file=sys.stderr)
    if result.code_storage is not None:
        to, up = result.code_storage, result.upload
        files = (up.sent_files + up.unchanged_files) if up is not None else 0
        from ..core.messages import render
        from .output import terminal_locale

        print(visible(render("cli.code-storage", terminal_locale(), files=files, storage=to.storage, path=to.path,
                             mount=to.mount_path, folder=to.job_folder)), file=sys.stderr)
    for warning in result.warnings:
        print(_("warning: {warning}").format(warning=visible(warning)), file=sys.stderr)
    print(visible(_("submitted {job} to {cluster}").format(job=result.job, cluster=result.cluster)))
    if not args.follow:
        return 0
    from .follow import follow_logs  # (here: `pai jobs` does without it)

    return follow_logs(result.cluster, result.job, None)


def _upload_line(up: api.UploadSummary) -> str:
    """What an upload did, in one line (and one more per unfinished earlier upload it removed)."""
    lines = [_("removed an unfinished earlier upload to {remote} ({path})").format(remote=up.remote, path=path) for path in up.cleaned]
    if not up.sent_files and not up.removed_files:
        lines.append(ngettext("code at {remote} is up to date ({count} file unchanged)",
                              "code at {remote} is up to date ({count} files unchanged)", up.unchanged_files).format(
                                  remote=up.remote, count=up.unchanged_files))
        return "\n".join(map(visible, lines))
    # What was sent, and why; what was kept there without being sent; what was removed.
    counts = [_("{count} new or changed").format(count=up.changed_files)]
    if up.resent_files:
        counts.append(_("{count} unchanged but sent again").format(count=up.resent_files))
    counts.append(_("{count} unchanged kept").format(count=up.unchanged_files))
    if up.removed_files:
        counts.append(_("{count} removed").format(count=up.removed_files))
    lines.append(ngettext("uploaded {files} file, {bytes:,} bytes to {remote} ({counts}) in {seconds:.2f} s",
                          "uploaded {files} files, {bytes:,} bytes to {remote} ({counts}) in {seconds:.2f} s", up.sent_files).format(
                              files=up.sent_files, bytes=up.sent_bytes, remote=up.remote, counts=", ".join(counts), seconds=up.seconds))
    return "\n".join(map(visible, lines))


def _watch(fetch: Callable[[], Any], show: Callable[[Any], None], done: Callable[[Any], bool] = lambda _: False,
           interval: float = WATCH_SECONDS) -> Any:
    """`show` what `fetch` gets, and again each time it changes, until `done` says so (or Ctrl-C,
    which ends a watch quietly). On a terminal the screen is redrawn; piped, each change is printed
    below the last, as `kubectl get -w` does."""
    shown: Any = None
    out = console()
    try:
        while True:
            now = fetch()
            if now != shown:
                if out.is_terminal and shown is not None:
                    out.clear()
                show(now)
                shown = now
            if done(now):
                return now
            time.sleep(interval)
    except KeyboardInterrupt:
        return shown


def cmd_jobs(args: argparse.Namespace) -> int:
    def fetch() -> Any:
        return daemon.call_sync(api.Jobs(cluster=args.cluster))

    if args.watch:
        _watch(fetch, lambda answer: _show_jobs(answer, args.output))
        return 0
    _show_jobs(fetch(), args.output)
    return 0


def _show_jobs(answer: Any, output: str) -> None:
    if output == "json":
        print_json(answer)
        return
    rows, cluster = answer.jobs, answer.cluster
    out = console()
    out.print(f"{'NAME':32} {'STATE':10} {'STARTED':19} {'DURATION':>9}  CLUSTER")
    for job in rows:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(job.created / 1000)) if job.created else "-"
        end = job.completed or time.time() * 1000
        duration = human_duration((end - job.created) / 1000) if job.created else "-"
        print_row([(f"{job.name:32} ", None), (f"{job.state:10}", state_style(job.state)),
                   (f" {started:19} {duration:>9}  {cluster}", None)], out)


def cmd_status(args: argparse.Namespace) -> int:
    from ..core.openpai_rest import FINAL  # (here: `pai jobs` does without its job classes)

    def fetch() -> Any:
        return daemon.call_sync(api.Status(job=args.job, cluster=args.cluster, idle_threshold=args.idle_below,
                                           idle_minutes=args.idle_for))

    if not args.watch:
        _show_status(fetch(), args.output, args.cluster)
        return 0
    last = _watch(fetch, lambda status: _show_status(status, args.output, args.cluster), lambda status: status.state in FINAL)
    return 1 if last is not None and last.state in FINAL and last.state != "SUCCEEDED" else 0  # as gh run watch


def _show_status(status: Any, output: str, cluster: str | None) -> None:
    if output == "json":
        print_json(status)
        return
    from ..api import said_diagnostics
    from ..core.openpai_rest import describe_exit
    from .output import terminal_locale

    out = console()
    how = describe_exit(status.state, status.exit_code, status.user_exit_code, status.exit_reason, terminal_locale())
    print_row([(f"{status.name}: ", None), (status.state, state_style(status.state)), (f" ({how})" if how else "", None)], out)
    if status.diagnostics:
        out.print(f"  {visible(said_diagnostics(status, terminal_locale()))}", markup=False)
    if (why := failure_line(cluster, status.name, status.state)) is not None:
        out.print("  " + _("why: {why}").format(why=visible(why)), markup=False)
    if status.state == "WAITING":
        from .cmd_vc import waiting_lines

        for line in waiting_lines(cluster, status.name, terminal_locale()):
            out.print(f"  {line}", markup=False)
    if status.idle_gpu is not None:
        from ..core.messages import render

        idle = status.idle_gpu
        out.print("  " + render("status.idle-gpu", terminal_locale(), average=f"{idle.average:g}", minutes=f"{idle.minutes:g}",
                                threshold=f"{idle.threshold:g}"), markup=False)
    for t in status.tasks:
        ports = " ".join(f"{k}={v}" for k, v in t.ports.items())
        label = f"{t.role}:{t.index}"
        if t.worker:  # a PaddlePaddle Cloud worker: its name, phase, start, exit code and message (§A.7)
            started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t.started / 1000)) if t.started else "-"
            end = f"exit {t.exit_code}" + (f": {t.message}" if t.message else "") if t.exit_code is not None else ""
            print_row([(f"  {label:10} {t.worker:40} ", None), (f"{t.state:10}", state_style(t.state)),
                       (f" {started:19} {end}".rstrip(), None)], out)
            continue
        print_row([(f"  {label}  ", None), (f"{t.state:10}", state_style(t.state)), (f" {t.ip or '-'}  {ports}", None)], out)


def cmd_logs(args: argparse.Namespace) -> int:
    import re

    from ..core.log_lines import LogFilter
    from .follow import follow_logs

    if args.tail is not None and args.tail < 1:
        raise InvalidInput(message("cli.tail-lines", lines=args.tail))
    try:
        shown = LogFilter.of(args.role, args.index, args.grep, regex=not args.fixed_strings, ignore_case=args.ignore_case)
    except re.error as exc:
        raise InvalidInput(message("cli.bad-grep", pattern=args.grep, reason=str(exc))) from None
    follow_logs(args.cluster, args.job, args.task, follow=args.follow, shown=shown, tail=args.tail)
    return 0


# A task's sshd has a host key of its own container (new with each task), on a host port other jobs' tasks
# reuse: a known_hosts entry could only ever be stale, and a stale one makes ssh refuse. So none is kept
# or checked (as the ssh plugin's own jobssh config does); the login is still the user's key.
TASK_HOST_KEYS = ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]


def cmd_ssh(args: argparse.Namespace) -> int:
    running = daemon.call_sync(api.Ssh(job=args.job, cluster=args.cluster, task=args.task)).tasks
    for t in running:
        print(visible(f"{t.task}  " + (t.command or _("no ssh port"))))
        for label, urls in t.urls.items():
            print(visible(f"    {label}: " + ", ".join(urls)))
    if args.connect:
        import shutil

        t = running[0]
        if shutil.which("ssh") is None:
            raise ConfigError(message("ssh.no-client"))
        if not t.ssh_port:
            raise NotFound(message("ssh.no-port", task=t.task, job=args.job))
        identity = ["-i", local_path(args.identity)] if args.identity else []
        sys.stdout.flush()  # what was printed above, before ssh takes the process over
        os.execvp("ssh", ["ssh", "-p", t.ssh_port, *TASK_HOST_KEYS, *identity, f"{t.user}@{t.ip}"])
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    done = daemon.call_sync(api.Stop(job=args.job, cluster=args.cluster))
    print(visible((_("stopped {job} (it was {state})") if done.state else _("stopped {job}")).format(job=done.stopped, state=done.state)))
    return 0


def cmd_outputs(args: argparse.Namespace) -> int:
    with progress_bar() as bar:
        task = bar.add_task("downloading", total=None)
        target = daemon.call_sync(api.Outputs(job=args.job, cluster=args.cluster, dest=local_path(args.dest),
                                                   progress_token="cli", overwrite=args.force),
                                  bar_updater(bar, task)).path
    print(visible(_("downloaded outputs of {job} to {path}").format(job=args.job, path=target)))
    return 0



COMMANDS = {"ssh": cmd_ssh, "submit": cmd_submit, "run": cmd_submit, "jobs": cmd_jobs, "status": cmd_status, "logs": cmd_logs,
            "stop": cmd_stop, "outputs": cmd_outputs}
