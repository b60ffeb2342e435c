"""The daemon's API, once: every method's params and result, and the events (notifications) it
sends, as dataclasses; and the editor commands of the language server, which forward them
(`COMMANDS`). The framing (one JSON-RPC 2.0 object per line) is daemon/protocol.py's.

Each params class names its method (`METHOD`) and its result class (`RESULT`); each event class its
notification (`EVENT`). All read themselves from the wire (`from_json`: camelCase keys, one clear
line when something is missing or of the wrong type) and write themselves back (`to_json`). The
service layer returns results, the daemon sends them, the CLI and the language server read them:
so this module sits below them all (it uses only the core and errors.py). `schema()` is the same
as a JSON Schema (docs/protocol.schema.json, from which the VS Code client's types are generated and
against which the Neovim client's reads are checked: scripts/protocol-schema, tests/test_protocol_schema.py);
docs/protocol.md describes it for people.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import threading
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from .core.messages import Message, message
from .errors import InvalidInput

if TYPE_CHECKING:
    from .core.openpai_rest import JobDetail

W = TypeVar("W", bound="Wire")
T = TypeVar("T")


def wire(cls: type[T]) -> type[T]:
    """A class of the API: a dataclass (its fields, `dataclasses.fields` and `replace`) whose
    methods — keyword-only `__init__`, `==`, `hash`, `repr`, frozen attributes — are `Wire`'s own,
    written once, where `@dataclass(frozen=True)` would write and compile six for each of the ~140
    classes every time this module is imported (0.2 s, before any `pai` command could start). Its
    fields are found the first time the class is used (`_ready`): a command uses a few classes."""
    return cls


_READY = threading.Lock()


def _ready(cls: type) -> None:
    """`cls` and the API classes it derives from made dataclasses, if they are not yet."""
    if "__dataclass_fields__" in cls.__dict__:
        return
    with _READY:
        for c in reversed(cls.__mro__):  # its bases first: a dataclass takes its bases' fields
            if issubclass(c, Wire) and "__dataclass_fields__" not in c.__dict__:
                doc = c.__doc__
                c.__doc__ = doc or "-"  # (without one, dataclass makes one up from the signature, at a cost)
                dataclass(kw_only=True, init=False, repr=False, eq=False)(c)
                c.__doc__ = doc


def fields(cls: type) -> tuple[dataclasses.Field, ...]:
    """`dataclasses.fields` of an API class, used or not yet."""
    _ready(cls)
    return dataclasses.fields(cls)


@functools.cache
def _init_fields(cls: type) -> tuple[tuple[str, Any, Any], ...]:
    """(name, default, default factory) of each field `__init__` takes."""
    return tuple((f.name, f.default, f.default_factory) for f in fields(cls) if f.init)


def _wire(cls: type, f: dataclasses.Field) -> str:
    """A field's JSON key: its `wire` metadata, else the camelCase of its name (snake_case kept for
    the classes that have always sent it so, `SNAKE`)."""
    if "wire" in f.metadata:
        return f.metadata["wire"]
    if getattr(cls, "SNAKE", False):
        return f.name
    head, *rest = f.name.split("_")
    return head + "".join(part.title() for part in rest)


def omitted_when_none(**kwargs: Any) -> Any:
    """A field left out of the JSON when it is None (a key some answers have and others have not)."""
    return field(default=None, metadata={"omit": True}, **kwargs)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _is_wire(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, Wire)


def _matches(value: Any, hint: Any) -> bool:
    """A light check of JSON values against the simple types the API uses."""
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
    if _is_wire(hint):
        return isinstance(value, dict)
    if origin is list:
        (item,) = typing.get_args(hint) or (Any,)
        return isinstance(value, list) and all(_matches(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(hint) or (Any, Any)
        return isinstance(value, dict) and all(_matches(k, key) and _matches(v, item) for k, v in value.items())
    return isinstance(value, origin or hint)


def _type_name(hint: Any) -> Any:
    """What a value of `hint` is, in words of the catalogue (said in the reader's language)."""
    names = {str: "type.string", int: "type.integer", float: "type.number", bool: "type.boolean", type(None): "type.null"}
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        first, *rest = typing.get_args(hint)
        said = _type_name(first)
        for other in rest:
            said = message("type.either", first=said, second=_type_name(other))
        return said
    if origin is list:
        return message("type.array")
    if origin is dict or _is_wire(hint):
        return message("type.object")
    return message(names[hint]) if hint in names else getattr(hint, "__name__", str(hint))


def _read(value: Any, hint: Any) -> Any:
    """A JSON value (checked already) as `hint`: objects of the API's classes become those classes."""
    origin = typing.get_origin(hint)
    if value is None:
        return None
    if _is_wire(hint):
        return hint.from_json(value)
    if origin in (typing.Union, types.UnionType):
        inner = next((h for h in typing.get_args(hint) if h is not type(None) and _matches(value, h)), None)
        return _read(value, inner) if inner is not None else value
    if origin is list:
        (item,) = typing.get_args(hint) or (Any,)
        return [_read(v, item) for v in value] if _is_wire(item) else value
    if origin is dict:
        _, item = typing.get_args(hint) or (Any, Any)
        return {k: _read(v, item) for k, v in value.items()} if _is_wire(item) else value
    return value


def _write(value: Any) -> Any:
    if isinstance(value, Wire):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_write(v) for v in value]
    if isinstance(value, dict):
        return {k: _write(v) for k, v in value.items()}
    return value


@wire
class Wire:
    """A JSON object on the wire as a dataclass."""

    def __init__(self, **values: Any) -> None:
        for name, default, factory in _init_fields(type(self)):
            if name in values:
                value = values.pop(name)
            elif default is not dataclasses.MISSING:
                value = default
            elif factory is not dataclasses.MISSING:
                value = factory()
            else:
                raise TypeError(f"{type(self).__qualname__}.__init__() missing a keyword argument: {name!r}")
            object.__setattr__(self, name, value)
        if values:
            raise TypeError(f"{type(self).__qualname__}.__init__() got an unexpected keyword argument {next(iter(values))!r}")

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name, _, _ in _init_fields(type(self)))

    def __eq__(self, other: object) -> bool:
        return self._values() == other._values() if other.__class__ is self.__class__ else NotImplemented  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name, _, _ in _init_fields(type(self)))
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    @classmethod
    def wire_name(cls) -> str:
        return cls.__name__

    @classmethod
    def from_json(cls: type[W], data: Any) -> W:
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise InvalidInput(message("params.not-object", method=cls.wire_name()))
        hints = _hints(cls)
        values = {}
        for f in fields(cls):
            key = _wire(cls, f)
            if key not in data:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise InvalidInput(message("params.missing", method=cls.wire_name(), key=key))
                continue
            if not _matches(data[key], hints[f.name]):
                raise InvalidInput(message("params.type", method=cls.wire_name(), key=key, expected=_type_name(hints[f.name])))
            values[f.name] = _read(data[key], hints[f.name])
        return cls(**values)

    def to_json(self) -> dict:
        return {_wire(type(self), f): _write(getattr(self, f.name)) for f in dataclasses.fields(self)
                if not (f.metadata.get("omit") and getattr(self, f.name) is None)}


@wire
class Result(Wire):
    """Base of every method's result: what the service layer returns and the daemon sends (read by
    its attributes, `result.exit_code`; its JSON is `to_json()`)."""


@wire
class Nothing(Result):
    """A result with nothing in it (`jobs.subscribe`, which ends only when its connection does)."""


@wire
class Params(Wire):
    """Base of every method's params (none, by itself); `RESULT` is the class of its result."""

    METHOD: ClassVar[str] = ""
    RESULT: ClassVar[type[Result]] = Result

    @classmethod
    def wire_name(cls) -> str:
        return cls.METHOD

    def to_json(self) -> dict:
        """The params as sent (those that are None left out: absent and null mean the same)."""
        return {key: value for key, value in super().to_json().items() if value is not None}


