"""`--follow`: a job's logs until it ends, the same for every command that submits (`run`,
`submit`, `rerun`) and for `pai logs -f`; `pai logs` also filters them (role, task index, text or
regular expression) and opens a long log at its tail."""

from __future__ import annotations

import sys
from collections import deque

from .. import api
from ..core.log_lines import Lines, LogFilter
from ..core.messages import message
from ..core.openpai_rest import describe_exit
from ..daemon import client as daemon
from ..errors import Cancelled
from .cmd_why import failure_line
from .output import console, print_row, state_style, visible

TAIL_BYTES_PER_LINE = 512  # `--tail N` reads N times this from each log's end (at least TAIL_BYTES_LEAST)
TAIL_BYTES_LEAST = 64 << 10
EVERYTHING = LogFilter()


def follow_logs(cluster: str | None, job: str, task: str | None, follow: bool = True, shown: LogFilter = EVERYTHING,
                tail: int | None = None) -> int:
    """Print every task's log through the daemon (resumed, nothing lost or repeated, if it dies), whole
    lines, those `shown` wants; with `tail`, each task's last `tail` lines first. Ctrl-C stops
    following, not the job."""
    status = daemon.call_sync(api.Status(job=job, cluster=cluster))
    wanted = [t for t in status.tasks if (task is None or task in (f"{t.role}:{t.index}", t.worker))
              and shown.wants_task(f"{t.role}:{t.index}")]
    if task is None and len(wanted) == 1 and len(status.tasks) > 1:
        task = f"{wanted[0].role}:{wanted[0].index}"  # only its log is read
    printer = Printer(multi=task is None and len(status.tasks) > 1, shown=shown)
    final: list[api.JobStatus] = []
    offsets = None
    try:
        if tail is not None:
            offsets = printer.tail(cluster, job, task, tail, follow)
            if not follow:
                return 0
        result = daemon.run_sync(daemon.follow(api.FollowLogs(job=job, cluster=cluster, task=task, follow=follow,
                                                              offsets=offsets),
                                               printer.piece, final.append))
    except KeyboardInterrupt:
        if not follow:
            raise
        raise Cancelled(message("cli.stopped-following", job=job)) from None
    finally:
        printer.end()
    if not follow:
        return 0
    state = result.state
    from .output import terminal_locale

    locale = terminal_locale()
    how = describe_exit(state, final[-1].exit_code, final[-1].user_exit_code, final[-1].exit_reason or
                        api.said_diagnostics(final[-1], locale), locale) if final else ""
    print_row([(f"{job}: ", None), (state, state_style(state)), (f" ({how})" if how else "", None)], console(err=True))
    if (why := failure_line(cluster, job, state)) is not None:
        from .args import _

        print(_("why: {why}").format(why=visible(why)), file=sys.stderr)
    return 0 if state == "SUCCEEDED" else 1


class Printer:
    """Whole lines to standard output, byte for byte, each prefixed by its task when several run."""

    def __init__(self, multi: bool, shown: LogFilter):
        self.multi, self.shown = multi, shown
        self.lines = Lines()

    def piece(self, log: api.JobLog, data: bytes) -> None:
        """`data`: the new end of a `job.log` event (what the follower did not have)."""
        offset = log.offset + log.length - len(data)
        self.write([(log.task, line) for line in self.lines.feed(log.task, offset, data)])

    def end(self) -> None:
        """Each task's last line, also one the task did not end with a newline."""
        self.write(list(self.lines.end()))

    def tail(self, cluster: str | None, job: str, task: str | None, count: int, follow: bool) -> dict[str, int]:
        """Each task's last `count` lines (of those shown) as they are now — its last one, unterminated,
        too unless more may come (`follow`); the offsets to follow on from."""
        kept: dict[str, deque[bytes]] = {}

        def keep(log: api.JobLog, data: bytes) -> None:
            for line in self.lines.feed(log.task, log.offset + log.length - len(data), data):
                if self.shown.wants(log.task, line):
                    kept.setdefault(log.task, deque(maxlen=count)).append(line)

        size = max(TAIL_BYTES_LEAST, count * TAIL_BYTES_PER_LINE)
        result = daemon.run_sync(daemon.follow(api.FollowLogs(job=job, cluster=cluster, task=task, follow=False, tail=size),
                                               keep))
        if not follow:
            for label, line in self.lines.end():
                if self.shown.wants(label, line):
                    kept.setdefault(label, deque(maxlen=count)).append(line)
        for label in sorted(kept):
            self.write([(label, line) for line in kept[label]], filtered=True)
        return result.offsets

    def write(self, lines: list[tuple[str, bytes]], filtered: bool = False) -> None:
        out = sys.stdout.buffer
        for label, line in lines:
            if filtered or self.shown.wants(label, line):
                out.write(f"[{label}] ".encode() + line if self.multi else line)
        out.flush()
