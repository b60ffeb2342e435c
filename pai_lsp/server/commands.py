"""`workspace/executeCommand` commands (docs/protocol.md), one small function each.

Arguments are typed: pygls reads each positional argument into the parameter's type, and an
object argument into the daemon protocol's params class for the same operation, which the
command forwards as it is. A call with arguments of the wrong shape is answered with an
InvalidParams error by pygls.
"""

from __future__ import annotations

import base64

from ..daemon import protocol
from . import jobs
from .app import PaiLanguageServer  # not under TYPE_CHECKING: pygls reads commands' annotations at run time
from .registry import Registry

registry = Registry()


@registry.command("pai.submitJob")
async def submit_job(ls: PaiLanguageServer, *uri: str) -> dict:
    """Arguments: the config's URI (without one, the user is asked to open a config)."""
    return await jobs.submit(ls, uri[0] if uri else None, cluster=None)


@registry.command("pai.runLocally")
async def run_locally(ls: PaiLanguageServer, *uri: str) -> dict:
    """Arguments: the config's URI; the job runs on the embedded local cluster."""
    return await jobs.submit(ls, uri[0] if uri else None, cluster="local")


@registry.command("pai.jobOutputs")
async def job_outputs(ls: PaiLanguageServer, job: str, dest: str, *cluster: str) -> dict:
    """Arguments: job name, destination folder[, cluster]."""
    return await jobs.call_or_fail(ls, protocol.Outputs(job=job, dest=dest, cluster=cluster[0] if cluster else None))


# `pai.hdfs.<op>`: one argument, an object with the daemon method's params.
@registry.command("pai.hdfs.ls")
async def hdfs_ls(ls: PaiLanguageServer, params: protocol.HdfsList) -> dict:
    return await jobs.call_or_fail(ls, params)


@registry.command("pai.hdfs.stat")
async def hdfs_stat(ls: PaiLanguageServer, params: protocol.HdfsStat) -> dict:
    return await jobs.call_or_fail(ls, params)


@registry.command("pai.hdfs.mkdir")
async def hdfs_mkdir(ls: PaiLanguageServer, params: protocol.HdfsMkdir) -> dict:
    return await jobs.call_or_fail(ls, params)


@registry.command("pai.hdfs.rm")
async def hdfs_rm(ls: PaiLanguageServer, params: protocol.HdfsRemove) -> dict:
    return await jobs.call_or_fail(ls, params)


@registry.command("pai.hdfs.mv")
async def hdfs_mv(ls: PaiLanguageServer, params: protocol.HdfsMove) -> dict:
    return await jobs.call_or_fail(ls, params)


@registry.command("pai.hdfs.cat")
async def hdfs_cat(ls: PaiLanguageServer, params: protocol.HdfsCat) -> dict:
    return _as_text(await jobs.call_or_fail(ls, params))


@registry.command("pai.hdfs.tail")
async def hdfs_tail(ls: PaiLanguageServer, params: protocol.HdfsTail) -> dict:
    return _as_text(await jobs.call_or_fail(ls, params))


@registry.command("pai.hdfs.put")
async def hdfs_put(ls: PaiLanguageServer, params: protocol.HdfsPut) -> dict:
    return await jobs.call_or_fail(ls, params)


@registry.command("pai.hdfs.get")
async def hdfs_get(ls: PaiLanguageServer, params: protocol.HdfsGet) -> dict:
    return await jobs.call_or_fail(ls, params)


def _as_text(result: dict) -> dict:
    """The editor gets file contents as text, not the daemon's base64."""
    if result.get("ok") and "data" in result:
        result["text"] = base64.b64decode(result.pop("data")).decode("utf-8", "replace")
    return result
