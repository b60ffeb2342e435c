"""Job commands in the editor: forwarded to the daemon, its events relayed to the client.

Upload progress becomes `$/progress`; the job's log lines and state changes become the
notifications `pai/jobLog` and `pai/jobStatus` (docs/protocol.md); the end of the job a
`window/showMessage`.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from ..core.messages import pick
from ..daemon import client, protocol
from ..errors import PaiError
from ..settings import job_values

if TYPE_CHECKING:
    from .app import PaiLanguageServer

_followers: set[asyncio.Task] = set()


async def submit(ls: PaiLanguageServer, uri: str | None, cluster: str | None) -> dict:
    locale = ls.settings_for(uri).locale if uri else ls.locale
    path = to_fs_path(uri) if uri else None
    if not path:
        return _fail(ls, pick(locale, "Open a *.pai.json file to submit it.", "请先打开要提交的 *.pai.json 文件。"))
    window = ls.client_capabilities.window
    token = str(uuid.uuid4()) if window is not None and window.work_done_progress else None
    if token is not None:
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=pick(locale, "Submitting job", "正在提交作业"), message=path, percentage=0, cancellable=False))

    def on_progress(event: protocol.Event) -> None:
        if isinstance(event, protocol.UploadProgress) and event.total_bytes and token is not None:
            ls.work_done_progress.report(token, types.WorkDoneProgressReport(
                message=pick(locale, f"uploading {event.files}/{event.total_files} files",
                             f"正在上传 {event.files}/{event.total_files} 个文件"),
                percentage=int(100 * event.bytes / event.total_bytes)))

    def end(message: str) -> None:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    try:
        result = await client.call(protocol.Submit(file=path, cluster=cluster, settings=job_values(ls.client_settings), progress_token=token,
                                                   locale=locale), on_progress)
    except (PaiError, OSError) as exc:
        end(_message(exc))
        return _fail(ls, _message(exc))
    end(pick(locale, f"submitted {result['job']}", f"已提交 {result['job']}"))
    task = asyncio.ensure_future(follow(ls, uri, result["job"], result["cluster"], locale))
    _followers.add(task)
    task.add_done_callback(_followers.discard)
    return {"ok": True, **result}


async def follow(ls: PaiLanguageServer, uri: str, job: str, cluster: str, locale: str | None) -> None:
    """Relay the job's log (`pai/jobLog`) and every change of its state (`pai/jobStatus`) until it
    ends, then say how it ended."""

    def on_log(log: protocol.JobLog, data: bytes) -> None:
        ls.protocol.notify("pai/jobLog", {"uri": uri, "job": job, "cluster": cluster, "task": log.task,
                                          "text": data.decode("utf-8", "replace")})

    def on_status(status: protocol.JobStatus) -> None:
        ls.protocol.notify("pai/jobStatus", {"uri": uri, "job": job, "cluster": cluster, "state": status.state,
                                             "exitCode": status.exit_code, "diagnostics": status.diagnostics})

    try:
        final = await client.follow(protocol.FollowLogs(job=job, cluster=cluster), on_log, on_status)
    except PaiError as exc:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"{job}: {exc.message}"))
        return
    state = final["state"]
    kind = types.MessageType.Info if state == "SUCCEEDED" else types.MessageType.Warning
    ls.window_show_message(types.ShowMessageParams(kind, pick(locale, f"Job {job} {state}", f"作业 {job} {state}")))


async def call_or_fail(ls: PaiLanguageServer, params: protocol.Params) -> dict:
    """A daemon call whose failure becomes one editor message."""
    try:
        return {"ok": True, **await client.call(params)}
    except (PaiError, OSError) as exc:
        return _fail(ls, _message(exc))


def _message(exc: Exception) -> str:
    return exc.message if isinstance(exc, PaiError) else str(exc)


def _fail(ls: PaiLanguageServer, message: str) -> dict:
    ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, message))
    return {"ok": False, "message": message}
