"""The daemon's JSON-RPC protocol, once: method names with their params, the events (notifications)
it sends, and the framing (one JSON-RPC 2.0 object per line, UTF-8).

Each params class names its method (`METHOD`), each event class its notification (`EVENT`); both
read themselves from the wire (`from_json`: camelCase keys, one clear line when something is
missing or of the wrong type) and write themselves back (`to_json`). The CLI, the language server
and the daemon all build and read these; the language server also takes params classes as typed
command arguments. docs/protocol.md describes the same for people.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import functools
import json
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from ..core.openpai import JobDetail
from ..errors import InvalidInput, PaiError

W = TypeVar("W", bound="Wire")


def _wire(f: dataclasses.Field) -> str:
    """A field's JSON key: its `wire` metadata, else the camelCase of its name."""
    if "wire" in f.metadata:
        return f.metadata["wire"]
    head, *rest = f.name.split("_")
    return head + "".join(part.title() for part in rest)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _matches(value: Any, hint: Any) -> bool:
    """A light check of JSON values against the simple types params use."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is Any:
        return True
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if origin is list:
        (item,) = typing.get_args(hint) or (Any,)
        return isinstance(value, list) and all(_matches(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(hint) or (Any, Any)
        return isinstance(value, dict) and all(_matches(k, key) and _matches(v, item) for k, v in value.items())
    return isinstance(value, origin or hint)


def _type_name(hint: Any) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false", type(None): "null"}
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(h) for h in typing.get_args(hint))
    if origin is list:
        return "a list"
    if origin is dict:
        return "an object"
    return names.get(hint, getattr(hint, "__name__", str(hint)))


@dataclass(frozen=True, kw_only=True)
class Wire:
    """A JSON object on the wire as a dataclass."""

    @classmethod
    def name(cls) -> str:
        raise NotImplementedError

    @classmethod
    def from_json(cls: type[W], data: Any) -> W:
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise InvalidInput(f"{cls.name()}: params must be an object")
        hints = _hints(cls)
        values = {}
        for f in dataclasses.fields(cls):
            key = _wire(f)
            if key not in data:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise InvalidInput(f"{cls.name()}: `{key}` is missing")
                continue
            if not _matches(data[key], hints[f.name]):
                raise InvalidInput(f"{cls.name()}: `{key}` must be {_type_name(hints[f.name])}")
            values[f.name] = data[key]
        return cls(**values)

    def to_json(self) -> dict:
        return {_wire(f): getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True, kw_only=True)
class Params(Wire):
    """Base of every method's params (none, by itself)."""

    METHOD: ClassVar[str] = ""

    @classmethod
    def name(cls) -> str:
        return cls.METHOD

    def to_json(self) -> dict:
        """The params as sent (those that are None left out: absent and null mean the same)."""
        return {key: value for key, value in super().to_json().items() if value is not None}


@dataclass(frozen=True, kw_only=True)
class Event(Wire):
    """Base of every notification the daemon sends."""

    EVENT: ClassVar[str] = ""

    @classmethod
    def name(cls) -> str:
        return cls.EVENT


def is_params(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, Params)


# -- the daemon itself -------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Ping(Params):
    METHOD: ClassVar[str] = "ping"


@dataclass(frozen=True, kw_only=True)
class StopDaemon(Params):
    METHOD: ClassVar[str] = "daemon.stop"


# -- jobs --------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class OnCluster(Params):
    """`cluster` is a profile name; absent means the default profile, else `local`."""

    cluster: str | None = None


@dataclass(frozen=True, kw_only=True)
class Submit(OnCluster):
    METHOD: ClassVar[str] = "submit"
    file: str
    shown: str | None = None  # how messages name the file (as the user typed it)
    force: bool = False  # upload even when over pai.job.upload.maxBytes / maxFiles
    settings: dict[str, Any] | None = None  # `pai.job.*` from the editor, over the workspace's
    progress_token: str | int | None = None
    locale: str | None = None
    request_id: str | None = None  # the caller's id for this submit: asked again after the daemon died, it resumes it