@wire
class Event(Wire):
    """Base of every notification the daemon sends."""

    EVENT: ClassVar[str] = ""

    @classmethod
    def wire_name(cls) -> str:
        return cls.EVENT


def is_params(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, Params)


def read_result(params: Params, value: Any) -> Result:
    """The result of `params`' method as its class, from the JSON the daemon sent."""
    return params.RESULT.from_json(value)


# -- results ---------------------------------------------------------------------------
@wire
class PingResult(Result):
    pid: int
    uptime: float
    watched: int  # jobs the daemon keeps current
    settings: dict[str, str | None] | None = omitted_when_none()  # what decides the secrets and profiles it reads


@wire
class StopDaemonResult(Result):
    stopping: bool = True


@wire
class UploadSummary(Result):
    """What an upload did (snake_case on the wire, as it always was)."""

    SNAKE: ClassVar[bool] = True
    remote: str
    sent_files: int
    sent_bytes: int
    changed_files: int = 0  # new or different since the last upload there
    unchanged_files: int
    removed_files: int
    cleaned: list[str] = field(default_factory=list)  # unfinished earlier uploads removed first
    resent_files: int = 0  # unchanged but sent again: the folder was not as the last upload left it, or the tree went whole
    seconds: float


@wire
class CodeStorage(Result):
    """Where a job's code went when it went to a storage the job mounts (not to a codeDir)."""

    storage: str  # the storage's name
    path: str  # the code's folder in it: /<user>~<job>
    mount_path: str  # where the job mounts the storage: /mnt/<storage>
    job_folder: str  # where the job's commands run: <mountPath>/<user>~<job> (a `cd` added before them)
    chosen_by: str | None = omitted_when_none()  # "setting" (pai.job.upload.storage), "default" (the user's), "job" (it mounts it)


@wire
class SubmitResult(Result):
    job: str
    cluster: str
    user: str | None
    upload: UploadSummary | None  # None: nothing to upload (no codeDir, or uploads off)
    warnings: list[str]  # the cluster's, one line each, about the job it accepted
    record: RecordSummary | None = omitted_when_none()  # the submission record kept of it (none: a resumed submit)
    code_storage: CodeStorage | None = omitted_when_none()  # the upload went to a storage the job mounts


@wire
class DebugResult(SubmitResult):
    """A Debug Job submit: the job, and which of its tasks wait for a debugger."""

    tasks: list[str]  # "role:index" of each debugged task


@wire
class PathMapping(Result):
    """A folder of the workspace and where it is in the task's container (debugpy's `pathMappings` item)."""

    local_root: str
    remote_root: str


@wire
class DebugTarget(Result):
    """A debugged task's process as a debugger attaches to it: `host` and `port` go to debugpy's `attach`
    `connect` as they are (the local end of an SSH tunnel when one was needed), with `path_mappings`.
    `state`: "waiting" (not listening yet: host and port may still be empty), "listening", "ended"."""

    job: str
    task: str  # "role:index"
    host: str
    port: int
    path_mappings: list[PathMapping]
    state: str
    post_mortem: str | None = omitted_when_none()  # it listens because this exception ended the program
    worker: int | None = omitted_when_none()  # the local worker (LOCAL_RANK) of a task that starts several (torchrun)


@wire
class DebugTargetsResult(Result):
    job: str
    cluster: str
    targets: list[DebugTarget]
    state: str  # the job's
    message: str | None = omitted_when_none()  # why none listens yet or ever will, in the caller's language


@wire
class DebugEndResult(Result):
    job: str
    closed: int  # tunnels closed


@wire
class UploadPreview(Result):
    workspace: str
    remote: str
    files: int
    bytes: int
    largest: list[list[str | int]]  # [path, size]
    data_like: list[list[str | int]]  # [path, size] of files that look like data
    unchanged: int  # files the last upload there has already
    max_files: int
    max_bytes: int
    over_limits: str | None  # what is over the limits, in words
    problems: list[str]  # lines of .paiignore / .gitignore that are no pattern
    entries: list[list[str | int]] | None = omitted_when_none()  # [path, size] of every file (with `listFiles`)


@wire
class PreviewResult(Result):
    job: str
    cluster: str
    user: str | None
    file: str
    generated_name: bool
    upload: UploadPreview | None
    config: dict[str, Any]  # after substitution (a v2 job's secrets masked unless `showSecrets`)
    rendered: str  # the job as the server will see it: a v2 job's YAML with its templates filled in, a v1 config's JSON
    v2: bool  # a v2 (YAML) job
    converted: dict[str, Any] | None  # the v1 config a v1-only cluster gets instead of a v2 job
    text: str  # what `pai submit --dry-run` prints
    code_storage: CodeStorage | None = omitted_when_none()  # the upload would go to a storage the job mounts


@wire
class JobRow(Result):
    name: str
    state: str
    created: int | None  # ms since the epoch
    completed: int | None
    exit_code: int | None
    retries: int | None
    virtual_cluster: str | None


@wire
class JobsResult(Result):
    cluster: str
    user: str | None
    total: int
    offset: int
    jobs: list[JobRow]  # newest first


@wire
class TaskRow(Result):
    role: str
    index: int
    state: str
    ports: dict[str, str | int]  # label -> "port[,port…]"
    ip: str | None
    exit_code: int | None
    log: str | None
    worker: str | None  # a PaddlePaddle Cloud pod's name
    started: int | None
    message: str | None  # why it ended


@wire
class StatusResult(Result):
    """`exitCode` is the cluster's (255 for any failed command), `userExitCode` the command's own
    when the cluster reports it, `exitReason` the cluster's code in words; `webPortal` the job's page."""

    name: str
    cluster: str | None
    web_portal: str | None
    state: str
    created: int | None
    completed: int | None
    exit_code: int | None
    diagnostics: str
    user_exit_code: int | None
    exit_reason: str
    tasks: list[TaskRow]
    diagnostics_said: dict[str, Any] | None = omitted_when_none()  # `diagnostics` in pai's words: code and args (`said_diagnostics`)
    idle_gpu: IdleGpu | None = omitted_when_none()  # a running job whose GPUs sit idle (`Status`'s thresholds)

    @classmethod
    def of(cls, job: JobDetail, cluster: str | None = None, web_portal: str | None = None,
           idle_gpu: IdleGpu | None = None) -> StatusResult:
        return cls(name=job.name, cluster=cluster, web_portal=web_portal, state=job.state, created=job.created,
                   completed=job.completed, exit_code=job.exit_code, diagnostics=str(job.diagnostics),
                   diagnostics_said=said_as_json(job.diagnostics), user_exit_code=job.user_exit_code, exit_reason=job.exit_reason, idle_gpu=idle_gpu,
                   tasks=[TaskRow(role=t.role, index=t.index, state=t.state, ports=t.ports, ip=t.ip, exit_code=t.exit_code,
                                  log=t.log, worker=t.worker, started=t.started, message=t.message) for t in job.tasks])


def said_as_json(text: str | Message) -> dict[str, Any] | None:
    """A job's diagnostics as the wire carries them beside their English: a message pai said (a
    backend whose cluster says none, PaddlePaddle Cloud) as its code and arguments; None for the
    cluster's own words, which are shown as they are."""
    return text.to_json() if isinstance(text, Message) else None


def said_diagnostics(status: StatusResult | JobStatus, locale: str | None) -> str:
    """A job's diagnostics in the reader's language where pai said them (`diagnostics_said`), else as sent."""
    said = Message.from_json(status.diagnostics_said) if status.diagnostics_said else None
    return said.render(locale) if said is not None else status.diagnostics


