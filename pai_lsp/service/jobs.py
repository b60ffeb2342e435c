"""Every job operation, once: the CLI and the editor both call these.

Submitting follows the flow users did by hand (OpenPAI's HDFS guide): check the config, give it a unique
name, fill in $PAI_JOB_NAME / $PAI_USER_NAME, upload the workspace's code to codeDir, submit.
The config file on disk is never changed.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..api import (
    CodeStorage,
    DebugOptions,
    DebugResult,
    JobRow,
    JobsResult,
    RecordSummary,
    SshTask,
    StopResult,
    SubmitResult,
    UploadSummary,
)
from ..clusters.kinds import kind_of
from ..clusters.openpai import hdfs_path
from ..clusters.profiles import LOCALS
from ..common.config_file import UnreadableConfig, read_config
from ..core.debug import DebugPlan, DebugRefused
from ..core.debug import Options as CoreDebugOptions
from ..core.debug import rewrite as core_rewrite
from ..core.formats import DEFAULT, format_for, of_job
from ..core.job_format import JobFormat, Unsendable
from ..core.messages import Message, message
from ..core.model import LineIndex, Settings
from ..core.openpai_rest import FINAL
from ..errors import Interrupted, InvalidInput, NameTaken, NotFound, PaiError
from ..settings import find_workspace_settings, read, workspace_of
from ..storage.upload import Progress, UploadResult
from . import code_route, mounted_storages, records
from .selection import checked_files

if TYPE_CHECKING:
    from ..clusters.backend import Backend
    from ..clusters.profiles import Profile
    from ..core.openpai_rest import JobDetail


# -- submit ----------------------------------------------------------------------------
@dataclass
class Prepared:
    config: dict
    name: str
    code_dir: str | None  # HDFS path the workspace is uploaded to
    workspace: Path
    source: dict = field(default_factory=dict)  # the config as written, before the name and `$PAI_…` were filled in
    rendered: str | None = None  # the job as the server will see it, where it differs (a v2 job's YAML, secrets masked)
    converted: dict | None = None  # what a cluster of another protocol gets instead (a v2 job's v1 config)
    job_format: JobFormat = DEFAULT  # the format of its file
    route: CodeStorage | None = None  # no codeDir: the code goes to a storage the job is made to mount
    missing: Message | None = None  # its commands run workspace files that nothing uploads (sent anyway, as the user chose)
    debug: DebugPlan | None = None  # the tasks that wait for a debugger (a Debug Job submit)

    def code_storage(self) -> CodeStorage | None:
        return self.route


@dataclass
class SessionKey:
    """The public half of a key pair made for one Debug Job through ssh (its private half stays with the
    caller, in memory): `prepare` gives it to a job whose ssh plugin names no key of the user's, and then
    sets `used`, so the caller knows which key opens the job's tasks."""

    public: str
    used: bool = False