@dataclass(frozen=True, kw_only=True)
class Preview(OnCluster):
    """What `submit` would do, nothing sent (`pai submit --dry-run`); `list_files`: every file too."""

    METHOD: ClassVar[str] = "preview"
    file: str
    shown: str | None = None
    settings: dict[str, Any] | None = None
    locale: str | None = None
    list_files: bool = False


@dataclass(frozen=True, kw_only=True)
class Jobs(OnCluster):
    """The user's jobs, newest first: `limit` of them from `offset` (all when no limit)."""

    METHOD: ClassVar[str] = "jobs"
    offset: int = 0
    limit: int | None = None


@dataclass(frozen=True, kw_only=True)
class JobRef(OnCluster):
    job: str


@dataclass(frozen=True, kw_only=True)
class Status(JobRef):
    METHOD: ClassVar[str] = "status"


@dataclass(frozen=True, kw_only=True)
class Stop(JobRef):
    METHOD: ClassVar[str] = "stop"


@dataclass(frozen=True, kw_only=True)
class Why(JobRef):
    """Why the job failed (or was stopped), and where: the daemon's kept explanation (`refresh`: made again)."""

    METHOD: ClassVar[str] = "job.why"
    refresh: bool = False


@dataclass(frozen=True, kw_only=True)
class Config(JobRef):
    METHOD: ClassVar[str] = "config"


@dataclass(frozen=True, kw_only=True)
class Ssh(JobRef):
    METHOD: ClassVar[str] = "ssh"
    task: str | None = None  # "role:index"; every running task when absent


@dataclass(frozen=True, kw_only=True)
class Outputs(JobRef):
    METHOD: ClassVar[str] = "outputs"
    dest: str
    progress_token: str | int | None = None  # `transfer.progress` events on it


@dataclass(frozen=True, kw_only=True)
class Watch(OnCluster):
    METHOD: ClassVar[str] = "watch"
    job: str | None = None
    jobs: list[str] | None = None


@dataclass(frozen=True, kw_only=True)
class Subscribe(Params):
    METHOD: ClassVar[str] = "jobs.subscribe"


@dataclass(frozen=True, kw_only=True)
class FollowLogs(JobRef):
    METHOD: ClassVar[str] = "logs.follow"
    task: str | None = None  # "role:index"; all tasks when absent
    which: str = "all"  # "all" | "stdout" | "stderr"
    follow: bool = True  # False: what is there now, then return
    offsets: dict[str, int] | None = None  # bytes the caller already has, per task


# -- cluster profiles --------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ClustersList(Params):
    METHOD: ClassVar[str] = "clusters.list"


@dataclass(frozen=True, kw_only=True)
class ClustersAdd(Params):
    """A password, when given, goes to the OS keyring and is checked by logging in once."""

    METHOD: ClassVar[str] = "clusters.add"
    name: str
    rest: str
    webhdfs: str | None = None  # the storage: WebHDFS (required for OpenPAI), PFS (default <rest>/api/v1/pfs)
    user: str
    kind: str = "openpai"  # "openpai" | "scm" | "paddlecloud"
    protocol: int | None = None  # detected from the server when absent
    password: str | None = None
    datacenter: str | None = None  # PaddlePaddle Cloud: the datacenter's name (default: the profile's)


@dataclass(frozen=True, kw_only=True)
class ClustersImportPaddle(Params):
    """One profile per datacenter of a paddlecloud config (`~/.paddle/config` by default); its
    passwords go to the keyring and out of the file unless `keepFile`."""

    METHOD: ClassVar[str] = "clusters.importPaddle"
    config: str | None = None
    keep_file: bool = False


@dataclass(frozen=True, kw_only=True)
class ClustersLogin(Params):
    METHOD: ClassVar[str] = "clusters.login"
    name: str | None = None  # the default profile when absent
    password: str


@dataclass(frozen=True, kw_only=True)
class ClustersRemove(Params):
    METHOD: ClassVar[str] = "clusters.remove"
    name: str


@dataclass(frozen=True, kw_only=True)
class ClustersSetDefault(Params):
    METHOD: ClassVar[str] = "clusters.setDefault"
    name: str


@dataclass(frozen=True, kw_only=True)
class ClustersStopLocal(Params):
    METHOD: ClassVar[str] = "clusters.stopLocal"