@wire
class IdleGpu(Result):
    """A running job whose GPUs stayed below `threshold` percent over the last `minutes` (the portal's low-GPU
    rule): `average` is theirs over that window, `gpus` how many GPU series it held."""

    average: float
    threshold: float
    minutes: float
    gpus: int


@wire
class GpuFigures(Result):
    minor: str  # the GPU's minor number, as job-exporter labels it
    utilization: float | None  # percent
    memory_percent: float | None  # framebuffer used, percent


@wire
class TaskFigures(Result):
    """One task's figures now; None where the cluster had no sample."""

    role: str
    index: int
    cpu_percent: float | None  # 100 = one core
    memory_bytes: float | None
    memory_limit_bytes: float | None
    memory_percent: float | None  # of its limit
    gpus: list[GpuFigures]


@wire
class JobMetricsResult(Result):
    job: str
    cluster: str
    time: float  # unix seconds of the answer
    tasks: list[TaskFigures]  # running tasks with samples, by role and index


@wire
class MetricSeries(Result):
    role: str
    index: int
    metric: str  # cpu, memory, memory_limit, memory_percent, gpu, gpu_memory
    minor: str | None  # the GPU, for gpu and gpu_memory
    points: list[list[float]]  # [unix seconds, value]


@wire
class JobMetricsRangeResult(Result):
    job: str
    cluster: str
    start: float
    end: float
    step: float
    series: list[MetricSeries]


@wire
class WhyText(Result):
    """One text in English and in Simplified Chinese (the daemon answers clients of either locale)."""

    en: str
    zh: str


@wire
class WhyEvidence(Result):
    line: int  # 1-based in the log; 0 when not from the log
    text: str
    source: str = "log"  # "log" | "diagnostics"


@wire
class WhyFrame(Result):
    """A traceback frame; `workspace` the user's file it came from (relative to the result's `workspace`)."""

    path: str
    line: int
    function: str | None = None
    source: str | None = None
    log_line: int = 0
    user: bool = False
    uploaded: str | None = None  # its path inside the uploaded code folder
    workspace: str | None = None
    matched_by: str | None = None  # "code-dir" | "suffix"


@wire
class WhyException(Result):
    type: str
    message: str
    frames: list[WhyFrame] = field(default_factory=list)
    log_line: int = 0
    header_line: int = 0
    child: bool = False


@wire
class WhyTraceback(Result):
    chain: list[WhyException]
    primary: WhyFrame | None = None  # the deepest frame in the user's own code: where a diagnostic goes
    related: list[WhyFrame] = field(default_factory=list)  # the other user frames, deepest first


@wire
class WhyExplanation(Result):
    """`core.triage.Explanation` on the wire: the class (`kind`), its words, the evidence, the frames."""

    kind: str
    title: WhyText
    message: WhyText
    exit_code: int | None = None
    user_exit_code: int | None = None
    exit_words: WhyText | None = None
    phrase: str | None = None  # the OpenPAI exit-spec phrase that applies
    spec_code: int | None = None
    evidence: list[WhyEvidence] = field(default_factory=list)
    last_lines: list[WhyEvidence] = field(default_factory=list)
    traceback: WhyTraceback | None = None
    signal: str | None = None
    package: str | None = None
    module: str | None = None
    path: str | None = None
    hdfs: bool = False
    command: str | None = None
    image: str | None = None
    role: str | None = None
    index: int | None = None
    retries: int | None = None
    retries_allowed: int | None = None
    cause: WhyExplanation | None = None  # a job's: the explanation of the task that ended it


@wire
class WhyResult(Result):
    """Why a job failed (or was stopped), and where: `explanation` null while it runs or when it
    succeeded; `tasks` the failed tasks' own; `changed` the frames' workspace files changed since the upload."""

    job: str
    cluster: str
    state: str
    completed: int | None
    made_at: int | None  # ms since the epoch; null: not made (the job has not ended)
    took_ms: float | None = omitted_when_none()
    explanation: WhyExplanation | None
    tasks: list[WhyExplanation]
    workspace: str | None  # the workspace folder the job was submitted from (absolute)
    code_dir: str | None  # the HDFS folder its code went to
    changed: list[str]


@wire
class ConfigResult(Result):
    job: str
    config: dict[str, Any] | str  # as the cluster has it (v2 YAML: its text)


@wire
class SshTask(Result):
    task: str  # "role:index"
    ip: str
    ssh_port: str | None
    command: str | None  # "ssh -p P root@IP"
    urls: dict[str, list[str]]  # label -> its ports' URLs
    user: str = "root"  # who logs in: root on a real cluster, the local cluster's OS user on the local cluster


@wire
class SshResult(Result):
    job: str
    tasks: list[SshTask]


@wire
class StopResult(Result):
    stopped: str  # the job
    state: str | None = omitted_when_none()  # the state it was in when stopped


@wire
class PathResult(Result):
    path: str


@wire
class WatchResult(Result):
    watched: int


@wire
class FollowLogsResult(Result):
    job: str
    state: str | None
    offsets: dict[str, int]  # bytes of each task's log sent


@wire
class ClusterRow(Result):
    name: str
    local: bool
    default: bool
    logged_in: bool
    running: bool | None  # the embedded cluster's only
    rest: str | None
    webhdfs: str | None
    user: str | None
    kind: str
    protocol: int
    datacenter: str | None = omitted_when_none()


@wire
class ClustersListResult(Result):
    default: str
    clusters: list[ClusterRow]  # the local ones first


@wire
class ClustersAddResult(Result):
    name: str
    protocol: int
    protocol_note: str  # how `protocol` was found: "as given" | "detected" | "assumed" (the server did not answer)
    logged_in: bool
    kind: str
    is_default: bool = False  # it is the default profile now (the first one, or `makeDefault`)


@wire
class ImportedCluster(Result):
    name: str
    datacenter: str
    endpoint: str
    user: str
    active: bool
    password_stored: bool


@wire
class ClustersImportPaddleResult(Result):
    config: str
    clusters: list[ImportedCluster]
    default: str
    passwords_removed: bool
    secret_store: str | None = omitted_when_none()  # where the passwords went (the keyring, or a secrets file)


@wire
class ClustersLoginResult(Result):
    name: str
    user: str


@wire
class ClustersRemoveResult(Result):
    name: str
    default: str


@wire
class ClustersSetDefaultResult(Result):
    default: str


@wire
class StoppedResult(Result):
    stopped: bool


@wire
class QuotaFigures(Result):
    cpu: str | int | float | None
    memory: str | int | float | None
    gpu: str | int | float | None
    max_parallelism: str | int | float | None


@wire
class QuotaResult(Result):
    cluster: str
    limits: QuotaFigures
    used: QuotaFigures


@wire
class RegistrySecret(Result):
    name: str  # without the `pcloud-registry-` prefix
    secret: str  # with it: what a job file names


@wire
class Registry(RegistrySecret):
    created: str | None


@wire
class RegistryListResult(Result):
    cluster: str
    registries: list[Registry]


@wire
class HdfsEntry(Result):
    name: str
    type: str  # "file" | "dir"
    size: int
    modified: int | None  # ms since the epoch
    permission: str | None  # octal
    owner: str | None
    group: str | None


@wire
class HdfsListing(Result):
    path: str
    entries: list[HdfsEntry]


@wire
class HdfsUsage(Result):
    """What a file or folder holds (`hdfs dfs -du`)."""

    path: str
    type: str  # "file" | "dir"
    bytes: int
    files: int
    folders: int


@wire
class HdfsDuResult(Result):
    path: str
    entries: list[HdfsUsage]  # one for the path (`summary`, or a file), else one per entry of the folder
    bytes: int  # their sum


@wire
class HdfsStatResult(HdfsEntry):
    path: str


@wire
class HdfsMoveResult(Result):
    source: str = field(metadata={"wire": "from"})
    target: str = field(metadata={"wire": "to"})


@wire
class HdfsData(Result):
    path: str
    data: str  # base64


