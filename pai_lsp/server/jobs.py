"""Job work in the editor: forwarded to the daemon, its events relayed to the client.

Upload progress becomes `$/progress` (on the client's token when it gave one, so it can show and
cancel it); each followed job's log becomes `pai/jobLog` (with byte offsets, so a client resumes
without a line lost or repeated); state changes of every watched job become `pai/jobStatus`
(docs/protocol.md). Failures and the end of a job are also a `window/showMessage`, unless the
client said at `initialize` that it shows them itself; the cluster's warnings about a job it
accepted always are.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from ..core.messages import pick
from ..core.openpai import FINAL
from ..daemon import client, protocol
from ..errors import Cancelled, PaiError
from ..settings import job_values
from .uris import fs_path, workspace_relative

if TYPE_CHECKING:
    from .app import PaiLanguageServer

_tasks: set[asyncio.Task] = set()


def _spawn(coro) -> asyncio.Task:
    task = asyncio.ensure_future(coro)
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)
    return task


async def submit(ls: PaiLanguageServer, uri: str | None, cluster: str | None, client_token: str | int | None = None) -> dict:
    locale = ls.settings_for(uri).locale if uri else ls.locale
    path = to_fs_path(uri) if uri else None
    if not path:
        return fail(ls, pick(locale, "Open a *.pai.json file to submit it.", "请先打开要提交的 *.pai.json 文件。"), "invalid")
    token = client_token
    if token is None and ls.client_capabilities.window is not None and ls.client_capabilities.window.work_done_progress:
        token = str(uuid.uuid4())
        await ls.work_done_progress.create_async(token)
    if token is not None:
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=pick(locale, "Submitting job", "正在提交作业"), message=path, percentage=0,
            cancellable=client_token is not None))

    def on_progress(event: protocol.Event) -> None:
        if isinstance(event, protocol.UploadProgress) and token is not None:
            report_transfer(ls, token, event, locale, pick(locale, "uploading", "正在上传"))
            if event.files == event.total_files:
                ls.cancellable.pop(token, None)  # uploaded: the job is being submitted, too late to cancel
                ls.work_done_progress.report(token, types.WorkDoneProgressReport(
                    message=pick(locale, "submitting", "正在提交"), percentage=100))

    def end(message: str) -> None:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    call = asyncio.ensure_future(client.call(protocol.Submit(file=path, shown=shown_name(ls, path), cluster=cluster,
                                                             settings=job_values(ls.client_settings), progress_token=token,
                                                             locale=locale), on_progress))
    if client_token is not None:
        ls.cancellable[client_token] = call
    try:
        result = await call
    except (asyncio.CancelledError, Cancelled):  # Cancelled: the daemon stopped the upload and said so
        if client_token not in ls.cancelled_tokens:
            raise  # the command itself was cancelled
        ls.cancelled_tokens.discard(client_token)
        message = pick(locale, "Submit cancelled: nothing was submitted.", "已取消提交：没有提交任何作业。")
        end(message)
        return {"ok": False, "message": message, "kind": "cancelled"}
    except (PaiError, OSError) as exc:
        end(_message(exc))
        return fail(ls, _message(exc), _kind(exc))
    finally:
        ls.cancellable.pop(client_token, None)
    end(pick(locale, f"submitted {result['job']}", f"已提交 {result['job']}"))
    for warning in result.get("warnings") or []:  # shown whatever `client.showsMessages`: clients show no result's warnings
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"{result['job']}: {warning}"))
    follow(ls, result["job"], result["cluster"], {}, uri)
    watch_statuses(ls)
    return {"ok": True, **result}


async def preview(ls: PaiLanguageServer, uri: str | None, cluster: str | None, list_files: bool = False) -> dict:
    """`submit`'s dry run (the daemon's `preview`), with the editor's settings and locale."""
    locale = ls.settings_for(uri).locale if uri else ls.locale
    path = to_fs_path(uri) if uri else None
    if not path:
        return fail(ls, pick(locale, "Open a *.pai.json file to preview its upload.", "请先打开要预览上传的 *.pai.json 文件。"),
                    "invalid")
    return await call_or_fail(ls, protocol.Preview(file=path, shown=shown_name(ls, path), cluster=cluster,
                                                   settings=job_values(ls.client_settings), locale=locale,
                                                   list_files=list_files))


def shown_name(ls: PaiLanguageServer, path: str) -> str:
    """How messages name the file: relative to the workspace folder holding it, as the editor's file
    tree shows it (a message's start is what a collapsed notification shows); else its full path."""
    roots = [fs_path(folder.uri) for folder in ls.workspace.folders.values()] or [ls.workspace.root_path]
    return workspace_relative(Path(path), (Path(root) for root in roots if root)) or path


def cancel(ls: PaiLanguageServer, token: str | int) -> None:
    """`window/workDoneProgress/cancel`: stop a submit that is still uploading, or a transfer (the
    daemon stops it, removes what it wrote in part, and says what was and was not done)."""
    call = ls.cancellable.pop(token, None)
    if call is not None:
        ls.cancelled_tokens.add(token)
        call.cancel()


def report_transfer(ls: PaiLanguageServer, token: str | int, event: protocol.Progress, locale: str | None, verb: str) -> None:
    """A daemon `upload.progress` / `transfer.progress` as a `$/progress` report."""
    total = event.total_bytes or 0
    percent = int(100 * event.bytes / total) if total else 100
    ls.work_done_progress.report(token, types.WorkDoneProgressReport(
        message=pick(locale, f"{verb} {event.files}/{event.total_files} files, {_size(event.bytes)} of {_size(total)}",
                     f"{verb} {event.files}/{event.total_files} 个文件，{_size(event.bytes)} / {_size(total)}"),
        percentage=percent))


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


