"""Job work in the editor: forwarded to the daemon, its events relayed to the client.

Upload progress becomes `$/progress` (on the client's token when it gave one, so it can show and
cancel it); each followed job's log becomes `pai/jobLog` (with byte offsets, so a client resumes
without a line lost or repeated); state changes of every watched job become `pai/jobStatus`
(docs/protocol.md). Failures and the end of a job are also a `window/showMessage`, unless the
client said at `initialize` that it shows them itself; the cluster's warnings about a job it
accepted always are.

A command answers `{ok: true, …the daemon's result}` or `{ok: false, …the failure's wire form}`
(errors.py), its message said in the editor's language: the daemon sends a catalogue code, and it
is rendered here, where the reader's language is known.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from .. import api
from ..api import EditorJobEnded, EditorJobLog, EditorJobLogEnd, EditorJobStatus, Event, Result
from ..core.messages import is_chinese, render
from ..core.upload_facts import size_text
from ..errors import Cancelled, InvalidInput, PaiError, as_pai_error
from ..settings import job_values, read
from .uris import fs_path, workspace_relative

if TYPE_CHECKING:
    from .language_server import PaiLanguageServer

JobKey = tuple[str | None, str]  # (cluster, job)


def daemon() -> Any:
    """The daemon's client, loaded with the first job command (the editor may never send one)."""
    from ..daemon import client

    return client


def ok(result: Result | dict[str, Any]) -> dict[str, Any]:
    """A command's answer when it worked."""
    return {"ok": True, **(result.to_json() if isinstance(result, Result) else result)}


def failed(exc: PaiError, locale: str | None) -> dict[str, Any]:
    """A command's answer when it failed: `{ok: false, kind, message}`, the failure's wire form
    (errors.py) with its message said in the editor's language, which is why no code travels on."""
    return {"ok": False, "message": exc.render(locale), "kind": exc.kind}