@wire
class HdfsTransferResult(Result):
    path: str
    files: int
    bytes: int


@wire
class StorageInfo(Result):
    """One storage as `pai storage list` shows it."""

    name: str
    type: str | None  # the cluster's: "nfs", "samba", "azureBlob", "azureFile", "dshuttle", "other", "unknown"; None: not bound
    server: str  # where its files are: "10.0.0.1:/data", "//host/share", "account/container", a folder here; "" unknown
    read_only: bool  # jobs mount it read-only (and pai does not write to it)
    mount_path: str  # where a job that names it in extras.storages sees it: /mnt/<name>
    default: bool  # mounted when extras.storages is []
    share: bool  # false: a job (and pai) sees only its <user>/ folder


@wire
class StorageListResult(Result):
    cluster: str
    storages: list[StorageInfo]


@wire
class ClusterFactsResult(Result):
    """What the editor's checks need of a cluster, from the daemon's cache (`age` seconds old): its
    storages for the storage checks, its capacity and queue for "will it fit"."""

    cluster: str
    user: str
    takes_v2: bool  # its server reads v2 jobs as written (else a v2 job goes as v1, its code by codeDir)
    storages: list[StorageInfo] | None  # None: its jobs mount no storages (YARN era, another kind)
    age: float  # seconds since the cluster was asked
    stale: bool  # older than the cache keeps an answer fresh: being asked again
    state: dict[str, Any] | None = None  # `core.capacity.ClusterState`'s JSON; None: the cluster cannot tell


@wire
class RecordSummary(Result):
    """Where a submit's record was kept: `location` on the cluster's storage (None: this machine only)."""

    location: str | None
    sha256: str  # of the record itself (the job carries it where the cluster keeps extras)
    code_hash: str  # of the code it lists
    files: int


@wire
class SentFile(Result):
    size: int
    sha256: str | None  # None only for a file too big to hash


@wire
class GitFacts(Result):
    """The workspace's git facts at submit time (`diff`: `git diff HEAD`, None when over the limit)."""

    commit: str
    branch: str | None
    remote: str | None  # `origin`, without any user name or password
    dirty: bool
    diff: str | None
    diff_bytes: int
    untracked: list[str]  # files sent that git does not track


@wire
class SubmissionRecord(Result):
    """What a job ran, as core/record.py writes it (beside the job's code and in the local journal)."""

    version: int
    job: str
    cluster: str
    kind: str
    user: str
    submitted: str  # ISO 8601 UTC
    tool: str  # pai-lsp's version
    environment: dict[str, str]  # python, os, host
    config_file: str  # the job file, relative to the workspace
    workspace: str  # the workspace's folder on the submitting machine
    source_config: dict[str, Any]  # the config as written
    config: dict[str, Any]  # the final config sent
    variables: dict[str, str]  # the `$PAI_…` values filled in
    code_dir: str | None
    code_hash: str
    files: dict[str, SentFile]  # by path relative to the workspace
    git: GitFacts | None
    rerun_of: str | None
    sent: str | None  # the job as a protocol-2 cluster got it (v2 YAML)


@wire
class RecordShowResult(Result):
    """A job's submission record, checked; `lines` it in words; `source`: "cluster" (beside its code)
    or "journal" (this machine's copy); `notes`: what was wrong on the way."""

    record: SubmissionRecord
    sha256: str
    source: str
    location: str | None
    notes: list[str]
    lines: list[str]


@wire
class RecordCodeResult(Result):
    job: str
    path: str
    files: int
    bytes: int
    sources: dict[str, int]  # files by where they came from ("cluster" | "journal" | "git")
    said_from: str = field(metadata={"wire": "from"})  # the same in words
    notes: list[str]
    code_hash: str


@wire
class RecordFileResult(Result):
    job: str
    path: str
    data: str  # base64


@wire
class RecordRerunResult(Result):
    """A rerun submitted, or (`dryRun`) only the name, config and code folder it would send."""

    job: str
    rerun_of: str
    config: dict[str, Any] | None = omitted_when_none()  # a dry run's
    code_dir: str | None = omitted_when_none()  # a dry run's
    cluster: str | None = omitted_when_none()
    user: str | None = omitted_when_none()
    code_source: str | None = omitted_when_none()  # "cluster" | "copied" | "journal" | "git" | "none"
    code_from: str | None = omitted_when_none()  # the same in words
    upload: UploadSummary | None = omitted_when_none()
    record: RecordSummary | None = omitted_when_none()
    code_hash: str | None = omitted_when_none()
    warnings: list[str] | None = omitted_when_none()
    notes: list[str] | None = omitted_when_none()


@wire
class FileDiff(Result):
    path: str
    diff: str  # unified diff (or a line saying why none is shown)


@wire
class RecordDiffResult(Result):
    jobs: list[str]
    config: list[dict[str, Any]]  # {key, old, new, …}
    files: dict[str, list[str]]  # added / removed / changed
    diffs: list[FileDiff]
    commit: list[dict[str, Any]]
    environment: list[dict[str, Any]]
    notes: list[str]
    text: str  # what `pai diff` prints


@wire
class RecordCompareResult(Result):
    job: str
    workspace: str
    changed: list[str]
    removed: list[str]
    notes: list[str]


# -- the daemon itself -------------------------------------------------------------------
@wire
class Ping(Params):
    METHOD: ClassVar[str] = "ping"
    RESULT: ClassVar[type[Result]] = PingResult


@wire
class StopDaemon(Params):
    METHOD: ClassVar[str] = "daemon.stop"
    RESULT: ClassVar[type[Result]] = StopDaemonResult


# -- jobs --------------------------------------------------------------------------------
@wire
class OnCluster(Params):
    """`cluster` is a profile name; absent means the default profile, else `local`."""

    cluster: str | None = None


@wire
class Submit(OnCluster):
    METHOD: ClassVar[str] = "submit"
    RESULT: ClassVar[type[Result]] = SubmitResult
    file: str
    shown: str | None = None  # how messages name the file (as the user typed it)
    force: bool = False  # upload even when over pai.job.upload.maxBytes / maxFiles
    settings: dict[str, Any] | None = None  # `pai.job.*` from the editor, over the workspace's
    progress_token: str | int | None = None
    locale: str | None = None
    request_id: str | None = None  # the caller's id for this submit: asked again after the daemon died, it resumes it


@wire
class DebugOptions(Wire):
    """Which tasks of a Debug Job wait for a debugger, and how: `tasks` "first" (the first instance of
    the first task role), "all", "ROLE" or "ROLE:INDEX"; `post_mortem_minutes`: instead of waiting at
    the start, a process that fails waits this long, stopped at the exception; `via`: how the debugger
    reaches the task, "direct" or "ssh" (a tunnel the daemon opens)."""

    tasks: str = "first"
    post_mortem_minutes: int | None = omitted_when_none()
    via: str = "direct"


@wire
class Debug(Submit):
    """`submit`, with the chosen tasks' Python command run under debugpy waiting for a client."""

    METHOD: ClassVar[str] = "job.debug"
    RESULT: ClassVar[type[Result]] = DebugResult
    debug: DebugOptions = field(default_factory=DebugOptions)


@wire
class Preview(OnCluster):
    """What `submit` would do, nothing sent (`pai submit --dry-run`); `list_files`: every file too."""

    METHOD: ClassVar[str] = "preview"
    RESULT: ClassVar[type[Result]] = PreviewResult
    file: str
    shown: str | None = None
    settings: dict[str, Any] | None = None
    locale: str | None = None
    list_files: bool = False
    show_secrets: bool = False  # a v2 job's secrets in plain text in the rendered job (masked otherwise)
    debug: DebugOptions | None = None  # as `job.debug` would rewrite it


