"""The daemon's JSON-RPC protocol, once: method names with their params, and the events it sends.

Every params class names its method (`METHOD`) and reads itself from the wire (`from_json`,
camelCase keys, one clear line when something is missing or of the wrong type) and writes itself
back (`to_json`). The CLI, the language server and the daemon all build and read these; the
language server also takes them as typed command arguments (docs/protocol.md).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from ..errors import InvalidInput

P = TypeVar("P", bound="Params")


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
class Params:
    """Base of every method's params (none, by itself)."""

    METHOD: ClassVar[str] = ""

    @classmethod
    def from_json(cls: type[P], data: Any) -> P:
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise InvalidInput(f"{cls.METHOD}: params must be an object")
        hints = _hints(cls)
        values = {}
        for f in dataclasses.fields(cls):
            key = _wire(f)
            if key not in data:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise InvalidInput(f"{cls.METHOD}: `{key}` is missing")
                continue
            if not _matches(data[key], hints[f.name]):
                raise InvalidInput(f"{cls.METHOD}: `{key}` must be {_type_name(hints[f.name])}")
            values[f.name] = data[key]
        return cls(**values)

    def to_json(self) -> dict:
        """The params as sent (fields that are None left out)."""
        return {_wire(f): value for f in dataclasses.fields(self) if (value := getattr(self, f.name)) is not None}


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
    settings: dict[str, Any] | None = None  # `pai.job.*` from the editor, over the workspace's
    progress_token: str | int | None = None
    locale: str | None = None


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
    webhdfs: str
    user: str
    kind: str = "openpai"
    protocol: int | None = None  # detected from the server when absent
    password: str | None = None


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
                                             ClustersStopLocal)


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
    Ping, StopDaemon, Submit, Jobs, Status, Config, Ssh, Stop, Outputs, Watch, Subscribe, FollowLogs, *CLUSTER_METHODS,
    *HDFS_METHODS)}
