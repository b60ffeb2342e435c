"""A cluster in memory behind the `Backend` interface, for the service layer and the daemon tested
in-process: jobs whose state and logs advance one step each time they are looked at, a file system
behind the `Storage` interface, a quota and image registry secrets. Every method of `Backend` is
here (it is an abstract class: a fake that lacks one cannot be made)."""

from __future__ import annotations

import posixpath
import time
from dataclasses import dataclass, field

from pai_lsp.clusters.backend import Backend
from pai_lsp.clusters.openpai import OpenPai, hdfs_path, substitute
from pai_lsp.clusters.profiles import Profile
from pai_lsp.core import paddle
from pai_lsp.core.capacity import ClusterState, Event, asks_from_config
from pai_lsp.core.openpai_rest import JobDetail, JobSummary, TaskStatus
from pai_lsp.errors import NameTaken, NotFound, Unsupported
from pai_lsp.storage.base import Stat, Storage
from pai_lsp.storage.upload import unchanged_files, upload

FINISHED = ("SUCCEEDED", "FAILED", "STOPPED")


class MemoryStorage(Storage):
    """A `Storage` over a dict of files, for the service layer tested in-process."""

    name = "HDFS"

    def __init__(self, user: str):
        self.user = user
        self.home = f"/user/{user}"
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = {"/"}

    def _parents(self, path: str) -> None:
        while path not in ("/", ""):
            self.dirs.add(path)
            path = posixpath.dirname(path)

    def status(self, path: str) -> Stat | None:
        path = posixpath.normpath(path)
        if path in self.files:
            return self._status(path, False, len(self.files[path]))
        if path in self.dirs:
            return self._status(path, True, 0)
        return None

    def _status(self, path: str, is_dir: bool, length: int) -> Stat:
        return Stat(posixpath.basename(path), is_dir, length, int(time.time() * 1000), "755", self.user, "supergroup")

    def list(self, path: str) -> list[Stat]:
        path = posixpath.normpath(path)
        if self.status(path) is None:
            raise self.missing(path)
        names = {p[len(path.rstrip("/")) + 1:].split("/")[0] for p in [*self.files, *self.dirs]
                 if p != path and p.startswith(path.rstrip("/") + "/")}
        return [self.status(posixpath.join(path, n)) for n in sorted(names)]

    def mkdir(self, path: str) -> None:
        self._parents(posixpath.normpath(path))

    def write(self, path: str, data, sent=None) -> None:
        """`data`: bytes, or a streamed `Body` (read, and so hashed, as the real client does)."""
        path = posixpath.normpath(path)
        self._parents(posixpath.dirname(path))
        self.files[path] = data.read() if hasattr(data, "read") else bytes(data)
        if sent is not None:
            sent(len(self.files[path]))

    def stream(self, path: str, offset: int = 0, length: int | None = None):
        data = self.files.get(posixpath.normpath(path))
        if data is None:
            raise self.missing(path)
        yield data[offset:] if length is None else data[offset:offset + length]

    def delete(self, path: str, recursive: bool = False) -> bool:
        path = posixpath.normpath(path)
        inside = [p for p in [*self.files, *self.dirs] if p == path or p.startswith(path + "/")]
        for p in inside:
            self.files.pop(p, None)
            self.dirs.discard(p)
        return bool(inside)

    def rename(self, src: str, dst: str) -> None:
        src, dst = posixpath.normpath(src), posixpath.normpath(dst)
        for p in [p for p in self.files if p == src or p.startswith(src + "/")]:
            self.files[dst + p[len(src):]] = self.files.pop(p)
        for p in [p for p in self.dirs if p == src or p.startswith(src + "/")]:
            self.dirs.discard(p)
            self.dirs.add(dst + p[len(src):])

    def content(self, path: str) -> dict:
        path = posixpath.normpath(path)
        inside = [p for p in self.files if p.startswith(path + "/")]
        folders = [p for p in self.dirs if p == path or p.startswith(path + "/")]
        return {"fileCount": len(inside), "length": sum(len(self.files[p]) for p in inside), "directoryCount": len(folders)}

    def close(self) -> None:
        pass


