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
from ..daemon import aclient, protocol
from ..daemon.client import LogCursor
from ..errors import PaiError

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

    def on_progress(method: str, params: dict) -> None:
        if method == "upload.progress" and params["totalBytes"] and token is not None:
            percent = int(100 * params["bytes"] / params["totalBytes"])
            ls.work_done_progress.report(token, types.WorkDoneProgressReport(
                message=pick(locale, f"uploading {params['files']}/{params['totalFiles']} files",
                             f"正在上传 {params['files']}/{params['totalFiles']} 个文件"), percentage=percent))

    def end(message: str) -> None:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    settings = {k: v for k, v in ls.client_settings.items() if k.startswith("pai.job.")}
    try:
        result = await aclient.call("submit", {"file": path, "cluster": cluster, "settings": settings,
                                               "progressToken": token, "locale": locale}, on_progress)
    except (PaiError, ConnectionError, OSError) as exc:
        end(str(exc))
        return _fail(ls, getattr(exc, "message", str(exc)))
    end(pick(locale, f"submitted {result['job']}", f"已提交 {result['job']}"))
    task = asyncio.ensure_future(follow(ls, uri, result["job"], result["cluster"], locale))
    _followers.add(task)
    task.add_done_callback(_followers.discard)
    return {"ok": True, **result}


async def follow(ls: PaiLanguageServer, uri: str, job: str, cluster: str, locale: str | None) -> None:
    """Relay the job's log and state until it ends; resume after a daemon restart from the offsets seen."""
    cursor = LogCursor()

    def on_event(method: str, params: dict) -> None:
        if method == "job.log" and (data := cursor.accept(params)):
            ls.protocol.notify("pai/jobLog", {"uri": uri, "job": job, "cluster": cluster, "task": params["task"],
                                              "text": data.decode("utf-8", "replace")})
        elif method == "job.status":
            ls.protocol.notify("pai/jobStatus", {"uri": uri, "job": job, "cluster": cluster, **params})

    for _ in range(5):
        try:
            final = await aclient.call("logs.follow", {"job": job, "cluster": cluster, "offsets": cursor.offsets}, on_event)
            break
        except (ConnectionError, OSError):
            continue
        except PaiError as exc:
            ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"{job}: {exc.message}"))
            return
    else:
        return
    state = final["state"]
    kind = types.MessageType.Info if state == "SUCCEEDED" else types.MessageType.Warning
    ls.window_show_message(types.ShowMessageParams(kind, pick(locale, f"Job {job} {state}", f"作业 {job} {state}")))


async def call_or_fail(ls: PaiLanguageServer, params: protocol.Params) -> dict:
    """A daemon call whose failure becomes one editor message."""
    try:
        return {"ok": True, **await aclient.call(params.METHOD, params.to_json())}
    except (PaiError, ConnectionError, OSError) as exc:
        return _fail(ls, getattr(exc, "message", str(exc)))


def _fail(ls: PaiLanguageServer, message: str) -> dict:
    ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, message))
    return {"ok": False, "message": message}