@wire
class Jobs(OnCluster):
    """The user's jobs, newest first: `limit` of them from `offset` (all when no limit)."""

    METHOD: ClassVar[str] = "jobs"
    RESULT: ClassVar[type[Result]] = JobsResult
    offset: int = 0
    limit: int | None = None


@wire
class JobRef(OnCluster):
    job: str


@wire
class Status(JobRef):
    """A running job's status also says whether its GPUs sat below `idle_threshold` percent over the last
    `idle_minutes` (the portal's rule: 10 % over 10 minutes), where the cluster has metrics."""

    METHOD: ClassVar[str] = "status"
    RESULT: ClassVar[type[Result]] = StatusResult
    idle_threshold: float = 10.0
    idle_minutes: float = 10.0


@wire
class JobMetrics(JobRef):
    """Each running task's GPU utilisation and memory (per GPU), CPU and memory now, from the cluster's
    Prometheus with OpenPAI's dashboard queries."""

    METHOD: ClassVar[str] = "job.metrics"
    RESULT: ClassVar[type[Result]] = JobMetricsResult


@wire
class JobMetricsRange(JobRef):
    """The same over a time range: `start` (default: an hour before `end`), `end` (default: now), unix
    seconds; `step` seconds between points (default: the sampling interval, coarser for a long range)."""

    METHOD: ClassVar[str] = "job.metricsRange"
    RESULT: ClassVar[type[Result]] = JobMetricsRangeResult
    start: float | None = None
    end: float | None = None
    step: float | None = None


@wire
class Stop(JobRef):
    METHOD: ClassVar[str] = "stop"
    RESULT: ClassVar[type[Result]] = StopResult


@wire
class Why(JobRef):
    """Why the job failed (or was stopped), and where: the daemon's kept explanation (`refresh`: made again)."""

    METHOD: ClassVar[str] = "job.why"
    RESULT: ClassVar[type[Result]] = WhyResult
    refresh: bool = False


@wire
class Config(JobRef):
    METHOD: ClassVar[str] = "config"
    RESULT: ClassVar[type[Result]] = ConfigResult


@wire
class Ssh(JobRef):
    METHOD: ClassVar[str] = "ssh"
    RESULT: ClassVar[type[Result]] = SshResult
    task: str | None = None  # "role:index"; every running task when absent


@wire
class DebugTargets(JobRef):
    """The debugged tasks of a job and where each waits for a debugger; with `wait` (seconds), the
    answer waits until one more task listens than `known` says, or every debugged task has ended."""

    METHOD: ClassVar[str] = "job.debugTargets"
    RESULT: ClassVar[type[Result]] = DebugTargetsResult
    wait: float | None = None
    known: int = 0  # targets listening the caller has already
    locale: str | None = None


@wire
class DebugEnd(JobRef):
    """Close what the daemon opened to reach the job's tasks (SSH tunnels)."""

    METHOD: ClassVar[str] = "job.debugEnd"
    RESULT: ClassVar[type[Result]] = DebugEndResult


@wire
class Outputs(JobRef):
    METHOD: ClassVar[str] = "outputs"
    RESULT: ClassVar[type[Result]] = PathResult
    dest: str
    progress_token: str | int | None = None  # `transfer.progress` events on it
    overwrite: bool = False  # replace what is there already (else an `exists` error)


@wire
class Watch(OnCluster):
    METHOD: ClassVar[str] = "watch"
    RESULT: ClassVar[type[Result]] = WatchResult
    job: str | None = None
    jobs: list[str] | None = None


@wire
class Subscribe(Params):
    METHOD: ClassVar[str] = "jobs.subscribe"
    RESULT: ClassVar[type[Result]] = Nothing


@wire
class FollowLogs(JobRef):
    METHOD: ClassVar[str] = "logs.follow"
    RESULT: ClassVar[type[Result]] = FollowLogsResult
    task: str | None = None  # "role:index"; all tasks when absent
    which: str = "all"  # "all" | "stdout" | "stderr"
    follow: bool = True  # False: what is there now, then return
    offsets: dict[str, int] | None = None  # bytes the caller already has, per task
    tail: int | None = None  # a task the caller has no offset of starts this many bytes before its log's end (None: at its start)


@wire
class LogPiece(Result):
    """`length` bytes of a task's log from byte `offset`, as text (as `job.log` carries them: `data`,
    base64, only when they are not all UTF-8)."""

    job: str
    task: str
    offset: int
    length: int
    text: str
    data: str | None = omitted_when_none()


@wire
class LogRead(JobRef):
    """Bytes `offset` .. `offset + length` of one task's log (at most 4 MiB): what a view opened at a
    log's tail reads backwards, on demand."""

    METHOD: ClassVar[str] = "logs.read"
    RESULT: ClassVar[type[Result]] = LogPiece
    task: str  # "role:index"
    offset: int
    length: int
    which: str = "all"  # "all" | "stdout" | "stderr"


# -- submission records (what a job ran: show, its code, rerun, compare) ------------------------
@wire
class RecordShow(JobRef):
    METHOD: ClassVar[str] = "record.show"
    RESULT: ClassVar[type[Result]] = RecordShowResult
    locale: str | None = None  # the asker's language, for the words of its result (English when absent)


@wire
class RecordCode(JobRef):
    """Download exactly what the job ran into `dest` (a new or empty folder, unless `force`)."""

    METHOD: ClassVar[str] = "record.code"
    RESULT: ClassVar[type[Result]] = RecordCodeResult
    dest: str
    force: bool = False
    locale: str | None = None  # the asker's language, for the words of its result (English when absent)


@wire
class RecordFile(JobRef):
    """One file as the job sent it (base64 `data`): an editor's read-only view."""

    METHOD: ClassVar[str] = "record.file"
    RESULT: ClassVar[type[Result]] = RecordFileResult
    path: str


@wire
class RecordRerun(JobRef):
    """Submit what the job ran again, under a new generated name (`name`: one already chosen by a
    dry run); `config`: the final config to send instead of the first run's (edited); `dryRun`: only
    say the name and config a rerun would send."""

    METHOD: ClassVar[str] = "record.rerun"
    RESULT: ClassVar[type[Result]] = RecordRerunResult
    config: dict[str, Any] | None = None
    name: str | None = None
    dry_run: bool = False
    progress_token: str | int | None = None
    locale: str | None = None  # the asker's language, for the words of its result (English when absent)


@wire
class RecordDiff(JobRef):
    METHOD: ClassVar[str] = "record.diff"
    RESULT: ClassVar[type[Result]] = RecordDiffResult
    other: str
    locale: str | None = None  # the asker's language, for the words of its result (English when absent)


@wire
class RecordCompare(JobRef):
    """Which files differ between what the job ran and the folder `workspace` now."""

    METHOD: ClassVar[str] = "record.compareWorkspace"
    RESULT: ClassVar[type[Result]] = RecordCompareResult
    workspace: str
    locale: str | None = None  # the asker's language, for the words of its result (English when absent)


RECORD_METHODS: tuple[type[Params], ...] = (RecordShow, RecordCode, RecordFile, RecordRerun, RecordDiff, RecordCompare)


# -- cluster profiles --------------------------------------------------------------------
@wire
class ClustersList(Params):
    METHOD: ClassVar[str] = "clusters.list"
    RESULT: ClassVar[type[Result]] = ClustersListResult


@wire
class ClustersAdd(Params):
    """A password, when given, goes to the OS keyring and is checked by logging in once."""

    METHOD: ClassVar[str] = "clusters.add"
    RESULT: ClassVar[type[Result]] = ClustersAddResult
    name: str
    rest: str
    webhdfs: str | None = None  # the storage: WebHDFS (required for OpenPAI), PFS (default <rest>/api/v1/pfs)
    user: str
    kind: str = "openpai"  # "openpai" | "scm" | "paddlecloud"
    protocol: int | None = None  # detected from the server when absent
    password: str | None = None
    datacenter: str | None = None  # PaddlePaddle Cloud: the datacenter's name (default: the profile's)
    make_default: bool = False  # make it the default profile (the first one is made it anyway; the result says)


