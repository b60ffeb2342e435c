"""A watched job's end, told wherever the user is: `job.ended` to every subscriber (the editors, which
show it with its log and, for a failure, why), the OS's desktop notification (even with no editor
open), and the webhooks the user set (`service/notice_channels.py`). A failure's one-line cause is the
explanation the daemon makes as the job ends; the notices wait for it (a few seconds at most).

Nothing here holds up the watcher: each end is told in a task of its own, and a webhook or a desktop
that does not answer costs only that task.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path

from pai_lsp.api import Event, JobEnded, JobStatus

from ..errors import PaiError
from ..service import notice_channels as service
from ..service.why import one_line
from .explanations import Explainer

Notify = Callable[[Event], Awaitable[None]]
WHY_WAIT = 8.0  # seconds a failed job's notice waits for its explanation, at most


class Notices:
    def __init__(self, explainer: Explainer, settings_path: Path):
        self.explainer = explainer
        self.settings_path = settings_path
        self.listeners: set[Notify] = set()  # `jobs.subscribe`rs: they get `job.ended`
        self.desktop = service.Desktop()
        self.tasks: set[asyncio.Task] = set()

    async def on_end(self, status: JobStatus, end: str) -> None:
        """The watcher saw a watched job end (or retry): tell it, beside the watcher."""
        task = asyncio.ensure_future(self.tell(status, end))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def tell(self, status: JobStatus, end: str) -> JobEnded:
        ended = await self.ended(status, end)
        for notify in list(self.listeners):
            try:
                await notify(ended)
            except (ConnectionError, OSError):
                self.listeners.discard(notify)
        settings, problem = await asyncio.to_thread(service.read_settings, self.settings_path)
        if problem:
            service.log(problem)
        if end not in settings.states:
            return ended
        sends: list[Awaitable[str | None]] = [service.send_webhook(hook, ended, settings.locale) for hook in settings.webhooks]
        if settings.desktop and service.desktop_session():
            sends.append(self.desktop.send(ended, settings.locale))
        await asyncio.gather(*sends)
        return ended

    async def ended(self, status: JobStatus, end: str) -> JobEnded:
        """The notice of an end, with a failure's cause when the explanation comes in time."""
        why = why_zh = ""
        if end == "FAILED" and status.cluster is not None:
            with contextlib.suppress(PaiError, asyncio.TimeoutError, OSError):
                result = await asyncio.wait_for(asyncio.shield(self.explainer.get(status.cluster, status.job)), WHY_WAIT)
                why, why_zh = one_line(result, "en") or "", one_line(result, "zh-cn") or ""
        return JobEnded(job=status.job, cluster=status.cluster, state=end, why=why, why_zh=why_zh, retries=status.retries,
                        exit_code=status.exit_code)