def prepare(config_path: Path, settings: Settings, backend: Backend, shown: str | None = None,
            name: str | None = None, debug: DebugOptions | None = None, session_key: SessionKey | None = None) -> Prepared:
    """`shown` is how messages name the file (as the user typed it). The config is checked as the
    cluster it goes to reads it: in its kind's job-file format and dialect (clusters/kinds.py).
    `name`, when given, is the job's name already chosen (a resumed submit). With `debug`, the job
    is rewritten so that the tasks it chooses wait for a debugger (core/debug), after pai's own
    changes (the `cd` into code on a storage), so the dry run and the record show what runs; through
    ssh, with `session_key` for a job that names no key of its own."""
    shown = shown or str(config_path)
    kind = kind_of(backend.profile)
    try:
        text = read_config(config_path)
    except UnreadableConfig as exc:
        raise InvalidInput(message("error.at-file", file=shown, reason=exc.said)) from None
    job_format = format_for(config_path.name, text)
    if not kind.runs(job_format.name):
        wanted = " or ".join(kind.job_files)
        raise InvalidInput(message("jobs.wrong-format", file=shown, cluster=backend.profile.name, kind=kind.name, wanted=wanted))
    doc = job_format.parse(text)
    errors = [d for d in job_format.diagnose(doc, replace(settings, dialect=kind.dialect)) if d.severity == "error"]
    if errors:
        line, col = LineIndex(text, "utf-32").position(errors[0].start)
        more = message("jobs.refused-more", count=len(errors) - 1, file=shown) if len(errors) > 1 else ""
        raise InvalidInput(message("jobs.refused", file=shown, line=line + 1, column=col + 1, problem=errors[0].message, more=more))
    config = {k: v for k, v in doc.root.value.items() if k != "$schema"}  # comments and trailing commas are gone too
    base = config[job_format.name_key]
    if name is not None:
        pass
    elif settings.generate_job_name:
        name = backend.unique_name(base)
    else:
        name = base
        if backend.job_exists(name):
            raise NameTaken(message(kind.name_taken, job=name, cluster=backend.profile.name))
    source = copy.deepcopy(config)
    code_dir = backend.place_job(config, name)
    try:  # a job the cluster's protocol cannot express is refused here, before anything is uploaded
        converted = backend.converted(config)
    except InvalidInput as exc:
        raise InvalidInput(message("error.at-file", file=shown, reason=exc.said)) from None
    if not settings.upload_enabled:
        code_dir = None
    route, missing = None, None
    if code_dir is None and job_format.folder(config, "codeDir") is None:
        route, missing = _code_route(backend, config, name, job_format, workspace_of(config_path), settings, converted)
    if missing is not None:
        if settings.upload_require_route:
            raise InvalidInput(message("route.refused", file=shown, problem=missing))
        missing = message("route.sent-anyway", problem=missing)
    plan = None
    if debug is not None:
        try:
            plan = rewrite_for_debug(job_format, config, debug, session_key.public if session_key else None)
            if session_key is not None and plan.ssh_key is not None:
                session_key.used = True
            converted = backend.converted(config) if converted is not None else None
        except DebugRefused as exc:
            raise InvalidInput(message("error.at-file", file=shown, reason=exc.said)) from None
        except InvalidInput as exc:
            raise InvalidInput(message("error.at-file", file=shown, reason=exc.said)) from None
    try:
        rendered = job_format.rendered(config)
    except Unsendable as exc:  # a template: the server's 500 (mustache's words); the format's checks say it first
        raise InvalidInput(message("error.at-file", file=shown, reason=exc.said(backend.profile.name))) from None
    return Prepared(config, name, code_dir, workspace_of(config_path), source, rendered, converted, job_format, route, missing,
                    plan)


def rewrite_for_debug(job_format: JobFormat, config: dict, debug: DebugOptions, ssh_key: str | None = None) -> DebugPlan:
    """The job (changed in place) as a Debug Job runs it: the core's rewrite, with the daemon's options."""
    return core_rewrite(job_format, config, CoreDebugOptions(debug.tasks, debug.post_mortem_minutes, debug.via), ssh_key)


def _code_route(backend: Backend, config: dict, name: str, job_format: JobFormat, workspace: Path, settings: Settings,
                converted: dict | None) -> tuple[CodeStorage | None, Message | None]:
    """The storage a job with no codeDir gets its code through, or why none exists when its commands
    run files of the workspace (uploads off, a cluster with no storage for it)."""
    if settings.upload_enabled and converted is None:
        return code_route.route(backend, config, name, job_format, workspace, settings)
    files = code_route.workspace_files_run(job_format.commands(config), workspace)
    if not files:
        return None, None
    problem = "route.upload-off" if not settings.upload_enabled else "route.no-storages" if job_format.mounts_storages \
        else "route.no-code-dir"
    return None, message(problem, path=files[0].word, cluster=backend.profile.name, field=job_format.code_dir_key, storages="")


def left_out(prepared: Prepared, sent: set[str], settings: Settings, shown: str) -> Message | None:
    """A workspace file the job's commands run that the upload leaves out (`pai.job.upload.include` /
    `exclude`, `.paiignore`, `.gitignore`): refused, or said as a warning where the user chose that."""
    commands = prepared.job_format.commands(prepared.source)  # as written: before pai's `cd` into the code
    for run in code_route.workspace_files_run(commands, prepared.workspace):
        if not any(p in sent if not p.endswith("/") else any(rel.startswith(p) for rel in sent) for p in run.paths):
            problem = message("route.not-uploaded", path=run.word, include=", ".join(settings.upload_include))
            if settings.upload_require_route:
                raise InvalidInput(message("route.refused", file=shown, problem=problem))
            return message("route.sent-anyway", problem=problem)
    return None


