"""`pai why JOB`: why a job failed and where (the daemon's `job.why`), as text or `-o json`; and the
one line `pai run --follow` and `pai status` print when a job failed."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .. import api
from ..core.messages import render
from ..daemon import client as daemon
from ..errors import PaiError
from . import complete
from .args import command
from .cmd_daemon import restart_if_stale
from .output import add_output_option, print_json, visible

if TYPE_CHECKING:
    from pai_lsp.api import WhyResult

    from ..core.triage import Frame

EXPLAINED = ("FAILED", "STOPPED")


def add_commands(sub) -> None:
    p = command(sub, "why", "why a job failed, and where: the cause, the evidence, your file and line", [
        ("pai why mnist_1a2b3c4d", "the cause in words, what to do, the log lines and frames behind it"),
        ("pai why mnist_1a2b3c4d -o json", "the daemon's job.why result")])
    p.add_argument("job", metavar="JOB", help="the job's name, as `pai jobs` lists it").completer = complete.jobs  # type: ignore[attr-defined]
    p.add_argument("--cluster", metavar="PROFILE", help="cluster profile (default: the default profile, else local)"
                   ).completer = complete.profiles  # type: ignore[attr-defined]
    add_output_option(p)
    p.add_argument("--refresh", action="store_true", help="make the explanation again (the logs and files as they are now)")


def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    restart_if_stale()
    return cmd_why(args)


def cmd_why(args: argparse.Namespace) -> int:
    from .output import terminal_locale

    result = daemon.call_sync(api.Why(job=args.job, cluster=args.cluster, refresh=args.refresh))
    if result.state == "WAITING":  # not a failure: why it waits (the daemon's job.waiting), where the cluster can tell
        try:
            waiting = daemon.call_sync(api.Waiting(job=args.job, cluster=args.cluster))
        except PaiError:
            waiting = None
        if waiting is not None:
            return _waiting(args, waiting)
    if args.output == "json":
        print_json(result)
        return 0
    if result.explanation is None:
        state = result.state
        print(visible(f"{args.job}: {state}" if state in EXPLAINED else render("why.nothing", terminal_locale(), job=args.job, state=state)))
        return 0
    print(report(result, terminal_locale()))
    return 0


def _waiting(args: argparse.Namespace, waiting: api.WaitingResult) -> int:
    from ..core.waiting import Explanation
    from .output import terminal_locale

    if args.output == "json":
        print_json(waiting)
        return 0
    explanation = Explanation.from_json(waiting.explanation) if waiting.explanation is not None else None
    print(visible(f"{args.job}: {waiting.state}"))
    for line in explanation.lines(terminal_locale()) if explanation is not None else []:
        print(f"  {visible(line)}")
    return 0


def failure_line(cluster: str | None, job: str, state: str) -> str | None:
    """The explanation in one line for a job that ended `state` (None for a success, or when the
    daemon cannot say: the caller has already printed the state)."""
    if state not in EXPLAINED:
        return None
    from ..service.why import one_line  # the triage core only when a job failed: `pai status` stays quick
    from .output import terminal_locale

    try:
        result = daemon.call_sync(api.Why(job=job, cluster=cluster))
        line = one_line(result, terminal_locale())
        return None if line is None else visible(line)
    except PaiError:
        return None


def report(result: WhyResult, locale: str | None) -> str:
    """The explanation as a short text: what happened and what to do, where, the evidence."""
    from ..service.why import explanation

    why = explanation(result)
    assert why is not None
    cause = why.cause or why
    task = render("why.task", locale, task=f"{cause.role}:{cause.index}") if cause.role is not None else ""
    lines = [f"{result.job}: {result.state} — {why.title.pick(locale)}{task}", f"  {why.message.pick(locale)}"]
    if why.exit_words is not None or cause.exit_words is not None:
        lines.append(f"  {(why.exit_words or cause.exit_words).pick(locale)}")
    changed = set(result.changed)
    if cause.traceback is not None:
        lines.append(render("why.where", locale))
        for frame in (cause.traceback.primary, *cause.traceback.related):
            if frame is not None:
                lines.append("  " + _frame(frame, changed, locale))
    if cause.evidence:
        lines.append(render("why.evidence", locale))
        lines += [f"  {'log' if e.source == 'log' else e.source}:{e.line}: {e.text}" if e.line else f"  {e.text}"
                  for e in cause.evidence]
    if not cause.evidence and cause.last_lines:
        lines.append(render("why.last-lines", locale))
        lines += [f"  {e.text}" for e in cause.last_lines]
    return "\n".join(map(visible, lines))  # each line: its evidence from a log, its paths from a traceback


def _frame(frame: Frame, changed: set[str], locale: str | None) -> str:
    where = f"{frame.workspace or frame.path}:{frame.line}"
    function = render("why.in-function", locale, function=frame.function) if frame.function else ""
    note = render("why.changed", locale) if frame.workspace in changed else ""
    return f"{where}{function}{note}"