# -- logs ----------------------------------------------------------------------------------
def follow(ls: PaiLanguageServer, job: str, cluster: str | None, offsets: dict[str, int], uri: str | None = None) -> None:
    """Relay the job's log from `offsets` on (replacing a relay of the same job already running)."""
    key = (cluster, job)
    running = ls.followers.pop(key, None)
    if running is not None:
        running.cancel()
    task = _spawn(_follow(ls, job, cluster, dict(offsets), uri))
    ls.followers[key] = task
    task.add_done_callback(lambda t: ls.followers.pop(key, None) if ls.followers.get(key) is t else None)


def unfollow(ls: PaiLanguageServer, job: str, cluster: str | None) -> bool:
    task = ls.followers.pop((cluster, job), None)
    if task is not None:
        task.cancel()
    return task is not None


async def _follow(ls: PaiLanguageServer, job: str, cluster: str | None, offsets: dict[str, int], uri: str | None) -> None:
    """Until the job ends; after a daemon restart `client.follow` resumes from the bytes received,
    so nothing is lost or repeated."""
    locale = ls.locale
    try:
        task_count: int | None = len((await client.call(protocol.Status(job=job, cluster=cluster)))["tasks"])
    except (PaiError, OSError):
        task_count = None
    base = {"job": job, "cluster": cluster, **({"uri": uri} if uri else {})}
    have = dict(offsets)

    def on_log(log: protocol.JobLog, data: bytes) -> None:
        start = max(log.offset, have.get(log.task, 0))  # a replayed chunk is cut to what is new
        have[log.task] = log.offset + log.length
        ls.protocol.notify("pai/jobLog", {**base, "task": log.task, "taskCount": task_count, "offset": start,
                                          "length": log.offset + log.length - start,
                                          "text": data.decode("utf-8", "replace")})

    def on_status(status: protocol.JobStatus) -> None:
        notify_status(ls, {**base, "state": status.state, "exitCode": status.exit_code, "diagnostics": status.diagnostics})

    try:
        final = await client.follow(protocol.FollowLogs(job=job, cluster=cluster, offsets=offsets or None), on_log, on_status)
    except (PaiError, OSError) as exc:
        ls.protocol.notify("pai/jobLogEnd", {**base, "state": None, "offsets": have, "message": _message(exc)})
        if not ls.client_shows_messages:
            ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"{job}: {_message(exc)}"))
        return
    state = final["state"]
    ls.protocol.notify("pai/jobLogEnd", {**base, "state": state, "offsets": final.get("offsets", have)})
    if state in FINAL and not ls.client_shows_messages:
        kind = types.MessageType.Info if state == "SUCCEEDED" else types.MessageType.Warning
        ls.window_show_message(types.ShowMessageParams(kind, pick(locale, f"Job {job} {state}", f"作业 {job} {state}")))


# -- status of every watched job -------------------------------------------------------------
def watch_statuses(ls: PaiLanguageServer) -> None:
    """Relay the daemon's `job.status` of every watched job as `pai/jobStatus` (once per server;
    resubscribes when the daemon restarts)."""
    if ls.status_feed is None or ls.status_feed.done():
        ls.status_feed = _spawn(_status_feed(ls))


def notify_status(ls: PaiLanguageServer, status: dict) -> None:
    """`pai/jobStatus`, once per change of a job's state (a follower and the status feed both see it)."""
    key = (status["cluster"], status["job"])
    if ls.job_states.get(key) != status["state"]:
        ls.job_states[key] = status["state"]
        ls.protocol.notify("pai/jobStatus", status)


async def _status_feed(ls: PaiLanguageServer) -> None:
    def on_event(event: protocol.Event) -> None:
        if isinstance(event, protocol.JobStatus):
            notify_status(ls, {"job": event.job, "cluster": event.cluster, "state": event.state,
                               "exitCode": event.exit_code, "diagnostics": event.diagnostics})

    while True:
        try:
            await client.call(protocol.Subscribe(), on_event)
        except (PaiError, OSError):
            pass
        await asyncio.sleep(1.0)


# -- plain calls ---------------------------------------------------------------------------
async def call_or_fail(ls: PaiLanguageServer, params: protocol.Params, on_event=None) -> dict:
    """A daemon call: `{ok: true, …result}`, or `{ok: false, message, kind}` (also shown once)."""
    try:
        result: Any = await client.call(params, on_event)
    except (PaiError, OSError) as exc:
        return fail(ls, _message(exc), _kind(exc))
    return {"ok": True, **result}


def _message(exc: Exception) -> str:
    return exc.message if isinstance(exc, PaiError) else str(exc)


def _kind(exc: Exception) -> str:
    if isinstance(exc, Cancelled):
        return "cancelled"  # the user's own doing, not a failure
    return exc.kind if isinstance(exc, PaiError) else "unreachable"


def fail(ls: PaiLanguageServer, message: str, kind: str) -> dict:
    if not ls.client_shows_messages:
        level = types.MessageType.Info if kind == "cancelled" else types.MessageType.Error
        ls.window_show_message(types.ShowMessageParams(level, message))
    return {"ok": False, "message": message, "kind": kind}