@wire
class ClustersImportPaddle(Params):
    """One profile per datacenter of a paddlecloud config (`~/.paddle/config` by default); its
    passwords are stored (the keyring, or secrets.json), and taken out of the file only with
    `removePasswords` (the file is the paddlecloud client's). `keepFile` is accepted and means the default."""

    METHOD: ClassVar[str] = "clusters.importPaddle"
    RESULT: ClassVar[type[Result]] = ClustersImportPaddleResult
    config: str | None = None
    remove_passwords: bool = False
    keep_file: bool = False


@wire
class ClustersLogin(Params):
    METHOD: ClassVar[str] = "clusters.login"
    RESULT: ClassVar[type[Result]] = ClustersLoginResult
    name: str | None = None  # the default profile when absent
    password: str


@wire
class ClustersRemove(Params):
    METHOD: ClassVar[str] = "clusters.remove"
    RESULT: ClassVar[type[Result]] = ClustersRemoveResult
    name: str


@wire
class ClustersSetDefault(Params):
    METHOD: ClassVar[str] = "clusters.setDefault"
    RESULT: ClassVar[type[Result]] = ClustersSetDefaultResult
    name: str


@wire
class ClustersStopLocal(Params):
    METHOD: ClassVar[str] = "clusters.stopLocal"
    RESULT: ClassVar[type[Result]] = StoppedResult


CLUSTER_METHODS: tuple[type[Params], ...] = (ClustersList, ClustersAdd, ClustersLogin, ClustersRemove, ClustersSetDefault,
                                             ClustersStopLocal, ClustersImportPaddle)


# -- what only PaddlePaddle Cloud has (others answer with an `invalid` error) ------------------
@wire
class Quota(OnCluster):
    METHOD: ClassVar[str] = "quota"
    RESULT: ClassVar[type[Result]] = QuotaResult


@wire
class RegistryList(OnCluster):
    METHOD: ClassVar[str] = "registry.list"
    RESULT: ClassVar[type[Result]] = RegistryListResult


@wire
class RegistryAdd(OnCluster):
    """`name` without the `pcloud-registry-` prefix (added here) or with it."""

    METHOD: ClassVar[str] = "registry.add"
    RESULT: ClassVar[type[Result]] = RegistrySecret
    name: str
    username: str
    password: str
    server: str


@wire
class RegistryRemove(OnCluster):
    METHOD: ClassVar[str] = "registry.remove"
    RESULT: ClassVar[type[Result]] = RegistrySecret
    name: str


BACKEND_METHODS: tuple[type[Params], ...] = (Quota, RegistryList, RegistryAdd, RegistryRemove)


# -- capacity: virtual clusters, and why a job waits ---------------------------------------
@wire
class Amounts(Result):
    cpu: int
    memory: int  # MB
    gpu: int


@wire
class VirtualClusterRow(Result):
    """One virtual cluster: what it holds (`total`: its healthy part), uses and has free, its
    waiting and running jobs (everyone's), and whether the user may submit to it (None: unknown)."""

    name: str
    total: Amounts
    used: Amounts
    free: Amounts
    waiting: int
    running: int
    permitted: bool | None


@wire
class NodeRow(Result):
    name: str
    gpu_used: int
    gpu_available: int
    gpu_total: int


@wire
class VirtualClustersResult(Result):
    """`nodes` is empty where the cluster does not list them; `fetched` is when it answered (ms)."""

    cluster: str
    vcs: list[VirtualClusterRow]
    nodes: list[NodeRow]
    sku_types: dict[str, Amounts]
    fetched: int


@wire
class WaitingResult(Result):
    """`explanation` (only for a WAITING job): `core.waiting.Explanation`'s JSON — the reason as a
    catalogue message, the jobs-ahead estimate, what is free, who holds it — rendered by the reader."""

    cluster: str
    job: str
    state: str
    explanation: dict[str, Any] | None = None
    # The explanation in the editor's language, filled by the language server: the reason alone, and every line.
    reason: str | None = omitted_when_none()
    lines: list[str] = field(default_factory=list)


@wire
class VirtualClusters(OnCluster):
    METHOD: ClassVar[str] = "vc.list"
    RESULT: ClassVar[type[Result]] = VirtualClustersResult


@wire
class Waiting(JobRef):
    """Why the job waits: its events and its virtual cluster's state, asked now."""

    METHOD: ClassVar[str] = "job.waiting"
    RESULT: ClassVar[type[Result]] = WaitingResult


CAPACITY_METHODS: tuple[type[Params], ...] = (VirtualClusters, Waiting)


# -- HDFS --------------------------------------------------------------------------------
@wire
class OnStorage(OnCluster):
    """`storage`: one of the storages the cluster's jobs mount, by name (`storages.list`); absent: the
    cluster's HDFS (PFS). Writes to a read-only storage are refused."""

    storage: str | None = None


@wire
class HdfsPath(OnStorage):
    """Relative paths are under `/user/<user>` on HDFS, under `/` on a mounted storage."""

    path: str


