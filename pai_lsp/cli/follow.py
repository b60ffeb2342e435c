"""`--follow`: a job's logs until it ends, the same for every command that submits (`run`,
`submit`, `rerun`) and for `pai logs -f`."""

from __future__ import annotations

import sys

from .. import api
from ..core.messages import message
from ..core.openpai_rest import describe_exit
from ..daemon import client as daemon
from ..errors import Cancelled
from .cmd_why import failure_line
from .output import console, print_row, state_style, visible


def follow_logs(cluster: str | None, job: str, task: str | None, follow: bool = True) -> int:
    """Print every task's log through the daemon (resumed, nothing lost or repeated, if it dies).
    Ctrl-C stops following, not the job."""
    status = daemon.call_sync(api.Status(job=job, cluster=cluster))
    multi = task is None and len(status.tasks) > 1
    final: list[api.JobStatus] = []
    try:
        result = daemon.run_sync(daemon.follow(api.FollowLogs(job=job, cluster=cluster, task=task, follow=follow),
                                               lambda log, text: _print_chunk(log.task if multi else None, text),
                                               final.append))
    except KeyboardInterrupt:
        if not follow:
            raise
        raise Cancelled(message("cli.stopped-following", job=job)) from None
    if not follow:
        return 0
    state = result.state
    how = describe_exit(state, final[-1].exit_code, final[-1].user_exit_code, final[-1].exit_reason or
                        final[-1].diagnostics) if final else ""
    print_row([(f"{job}: ", None), (state, state_style(state)), (f" ({how})" if how else "", None)], console(err=True))
    if (why := failure_line(cluster, job, state)) is not None:
        from .args import _

        print(_("why: {why}").format(why=visible(why)), file=sys.stderr)
    return 0 if state == "SUCCEEDED" else 1


def _print_chunk(label: str | None, data: bytes) -> None:
    """What the task wrote, byte for byte (prefixed by its task on each line when several run)."""
    if label:
        data = b"".join(f"[{label}] ".encode() + line for line in data.splitlines(keepends=True))
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
