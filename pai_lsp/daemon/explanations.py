"""The daemon's failure explanations (`job.why`): made the moment a watched job is seen to end
(the watcher's status change), once per job however many ask meanwhile, kept on disk with the job
(with what its submit learnt: the workspace and the upload's manifest) so `pai why`, the editors
and a restarted daemon read it without asking the cluster again."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from pai_lsp.api import JobStatus, SubmitResult, WhyResult

from ..common.atomic import write_atomic
from ..errors import PaiError
from ..service import why as service
from ..settings import workspace_of
from .sessions import Sessions

KEEP = 500  # jobs whose explanations are kept (the oldest go first)


class Explainer:
    def __init__(self, sessions: Sessions, folder: Path):
        self.sessions = sessions
        self.folder = folder
        self.making: dict[tuple[str, str], asyncio.Future] = {}

    # -- what a submit learnt ------------------------------------------------------------------
    async def submitted(self, result: SubmitResult, config_file: str) -> None:
        """Keep the submission of a job just submitted (its upload's manifest): frames map back through it."""
        cluster, job = result.cluster, result.job
        try:
            sent = await self.sessions.run(cluster, service.submission, result, workspace_of(Path(config_file)), fresh=False)
        except Exception:  # noqa: BLE001 - without the manifest the explanation only lacks the workspace files
            sent = None
        if sent is not None:
            await asyncio.to_thread(self._save, cluster, job, {"submission": sent.to_json(), "result": None})

    # -- explanations -------------------------------------------------------------------------
    async def on_status(self, event: JobStatus) -> None:
        """A watched job changed state: one that ended gets its explanation now."""
        if event.cluster is not None and event.state in service.EXPLAINED:
            self.start(event.cluster, event.job)

    def start(self, cluster: str, job: str) -> asyncio.Future:
        key = (cluster, job)
        making = self.making.get(key)
        if making is None:
            making = self.making[key] = asyncio.ensure_future(self._make(cluster, job))
            making.add_done_callback(lambda _: self.making.pop(key, None))
        return making

    async def get(self, cluster: str, job: str, refresh: bool = False) -> WhyResult:
        """The kept explanation (made again when a file of its frames changed since it was made), else
        one made now (and kept once the job has ended)."""
        if not refresh and (cluster, job) not in self.making:
            kept = await asyncio.to_thread(self._load, cluster, job)
            result = _kept_result(kept)
            if result is not None and result.made_at and not await asyncio.to_thread(
                    service.stale, result, service.Submission.from_json(kept.get("submission"))):
                return result
        return await asyncio.shield(self.start(cluster, job))

    async def _make(self, cluster: str, job: str) -> WhyResult:
        kept = await asyncio.to_thread(self._load, cluster, job)
        sent = service.Submission.from_json(kept.get("submission"))
        result = await self.sessions.run(cluster, service.explain, job, sent, fresh=False)
        if result.made_at:
            await asyncio.to_thread(self._save, cluster, job, {**kept, "result": result.to_json()})
        return result

    # -- on disk -------------------------------------------------------------------------------
    def _path(self, cluster: str, job: str) -> Path:
        """One file per job, named by a hash: job and cluster names never become paths."""
        return self.folder / (hashlib.sha256(f"{cluster}\0{job}".encode()).hexdigest()[:32] + ".json")

    def _load(self, cluster: str, job: str) -> dict[str, Any]:
        try:
            data = json.loads(self._path(cluster, job).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) and (data.get("cluster"), data.get("job")) == (cluster, job) else {}

    def _save(self, cluster: str, job: str, entry: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(self._path(cluster, job), json.dumps({**entry, "cluster": cluster, "job": job}), private=True)
        self._prune()

    def _prune(self) -> None:
        files = list(self.folder.glob("*.json"))
        if len(files) <= KEEP:
            return
        with contextlib.suppress(OSError):
            files.sort(key=lambda p: p.stat().st_mtime)
        for old in files[:len(files) - KEEP]:
            with contextlib.suppress(OSError):
                old.unlink()


def _kept_result(kept: dict[str, Any]) -> WhyResult | None:
    """The kept result, or None when there is none or it is not one this version reads (made again then)."""
    try:
        return WhyResult.from_json(kept["result"]) if kept.get("result") else None
    except (PaiError, TypeError):
        return None