@wire
class HdfsList(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.ls"
    RESULT: ClassVar[type[Result]] = HdfsListing
    recursive: bool = False  # everything under the folder, named by its path from it


@wire
class HdfsDu(HdfsPath):
    """Bytes and files held: one row per entry of a folder, or one for the path with `summary`."""

    METHOD: ClassVar[str] = "hdfs.du"
    RESULT: ClassVar[type[Result]] = HdfsDuResult
    summary: bool = False


@wire
class HdfsStat(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.stat"
    RESULT: ClassVar[type[Result]] = HdfsStatResult


@wire
class HdfsMkdir(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.mkdir"
    RESULT: ClassVar[type[Result]] = PathResult


@wire
class HdfsRemove(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.rm"
    RESULT: ClassVar[type[Result]] = PathResult
    recursive: bool = False


@wire
class HdfsMove(OnStorage):
    METHOD: ClassVar[str] = "hdfs.mv"
    RESULT: ClassVar[type[Result]] = HdfsMoveResult
    source: str = field(metadata={"wire": "from"})
    target: str = field(metadata={"wire": "to"})


@wire
class HdfsCat(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.cat"
    RESULT: ClassVar[type[Result]] = HdfsData
    offset: int = 0
    length: int | None = None


@wire
class HdfsTail(HdfsPath):
    METHOD: ClassVar[str] = "hdfs.tail"
    RESULT: ClassVar[type[Result]] = HdfsData
    size: int = field(default=1024, metadata={"wire": "bytes"})


@wire
class HdfsTransfer(OnStorage):
    """Into `local` / `remote` when it is a folder or ends with `/`; what is there already is
    replaced only with `overwrite` (else an `exists` error)."""

    local: str
    remote: str
    progress_token: str | int | None = None
    overwrite: bool = False


@wire
class HdfsPut(HdfsTransfer):
    METHOD: ClassVar[str] = "hdfs.put"
    RESULT: ClassVar[type[Result]] = HdfsTransferResult


@wire
class HdfsGet(HdfsTransfer):
    METHOD: ClassVar[str] = "hdfs.get"
    RESULT: ClassVar[type[Result]] = HdfsTransferResult


# -- the storages a cluster's jobs mount (Kubernetes-era OpenPAI, the local cluster) -------
@wire
class StorageList(OnCluster):
    """The storages the user may mount, with what a job and a person need of each (never its
    credentials). The file verbs are `hdfs.*` with `storage` set."""

    METHOD: ClassVar[str] = "storages.list"
    RESULT: ClassVar[type[Result]] = StorageListResult


@wire
class ClusterFacts(OnCluster):
    """What the editor's checks need of the cluster (its storages, whether it reads v2 jobs, its
    capacity and queue), from the daemon's one cache of it: fetched in the background, kept a while;
    the local cluster is never started for it. Fails (`unreachable`) while the cluster cannot be asked
    and nothing is kept."""

    METHOD: ClassVar[str] = "cluster.facts"
    RESULT: ClassVar[type[Result]] = ClusterFactsResult


HDFS_METHODS: tuple[type[Params], ...] = (HdfsList, HdfsStat, HdfsDu, HdfsMkdir, HdfsRemove, HdfsMove, HdfsCat, HdfsTail, HdfsPut, HdfsGet)
METHODS: dict[str, type[Params]] = {cls.METHOD: cls for cls in (
    Ping, StopDaemon, Submit, Debug, DebugTargets, DebugEnd, Preview, Jobs, Status, Why, Config, Ssh, Stop, Outputs, Watch, Subscribe, FollowLogs, LogRead,
    JobMetrics, JobMetricsRange, *CLUSTER_METHODS,
    *HDFS_METHODS, StorageList, ClusterFacts, *BACKEND_METHODS, *RECORD_METHODS, *CAPACITY_METHODS)}

# Methods that stop cleanly when their caller cancels them (`$/cancelRequest` with the request's id,
# as in LSP: Ctrl-C, the editor's Cancel): the reply then says what was and was not done.
CANCEL_REQUEST = "$/cancelRequest"
CANCELLABLE = frozenset({Submit.METHOD, Debug.METHOD, Outputs.METHOD, HdfsPut.METHOD, HdfsGet.METHOD})


# -- events ------------------------------------------------------------------------------
@wire
class Progress(Event):
    """How far an upload or transfer is (for a request that gave a `progressToken`)."""

    token: str | int
    bytes: int
    total_bytes: int
    files: int
    total_files: int


@wire
class UploadProgress(Progress):
    EVENT: ClassVar[str] = "upload.progress"


@wire
class TransferProgress(Progress):
    EVENT: ClassVar[str] = "transfer.progress"


@wire
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


@wire
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
    retries: int | None = None  # times the platform ran it again, where the cluster counts them
    diagnostics_said: dict[str, Any] | None = omitted_when_none()  # `diagnostics` in pai's words: code and args (`said_diagnostics`)


@wire
class JobEnded(Event):
    """A watched job ended (SUCCEEDED, FAILED, STOPPED) or was run again (RETRIED): sent once per end
    to every subscriber, and as the desktop notice and webhooks the user set (`notices.json`)."""

    EVENT: ClassVar[str] = "job.ended"
    job: str
    cluster: str | None = None
    state: str  # SUCCEEDED, FAILED, STOPPED or RETRIED
    why: str = ""  # a failed job's cause in one line (English), when it could be found
    why_zh: str = ""  # the same in Chinese
    retries: int | None = None
    exit_code: int | None = None


EVENTS: dict[str, type[Event]] = {cls.EVENT: cls for cls in (UploadProgress, TransferProgress, JobLog, JobStatus, JobEnded)}




# -- the language server's commands (`workspace/executeCommand`) -----------------------------
# Each takes one argument, an object (one of the classes below or a daemon method's params), and
# answers `{ok: true, …its result}` or `{ok: false, kind, message}` (errors.py's wire form, said
# in the editor's language). server/commands.py implements them.
@wire
class NoArgument(Params):
    """A command that needs nothing (an empty object, or no argument at all)."""


@wire
class OnConfig(Params):
    """A command on a job file: the object, or (what code lenses and minimal clients send) its bare URI."""

    uri: str
    cluster: str | None = None

    @classmethod
    def from_json(cls: type[W], data: Any) -> W:
        return super().from_json({"uri": data} if isinstance(data, str) else data)


@wire
class SubmitJob(OnConfig):
    """`pai.submitJob` / `pai.runLocally`; `work_done_token` is the client's progress token, on which
    the upload is reported and can be cancelled."""

    METHOD: ClassVar[str] = "pai.submitJob"
    RESULT: ClassVar[type[Result]] = SubmitResult
    work_done_token: str | int | None = None


@wire
class DebugJob(OnConfig):
    """`pai.debugJob`: submit the job file so that the chosen tasks wait for a debugger (`job.debug`)."""

    METHOD: ClassVar[str] = "pai.debugJob"
    RESULT: ClassVar[type[Result]] = DebugResult
    tasks: str = "first"
    post_mortem_minutes: int | None = None
    via: str = "direct"
    work_done_token: str | int | None = None


@wire
class PreviewUpload(OnConfig):
    """Which config, to which cluster (the default one when absent), and whether to list every file."""

    METHOD: ClassVar[str] = "pai.previewUpload"
    RESULT: ClassVar[type[Result]] = PreviewResult
    list_files: bool = False


@wire
class RenderedPreviewResult(PreviewResult):
    language: str  # how to show `text`, which is `rendered` here: "yaml" (a v2 job) or "json"


@wire
class PreviewRendered(OnConfig):
    """The job as the server will see it: which job file, for which cluster (the default one when absent), and
    whether a v2 job's secrets are shown in plain text (masked otherwise)."""

    METHOD: ClassVar[str] = "pai.previewRendered"
    RESULT: ClassVar[type[Result]] = RenderedPreviewResult
    show_secrets: bool = False


@wire
class JobOutputs(JobRef):
    """The job's outputDir into `dest`, reported on `work_done_token` as it goes."""

    METHOD: ClassVar[str] = "pai.jobOutputs"
    RESULT: ClassVar[type[Result]] = PathResult
    dest: str
    work_done_token: str | int | None = None
    overwrite: bool = False  # replace what is there already (else an `exists` failure)


@wire
class ConfigText(ConfigResult):
    text: str  # the config as text: JSON with a 2-space indent in the cluster's key order, or the YAML as it is


@wire
class JobConfig(Config):
    METHOD: ClassVar[str] = "pai.job.config"
    RESULT: ClassVar[type[Result]] = ConfigText


@wire
class Following(Result):
    job: str
    cluster: str | None


@wire
class Follow(FollowLogs):
    """Relay the job's log as `pai/jobLog` from `offsets` on, then `pai/jobLogEnd`."""

    METHOD: ClassVar[str] = "pai.job.follow"
    RESULT: ClassVar[type[Result]] = Following


@wire
class Unfollow(JobRef):
    METHOD: ClassVar[str] = "pai.job.unfollow"
    RESULT: ClassVar[type[Result]] = StoppedResult


@wire
class HdfsText(Result):
    path: str
    text: str  # the file's bytes as UTF-8 (what is not UTF-8 as U+FFFD)


@wire
class HdfsCatText(HdfsCat):
    RESULT: ClassVar[type[Result]] = HdfsText


@wire
class HdfsTailText(HdfsTail):
    RESULT: ClassVar[type[Result]] = HdfsText


@wire
class HdfsPutWithProgress(HdfsPut):
    work_done_token: str | int | None = None  # the transfer reported on it as `$/progress`


@wire
class HdfsGetWithProgress(HdfsGet):
    work_done_token: str | int | None = None


@wire
class RecordText(Result):
    job: str
    path: str
    text: str  # the file's bytes as UTF-8 (what is not UTF-8 as U+FFFD)


@wire
class SubmittedFile(RecordFile):
    """One file exactly as the job sent it (checked against its recorded hash), as text."""

    METHOD: ClassVar[str] = "pai.job.submittedFile"
    RESULT: ClassVar[type[Result]] = RecordText


@wire
class JobFileFormat(Result):
    format: str
    title: str  # in the client's language
    patterns: list[str]  # "*.pai.json"
    syntax: str  # "json" | "yaml"


@wire
class KindRow(Result):
    name: str
    title: str
    job_format: str
    job_files: list[str]
    storage: str  # "WebHDFS" | "PFS": what a profile's `webhdfs` URI points at
    storage_required: bool
    local: str | None  # the embedded cluster's profile of that kind


@wire
class KindsResult(Result):
    job_files: list[JobFileFormat]
    kinds: list[KindRow]


@wire
class Kinds(NoArgument):
    METHOD: ClassVar[str] = "pai.kinds"
    RESULT: ClassVar[type[Result]] = KindsResult


COMMANDS: dict[str, type[Params]] = {
    "pai.submitJob": SubmitJob,
    "pai.runLocally": SubmitJob,
    "pai.debugJob": DebugJob,
    "pai.debugTargets": DebugTargets,
    "pai.debugEnd": DebugEnd,
    "pai.previewUpload": PreviewUpload,
    "pai.previewRendered": PreviewRendered,
    "pai.jobs.list": Jobs,
    "pai.job.status": Status,
    "pai.job.why": Why,
    "pai.job.config": JobConfig,
    "pai.job.ssh": Ssh,
    "pai.job.stop": Stop,
    "pai.job.metrics": JobMetrics,
    "pai.job.metricsRange": JobMetricsRange,
    "pai.job.follow": Follow,
    "pai.job.unfollow": Unfollow,
    "pai.job.logRead": LogRead,
    "pai.jobOutputs": JobOutputs,
    "pai.job.record": RecordShow,
    "pai.job.submittedFile": SubmittedFile,
    "pai.job.compareWorkspace": RecordCompare,
    "pai.job.diff": RecordDiff,
    "pai.job.rerun": RecordRerun,
    "pai.kinds": Kinds,
    "pai.clusters.list": ClustersList,
    "pai.clusters.add": ClustersAdd,
    "pai.clusters.login": ClustersLogin,
    "pai.clusters.remove": ClustersRemove,
    "pai.clusters.setDefault": ClustersSetDefault,
    "pai.clusters.stopLocal": ClustersStopLocal,
    "pai.hdfs.ls": HdfsList,
    "pai.hdfs.stat": HdfsStat,
    "pai.hdfs.mkdir": HdfsMkdir,
    "pai.hdfs.rm": HdfsRemove,
    "pai.hdfs.mv": HdfsMove,
    "pai.hdfs.cat": HdfsCatText,
    "pai.hdfs.tail": HdfsTailText,
    "pai.hdfs.put": HdfsPutWithProgress,
    "pai.hdfs.get": HdfsGetWithProgress,
    "pai.storages.list": StorageList,
    "pai.vc.list": VirtualClusters,
    "pai.job.waiting": Waiting,
}
"""Every command, by the class of its one argument (whose `RESULT` is what it answers)."""


# -- what the language server sends the editor --------------------------------------------------
@wire
class OnJob(Event):
    job: str
    cluster: str | None
    uri: str | None = omitted_when_none()  # the config a submit from this client came from


@wire
class EditorJobLog(OnJob):
    """`text` stands for `length` bytes of the task's log from byte `offset`."""

    EVENT: ClassVar[str] = "pai/jobLog"
    task: str  # "role:index"
    task_count: int | None  # tasks of the job: prefix lines with the task only when several
    offset: int
    length: int
    text: str


@wire
class EditorJobLogEnd(OnJob):
    """The relay ended: the job ended (`state`), or `message` says why it could not go on."""

    EVENT: ClassVar[str] = "pai/jobLogEnd"
    state: str | None
    offsets: dict[str, int]
    message: str | None = omitted_when_none()


@wire
class EditorJobStatus(OnJob):
    EVENT: ClassVar[str] = "pai/jobStatus"
    state: str
    exit_code: int | None
    diagnostics: str


@wire
class EditorJobEnded(OnJob):
    """A watched job ended or was run again: the editor says so, offering its log and, when it failed, why."""

    EVENT: ClassVar[str] = "pai/jobEnded"
    state: str  # SUCCEEDED, FAILED, STOPPED or RETRIED
    message: str  # the notice in the editor's language
    why: str = ""  # a failed job's cause in one line, in the editor's language
    retries: int | None = omitted_when_none()


NOTIFICATIONS: dict[str, type[Event]] = {cls.EVENT: cls for cls in (EditorJobLog, EditorJobLogEnd, EditorJobStatus,
                                                                    EditorJobEnded)}


# -- the same as a JSON Schema -------------------------------------------------------------------
def _type_schema(hint: Any, ref: Callable[[type], dict]) -> dict:
    simple = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
    origin = typing.get_origin(hint)
    if hint in simple:
        return {"type": simple[hint]}
    if hint is Any:
        return {}
    if _is_wire(hint):
        return ref(hint)
    if origin in (typing.Union, types.UnionType):
        options = [_type_schema(h, ref) for h in typing.get_args(hint)]
        if all(set(o) == {"type"} and isinstance(o["type"], str) for o in options):
            return {"type": [o["type"] for o in options]}
        return {"anyOf": options}
    if origin is list:
        (item,) = typing.get_args(hint) or (Any,)
        return {"type": "array", "items": _type_schema(item, ref)}
    if origin is dict:
        _, item = typing.get_args(hint) or (Any, Any)
        return {"type": "object", "additionalProperties": _type_schema(item, ref)}
    raise TypeError(f"no JSON Schema for {hint!r}")


def _object_schema(cls: type[Wire], ref: Callable[[type], dict]) -> dict:
    """A class as an object schema: a params field is required when it has no default; a result's
    or an event's is always sent, unless it is left out when None."""
    hints = _hints(cls)
    properties, required = {}, []
    for f in fields(cls):
        key = _wire(cls, f)
        properties[key] = _type_schema(hints[f.name], ref)
        given = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if given or (not issubclass(cls, Params) and not f.metadata.get("omit")):
            required.append(key)
    out: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if cls.__doc__ and not cls.__doc__.startswith(cls.__name__ + "("):  # not dataclass's made-up one
        out["description"] = " ".join(cls.__doc__.split())
    return out


def schema() -> dict[str, Any]:
    """The whole API as one JSON Schema document: `$defs` holds every class; `methods` (the daemon's),
    `commands` (the language server's) and the events name theirs. A failure is `Failure` (the
    daemon's JSON-RPC `error.data`) or, answering a command, `CommandFailure`."""
    from .errors import ERROR_CLASSES

    defs: dict[str, Any] = {}

    def ref(cls: type) -> dict:
        if cls.__name__ not in defs:
            defs[cls.__name__] = {}
            defs[cls.__name__] = _object_schema(cls, ref)
        return {"$ref": f"#/$defs/{cls.__name__}"}

    methods = {name: {"params": ref(cls), "result": ref(cls.RESULT)} for name, cls in METHODS.items()}
    commands = {name: {"argument": ref(cls), "result": ref(cls.RESULT)} for name, cls in COMMANDS.items()}
    events = {name: ref(cls) for name, cls in EVENTS.items()}
    notifications = {name: ref(cls) for name, cls in NOTIFICATIONS.items()}
    kinds = {"type": "string", "enum": sorted(ERROR_CLASSES)}
    defs["Failure"] = {"type": "object", "required": ["kind"], "description": "Beside the one line (`message`): which "
                       "failure, and its message's catalogue code and arguments, to say it in the reader's language.",
                       "properties": {"kind": kinds, "code": {"type": "string"}, "args": {"type": "object"}}}
    defs["CommandFailure"] = {"type": "object", "required": ["ok", "kind", "message"],
                              "description": "A command's answer when it failed: its message in the editor's language.",
                              "properties": {"ok": {"const": False}, "kind": kinds, "message": {"type": "string"}}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://pai-lsp/protocol.schema.json",
            "title": "pai-lsp: the daemon's methods and events, the language server's commands and notifications",
            "description": "Generated from pai_lsp/api.py by scripts/protocol-schema; do not edit.",
            "methods": methods, "events": events, "commands": commands, "notifications": notifications,
            "$defs": dict(sorted(defs.items()))}
