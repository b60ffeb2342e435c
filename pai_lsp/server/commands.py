"""`workspace/executeCommand` commands (docs/protocol.md): one small function each, or one line of
`FORWARDED` for those that hand the daemon method's params on as they are.

Arguments are typed: pygls reads each positional argument into the parameter's type, and an
object argument into the daemon protocol's params class for the same operation, which the
command forwards as it is. A call with arguments of the wrong shape is answered with an
InvalidParams error by pygls.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any, ClassVar

from lsprotocol import types

from ..clusters.kinds import catalogue
from ..core.messages import pick
from ..daemon import protocol
from . import jobs
from .app import PaiLanguageServer  # not under TYPE_CHECKING: pygls reads commands' annotations at run time
from .registry import Registry

registry = Registry()


@dataclass(frozen=True, kw_only=True)
class SubmitJob(protocol.Params):
    """`pai.submitJob` / `pai.runLocally` as an object; `work_done_token` is the client's progress
    token, on which the upload is reported and can be cancelled."""

    METHOD: ClassVar[str] = "pai.submitJob"
    uri: str
    cluster: str | None = None
    work_done_token: str | int | None = None

    @classmethod
    def read(cls, argument: Any) -> SubmitJob:
        """A bare URI (code lenses, older clients) or the object."""
        return cls(uri=argument) if isinstance(argument, str) else cls.from_json(argument)


@registry.command("pai.submitJob")
async def submit_job(ls: PaiLanguageServer, *args: str | dict) -> dict:
    """Argument: the config's URI, or {uri, cluster?, workDoneToken?} (without one, the user is asked
    to open a config)."""
    if not args:
        return await jobs.submit(ls, None, cluster=None)
    params = SubmitJob.read(args[0])
    return await jobs.submit(ls, params.uri, params.cluster, params.work_done_token)


@registry.command("pai.runLocally")
async def run_locally(ls: PaiLanguageServer, *args: str | dict) -> dict:
    """As `pai.submitJob`, on the embedded local cluster."""
    if not args:
        return await jobs.submit(ls, None, cluster="local")
    params = SubmitJob.read(args[0])
    return await jobs.submit(ls, params.uri, "local", params.work_done_token)


@dataclass(frozen=True, kw_only=True)
class PreviewUpload(protocol.Params):
    """`pai.previewUpload` as an object: which config, to which cluster (the default one when
    absent), and whether to list every file."""

    METHOD: ClassVar[str] = "pai.previewUpload"
    uri: str
    cluster: str | None = None
    list_files: bool = False


@registry.command("pai.previewUpload")
async def preview_upload(ls: PaiLanguageServer, *args: str | dict) -> dict:
    """What Submit would do, nothing sent: the files (count, size, the largest, how many the last
    upload there has), the job's name and its final config; `text` shows it all. Argument: the
    config's URI or {uri, cluster?, listFiles?}."""
    if not args:
        return await jobs.preview(ls, None, None)
    params = PreviewUpload(uri=args[0]) if isinstance(args[0], str) else PreviewUpload.from_json(args[0])
    return await jobs.preview(ls, params.uri, params.cluster, params.list_files)


@registry.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
def cancel_progress(ls: PaiLanguageServer, params: types.WorkDoneProgressCancelParams) -> None:
    """The user cancelled a submit's progress: its upload stops (once uploaded, it goes on)."""
    jobs.cancel(ls, params.token)


@registry.command("pai.jobOutputs")
async def job_outputs(ls: PaiLanguageServer, job: str, dest: str, *rest: str) -> dict:
    """Arguments: job name, destination folder[, cluster[, workDoneToken]] (progress on the token)."""
    cluster = rest[0] if rest and rest[0] else None
    token = rest[1] if len(rest) > 1 else None
    params = protocol.Outputs(job=job, dest=dest, cluster=cluster, progress_token=token)
    return await _with_progress(ls, params, token, pick(ls.locale, "downloading", "正在下载"))


# -- jobs ------------------------------------------------------------------------------------
@registry.command("pai.jobs.list")
async def jobs_list(ls: PaiLanguageServer, params: protocol.Jobs) -> dict:
    """One page of the user's jobs, newest first (50 unless `limit` says); the unfinished ones are
    watched from now on, so their changes arrive as `pai/jobStatus`."""
    if params.limit is None:
        params = protocol.Jobs(cluster=params.cluster, offset=params.offset, limit=50)
    result = await jobs.call_or_fail(ls, params)
    if result["ok"]:
        running = [j["name"] for j in result["jobs"] if j["state"] not in jobs.FINAL]
        if running:
            await jobs.call_or_fail(ls, protocol.Watch(jobs=running, cluster=result["cluster"]))
        jobs.watch_statuses(ls)
    return result


@registry.command("pai.job.config")
async def job_config(ls: PaiLanguageServer, params: protocol.Config) -> dict:
    """Also as `text`, formatted in the cluster's key order, for clients that show it as it is."""
    result = await jobs.call_or_fail(ls, params)
    if result["ok"]:
        config = result["config"]
        result["text"] = config if isinstance(config, str) else json.dumps(config, indent=2, ensure_ascii=False) + "\n"
    return result


