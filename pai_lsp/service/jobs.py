"""Every job operation, once: the CLI and the editor both call these.

Submitting follows the flow users did by hand (seed 000): check the config, give it a unique
name, fill in $PAI_JOB_NAME / $PAI_USER_NAME, upload the workspace's code to codeDir, submit.
The config file on disk is never changed.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..clusters import PaiError
from ..clusters.openpai import OpenPai
from ..clusters.profiles import LOCAL, Profile, Profiles, get_secret, local_password, local_profile, set_secret
from ..core.jsonc import parse
from ..core.model import LineIndex, Settings
from ..core.validate import diagnose
from ..settings import find_workspace_settings
from ..storage.upload import Progress, UploadResult, select, upload
from ..storage.webhdfs import Hdfs

FINAL = ("SUCCEEDED", "FAILED", "STOPPED")
SUBSTITUTED_FIELDS = ("codeDir", "dataDir", "outputDir", "authFile")


@dataclass
class Connection:
    profile: Profile
    rest: OpenPai
    hdfs: Hdfs

    def close(self) -> None:
        self.rest.close()


def connect(cluster: str | None = None) -> Connection:
    profiles = Profiles()
    name = profiles.resolve(cluster)
    if name == LOCAL:
        profile = local_profile()
        rest = OpenPai(profile.rest_uri, profile.user, local_password)
    else:
        profile = profiles.clusters[name]
        key = f"{name}:{profile.user}"
        rest = OpenPai(profile.rest_uri, profile.user, lambda: get_secret(key + ":password"),
                       token=get_secret(key + ":token"), on_token=lambda token: _keep_token(key, token),
                       protocol=profile.protocol)
    return Connection(profile, rest, Hdfs(profile.webhdfs_uri, profile.user))


def _keep_token(key: str, token: str) -> None:
    try:
        set_secret(key + ":token", token)
    except PaiError:
        pass  # a token we cannot keep is simply fetched again next time


# -- submit ----------------------------------------------------------------------------
@dataclass
class Prepared:
    config: dict
    name: str
    code_dir: str | None  # HDFS path the workspace is uploaded to
    workspace: Path


def workspace_of(config_path: Path) -> Path:
    """The folder holding `.vscode/settings.json` at or above the config, else the config's folder."""
    folder = config_path.resolve().parent
    for candidate in [folder, *folder.parents]:
        if (candidate / ".vscode" / "settings.json").is_file():
            return candidate
    return folder


