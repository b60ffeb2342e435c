"""Why a job failed, and where: the facts gathered from the cluster (the job detail with its exit
specs, the last MAX_LOG bytes of each failed task's log, the config's retries) and from the
submission (the upload's manifest: which workspace file each uploaded path is, and its content
when sent), explained by the pure core (`core.triage`), with what only I/O can add: whether a
missing HDFS path exists now, whether a frame's file changed in the workspace since the upload.

The daemon calls `explain` when a watched job ends and keeps the result; `pai why`, the editors'
reports and diagnostics read that result (`job.why`, docs/protocol.md).
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..api import SubmitResult, WhyResult
from ..core.triage import CodeLayout, Explanation, JobFacts, TaskFacts, explain_job, explain_task, with_note
from ..errors import PaiError

if TYPE_CHECKING:
    from ..clusters.backend import Backend
    from ..core.openpai_rest import JobDetail, TaskStatus

MAX_LOG = 1 << 20  # bytes of a failed task's log that are read: its end
MAX_TASKS = 8  # failed tasks explained per job (the one that ended it first): a 1,000-task job costs the same
EXPLAINED = ("FAILED", "STOPPED")  # the final states that get an explanation (a stop says so)
FAILED_TASK = ("FAILED",)
IMAGE_MISSING = "ContainerImageNotExists"


@dataclass
class Submission:
    """What the daemon learnt when it submitted the job: where its code came from and what was sent."""

    workspace: str  # the workspace folder, absolute
    code_dir: str  # where the code went: its HDFS folder, or STORAGE:PATH of a storage the job mounts ("": nothing uploaded)
    manifest: dict[str, dict] = field(default_factory=dict)  # uploaded path -> {size, mtime, sha256?} as sent
    code_folder: str = ""  # where pai made the job's commands run, when it put the code in a storage: /mnt/S/<user>~<job>

    def to_json(self) -> dict:
        return {"workspace": self.workspace, "codeDir": self.code_dir, "manifest": self.manifest, "codeFolder": self.code_folder}

    @classmethod
    def from_json(cls, data: Any) -> Submission | None:
        if not isinstance(data, dict) or not isinstance(data.get("workspace"), str) or not isinstance(data.get("codeDir"), str):
            return None
        manifest = data.get("manifest") if isinstance(data.get("manifest"), dict) else {}
        folder = data.get("codeFolder") if isinstance(data.get("codeFolder"), str) else ""
        return cls(data["workspace"], data["codeDir"], {k: v for k, v in manifest.items() if isinstance(v, dict)}, folder)

    def layout(self, job: str, user: str) -> CodeLayout:
        """Where the job's code was in its tasks, and whether there was any: what a missing script is said by."""
        return CodeLayout.for_job({rel: rel for rel in self.manifest}, job, "" if self.code_folder else self.code_dir, user,
                                  uploaded=bool(self.code_dir), code_place=self.code_dir,
                                  code_folder=self.code_folder)


def submission(backend: Backend, result: SubmitResult, workspace: Path) -> Submission:
    """The submission of a submit's `result`: where its upload went and the manifest it wrote (no
    folder and no manifest when nothing was uploaded, which a missing script is then said by)."""
    from ..storage.upload import read_manifest

    if result.upload is None:
        return Submission(str(workspace), "")
    stored = result.code_storage
    if stored is not None:
        from .mounted_storages import opened

        with opened(backend, stored.storage) as storage:
            manifest = read_manifest(storage, stored.path)
        return Submission(str(workspace), f"{stored.storage}:{stored.path}", manifest, stored.job_folder)
    return Submission(str(workspace), result.upload.remote, read_manifest(backend.storage, result.upload.remote))