class JobRelay:
    """The language server's job feature: what it asked the daemon for and relays from it — the
    log relays it runs, the one status feed, the states last sent, and the submits that can still
    be cancelled. Made once per server (`create_language_server`)."""

    def __init__(self, ls: PaiLanguageServer) -> None:
        self.ls = ls
        self.followers: dict[JobKey, asyncio.Task] = {}  # the log relay of each followed job
        self.status_feed: asyncio.Task | None = None
        self.states: dict[JobKey, str] = {}  # the state last sent of each job
        self.cancellable: dict[str | int, asyncio.Future] = {}  # progress token -> a submit still uploading
        self.cancelled: set[str | int] = set()  # tokens whose submit the user cancelled
        self.tasks: set[asyncio.Task] = set()  # everything it runs in the background
        self.announced: set[tuple[str, str, int | None]] = set()  # ends shown as a `window/showMessage`

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # -- plain calls -------------------------------------------------------------------------
    async def call(self, params: api.Params, on_event: Callable[[api.Event], None] | None = None,
                   locale: str | None = None) -> dict[str, Any]:
        """A daemon call as a command's answer: `{ok: true, …result}`, or the failure (also shown once)."""
        try:
            result = await daemon().call(params, on_event)
        except (PaiError, OSError) as exc:
            return self.fail(as_pai_error(exc), locale)
        if isinstance(result, api.StatusResult) and result.diagnostics_said:  # pai's words, in the editor's language
            result = dataclasses.replace(result, diagnostics=api.said_diagnostics(result, locale or self.locale()))
        return ok(result)

    def locale(self) -> str | None:
        """The editor's language: `pai.locale` when the client set it, else its `initialize` locale."""
        return read(self.ls.client_settings, self.ls.locale).locale

    def fail(self, exc: PaiError, locale: str | None = None) -> dict[str, Any]:
        """A command's answer when it failed (also shown, unless the client shows it itself)."""
        answer = failed(exc, locale or self.locale())
        if not self.ls.client_shows_messages:
            level = types.MessageType.Info if exc.kind == "cancelled" else types.MessageType.Error  # the user's own doing
            self.ls.window_show_message(types.ShowMessageParams(level, answer["message"]))
        return answer

    # -- submit and its dry run ---------------------------------------------------------------
    async def submit(self, uri: str | None, cluster: str | None, client_token: str | int | None = None,
                     debug: api.DebugOptions | None = None) -> dict[str, Any]:
        """`debug`: a Debug Job (the daemon's `job.debug`): the chosen tasks wait for a debugger."""
        ls = self.ls
        locale = ls.settings_for(uri).locale if uri else ls.locale
        path = to_fs_path(uri) if uri else None
        if not path:
            return self.fail(InvalidInput(render("lsp.open-to-submit", locale)), locale)
        token = client_token
        if token is None and ls.client_capabilities.window is not None and ls.client_capabilities.window.work_done_progress:
            token = str(uuid.uuid4())
            await ls.work_done_progress.create_async(token)
        if token is not None:
            ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title=render("progress.submitting-job", locale), message=path, percentage=0,
                cancellable=client_token is not None))

        def on_progress(event: api.Event) -> None:
            if isinstance(event, api.UploadProgress) and token is not None:
                self.report_transfer(token, event, locale, render("progress.uploading", locale))
                if event.files == event.total_files:
                    self.cancellable.pop(token, None)  # uploaded: the job is being submitted, too late to cancel
                    ls.work_done_progress.report(token, types.WorkDoneProgressReport(
                        message=render("progress.submitting", locale), percentage=100))

        def end(message: str) -> None:
            if token is not None:
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

        self.watch_statuses()  # before the job exists: its end is heard however soon it comes
        asked = dict(file=path, shown=self.shown_name(path), cluster=cluster, settings=job_values(ls.client_settings),
                     progress_token=token, locale=locale)
        call = asyncio.ensure_future(daemon().call(api.Debug(**asked, debug=debug) if debug is not None else api.Submit(**asked),
                                                   on_progress))
        if client_token is not None:
            self.cancellable[client_token] = call
        try:
            result = await call
        except (asyncio.CancelledError, Cancelled):  # Cancelled: the daemon stopped the upload and said so
            if client_token not in self.cancelled:
                raise  # the command itself was cancelled
            self.cancelled.discard(client_token)
            cancelled = Cancelled(render("lsp.submit-cancelled", locale))
            end(cancelled.message)
            return failed(cancelled, locale)
        except (PaiError, OSError) as exc:
            failure = as_pai_error(exc)
            end(failure.render(locale))
            return self.fail(failure, locale)
        finally:
            self.cancellable.pop(client_token, None)
        assert isinstance(result, api.SubmitResult)
        end(render("progress.submitted", locale, job=result.job))
        for warning in result.warnings:  # shown whatever `client.showsMessages`: clients show no result's warnings
            ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"{result.job}: {warning}"))
        self.follow(result.job, result.cluster, {}, uri)
        self.watch_statuses()
        return ok(result)

    async def preview(self, uri: str | None, cluster: str | None, list_files: bool = False,
                      show_secrets: bool = False) -> dict[str, Any]:
        """`submit`'s dry run (the daemon's `preview`), with the editor's settings and locale."""
        ls = self.ls
        locale = ls.settings_for(uri).locale if uri else ls.locale
        path = to_fs_path(uri) if uri else None
        if not path:
            return self.fail(InvalidInput(render("lsp.open-to-preview", locale)), locale)
        return await self.call(api.Preview(file=path, shown=self.shown_name(path), cluster=cluster,
                                                settings=job_values(ls.client_settings), locale=locale, list_files=list_files,
                                                show_secrets=show_secrets),
                               locale=locale)

    def shown_name(self, path: str) -> str:
        """How messages name the file: relative to the workspace folder holding it, as the editor's file
        tree shows it (a message's start is what a collapsed notification shows); else its full path."""
        workspace = self.ls.workspace
        roots = [fs_path(folder.uri) for folder in workspace.folders.values()] or [workspace.root_path]
        return workspace_relative(Path(path), (Path(root) for root in roots if root)) or path

    def cancel(self, token: str | int) -> None:
        """`window/workDoneProgress/cancel`: stop a submit that is still uploading, or a transfer (the
        daemon stops it, removes what it wrote in part, and says what was and was not done)."""
        call = self.cancellable.pop(token, None)
        if call is not None:
            self.cancelled.add(token)
            call.cancel()

    def report_transfer(self, token: str | int, event: api.Progress, locale: str | None, verb: str) -> None:
        """A daemon `upload.progress` / `transfer.progress` as a `$/progress` report."""
        total = event.total_bytes or 0
        percent = int(100 * event.bytes / total) if total else 100
        self.ls.work_done_progress.report(token, types.WorkDoneProgressReport(
            message=render("progress.transfer", locale, verb=verb, files=event.files, total_files=event.total_files,
                           done=size_text(event.bytes), total=size_text(total)),
            percentage=percent))

    async def with_progress(self, params: api.Params, token: str | int | None, verb: str) -> dict[str, Any]:
        """A call, its `transfer.progress` reported on the client's token (when it gave one)."""
        if token is None:
            return await self.call(params)

        def relay(event: api.Event) -> None:
            if isinstance(event, api.TransferProgress):
                self.report_transfer(token, event, self.ls.locale, verb)

        self.ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=verb, percentage=0, cancellable=True))
        call = asyncio.ensure_future(self.call(params, relay))
        self.cancellable[token] = call  # `window/workDoneProgress/cancel` stops the transfer in the daemon
        try:
            result = await call  # cancelled: `{ok: false, kind: "cancelled", message}`, the daemon's words on what stopped
        finally:
            self.cancellable.pop(token, None)
            self.cancelled.discard(token)
        self.ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=result.get("message")))
        return result

    # -- logs -----------------------------------------------------------------------------------
    def follow(self, job: str, cluster: str | None, offsets: dict[str, int], uri: str | None = None,
               tail: int | None = None) -> None:
        """Relay the job's log from `offsets` on (replacing a relay of the same job already running); a
        task with no offset from its last `tail` bytes, when given."""
        key = (cluster, job)
        running = self.followers.pop(key, None)
        if running is not None:
            running.cancel()
        task = self.spawn(self._follow(job, cluster, dict(offsets), uri, tail))
        self.followers[key] = task
        task.add_done_callback(lambda t: self.followers.pop(key, None) if self.followers.get(key) is t else None)

    def unfollow(self, job: str, cluster: str | None) -> bool:
        task = self.followers.pop((cluster, job), None)
        if task is not None:
            task.cancel()
        return task is not None

    async def _follow(self, job: str, cluster: str | None, offsets: dict[str, int], uri: str | None,
                      tail: int | None = None) -> None:
        """Until the job ends; after a daemon restart `client.follow` resumes from the bytes received,
        so nothing is lost or repeated."""
        ls = self.ls
        locale = ls.locale
        try:
            status = await daemon().call(api.Status(job=job, cluster=cluster))
            task_count: int | None = len(status.tasks) if isinstance(status, api.StatusResult) else None
        except (PaiError, OSError):
            task_count = None
        have = dict(offsets)

        def on_log(log: api.JobLog, data: bytes) -> None:
            start = max(log.offset, have.get(log.task, 0))  # a replayed chunk is cut to what is new
            have[log.task] = log.offset + log.length
            self.notify(EditorJobLog(job=job, cluster=cluster, uri=uri, task=log.task, task_count=task_count, offset=start,
                                     length=log.offset + log.length - start, text=data.decode("utf-8", "replace")))

        def on_status(status: api.JobStatus) -> None:
            self.notify_status(EditorJobStatus(job=job, cluster=cluster, uri=uri, state=status.state, exit_code=status.exit_code,
                                               diagnostics=api.said_diagnostics(status, self.locale())))

        try:
            final = await daemon().follow(api.FollowLogs(job=job, cluster=cluster, offsets=offsets or None, tail=tail), on_log,
                                          on_status)
        except (PaiError, OSError) as exc:
            said = as_pai_error(exc).render(locale)
            self.notify(EditorJobLogEnd(job=job, cluster=cluster, uri=uri, state=None, offsets=have, message=said))
            if not ls.client_shows_messages:
                ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"{job}: {said}"))
            return
        self.notify(EditorJobLogEnd(job=job, cluster=cluster, uri=uri, state=final.state, offsets=final.offsets or have))
        from ..core.openpai_rest import FINAL  # (the REST model loads with the first job command)

        if final.state in FINAL and not ls.client_shows_messages and self.first_told(job, final.state):
            kind = types.MessageType.Info if final.state == "SUCCEEDED" else types.MessageType.Warning
            ls.window_show_message(types.ShowMessageParams(kind, render("lsp.job-ended", locale, job=job, state=final.state)))

    # -- status of every watched job -------------------------------------------------------------
    def watch_statuses(self) -> None:
        """Relay the daemon's `job.status` of every watched job as `pai/jobStatus` (once per server;
        resubscribes when the daemon restarts)."""
        if self.status_feed is None or self.status_feed.done():
            self.status_feed = self.spawn(self._status_feed())

    def announce_end(self, ended: api.JobEnded) -> None:
        """`pai/jobEnded`: the editor says a watched job ended (or was run again), in its language; a
        client that shows no messages itself gets it as a `window/showMessage` (once per end)."""
        from ..service.notice_channels import title as notice_title  # (with the first end: the server starts without the job stack)

        locale = self.locale()
        why = ended.why_zh if is_chinese(locale) and ended.why_zh else ended.why
        said = notice_title(ended, locale)
        self.notify(EditorJobEnded(job=ended.job, cluster=ended.cluster, state=ended.state, message=said, why=why,
                                   retries=ended.retries))
        if not self.ls.client_shows_messages and self.first_told(ended.job, ended.state, ended.retries):
            kind = types.MessageType.Info if ended.state in ("SUCCEEDED", "RETRIED") else types.MessageType.Warning
            shown = said if ended.state == "RETRIED" else render("lsp.job-ended", locale, job=ended.job, state=ended.state)
            self.ls.window_show_message(types.ShowMessageParams(kind, f"{shown}: {why}" if why else shown))

    def first_told(self, job: str, state: str, retries: int | None = None) -> bool:
        """Whether this end of the job is shown for the first time (a follower and the notice both see it)."""
        key = (job, state, retries if state == "RETRIED" else None)
        if key in self.announced:
            return False
        self.announced.add(key)
        return True

    def notify(self, event: Event) -> None:
        self.ls.protocol.notify(event.EVENT, event.to_json())

    def notify_status(self, status: EditorJobStatus) -> None:
        """`pai/jobStatus`, once per change of a job's state (a follower and the status feed both see it)."""
        key = (status.cluster, status.job)
        if self.states.get(key) != status.state:
            self.states[key] = status.state
            self.notify(status)

    async def _status_feed(self) -> None:
        def on_event(event: api.Event) -> None:
            if isinstance(event, api.JobStatus):
                self.notify_status(EditorJobStatus(job=event.job, cluster=event.cluster, state=event.state,
                                                   exit_code=event.exit_code, diagnostics=api.said_diagnostics(event, self.locale())))
            elif isinstance(event, api.JobEnded):
                self.announce_end(event)

        while True:
            try:
                await daemon().call(api.Subscribe(), on_event)
            except (PaiError, OSError):
                pass
            await asyncio.sleep(1.0)
