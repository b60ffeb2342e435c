"""`workspace/executeCommand` commands (docs/protocol.md): one small function each, or one line of
`FORWARDED` for those that hand the daemon method's params on as they are.

One convention: each command takes one argument, an object, read into its class of the API
(`api.COMMANDS`: the daemon protocol's params, or a class of the command's own), which pygls does
for the parameter's annotation; a wrong shape is an InvalidParams error naming the key. Submit, run
and preview also take a config's bare URI, as code lenses and minimal clients send it. Each answers
`{ok: true, …}` with its class's `RESULT`, or a failure (server/jobs.py).

A missing or wrong argument is the client's mistake, not the server's: an InvalidParams error in the
client's language, and one line in the server's log (not a traceback; see `_OneLineForBadArguments`).
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import inspect
import json
import logging
from dataclasses import replace
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from .. import api
from ..core.messages import render
from ..errors import InvalidInput
from .feature_registry import F, FeatureRegistry
from .job_relay import ok
from .language_server import PaiLanguageServer  # not under TYPE_CHECKING: pygls reads commands' annotations at run time

Answer = dict[str, Any]


class _OneLineForBadArguments(logging.Filter):
    """pygls logs every error a request is answered with as an exception, with its traceback: for
    an InvalidParams answer (the client sent a wrong argument) one line says all there is."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, JsonRpcInvalidParams):
            record.msg, record.args, record.exc_info, record.exc_text = "refused a request's params: %s", (error,), None, None
        return True


def _checked(name: str, fn: F) -> F:
    """`fn` as pygls calls it, refusing a missing or wrong argument as InvalidParams: pygls calls a
    command whose params were left out without them, and answers our own refusal of a bad shape
    (`InvalidInput`) as an internal error."""
    needed = [p for p in list(inspect.signature(fn).parameters.values())[1:]
              if p.kind is not p.VAR_POSITIONAL and p.default is p.empty]

    def refused(ls: PaiLanguageServer, args: tuple) -> JsonRpcInvalidParams | None:
        if len(args) < len(needed):
            return JsonRpcInvalidParams(render("params.no-argument", ls.locale, command=name))
        return None

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)  # pygls reads the arguments into the types of `fn`'s signature
        async def checked(ls: PaiLanguageServer, *args: Any) -> Any:
            if (error := refused(ls, args)) is not None:
                raise error
            try:
                return await fn(ls, *args)
            except InvalidInput as exc:
                raise JsonRpcInvalidParams(exc.render(ls.locale)) from None
        return checked

    @functools.wraps(fn)
    def checked_sync(ls: PaiLanguageServer, *args: Any) -> Any:
        if (error := refused(ls, args)) is not None:
            raise error
        try:
            return fn(ls, *args)
        except InvalidInput as exc:
            raise JsonRpcInvalidParams(exc.render(ls.locale)) from None
    return checked_sync


class _Commands(FeatureRegistry):
    def command(self, name: str):
        def decorator(fn: F) -> F:
            self.commands.append((name, _checked(name, fn)))
            return fn

        return decorator

    def register(self, server) -> None:
        super().register(server)
        log = logging.getLogger("pygls.protocol.json_rpc")  # where pygls logs a request's error
        if not any(isinstance(f, _OneLineForBadArguments) for f in log.filters):
            log.addFilter(_OneLineForBadArguments())


registry = _Commands()


# -- submit, run, preview: the object, or the config's bare URI --------------------------------
@registry.command("pai.submitJob")
async def submit_job(ls: PaiLanguageServer, *args: Any) -> Answer:
    """Without an argument, the user is asked to open a job file."""
    params = api.SubmitJob.from_json(args[0]) if args else None
    return await ls.jobs.submit(params and params.uri, params and params.cluster, params and params.work_done_token)


@registry.command("pai.runLocally")
async def run_locally(ls: PaiLanguageServer, *args: Any) -> Answer:
    """As `pai.submitJob`, on the embedded local cluster."""
    params = api.SubmitJob.from_json(args[0]) if args else None
    return await ls.jobs.submit(params and params.uri, "local", params and params.work_done_token)


@registry.command("pai.debugJob")
async def debug_job(ls: PaiLanguageServer, *args: Any) -> Answer:
    """Submit the job file so that the chosen tasks run their Python command under debugpy, waiting for
    a debugger (`pai.debugTargets` then says where); on the embedded local cluster unless `cluster`."""
    params = api.DebugJob.from_json(args[0]) if args else None
    options = api.DebugOptions(tasks=params.tasks, post_mortem_minutes=params.post_mortem_minutes, via=params.via) \
        if params else api.DebugOptions()
    return await ls.jobs.submit(params and params.uri, (params and params.cluster) or "local",
                                params and params.work_done_token, debug=options)