def job_settings(config_path: Path, settings: dict | None, locale: str | None) -> Settings:
    """The settings a job is submitted with: the editor's `pai.job.*` over the workspace's `.vscode/settings.json`."""
    return read({**find_workspace_settings(config_path.resolve()), **(settings or {})}, locale)


class Journal(Protocol):
    """Where a submit notes how far it got, so one cut short (the daemon killed) can be resumed
    exactly: `job` and `phase` ("uploading", "submitting", "done") as last recorded, if ever."""

    job: str | None
    phase: str | None
    result: dict | None  # the SubmitResult's JSON, once done

    def record(self, phase: str, job: str, result: dict | None = None) -> None: ...


def submit(backend: Backend, config_path: Path, settings: dict | None = None, progress: Progress | None = None,
           locale: str | None = None, shown: str | None = None, journal: Journal | None = None,
           cancelled: threading.Event | None = None, force: bool = False, debug: DebugOptions | None = None,
           session_key: SessionKey | None = None) -> SubmitResult:
    """Check, name, upload and submit on a session already open (the daemon keeps one per cluster).
    `settings`: `pai.job.*` from the editor, over the workspace's `.vscode/settings.json`. With a
    `journal` from an earlier attempt, that attempt is finished instead: same job name, the upload
    done again (its unfinished part is cleaned up), and never submitted twice. `cancelled`, once
    set (the caller hung up), stops the upload and the submit. An upload over the limits
    (`pai.job.upload.maxBytes` / `maxFiles`) is refused unless `force`. `debug`: a Debug Job submit
    (`prepare`, with `session_key`); its result is then a DebugResult, naming the tasks that wait for a debugger."""
    if journal is not None and journal.phase == "done" and journal.result is not None:
        return (DebugResult if debug is not None else SubmitResult).from_json(journal.result)
    config_path = Path(config_path)
    chosen = job_settings(config_path, settings, locale)
    resumed = journal.job if journal is not None else None
    if resumed is not None and journal.phase == "submitting" and backend.job_exists(resumed):
        prepared = prepare(config_path, chosen, backend, shown, name=resumed, debug=debug, session_key=session_key)
        result = _submitted(backend, prepared, None)
        journal.record("done", prepared.name, result.to_json())
        return result
    prepared = prepare(config_path, chosen, backend, shown, name=resumed, debug=debug, session_key=session_key)
    if journal is not None:
        journal.record("uploading", prepared.name)
    uploaded: UploadResult | None = None
    files = None
    if prepared.code_dir or prepared.route:
        files = checked_files(prepared.workspace, chosen, force, shown or str(config_path))
        prepared.missing = prepared.missing or left_out(prepared, {f.rel for f in files}, chosen, shown or str(config_path))
        try:
            uploaded = _upload(backend, prepared, files, _stoppable(progress, cancelled))
        except Interrupted as exc:
            if cancelled is None or not cancelled.is_set():
                raise
            # The upload's own line (what it left where), its reason now that nothing was submitted.
            said = exc.said
            if isinstance(said, Message) and "reason" in said.args:
                raise Interrupted(Message(said.code, {**said.args, "reason": message("jobs.cancelled")})) from None
            raise Interrupted(message("jobs.cancelled")) from None
    if cancelled is not None and cancelled.is_set():
        raise Interrupted(message("jobs.cancelled"))
    kept = records.record_submit(backend, prepared.name, prepared.config, prepared.source, prepared.code_dir, prepared.workspace,
                                 config_path, files)  # what is about to run, kept beside its code and on this machine
    if journal is not None:
        journal.record("submitting", prepared.name)
    try:
        warnings = backend.submit(kept.config)
    except PaiError:
        kept.discard(backend)
        raise
    said = [*([kept.warning.render(locale)] if kept.warning else []), *([str(prepared.missing.render(locale))] if prepared.missing else []), *warnings]
    result = _submitted(backend, prepared, uploaded, said, kept.summary())
    if journal is not None:
        journal.record("done", prepared.name, result.to_json())
    return result


