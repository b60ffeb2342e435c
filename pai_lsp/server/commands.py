"""The server's commands (`workspace/executeCommand`): each a thin call into the job daemon.

Editor-neutral: every client (VS Code, Neovim, …) drives jobs, HDFS and cluster profiles with
these. Arguments are one object (typed in `arguments`); results are `{ok: true, …}` or
`{ok: false, message, kind}`. docs/protocol.md lists them all.
"""

from __future__ import annotations

import base64

from lsprotocol import types

from . import jobs
from .app import PaiLanguageServer, server
from .arguments import AddClusterArgs, ClusterArgs, FollowArgs, JobArgs, JobsListArgs, LoginArgs, SshArgs, SubmitArgs

HDFS_OPS = ("ls", "stat", "mkdir", "rm", "mv", "cat", "tail", "put", "get")


# -- submit ----------------------------------------------------------------------------------
@server.command("pai.submitJob")
async def submit_job(ls: PaiLanguageServer, args: SubmitArgs) -> dict:
    return await jobs.submit(ls, args.uri, args.cluster, args.work_done_token)


@server.command("pai.runLocally")
async def run_locally(ls: PaiLanguageServer, args: SubmitArgs) -> dict:
    return await jobs.submit(ls, args.uri, "local", args.work_done_token)


@server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
def cancel_progress(ls: PaiLanguageServer, params: types.WorkDoneProgressCancelParams) -> None:
    jobs.cancel(ls, params.token)


# -- jobs ------------------------------------------------------------------------------------
@server.command("pai.jobs.list")
async def jobs_list(ls: PaiLanguageServer, args: JobsListArgs) -> dict:
    """One page of the user's jobs, newest first; the unfinished ones are watched from now on, so
    their changes arrive as `pai/jobStatus`."""
    result = await jobs.call_or_fail(ls, "jobs", {"cluster": args.cluster, "offset": args.offset, "limit": args.limit})
    if result["ok"]:
        running = [j["name"] for j in result["jobs"] if j["state"] not in jobs.FINAL]
        if running:
            await jobs.call_or_fail(ls, "watch", {"jobs": running, "cluster": result["cluster"]})
        jobs.watch_statuses(ls)
    return result


@server.command("pai.job.status")
async def job_status(ls: PaiLanguageServer, args: JobArgs) -> dict:
    return await jobs.call_or_fail(ls, "status", {"job": args.job, "cluster": args.cluster})


@server.command("pai.job.config")
async def job_config(ls: PaiLanguageServer, args: JobArgs) -> dict:
    return await jobs.call_or_fail(ls, "config", {"job": args.job, "cluster": args.cluster})


@server.command("pai.job.ssh")
async def job_ssh(ls: PaiLanguageServer, args: SshArgs) -> dict:
    return await jobs.call_or_fail(ls, "ssh", {"job": args.job, "cluster": args.cluster, "task": args.task})


@server.command("pai.job.stop")
async def job_stop(ls: PaiLanguageServer, args: JobArgs) -> dict:
    return await jobs.call_or_fail(ls, "stop", {"job": args.job, "cluster": args.cluster})


@server.command("pai.job.follow")
async def job_follow(ls: PaiLanguageServer, args: FollowArgs) -> dict:
    """Stream the job's log as `pai/jobLog` from `offsets` on, then `pai/jobLogEnd`."""
    jobs.follow(ls, args.job, args.cluster, args.offsets)
    jobs.watch_statuses(ls)
    return {"ok": True, "job": args.job, "cluster": args.cluster}


@server.command("pai.job.unfollow")
async def job_unfollow(ls: PaiLanguageServer, args: JobArgs) -> dict:
    return {"ok": True, "stopped": jobs.unfollow(ls, args.job, args.cluster)}


@server.command("pai.jobOutputs")
async def job_outputs(ls: PaiLanguageServer, *args) -> dict:
    """Arguments: job name, destination folder[, cluster] — or one object {job, dest, cluster?}."""
    flat = [a for arg in args for a in (arg if isinstance(arg, list) else [arg])]
    if flat and isinstance(flat[0], dict):
        flat = [flat[0].get("job"), flat[0].get("dest"), flat[0].get("cluster")]
    if len(flat) < 2 or not flat[0] or not flat[1]:
        return jobs.fail(ls, "pai.jobOutputs needs a job name and a destination folder", "invalid")
    return await jobs.call_or_fail(ls, "outputs", {"job": flat[0], "dest": flat[1], "cluster": flat[2] if len(flat) > 2 else None})


# -- cluster profiles ------------------------------------------------------------------------
@server.command("pai.clusters.list")
async def clusters_list(ls: PaiLanguageServer, *_: object) -> dict:
    return await jobs.call_or_fail(ls, "clusters.list", {})


@server.command("pai.clusters.add")
async def clusters_add(ls: PaiLanguageServer, args: AddClusterArgs) -> dict:
    """The password (if any) is stored in the OS keyring by the daemon, as `pai cluster add` does."""
    return await jobs.call_or_fail(ls, "clusters.add", {"name": args.name, "rest": args.rest, "webhdfs": args.webhdfs,
                                                        "user": args.user, "kind": args.kind, "password": args.password,
                                                        "protocol": args.protocol})


@server.command("pai.clusters.login")
async def clusters_login(ls: PaiLanguageServer, args: LoginArgs) -> dict:
    return await jobs.call_or_fail(ls, "clusters.login", {"name": args.name, "password": args.password})


@server.command("pai.clusters.remove")
async def clusters_remove(ls: PaiLanguageServer, args: ClusterArgs) -> dict:
    return await jobs.call_or_fail(ls, "clusters.remove", {"name": args.name})


@server.command("pai.clusters.setDefault")
async def clusters_set_default(ls: PaiLanguageServer, args: ClusterArgs) -> dict:
    return await jobs.call_or_fail(ls, "clusters.setDefault", {"name": args.name})


@server.command("pai.clusters.stopLocal")
async def clusters_stop_local(ls: PaiLanguageServer, *_: object) -> dict:
    return await jobs.call_or_fail(ls, "clusters.stopLocal", {})


# -- HDFS ------------------------------------------------------------------------------------
def _hdfs_command(op: str):
    """`pai.hdfs.<op>`: one object, the daemon method's params (docs/protocol.md), plus an
    optional `workDoneToken` on which `put` / `get` report their progress."""

    async def command(ls: PaiLanguageServer, params: dict) -> dict:
        params = dict(params)
        token = params.pop("workDoneToken", None)
        relay = None
        if token is not None:
            params["progressToken"] = token
            verb = "uploading" if op == "put" else "downloading"

            def relay(method: str, event: dict) -> None:
                if method == "transfer.progress":
                    jobs.report_transfer(ls, token, event, ls.locale, verb)

        if token is not None:
            ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=verb, percentage=0))
        result = await jobs.call_or_fail(ls, f"hdfs.{op}", params, relay)
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=result.get("message")))
        if result.get("ok") and "data" in result:
            result["text"] = base64.b64decode(result.pop("data")).decode("utf-8", "replace")
        return result

    command.__name__ = f"hdfs_{op}"
    return command


for _op in HDFS_OPS:
    server.command(f"pai.hdfs.{_op}")(_hdfs_command(_op))