@registry.command("pai.debugTargets")
async def debug_targets(ls: PaiLanguageServer, params: api.DebugTargets) -> Answer:
    """Where a Debug Job's tasks wait for a debugger (the daemon's `job.debugTargets`), its message in
    the editor's language."""
    return await ls.jobs.call(params if params.locale else replace(params, locale=ls.jobs.locale()))


@registry.command("pai.previewUpload")
async def preview_upload(ls: PaiLanguageServer, *args: Any) -> Answer:
    """What Submit would do, nothing sent: the files (count, size, the largest, how many the last
    upload there has), the job's name and its final config; `text` shows it all."""
    params = api.PreviewUpload.from_json(args[0]) if args else None
    return await ls.jobs.preview(params and params.uri, params and params.cluster, bool(params and params.list_files))


@registry.command("pai.previewRendered")
async def preview_rendered(ls: PaiLanguageServer, *args: Any) -> Answer:
    """The job as the server will see it, nothing sent: a v2 job's YAML with its templates filled in, the
    default deployment merged and the defaults applied (secrets masked unless `showSecrets`); a v1
    config's JSON after substitution. `text` is that (what `pai submit --dry-run` prints under "the
    job as the server will see it"); `language` how to show it."""
    params = api.PreviewRendered.from_json(args[0]) if args else None
    result = await ls.jobs.preview(params and params.uri, params and params.cluster,
                                   show_secrets=bool(params and params.show_secrets))
    if not result.get("ok"):
        return result
    return {**result, "text": result["rendered"], "language": "yaml" if result["v2"] else "json"}


@registry.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
def cancel_progress(ls: PaiLanguageServer, params: types.WorkDoneProgressCancelParams) -> None:
    """The user cancelled a submit's progress: its upload stops (once uploaded, it goes on)."""
    ls.jobs.cancel(params.token)


@registry.command("pai.jobOutputs")
async def job_outputs(ls: PaiLanguageServer, params: api.JobOutputs) -> Answer:
    """Progress on `workDoneToken`, when given; what is there already is replaced only with
    `overwrite` (else `kind: exists`)."""
    outputs = api.Outputs(job=params.job, dest=params.dest, cluster=params.cluster or None,
                               progress_token=params.work_done_token, overwrite=params.overwrite)
    return await ls.jobs.with_progress(outputs, params.work_done_token, render("progress.downloading", ls.locale))


# -- jobs ------------------------------------------------------------------------------------
@registry.command("pai.jobs.list")
async def jobs_list(ls: PaiLanguageServer, params: api.Jobs) -> Answer:
    """One page of the user's jobs, newest first (50 unless `limit` says); the unfinished ones are
    watched from now on, so their changes arrive as `pai/jobStatus`."""
    if params.limit is None:
        params = api.Jobs(cluster=params.cluster, offset=params.offset, limit=50)
    result = await ls.jobs.call(params)
    if result["ok"]:
        from ..core.openpai_rest import FINAL  # (the REST model loads with the first job command)

        running = [j["name"] for j in result["jobs"] if j["state"] not in FINAL]
        if running:
            await ls.jobs.call(api.Watch(jobs=running, cluster=result["cluster"]))
        ls.jobs.watch_statuses()
    return result


@registry.command("pai.job.config")
async def job_config(ls: PaiLanguageServer, params: api.JobConfig) -> Answer:
    """Also as `text`, formatted in the cluster's key order, for clients that show it as it is."""
    result = await ls.jobs.call(api.Config(job=params.job, cluster=params.cluster))
    if result["ok"]:
        config = result["config"]
        result["text"] = config if isinstance(config, str) else json.dumps(config, indent=2, ensure_ascii=False) + "\n"
    return result


@registry.command("pai.job.follow")
async def job_follow(ls: PaiLanguageServer, params: api.Follow) -> Answer:
    """Stream the job's log as `pai/jobLog` from `offsets` on (a task with none from its last `tail`
    bytes, when given), then `pai/jobLogEnd`."""
    ls.jobs.follow(params.job, params.cluster, params.offsets or {}, tail=params.tail)
    ls.jobs.watch_statuses()
    return ok(api.Following(job=params.job, cluster=params.cluster))


@registry.command("pai.job.unfollow")
async def job_unfollow(ls: PaiLanguageServer, params: api.Unfollow) -> Answer:
    return ok(api.StoppedResult(stopped=ls.jobs.unfollow(params.job, params.cluster)))