@dataclass
class Script:
    """How a job goes on: the state it shows at each look, and the log bytes each task has written by then."""

    states: list[str]
    logs: list[bytes] = field(default_factory=list)  # one entry per look, appended to the log of task "main:0"
    looks: int = 0


class MemoryBackend(Backend):
    """A cluster in memory: submitted jobs run their `Script` (by default: WAITING, RUNNING, SUCCEEDED);
    the jobs not finished use the quota (`limits`) by their tasks' cpus, memory and gpus."""

    def __init__(self, name: str = "local", user: str = "alice", kind: str = "openpai", limits: dict | None = None):
        self.profile = Profile(name, "memory://rest", "memory://hdfs", user, kind)
        self._storage = MemoryStorage(user)
        self.submitted: dict[str, dict] = {}
        self.scripts: dict[str, Script] = {}
        self.log_bytes: dict[str, bytes] = {}
        self.stopped: list[str] = []
        self.logins = 0
        self.limits = limits or {"cpu": 64, "memory": 262144, "gpu": 8, "maxParallelism": 16}
        self.secrets: dict[str, dict] = {}  # registry secret name -> what it was made with
        self.events: dict[str, list[Event]] = {}  # a job's pod events, as a test sets them

    @property
    def storage(self) -> MemoryStorage:
        return self._storage

    def login(self) -> None:
        self.logins += 1

    # The OpenPAI backend's own rules for names, codeDir and uploads (a cluster in memory keeps them).
    def unique_name(self, base: str) -> str:
        return OpenPai.unique_name(self, base)  # type: ignore[arg-type]

    def place_job(self, config: dict, name: str) -> str | None:
        config["jobName"] = name
        substitute(config, name, self.profile.user)
        return hdfs_path(config["codeDir"]) if config.get("codeDir") else None

    def converted(self, config: dict) -> dict | None:
        return None  # a cluster in memory takes every job as it is

    def upload(self, files, remote: str, progress=None):
        return upload(self.storage, files, remote, progress=progress)

    def unchanged(self, files, remote: str) -> int:
        return unchanged_files(self.storage, files, remote)

    def submit(self, config: dict) -> list[str]:
        self.submitted[config["jobName"]] = config
        self.scripts.setdefault(config["jobName"], Script(["WAITING", "RUNNING", "SUCCEEDED"]))
        return []

    def job_exists(self, name: str) -> bool:
        return name in self.submitted

    def jobs(self) -> list[JobSummary]:
        return [JobSummary(name=name, state=self._state(name), user=self.profile.user) for name in self.submitted]

    def job(self, name: str) -> JobDetail:
        if name not in self.submitted:
            raise NotFound(f"the cluster answered 404 NoJobError: Job {name} is not found.")
        script = self.scripts[name]
        if script.looks < len(script.logs):
            self.log_bytes[name] = self.log_bytes.get(name, b"") + script.logs[script.looks]
        state = self._state(name)
        script.looks += 1
        running = state != "WAITING"
        task = TaskStatus(role="main", index=0, state=state, ip="10.0.0.1" if running else None, ports={"ssh": "2222"},
                          exit_code=0 if state == "SUCCEEDED" else None, log=f"memory://logs/{name}" if running else None)
        return JobDetail(name=name, state=state, created=1, exit_code=task.exit_code, tasks=[task])

    def task_metrics(self, name: str) -> list:
        raise Unsupported(f"{self.profile.name} is a cluster in memory: it has no Prometheus")

    def task_series(self, name: str, start: float, end: float, step: float) -> list:
        return self.task_metrics(name)

    def _state(self, name: str) -> str:
        if name in self.stopped:
            return "STOPPED"
        script = self.scripts[name]
        return script.states[min(script.looks, len(script.states) - 1)]

    def config(self, name: str) -> dict:
        if name not in self.submitted:
            raise NotFound(f"the cluster answered 404 NoJobError: Job {name} is not found.")
        return self.submitted[name]

    def stop(self, name: str) -> None:
        if name not in self.submitted:
            raise NotFound(f"the cluster answered 404 NoJobError: Job {name} is not found.")
        self.stopped.append(name)

    def log_location(self, task: TaskStatus, which: str) -> str | None:
        return task.log if task.log and task.ip else None

    def read_log(self, location: str, offset: int, limit: int | None = None) -> bytes:
        data = self.log_bytes.get(location.rsplit("/", 1)[-1], b"")
        return data[offset:] if limit is None else data[offset:offset + limit]

    def read_log_tail(self, location: str, size: int) -> bytes:
        data = self.log_bytes.get(location.rsplit("/", 1)[-1], b"")
        return data[max(0, len(data) - size):]

    def active_jobs(self) -> list[JobSummary] | None:
        return None  # like a YARN-era server: each watched job is looked at

    def quota(self) -> dict:
        used = {"cpu": 0, "memory": 0, "gpu": 0, "maxParallelism": 0}
        for name, config in self.submitted.items():
            if self._state(name) in FINISHED:
                continue
            for role in config.get("taskRoles") or []:
                count = role.get("taskNumber", 1)
                used["cpu"] += count * role.get("cpuNumber", 0)
                used["memory"] += count * role.get("memoryMB", 0)
                used["gpu"] += count * role.get("gpuNumber", 0)
                used["maxParallelism"] += count
        return {"cluster": self.profile.name, "limits": dict(self.limits), "used": used}

    def cluster_state(self) -> ClusterState:
        """One virtual cluster, `default`, of the quota's size; its unfinished jobs use it. A job
        watched here is not advanced (its state is read as it is)."""
        used = {"cpu": 0, "memory": 0, "gpu": 0}
        listed = []
        for name, config in self.submitted.items():
            state = self._state(name)
            if state in FINISHED:
                continue
            asks = asks_from_config(config)
            if state == "RUNNING":
                for ask in asks:
                    used["cpu"] += ask.instances * ask.each.cpu
                    used["memory"] += ask.instances * ask.each.memory_mb
                    used["gpu"] += ask.instances * ask.each.gpu
            listed.append({"name": name, "username": self.profile.user, "state": state, "virtualCluster": "default",
                           "submissionTime": 1, "totalGpuNumber": sum(a.instances * a.each.gpu for a in asks),
                           "totalTaskNumber": sum(a.instances for a in asks)})
        total = {k: self.limits[k] for k in ("cpu", "memory", "gpu")}
        vcs = {"default": {"resourcesTotal": total, "resourcesGuaranteed": total, "resourcesUsed": used}}
        return ClusterState.from_wire(vcs, None, None, listed, ["default"], fetched_ms=int(time.time() * 1000))

    def job_events(self, name: str) -> list[Event]:
        return list(self.events.get(name, []))

    def storages(self) -> list[dict]:
        return []  # as a Kubernetes-era server answers a user given no storage

    def storage_detail(self, name: str) -> dict:
        raise NotFound(f"Storage {name} is not found.")

    def registries(self) -> list[dict]:
        return [{"name": secret[len(paddle.REGISTRY_PREFIX):], "secret": secret, "created": made["created"]}
                for secret, made in sorted(self.secrets.items())]

    def add_registry(self, name: str, username: str, password: str, server: str) -> dict:
        secret = paddle.registry_name(name)
        if secret in self.secrets:
            raise NameTaken(f"a registry secret named {secret} already exists on {self.profile.name}")
        self.secrets[secret] = {"username": username, "password": password, "server": server,
                                "created": f"2024-01-01T00:00:{len(self.secrets):02d}Z"}
        return {"name": secret[len(paddle.REGISTRY_PREFIX):], "secret": secret}

    def remove_registry(self, name: str) -> dict:
        secret = paddle.registry_name(name)
        if self.secrets.pop(secret, None) is None:
            raise NotFound(f"no registry secret named {secret} on {self.profile.name}")
        return {"name": secret[len(paddle.REGISTRY_PREFIX):], "secret": secret}

    def close(self) -> None:
        pass