def _upload(backend: Backend, prepared: Prepared, files: list, progress: Progress | None) -> UploadResult:
    """Into its codeDir on the cluster's HDFS, or into the storage its route chose."""
    if prepared.code_dir:
        return backend.upload(files, prepared.code_dir, progress=progress)
    assert prepared.route is not None
    from ..storage.upload import upload

    with mounted_storages.opened(backend, prepared.route.storage, write=True) as storage:
        return upload(storage, files, prepared.route.path, progress=progress)


def _submitted(backend: Backend, prepared: Prepared, uploaded: UploadResult | None,
               warnings: list[str] | None = None, record: RecordSummary | None = None) -> SubmitResult:
    """`warnings`: what the cluster said about the job it accepted (unknown, so none, when the job is
    found already submitted by a daemon that died)."""
    said = dict(job=prepared.name, cluster=backend.profile.name, user=backend.profile.user,
                upload=UploadSummary(**uploaded.to_json()) if uploaded else None, warnings=list(warnings or []),
                record=record, code_storage=prepared.code_storage())
    if prepared.debug is not None:
        return DebugResult(**said, tasks=prepared.debug.tasks)
    return SubmitResult(**said)


def _stoppable(progress: Progress | None, cancelled: threading.Event | None) -> Progress | None:
    """`progress`, raising Interrupted once `cancelled` is set (the upload then stops and cleans up)."""
    if cancelled is None:
        return progress

    def report(*args: int) -> None:
        if cancelled.is_set():
            raise Interrupted(message("jobs.cancelled-upload"))
        if progress is not None:
            progress(*args)

    return report


# -- watch and act ---------------------------------------------------------------------
def stop(backend: Backend, name: str) -> StopResult:
    """Stop a job that has not ended; one that has is an error that says how it ended."""
    job = backend.job(name)
    if job.state in FINAL:
        raise InvalidInput(message("jobs.ended-already", job=name, state=job.state))
    backend.stop(name)
    return StopResult(stopped=name, state=job.state)


def list_jobs(backend: Backend, offset: int = 0, limit: int | None = None) -> JobsResult:
    """The user's jobs, newest first, one page of them."""
    rows = sorted(backend.jobs(), key=lambda j: j.created or 0, reverse=True)
    page = rows[offset:offset + limit] if limit is not None else rows[offset:]
    return JobsResult(cluster=backend.profile.name, user=backend.profile.user, total=len(rows), offset=offset,
                      jobs=[JobRow(name=j.name, state=j.state, created=j.created, completed=j.completed, exit_code=j.exit_code,
                                   retries=j.retries, virtual_cluster=j.virtual_cluster) for j in page])


def check_task(job: JobDetail, task: str | None) -> None:
    """A task named as `ROLE:INDEX` (or, on PaddlePaddle Cloud, a worker's name) that the job has;
    else NotFound listing the tasks it has (none yet is fine: a waiting job has not made them)."""
    if not task or not job.tasks or any(task in (t.label, t.worker) for t in job.tasks):
        return
    labels = [t.label for t in job.tasks]
    shown = ", ".join(labels[:20]) + (f", … ({len(labels)})" if len(labels) > 20 else "")
    code = "jobs.no-such-task" if ":" in task and task.split(":")[1].isdigit() else "jobs.no-such-task-form"
    raise NotFound(message(code, job=job.name, task=task, tasks=shown))


LOG_READ_MOST = 4 << 20  # bytes one `logs.read` answers, at most


def read_log_range(backend: Backend, job: JobDetail, task: str, which: str, offset: int, length: int) -> bytes:
    """Bytes `offset` .. `offset + length` of a task's log (fewer at its end; none before the task has a log)."""
    if offset < 0 or length < 0:
        raise InvalidInput(message("jobs.log-range", offset=offset, length=length))
    check_task(job, task)
    found = next((t for t in job.tasks if task in (t.label, t.worker)), None)
    location = backend.log_location(found, which) if found is not None else None
    if location is None or length == 0:
        return b""
    return backend.read_log(location, offset, min(length, LOG_READ_MOST))