# -- cluster profiles ------------------------------------------------------------------------
@registry.command("pai.kinds")
def kinds(ls: PaiLanguageServer, *_: object) -> Answer:
    """The job-file formats with their file patterns, and the cluster kinds (clusters/kinds.py): what
    clients build their file selectors and kind choices from, so they hard-code none."""
    from ..clusters.kinds import catalogue

    return ok(api.KindsResult.from_json(catalogue(ls.locale)))


@registry.command("pai.clusters.list")
async def clusters_list(ls: PaiLanguageServer, *_: object) -> Answer:
    return await ls.jobs.call(api.ClustersList())


@registry.command("pai.clusters.stopLocal")
async def clusters_stop_local(ls: PaiLanguageServer, *_: object) -> Answer:
    return await ls.jobs.call(api.ClustersStopLocal())


# -- HDFS and the mounted storages: the daemon's `hdfs.*` params (`storage` names one) ----------
@registry.command("pai.hdfs.cat")
async def hdfs_cat(ls: PaiLanguageServer, params: api.HdfsCatText) -> Answer:
    return _as_text(await ls.jobs.call(api.HdfsCat(path=params.path, cluster=params.cluster, storage=params.storage,
                                                   offset=params.offset, length=params.length)))


@registry.command("pai.hdfs.tail")
async def hdfs_tail(ls: PaiLanguageServer, params: api.HdfsTailText) -> Answer:
    return _as_text(await ls.jobs.call(api.HdfsTail(path=params.path, cluster=params.cluster, storage=params.storage,
                                                    size=params.size)))


@registry.command("pai.job.submittedFile")
async def job_submitted_file(ls: PaiLanguageServer, params: api.SubmittedFile) -> Answer:
    """One file exactly as the job sent it (checked against its recorded hash), as text."""
    return _as_text(await ls.jobs.call(api.RecordFile(job=params.job, path=params.path, cluster=params.cluster)))


@registry.command("pai.hdfs.put")
async def hdfs_put(ls: PaiLanguageServer, params: api.HdfsPutWithProgress) -> Answer:
    """With `workDoneToken`, the transfer is reported on it as `$/progress`."""
    put = api.HdfsPut(local=params.local, remote=params.remote, cluster=params.cluster, storage=params.storage,
                      progress_token=params.work_done_token, overwrite=params.overwrite)
    return await ls.jobs.with_progress(put, params.work_done_token, render("progress.uploading", ls.locale))


@registry.command("pai.hdfs.get")
async def hdfs_get(ls: PaiLanguageServer, params: api.HdfsGetWithProgress) -> Answer:
    get = api.HdfsGet(local=params.local, remote=params.remote, cluster=params.cluster, storage=params.storage,
                      progress_token=params.work_done_token, overwrite=params.overwrite)
    return await ls.jobs.with_progress(get, params.work_done_token, render("progress.downloading", ls.locale))


@registry.command("pai.job.waiting")
async def job_waiting(ls: PaiLanguageServer, params: api.Waiting) -> Answer:
    """Why a job waits, with the explanation also in lines of the editor's language (`lines`)."""
    from ..core.waiting import Explanation

    answer = await ls.jobs.call(params)
    explanation = Explanation.from_json(answer["explanation"]) if answer.get("ok") and answer.get("explanation") else None
    if explanation is not None:
        answer["reason"], answer["lines"] = explanation.reason.render(ls.locale), explanation.lines(ls.locale)
    return answer


def _as_text(result: Answer) -> Answer:
    """The editor gets file contents as text, not the daemon's base64."""
    if result.get("ok") and "data" in result:
        result["text"] = base64.b64decode(result.pop("data")).decode("utf-8", "replace")
    return result


# Commands that take the daemon method's params as their one argument and answer its result.
FORWARDED = {name: cls for name, cls in api.COMMANDS.items()
             if cls in api.METHODS.values() and name not in {name for name, _ in registry.commands}}


def _forward(params_class: type[api.Params]):
    async def command(ls: PaiLanguageServer, params: api.Params) -> Answer:
        if getattr(params, "locale", "") is None:  # a result with words: said in the editor's language
            params = dataclasses.replace(params, locale=ls.jobs.locale())
        return await ls.jobs.call(params)

    # pygls reads the argument into the class the annotation names.
    command.__annotations__ = {"ls": PaiLanguageServer, "params": params_class, "return": dict}
    return command


for _name, _params_class in FORWARDED.items():
    registry.command(_name)(_forward(_params_class))