def prepare(config_path: Path, settings: dict, conn: Connection, locale: str | None = None, shown: str | None = None) -> Prepared:
    """`shown` is how messages name the file (as the user typed it)."""
    shown = shown or str(config_path)
    try:
        text = config_path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise PaiError("invalid", f"{shown}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PaiError("invalid", f"{shown}: cannot read it ({exc})") from None
    doc = parse(text)
    dialect = "scm" if conn.profile.kind == "scm" else "openpai"
    errors = [d for d in diagnose(doc, Settings(dialect=dialect, locale=locale)) if d.severity == "error"]
    if errors:
        line, col = LineIndex(text, "utf-32").position(errors[0].start)
        more = f" (and {len(errors) - 1} more: run `pai check {shown}`)" if len(errors) > 1 else ""
        raise PaiError("invalid", f"{shown}:{line + 1}:{col + 1}: {errors[0].message}{more}")
    config = {k: v for k, v in doc.root.value.items() if k != "$schema"}  # comments and trailing commas are gone too
    if settings.get("pai.job.generateJobName.enabled", True):
        name = f"{config['jobName']}_{secrets.token_hex(4)}"
    else:
        name = config["jobName"]
        if conn.rest.job_exists(name):
            raise PaiError("name-taken", f"a job named {name} already exists on {conn.profile.name}: rename it or "
                                         "enable pai.job.generateJobName.enabled")
    config["jobName"] = name
    substitute(config, name, conn.profile.user)
    code_dir = None
    if settings.get("pai.job.upload.enabled", True) and config.get("codeDir"):
        code_dir = hdfs_path(config["codeDir"])
    return Prepared(config, name, code_dir, workspace_of(config_path))


def substitute(config: dict, job_name: str, user: str) -> None:
    """$PAI_JOB_NAME and $PAI_USER_NAME, every occurrence (the old extension replaced only the first)."""

    def fill(value: str) -> str:
        value = re.sub(r"\$\{?PAI_JOB_NAME\}?(?!\w)", job_name, value)
        return re.sub(r"\$\{?PAI_USER_NAME\}?(?!\w)", user, value)

    for field in SUBSTITUTED_FIELDS:
        if isinstance(config.get(field), str):
            config[field] = fill(config[field])
    for role in config.get("taskRoles", []):
        if isinstance(role.get("command"), str):
            role["command"] = fill(role["command"])


def hdfs_path(uri: str) -> str:
    """The HDFS path of a codeDir such as `$PAI_DEFAULT_FS_URI/alice/x` or `hdfs://nn:9000/alice/x`."""
    path = re.sub(r"^\$\{?PAI_DEFAULT_FS_URI\}?", "", uri)
    path = re.sub(r"^[a-z]+://[^/]*", "", path)
    if not path.startswith("/") or "$" in path:
        raise PaiError("invalid", f"codeDir {uri!r} is not a path on the cluster's HDFS")
    return path


def submit(config_path: Path, cluster: str | None = None, settings: dict | None = None,
           progress: Progress | None = None, locale: str | None = None, shown: str | None = None,
           cancelled: threading.Event | None = None) -> dict:
    """`cancelled` set (e.g. by the daemon when the caller hung up) stops the upload and the submit."""
    config_path = Path(config_path)
    values = dict(find_workspace_settings(config_path.resolve()))
    values.update(settings or {})
    conn = connect(cluster)
    try:
        prepared = prepare(config_path, values, conn, locale, shown)
        uploaded: UploadResult | None = None
        if prepared.code_dir:
            files = select(prepared.workspace, values.get("pai.job.upload.include"), values.get("pai.job.upload.exclude"))
            uploaded = upload(conn.hdfs, files, prepared.code_dir, progress=_stoppable(progress, cancelled))
        if cancelled is not None and cancelled.is_set():
            raise PaiError("interrupted", "cancelled: nothing was submitted")
        conn.rest.submit(prepared.config)
        return {"job": prepared.name, "cluster": conn.profile.name, "user": conn.profile.user,
                "upload": uploaded.to_json() if uploaded else None}
    finally:
        conn.close()


def _stoppable(progress: Progress | None, cancelled: threading.Event | None) -> Progress | None:
    if cancelled is None:
        return progress

    def report(*args: int) -> None:
        if cancelled.is_set():
            raise PaiError("interrupted", "cancelled")
        if progress is not None:
            progress(*args)

    return report


# -- watch and act ---------------------------------------------------------------------
def job_status(conn: Connection, name: str) -> dict:
    detail = conn.rest.job(name)
    status = detail["jobStatus"]
    tasks = [{"role": role, "index": t["taskIndex"], "state": t["taskState"], "ports": t.get("containerPorts") or {},
              "ip": t.get("containerIp"), "exitCode": t.get("containerExitCode"), "log": t.get("containerLog")}
             for role, info in detail.get("taskRoles", {}).items() for t in info["taskStatuses"]]
    return {"name": name, "state": status["state"], "created": status.get("createdTime"),
            "completed": status.get("completedTime"), "exitCode": status.get("appExitCode"),
            "diagnostics": status.get("appExitDiagnostics") or "", "tasks": tasks}


def summary(job: dict) -> dict:
    """One row of a job list (OpenPAI v1 and v2 lists name these fields alike)."""
    return {"name": job["name"], "state": job.get("state"), "created": job.get("createdTime"),
            "completed": job.get("completedTime"), "exitCode": job.get("appExitCode"), "retries": job.get("retries"),
            "virtualCluster": job.get("virtualCluster")}


def list_jobs(conn: Connection, offset: int = 0, limit: int | None = None) -> dict:
    """The user's jobs, newest first, one page of them."""
    rows = sorted((summary(j) for j in conn.rest.jobs()), key=lambda j: j["created"] or 0, reverse=True)
    page = rows[offset:offset + limit] if limit is not None else rows[offset:]
    return {"cluster": conn.profile.name, "user": conn.profile.user, "total": len(rows), "offset": offset, "jobs": page}


def ssh_info(status: dict, task: str | None = None) -> list[dict]:
    """How to reach each running task: its SSH command and the URLs of its labelled ports."""
    tasks = [t for t in status["tasks"] if not task or f"{t['role']}:{t['index']}" == task]
    if not tasks:
        raise PaiError("not-found", f"job {status['name']} has no task {task}")
    running = [t for t in tasks if t["ip"] and t["state"] == "RUNNING"]
    if not running:
        raise PaiError("not-found", f"no task of {status['name']} is running now (state {status['state']})")
    rows = []
    for t in running:
        ssh_port = str(t["ports"].get("ssh") or "").split(",")[0]
        rows.append({"task": f"{t['role']}:{t['index']}", "ip": t["ip"], "sshPort": ssh_port or None,
                     "command": f"ssh -p {ssh_port} root@{t['ip']}" if ssh_port else None,
                     "urls": {label: [f"http://{t['ip']}:{p}" for p in str(ports).split(",")]
                              for label, ports in t["ports"].items() if label != "ssh"}})
    return rows


def follow_logs(conn: Connection, name: str, task: str | None, follow: bool, which: str = "all",
                poll: float = 0.1, offsets: dict | None = None) -> Iterator[tuple[str, bytes]]:
    """(task label, new bytes) from every task's log, by offset, until the job ends (with `follow`).
    `offsets` is updated in place, so a caller can resume without a byte lost or repeated."""
    offsets = {} if offsets is None else offsets
    uris: dict[str, str] = {}
    while True:
        status = job_status(conn, name)
        for t in status["tasks"]:
            label = f"{t['role']}:{t['index']}"
            if task and label != task:
                continue
            if label not in uris and t["log"] and t["ip"]:
                try:
                    uris[label] = conn.rest.log_uri(t["log"], which)
                except PaiError as exc:
                    if exc.kind != "not-found":
                        raise
            if label in uris:
                data = conn.rest.read_log(uris[label], offsets.get(label, 0))
                if data:
                    offsets[label] = offsets.get(label, 0) + len(data)
                    yield label, data
        if not follow or status["state"] in FINAL:
            if follow and status["state"] in FINAL:
                # One more pass: lines written just before the end.
                for label, uri in uris.items():
                    data = conn.rest.read_log(uri, offsets.get(label, 0))
                    if data:
                        offsets[label] = offsets.get(label, 0) + len(data)
                        yield label, data
            return
        time.sleep(poll)


def wait(conn: Connection, name: str, on_state: Callable[[str], None] | None = None, poll: float = 0.2) -> dict:
    last = None
    while True:
        status = job_status(conn, name)
        if status["state"] != last and on_state:
            on_state(status["state"])
        last = status["state"]
        if status["state"] in FINAL:
            return status
        time.sleep(poll)


def outputs(conn: Connection, name: str, dest: Path) -> Path:
    """Download the job's outputDir into `dest`/<last part of outputDir>."""
    config = conn.rest.config(name)
    output_dir = config.get("outputDir") or (config.get("extras") or {}).get("outputDir") or ""
    if not output_dir:
        raise PaiError("invalid", f"job {name} has no outputDir")
    remote = hdfs_path(output_dir)
    if conn.hdfs.status(remote) is None:
        raise PaiError("not-found", f"job {name} wrote nothing to its outputDir {remote}")
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / remote.rstrip("/").rsplit("/", 1)[-1]
    conn.hdfs.download(remote, target, overwrite=True)
    return target