# -- explaining ------------------------------------------------------------------------------
def explain(backend: Backend, job: str, sent: Submission | None = None) -> WhyResult:
    """`job.why`'s result for a job: its explanation (None while it runs or when it succeeded), the
    failed tasks' own, the workspace files of the frames that changed since the upload."""
    started = time.perf_counter()
    detail = backend.job(job)
    out: dict[str, Any] = {"job": job, "cluster": backend.profile.name, "state": detail.state, "completed": detail.completed,
                           "explanation": None, "tasks": [], "workspace": sent.workspace if sent else None,
                           "codeDir": sent.code_dir or None if sent else None, "changed": [], "madeAt": None}
    if detail.state not in EXPLAINED:
        return WhyResult.from_json(out)
    layout = sent.layout(job, backend.profile.user) if sent else CodeLayout()
    config = _config(backend, job)
    tasks = [explain_task(_task_facts(backend, detail, task, layout, _role_facts(config, task.role))) for task in _failed(detail)]
    retries = _retries_allowed(config)
    why = explain_job(_job_facts(detail, retries), tasks)
    why, changed = _notes(backend, why, sent)
    out.update(explanation=why.to_json(), tasks=[t.to_json() for t in tasks], changed=changed, madeAt=int(time.time() * 1000),
               tookMs=round((time.perf_counter() - started) * 1000, 1))
    return WhyResult.from_json(out)


def _failed(detail: JobDetail) -> list[TaskStatus]:
    """The failed tasks worth a look: the one that ended the job first, then the others, at most MAX_TASKS."""
    status = detail.raw.get("jobStatus") or {}
    trigger = (status.get("appExitTriggerTaskRoleName"), status.get("appExitTriggerTaskIndex"))
    failed = [t for t in detail.tasks if t.state in FAILED_TASK]
    failed.sort(key=lambda t: (t.role, t.index) != trigger)
    return failed[:MAX_TASKS]


def _task_facts(backend: Backend, detail: JobDetail, task: TaskStatus, layout: CodeLayout, role: dict) -> TaskFacts:
    log, first_line = _log_end(backend, task)
    if detail.raw.get("taskRoles"):
        facts = TaskFacts.from_detail(detail.raw, task.role, task.index, log, layout=layout, first_line=first_line, **role)
        if facts.exit_code == 254 and (facts.exit_spec is None or facts.exit_spec.phrase != IMAGE_MISSING):
            facts = dataclasses.replace(facts, image=None)  # 254 is not always the image (the local cluster: the start failed)
        return facts
    # A cluster without OpenPAI's detail (PaddlePaddle Cloud): the task's code and its message.
    return TaskFacts(exit_code=task.exit_code, diagnostics=task.message, log=log, role=task.role, index=task.index,
                     layout=layout, first_line=first_line, **role)


def _log_end(backend: Backend, task: TaskStatus) -> tuple[str, int]:
    """The last MAX_LOG bytes of a task's log (whole lines), and the line number of its first line
    when the whole log was read (1), else 0 (unknown: the evidence's line numbers then count from the cut)."""
    try:
        uri = backend.log_location(task, "all")
        data = backend.read_log_tail(uri, MAX_LOG) if uri else b""
    except PaiError:
        return "", 1
    whole = len(data) < MAX_LOG
    if not whole and b"\n" in data:
        data = data[data.index(b"\n") + 1:]
    return data.decode("utf-8", "replace"), 1 if whole else 0


def _config(backend: Backend, job: str) -> dict:
    """The job's config as the cluster has it ({} when it cannot be read: the explanation only lacks its facts)."""
    try:
        config = backend.config(job)
    except PaiError:
        return {}
    return config if isinstance(config, dict) else {}


def _retries_allowed(config: dict) -> int | None:
    value = config.get("retryCount", config.get("jobRetryCount"))
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _role_facts(config: dict, role: str) -> dict:
    """What a task's role asks for that the explanation names: its image, memoryMB and shmMB (v1:
    `taskRoles` a list with the job's `image`; v2: a map, the image a `dockerimage` prerequisite)."""
    roles = config.get("taskRoles")
    if isinstance(roles, list):
        found = next((r for r in roles if isinstance(r, dict) and r.get("name") == role), {})
        image, resources = config.get("image"), found
    elif isinstance(roles, dict) and isinstance(roles.get(role), dict):
        found = roles[role]
        images = {p.get("name"): p.get("uri") for p in config.get("prerequisites") or [] if isinstance(p, dict)}
        image, resources = images.get(found.get("dockerImage")), found.get("resourcePerInstance") or {}
    else:
        return {}
    facts = {"image": image if isinstance(image, str) else None}
    for key, name in (("memory_mb", "memoryMB"), ("shm_mb", "shmMB")):
        value = resources.get(name) if isinstance(resources, dict) else None
        facts[key] = value if isinstance(value, int) and not isinstance(value, bool) else None
    return facts