@registry.command("pai.job.follow")
async def job_follow(ls: PaiLanguageServer, params: protocol.FollowLogs) -> dict:
    """Stream the job's log as `pai/jobLog` from `offsets` on, then `pai/jobLogEnd`."""
    jobs.follow(ls, params.job, params.cluster, params.offsets or {})
    jobs.watch_statuses(ls)
    return {"ok": True, "job": params.job, "cluster": params.cluster}


@registry.command("pai.job.unfollow")
async def job_unfollow(ls: PaiLanguageServer, params: protocol.JobRef) -> dict:
    return {"ok": True, "stopped": jobs.unfollow(ls, params.job, params.cluster)}


# -- cluster profiles ------------------------------------------------------------------------
@registry.command("pai.kinds")
def kinds(ls: PaiLanguageServer, *_: object) -> dict:
    """The job-file formats with their file patterns, and the cluster kinds (clusters/kinds.py): what
    clients build their file selectors and kind choices from, so they hard-code none."""
    return {"ok": True, **catalogue(ls.locale)}


@registry.command("pai.clusters.list")
async def clusters_list(ls: PaiLanguageServer, *_: object) -> dict:
    return await jobs.call_or_fail(ls, protocol.ClustersList())


@registry.command("pai.clusters.stopLocal")
async def clusters_stop_local(ls: PaiLanguageServer, *_: object) -> dict:
    return await jobs.call_or_fail(ls, protocol.ClustersStopLocal())


# `pai.hdfs.<op>`: one argument, an object with the daemon method's params.
@registry.command("pai.hdfs.cat")
async def hdfs_cat(ls: PaiLanguageServer, params: protocol.HdfsCat) -> dict:
    return _as_text(await jobs.call_or_fail(ls, params))


@registry.command("pai.hdfs.tail")
async def hdfs_tail(ls: PaiLanguageServer, params: protocol.HdfsTail) -> dict:
    return _as_text(await jobs.call_or_fail(ls, params))


@registry.command("pai.hdfs.put")
async def hdfs_put(ls: PaiLanguageServer, params: dict) -> dict:
    """With `workDoneToken`, the transfer is reported on it as `$/progress`."""
    return await _transfer(ls, protocol.HdfsPut, params, pick(ls.locale, "uploading", "正在上传"))


@registry.command("pai.hdfs.get")
async def hdfs_get(ls: PaiLanguageServer, params: dict) -> dict:
    return await _transfer(ls, protocol.HdfsGet, params, pick(ls.locale, "downloading", "正在下载"))


async def _transfer(ls: PaiLanguageServer, cls: type[protocol.HdfsTransfer], argument: dict, verb: str) -> dict:
    argument = dict(argument)
    token = argument.pop("workDoneToken", None)
    params = cls.from_json({**argument, "progressToken": token} if token is not None else argument)
    return await _with_progress(ls, params, token, verb)


async def _with_progress(ls: PaiLanguageServer, params: protocol.Params, token: str | int | None, verb: str) -> dict:
    """The call, its `transfer.progress` reported on the client's token (when it gave one)."""
    if token is None:
        return await jobs.call_or_fail(ls, params)

    def relay(event: protocol.Event) -> None:
        if isinstance(event, protocol.TransferProgress):
            jobs.report_transfer(ls, token, event, ls.locale, verb)

    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=verb, percentage=0))
    result = await jobs.call_or_fail(ls, params, relay)
    ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=result.get("message")))
    return result


# Commands that take the daemon method's params as their one argument and answer its result.
FORWARDED: dict[str, type[protocol.Params]] = {
    "pai.job.status": protocol.Status,
    "pai.job.why": protocol.Why,
    "pai.job.ssh": protocol.Ssh,
    "pai.job.stop": protocol.Stop,
    "pai.clusters.add": protocol.ClustersAdd,  # the password, if any, goes to the OS keyring (through the daemon)
    "pai.clusters.login": protocol.ClustersLogin,
    "pai.clusters.remove": protocol.ClustersRemove,
    "pai.clusters.setDefault": protocol.ClustersSetDefault,
    "pai.hdfs.ls": protocol.HdfsList,
    "pai.hdfs.stat": protocol.HdfsStat,
    "pai.hdfs.mkdir": protocol.HdfsMkdir,
    "pai.hdfs.rm": protocol.HdfsRemove,
    "pai.hdfs.mv": protocol.HdfsMove,
}


def _forward(params_class: type[protocol.Params]):
    async def command(ls: PaiLanguageServer, params: protocol.Params) -> dict:
        return await jobs.call_or_fail(ls, params)

    # pygls reads the argument into the class the annotation names.
    command.__annotations__ = {"ls": PaiLanguageServer, "params": params_class, "return": dict}
    return command


for _name, _params_class in FORWARDED.items():
    registry.command(_name)(_forward(_params_class))


def _as_text(result: dict) -> dict:
    """The editor gets file contents as text, not the daemon's base64."""
    if result.get("ok") and "data" in result:
        result["text"] = base64.b64decode(result.pop("data")).decode("utf-8", "replace")
    return result