CLUSTER_METHODS: tuple[type[Params], ...] = (ClustersList, ClustersAdd, ClustersLogin, ClustersRemove, ClustersSetDefault,
                                             ClustersStopLocal, ClustersImportPaddle)


# -- what only PaddlePaddle Cloud has (others answer with an `invalid` error) ------------------
@dataclass(frozen=True, kw_only=True)
class Quota(OnCluster):
    METHOD: ClassVar[str] = "quota"


@dataclass(frozen=True, kw_only=True)
class RegistryList(OnCluster):
    METHOD: ClassVar[str] = "registry.list"


@dataclass(frozen=True, kw_only=True)
class RegistryAdd(OnCluster):
    """`name` without the `pcloud-registry-` prefix (added here) or with it."""

    METHOD: ClassVar[str] = "registry.add"
    name: str
    username: str
    password: str
    server: str


@dataclass(frozen=True, kw_only=True)
class RegistryRemove(OnCluster):
    METHOD: ClassVar[str] = "registry.remove"
    name: str


BACKEND_METHODS: tuple[type[Params], ...] = (Quota, RegistryList, RegistryAdd, RegistryRemove)


# -- HDFS --------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class HdfsPath(OnCluster):
    """Relative paths are under `/user/<user>`."""

    path: str


@dataclass(frozen=True, kw_only=True)
class HdfsList(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.ls"


@dataclass(frozen=True, kw_only=True)
class HdfsStat(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.stat"


@dataclass(frozen=True, kw_only=True)
class HdfsMkdir(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.mkdir"


@dataclass(frozen=True, kw_only=True)
class HdfsRemove(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.rm"
    recursive: bool = False


@dataclass(frozen=True, kw_only=True)
class HdfsMove(OnCluster):
    METHOD: ClassVar[str] = "hdfs.mv"
    source: str = field(metadata={"wire": "from"})
    target: str = field(metadata={"wire": "to"})


@dataclass(frozen=True, kw_only=True)
class HdfsCat(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.cat"
    offset: int = 0
    length: int | None = None


@dataclass(frozen=True, kw_only=True)
class HdfsTail(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.tail"
    size: int = field(default=1024, metadata={"wire": "bytes"})


@dataclass(frozen=True, kw_only=True)
class HdfsTransfer(OnCluster):
    local: str
    remote: str
    progress_token: str | int | None = None


@dataclass(frozen=True, kw_only=True)
class HdfsPut(HdfsTransfer):
    METHOD: ClassVar[str] = "hdfs.put"


@dataclass(frozen=True, kw_only=True)
class HdfsGet(HdfsTransfer):
    METHOD: ClassVar[str] = "hdfs.get"


HDFS_METHODS: tuple[type[Params], ...] = (HdfsList, HdfsStat, HdfsMkdir, HdfsRemove, HdfsMove, HdfsCat, HdfsTail, HdfsPut, HdfsGet)
METHODS: dict[str, type[Params]] = {cls.METHOD: cls for cls in (
    Ping, StopDaemon, Submit, Preview, Jobs, Status, Why, Config, Ssh, Stop, Outputs, Watch, Subscribe, FollowLogs, *CLUSTER_METHODS,
    *HDFS_METHODS, *BACKEND_METHODS)}


# -- events ------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Progress(Event):
    """How far an upload or transfer is (for a request that gave a `progressToken`)."""

    token: str | int
    bytes: int
    total_bytes: int
    files: int
    total_files: int


@dataclass(frozen=True, kw_only=True)
class UploadProgress(Progress):
    EVENT: ClassVar[str] = "upload.progress"


@dataclass(frozen=True, kw_only=True)
class TransferProgress(Progress):
    EVENT: ClassVar[str] = "transfer.progress"


@dataclass(frozen=True, kw_only=True)
class JobLog(Event):
    """`length` bytes of a task's log from byte `offset`, as text. `length` counts the bytes the task
    wrote (text never splits a UTF-8 character; bytes that are not UTF-8 show as U+FFFD), so a
    follower keeps its place in bytes whatever the text. When the bytes are not all UTF-8, `data`
    carries them exactly (base64), for clients that print what the task printed."""

    EVENT: ClassVar[str] = "job.log"
    job: str
    task: str
    offset: int
    length: int
    text: str
    data: str | None = None

    @classmethod
    def of(cls, job: str, task: str, offset: int, chunk: bytes) -> JobLog:
        try:
            return cls(job=job, task=task, offset=offset, length=len(chunk), text=chunk.decode("utf-8"))
        except UnicodeDecodeError:
            return cls(job=job, task=task, offset=offset, length=len(chunk), text=chunk.decode("utf-8", "replace"),
                       data=base64.b64encode(chunk).decode("ascii"))

    def raw(self) -> bytes:
        """Exactly the bytes the task wrote."""
        return base64.b64decode(self.data) if self.data is not None else self.text.encode("utf-8")

    def to_json(self) -> dict:
        out = super().to_json()
        if self.data is None:
            del out["data"]
        return out


@dataclass(frozen=True, kw_only=True)
class JobStatus(Event):
    """A job's state, sent on every change."""

    EVENT: ClassVar[str] = "job.status"
    job: str
    cluster: str | None = None
    state: str
    exit_code: int | None = None  # the platform's
    diagnostics: str = ""
    user_exit_code: int | None = None  # the command's own, when the cluster reports it
    exit_reason: str = ""  # the platform's code in words


EVENTS: dict[str, type[Event]] = {cls.EVENT: cls for cls in (UploadProgress, TransferProgress, JobLog, JobStatus)}


# -- results ---------------------------------------------------------------------------
def status_result(job: JobDetail, cluster: str | None = None, web_portal: str | None = None) -> dict:
    """The result of `status` (`webPortal`: the job's page in the cluster's portal, if it has one)."""
    return {"name": job.name, "cluster": cluster, "webPortal": web_portal, "state": job.state, "created": job.created,
            "completed": job.completed, "exitCode": job.exit_code, "diagnostics": job.diagnostics,
            "userExitCode": job.user_exit_code, "exitReason": job.exit_reason,
            "tasks": [{"role": t.role, "index": t.index, "state": t.state, "ports": t.ports, "ip": t.ip,
                       "exitCode": t.exit_code, "log": t.log, "worker": t.worker, "started": t.started,
                       "message": t.message} for t in job.tasks]}


# -- framing -----------------------------------------------------------------------------
def encode(message: dict | list) -> bytes:
    return json.dumps(message).encode() + b"\n"


async def read_line(reader: asyncio.StreamReader) -> bytes | None:
    """One message (a line) of any length, or None when the other side closed between messages.
    There is no size limit: a long file list or a big result is read in pieces as it comes."""
    parts: list[bytes] = []
    while True:
        try:
            parts.append(await reader.readuntil(b"\n"))
            return b"".join(parts)
        except asyncio.LimitOverrunError as exc:
            parts.append(await reader.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:
            if exc.partial or parts:
                raise ConnectionError("the connection closed in the middle of a message") from None
            return None


def request(rid: int, params: Params) -> bytes:
    return encode({"jsonrpc": "2.0", "id": rid, "method": params.METHOD, "params": params.to_json()})


def notification(event: Event) -> dict:
    return {"jsonrpc": "2.0", "method": event.EVENT, "params": event.to_json()}


def result(rid: Any, value: Any) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "result": value}


def error(rid: Any, exc: PaiError) -> dict:
    """`code` 1 with the user's one line and, in `data.kind`, which `errors` class it is."""
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": 1, "message": exc.message, "data": exc.to_wire()}}


PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603


def failure(rid: Any, code: int, message: str, kind: str = "server") -> dict:
    """A JSON-RPC level error (parse error, invalid request, unknown method, internal error)."""
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message, "data": {"kind": kind}}}


@dataclass(frozen=True)
class Reply:
    """The result of a request."""

    value: Any


def read_reply(message: dict, rid: int) -> Event | Reply | None:
    """What one line from the daemon is for a caller waiting on request `rid`: an event, the
    reply, or None (someone else's, or an event this client does not know). An error reply raises
    its `errors` class."""
    if "method" in message and "id" not in message:
        cls = EVENTS.get(message["method"])
        return cls.from_json(message.get("params")) if cls is not None else None
    if message.get("id") != rid:
        return None
    if "error" in message:
        error = message["error"]
        raise PaiError.from_wire((error.get("data") or {}).get("kind"), error["message"])
    return Reply(message["result"])