def _job_facts(detail: JobDetail, retries: int | None) -> JobFacts:
    if detail.raw.get("jobStatus"):
        return JobFacts.from_detail(detail.raw, retries_allowed=retries)
    return JobFacts(state=detail.state, exit_code=detail.exit_code, diagnostics=str(detail.diagnostics),
                    stopped_by_user=detail.state == "STOPPED", retries_allowed=retries)


def _notes(backend: Backend, why: Explanation, sent: Submission | None) -> tuple[Explanation, list[str]]:
    """What only I/O can say: a missing HDFS path that exists now (or still does not), the frames'
    workspace files changed since they were uploaded."""
    cause = why.cause or why
    if cause.hdfs and cause.path:
        try:
            exists = backend.storage.status(_hdfs_path(cause.path)) is not None
        except (PaiError, ValueError):
            exists = None
        if exists is not None:
            why = with_note(why, "path.exists-now" if exists else "path.missing-now")
    changed = _changed_frames(cause, sent)
    for name in changed[:3]:
        why = with_note(why, "frame.changed", file=name)
    return why, changed


def _changed_frames(cause: Explanation, sent: Submission | None) -> list[str]:
    """The workspace files of the traceback's frames that differ now from what the upload sent."""
    if sent is None or cause.traceback is None:
        return []
    changed: list[str] = []
    for frame in (cause.traceback.primary, *cause.traceback.related):
        if frame is not None and frame.workspace and frame.workspace not in changed \
                and _changed(Path(sent.workspace), frame.workspace, sent.manifest.get(frame.uploaded or "")):
            changed.append(frame.workspace)
    return changed


def stale(result: WhyResult, sent: Submission | None) -> bool:
    """Whether a kept explanation no longer says right which of its files changed since the upload
    (the user edited one since, or undid an edit): it is then made again."""
    why = explanation(result)
    if why is None or sent is None:
        return False
    return _changed_frames(why.cause or why, sent) != result.changed


def explanation(result: WhyResult) -> Explanation | None:
    """The result's explanation as the triage core's class (what its words and frames are read from)."""
    return Explanation.from_json(result.explanation.to_json()) if result.explanation is not None else None


def _hdfs_path(path: str) -> str:
    """`hdfs://nn:9000/user/x` -> /user/x (what the storage interface takes)."""
    if "://" in path:
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    return path


def _changed(workspace: Path, rel: str, sent: dict | None) -> bool:
    """Whether the workspace file differs from what the upload sent (by content when the manifest has
    its hash, else by size and time). A file gone from the workspace has changed."""
    if not sent:
        return False
    path = workspace / rel
    try:
        st = path.stat()
        if "sha256" in sent:
            if st.st_size != sent.get("size"):
                return True
            return hashlib.sha256(path.read_bytes()).hexdigest() != sent["sha256"]
        return (st.st_size, st.st_mtime_ns) != (sent.get("size"), sent.get("mtime"))
    except OSError:
        return True


def one_line(result: WhyResult, locale: str | None = None) -> str | None:
    """The explanation in one line for a terminal or a status bar: `<title>: <sentence> (<file>:<line>)`."""
    why = explanation(result)
    if why is None:
        return None
    frame = (why.cause or why).frame
    where = f" ({frame.workspace or frame.path}:{frame.line})" if frame is not None else ""
    return f"{why.title.pick(locale)}: {why.message.pick(locale)}{where}"