def ssh_user(profile: Profile) -> str:
    """Who logs in to a task's sshd: root on a real cluster (the ssh runtime plugin's sshd, openpai-k8s.md
    §E.4); on the local cluster, whose tasks' sshd runs as the OS user it runs as, that user (the local
    profile's user)."""
    return profile.user if profile.name in LOCALS else "root"


def ssh_info(job: JobDetail, task: str | None = None, user: str = "root") -> list[SshTask]:
    """How to reach each running task: its SSH command (as `user`: `ssh_user`) and the URLs of its
    labelled ports."""
    check_task(job, task)
    tasks = [t for t in job.tasks if not task or t.label == task]
    if not tasks:
        raise NotFound(message("jobs.no-task", job=job.name, task=task))
    running = [t for t in tasks if t.ip and t.state == "RUNNING"]
    if not running:
        raise NotFound(message("jobs.none-running", job=job.name, state=job.state))
    rows = []
    for t in running:
        ssh_port = str(t.ports.get("ssh") or "").split(",")[0]
        rows.append(SshTask(task=t.label, ip=t.ip, ssh_port=ssh_port or None, user=user,
                            command=f"ssh -p {ssh_port} {user}@{t.ip}" if ssh_port else None,
                            urls={label: [f"http://{t.ip}:{p}" for p in str(ports).split(",")]
                                  for label, ports in t.ports.items() if label != "ssh"}))
    return rows
class TaskLogs:
    """Each task's log, read by byte offset: where it is (known once the task runs) and how much of
    it was read. `offsets` may start where a follower left off."""

    def __init__(self, task: str | None = None, which: str = "all", offsets: dict[str, int] | None = None,
                 tail: int | None = None):
        """`tail`: a task with no offset yet starts with its log's last `tail` bytes (None: its start)."""
        self.task, self.which, self.tail = task, which, tail
        self.offsets: dict[str, int] = dict(offsets or {})
        self.uris: dict[str, str] = {}

    def read(self, backend: Backend, job: JobDetail, limit: int | None = None) -> list[tuple[str, int, bytes]]:
        """What the tasks of `job` wrote since the last read, at most `limit` bytes of each: (task
        label, byte offset, bytes)."""
        out = []
        for task in job.tasks:
            label = task.label
            if self.task and self.task not in (label, task.worker):
                continue
            if label not in self.uris and (location := backend.log_location(task, self.which)):
                self.uris[label] = location
            if label in self.uris:
                if label not in self.offsets and self.tail is not None:
                    start, data = backend.log_end(self.uris[label], self.tail)
                    self.offsets[label] = start + len(data)
                    out.append((label, start, data))
                    continue
                start = self.offsets.get(label, 0)
                data = backend.read_log(self.uris[label], start, limit)
                if data:
                    self.offsets[label] = start + len(data)
                    out.append((label, start, data))
        return out


def outputs(backend: Backend, name: str, dest: Path, progress: Progress | None = None, overwrite: bool = False,
            cancelled: threading.Event | None = None) -> Path:
    """Download the job's outputDir into `dest`/<last part of outputDir> (as the HDFS explorer's
    `get` does: safe names, whole files only, progress in files and bytes, what is there already
    replaced only with `overwrite`, stopped by `cancelled`)."""
    from . import hdfs as explorer

    config = backend.config(name)
    output_dir = of_job(config).folder(config, "outputDir") or ""
    if not output_dir:
        raise InvalidInput(message("jobs.no-output-dir", job=name))
    remote = hdfs_path(output_dir)
    if backend.storage.status(remote) is None:
        raise NotFound(message("jobs.no-outputs", job=name, path=remote))
    if dest.exists() and not dest.is_dir():
        raise InvalidInput(message("jobs.outputs-into-file", path=str(dest), job=name))
    dest.mkdir(parents=True, exist_ok=True)
    return Path(explorer.get(backend.storage, remote, dest, progress, overwrite, cancelled).path)
