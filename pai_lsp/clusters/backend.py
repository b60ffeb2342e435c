"""The one interface the service layer uses to reach a cluster, whatever kind it is.

OpenPAI (REST v1 and v2, and its SCM dialect) is the first implementation (`openpai.OpenPai`),
PaddlePaddle Cloud the second (`paddlecloud.PaddleCloud`); the registry of cluster kinds (`kinds.py`)
says which backend serves which kind. Jobs travel in OpenPAI's model (`core.openpai`: states, tasks);
a job file is checked in its kind's job-file format first (`*.pai.json` v1 configs, `*.paddle.json`
submit bodies), and a backend converts it to what its cluster takes.

An abstract class (as `storage.base.Storage` is): a backend that leaves out a method cannot be made.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..core.capacity import ClusterState, Event
    from ..core.metrics import Series, TaskNow
    from ..core.openpai_rest import JobDetail, JobSummary, TaskStatus
    from ..storage.base import Storage
    from ..storage.upload import Progress, Selected, UploadResult
    from .profiles import Profile


class Backend(ABC):
    profile: Profile  # which cluster, as whom

    @property
    @abstractmethod
    def storage(self) -> Storage:
        """The cluster's file system (code uploads, outputs, the HDFS explorer): WebHDFS or PFS
        behind one interface; its `home` is where relative paths start."""

    @abstractmethod
    def unique_name(self, base: str) -> str:
        """A job name made from `base` that no job has yet (the cluster's own rules for names)."""

    @abstractmethod
    def place_job(self, config: dict, name: str) -> str | None:
        """Put the job's name into its config (and what follows from it); where its code is uploaded."""

    @abstractmethod
    def converted(self, config: dict) -> dict | None:
        """What its server gets instead of a placed config written for another protocol (a v2 job's v1
        config on a v1-only OpenPAI); None when it goes as it is. InvalidInput naming what cannot be
        expressed, so that nothing is uploaded for a job that cannot be submitted."""

    @abstractmethod
    def upload(self, files: list[Selected], remote: str, progress: Progress | None = None) -> UploadResult:
        """Make the folder `remote` hold the workspace `files`, sending only what changed."""

    @abstractmethod
    def unchanged(self, files: list[Selected], remote: str) -> int:
        """How many of `files` the last upload to `remote` already holds as they are (not sent again)."""

    @abstractmethod
    def login(self) -> None:
        """Log in afresh with the stored password (the token is kept and renewed by itself)."""

    @abstractmethod
    def submit(self, config: dict) -> list[str]:
        """Start a job from a checked v1 config whose name and user are filled in. The cluster's
        warnings about the job it accepted, one line each (empty when it gave none)."""

    @abstractmethod
    def job_exists(self, name: str) -> bool: ...

    @abstractmethod
    def jobs(self) -> list[JobSummary]:
        """The user's jobs."""

    @abstractmethod
    def active_jobs(self) -> list[JobSummary] | None:
        """The user's unfinished jobs from one filtered request, so watching costs the same however
        long the history; None when the cluster cannot filter (then each watched job is asked for)."""

    @abstractmethod
    def job(self, name: str) -> JobDetail:
        """A job's state and its tasks' (state, address, ports, where their logs are)."""

    @abstractmethod
    def config(self, name: str) -> dict:
        """The config the job was submitted with."""

    @abstractmethod
    def stop(self, name: str) -> None: ...

    @abstractmethod
    def log_location(self, task: TaskStatus, which: str) -> str | None:
        """Where one log of a task (`stdout`, `stderr`, `all`) is read, once the task has one."""

    @abstractmethod
    def read_log(self, location: str, offset: int, limit: int | None = None) -> bytes:
        """The bytes of a log from byte `offset` on, at most `limit` of them (empty when there is
        nothing new): a log of any size is read in bounded pieces."""

    @abstractmethod
    def read_log_tail(self, location: str, size: int) -> bytes:
        """The last `size` bytes of a log (all of it when shorter), without reading what is before."""

    def log_end(self, location: str, size: int) -> tuple[int, bytes]:
        """The last `size` bytes of a log and the offset they start at: where a reader that opens a log
        at its end goes on from. (Here by reading it whole: a kind whose server takes ranges does better.)"""
        data = self.read_log(location, 0)
        return max(0, len(data) - size), data[-size:]

    @abstractmethod
    def storages(self) -> list[dict]:
        """The storages the user may mount in a job (`GET /api/v2/storages`: name, share, volumeName,
        default); a cluster kind that has none refuses with Unsupported, in one line."""

    @abstractmethod
    def storage_detail(self, name: str) -> dict:
        """One storage as the cluster describes it (`GET /api/v2/storages/:name`: type, data with its
        credentials, readOnly, share). The credentials are secrets: kept in memory by the caller only."""

    @abstractmethod
    def quota(self) -> dict:
        """What the user may use and uses now, as `api.QuotaResult` reads it: `cluster`, `limits` and
        `used` (PaddlePaddle Cloud; others refuse with InvalidInput)."""

    @abstractmethod
    def registries(self) -> list[dict]:
        """Image registry secrets, as `api.Registry` reads each: `name`, `secret` (what a job file names),
        `created` (PaddlePaddle Cloud; others refuse with InvalidInput)."""

    @abstractmethod
    def add_registry(self, name: str, username: str, password: str, server: str) -> dict:
        """The secret made (`name`, `secret`), `name` with or without the `pcloud-registry-` prefix."""

    @abstractmethod
    def remove_registry(self, name: str) -> dict:
        """The secret removed (`name`, `secret`)."""

    @abstractmethod
    def cluster_state(self) -> ClusterState:
        """The cluster's capacity and queue now: its virtual clusters, nodes and SKU types, everyone's
        unfinished jobs, and the virtual clusters the user may use. A kind whose cluster cannot tell
        refuses with Unsupported, in one line."""

    @abstractmethod
    def job_events(self, name: str) -> list[Event]:
        """The pods' events of the user's job (why a waiting job waits); [] where the cluster keeps none."""

    @abstractmethod
    def task_metrics(self, name: str) -> list[TaskNow]:
        """Each task's CPU, memory and GPUs now, from the cluster's Prometheus with OpenPAI's dashboard queries
        (`core.metrics`); a cluster without one refuses with Unsupported, in one line."""

    @abstractmethod
    def task_series(self, name: str, start: float, end: float, step: float) -> list[Series]:
        """The same figures from `start` to `end` (unix seconds), one point each `step` seconds."""

    @abstractmethod
    def close(self) -> None: ...


class BackendClass(Protocol):
    """How a kind's backend is made: from a profile, a way to get its password, the token kept for it
    (if any), and where to keep the token it gets."""

    def __call__(self, profile: Profile, password: Callable[[], str | None], token: str | None = None,
                 on_token: Callable[[str], None] | None = None) -> Backend: ...
