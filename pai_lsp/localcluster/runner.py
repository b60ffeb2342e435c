"""Runs one task: its environment (openpai-api.md §4), its processes (`processes.py`), its log files."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import secrets
import socket
import sys
from collections.abc import Mapping
from pathlib import Path

import psutil

from ..core.roles import TaskRole
from ..core.triage import specs
from . import processes
from .job_data import Job, Task
from .processes import TASK_MARKER, TaskProcesses
from .shell import missing, search_path
from .task_mounts import helper_argv
from .task_sshd import SshPlugin
from .task_sshd import preamble as ssh_preamble

DEBUG_HOLD_SECONDS = 604800
OUT_OF_DISK_EXIT = 198
LOG_NAMES = ("stdout", "stderr", "all")
# What a task inherits from the cluster's own environment: what a login shell needs, nothing more
# (the cluster's environment may hold tokens, passwords or a keyring's address).
SHELL_VARIABLES = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR")
# ... and on Windows what its programs need to start at all (Python cannot without SYSTEMROOT) and to find
# the user's folders. None holds a secret.
WINDOWS_VARIABLES = ("SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERNAME", "USERPROFILE",
                     "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)",
                     "PROGRAMW6432", "COMMONPROGRAMFILES", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS")
# ... and where the task's command is a container engine's client, what tells that client which engine and
# configuration the cluster found working (`docker info` ran with them): a rootless daemon's socket, a context,
# podman's configuration files. The container's own environment is given by `--env` alone, never these.
ENGINE_VARIABLES = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY",
                    "CONTAINER_HOST", "CONTAINER_CONNECTION", "CONTAINER_SSHKEY", "CONTAINERS_CONF",
                    "CONTAINERS_REGISTRIES_CONF", "CONTAINERS_STORAGE_CONF", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME",
                    "XDG_DATA_HOME")


def shell_environment(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> dict[str, str]:
    """The variables of the cluster's environment a task keeps: SHELL_VARIABLES, the LC_* locale, and
    on Windows (whose names ignore case) WINDOWS_VARIABLES."""
    if platform == "win32":
        kept = {*SHELL_VARIABLES, *WINDOWS_VARIABLES}
        return {k: v for k, v in environ.items() if k.upper() in kept or k.upper().startswith("LC_")}
    return {k: v for k, v in environ.items() if k in SHELL_VARIABLES or k.startswith("LC_")}


def free_port(preferred: int = 0) -> int:
    """A port nothing listens on now; `preferred` when it is free."""
    for candidate in ([preferred] if preferred else []) + [0]:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return s.getsockname()[1]
    raise OSError("no free port")


def allocate_ports(job: Job) -> None:
    for task in job.tasks:
        role = job.role(task.role)
        task.ports = {}
        for label, (begin, count) in role.ports.items():
            fixed = begin + task.index * count if begin else 0
            task.ports[label] = [free_port(fixed + k if fixed else 0) for k in range(count)]


def substitute_dir(value: str, job: Job, fs_uri: str) -> str:
    """What the server does to authFile / dataDir / outputDir / codeDir (§1.3)."""
    value = value.replace("$PAI_DEFAULT_FS_URI", fs_uri, 1)
    for name, replacement in (("$PAI_JOB_NAME", job.name), ("$PAI_USER_NAME", job.user), ("$PAI_USERNAME", job.user)):
        value = value.replace(name, replacement)
    return value


def environment(job: Job, task: Task, fs_uri: str, virtual_cluster: str) -> dict[str, str]:
    """The superset of current and legacy variable names (§4 emulator recommendation)."""
    role = job.role(task.role)
    env: dict[str, str] = {}
    roles = job.roles
    env.update({
        "PAI_JOB_NAME": job.framework, "PAI_FRAMEWORK_NAME": job.framework,
        "PAI_USER_NAME": job.user, "PAI_USERNAME": job.user, "HADOOP_USER_NAME": job.user,
        "PAI_DEFAULT_FS_URI": fs_uri, "PAI_VIRTUAL_CLUSTER": virtual_cluster, "PAI_JOB_VC_NAME": virtual_cluster,
        "PAI_TASK_ROLE_COUNT": str(len(roles)), "PAI_TASK_ROLES_NUM": str(len(roles)), "PAI_JOB_TASK_ROLE_COUNT": str(len(roles)),
        "PAI_TASK_ROLE_LIST": ",".join(r.name for r in roles), "PAI_JOB_TASK_ROLE_LIST": ",".join(r.name for r in roles),
        "PAI_TASKS_NUM": str(job.total_tasks), "PAI_JOB_TASK_COUNT": str(job.total_tasks),
    })
    for field in ("dataDir", "outputDir", "codeDir"):
        value = job.config.get(field) or ""
        env[f"PAI_{field[:-3].upper()}_DIR"] = substitute_dir(value, job, fs_uri)
    instances = []
    for r in roles:
        env[f"PAI_TASK_ROLE_TASK_COUNT_{r.name}"] = str(r.tasks)
        env[f"PAI_RESOURCE_{r.name}"] = f"{r.gpu},{r.cpu},{r.memory_mb},{r.shm_mb}"
        env[f"PAI_MIN_FAILED_TASK_COUNT_{r.name}"] = "" if r.min_failed is None else str(r.min_failed)
        env[f"PAI_MIN_SUCCEEDED_TASK_COUNT_{r.name}"] = "" if r.min_succeeded is None else str(r.min_succeeded)
        hosts = []
        for other in job.tasks:
            if other.role != r.name:
                continue
            instances.append(f"{r.name}:{other.index}")
            env[f"PAI_HOST_IP_{r.name}_{other.index}"] = "127.0.0.1"
            for label, ports in other.ports.items():
                joined = ",".join(map(str, ports))
                env[f"PAI_PORT_LIST_{r.name}_{other.index}_{label}"] = joined
                env[f"PAI_{r.name}_{other.index}_{label}_PORT"] = joined
            hosts.append(f"127.0.0.1:{other.ports.get('http', [0])[0]}")
        env[f"PAI_TASK_ROLE_{r.name}_HOST_LIST"] = ",".join(hosts)
    env["PAI_TASK_ROLE_INSTANCES"] = ",".join(instances)
    ports = task.ports
    env.update({
        "PAI_CURRENT_TASK_ROLE_NAME": role.name, "PAI_TASK_ROLE_NAME": role.name,
        "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX": str(task.index), "PAI_TASK_INDEX": str(task.index),
        "PAI_TASK_ROLE_INDEX": str(task.index),
        "PAI_RESOURCE": f"{role.gpu},{role.cpu},{role.memory_mb},{role.shm_mb}",
        "PAI_CURRENT_TASK_ROLE_TASK_COUNT": str(role.tasks), "PAI_TASK_ROLE_NUM": str(role.tasks),
        "PAI_CURRENT_TASK_ROLE_CPU_COUNT": str(role.cpu), "PAI_TASK_CPU_NUM": str(role.cpu),
        "PAI_CURRENT_TASK_ROLE_MEM_MB": str(role.memory_mb), "PAI_TASK_MEM_MB": str(role.memory_mb),
        "PAI_CURRENT_TASK_ROLE_GPU_COUNT": str(role.gpu), "PAI_TASK_GPU_NUM": str(role.gpu),
        "PAI_CURRENT_TASK_ROLE_SHM_MB": str(role.shm_mb),
        "PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT": "" if role.min_failed is None else str(role.min_failed),
        "PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT": "" if role.min_succeeded is None else str(role.min_succeeded),
        "PAI_CONTAINER_HOST_IP": "127.0.0.1", "PAI_CURRENT_CONTAINER_IP": "127.0.0.1",
        "PAI_CONTAINER_HOST_PORT_LIST": "".join(f"{label}:{','.join(map(str, p))};" for label, p in ports.items()),
        "PAI_CONTAINER_HOST_PORT": str(ports.get("http", [""])[0]), "PAI_CURRENT_CONTAINER_PORT": str(ports.get("http", [""])[0]),
        "PAI_CONTAINER_SSH_PORT": str(ports.get("ssh", [""])[0]),
        "PAI_CONTAINER_ID": f"container_{job.framework}_{job.attempt}_{role.name}_{task.index}",
        "CUDA_VISIBLE_DEVICES": ",".join(map(str, task.gpus)),
        "NVIDIA_VISIBLE_DEVICES": ",".join(map(str, task.gpus)) or "none",
    })
    for label, p in ports.items():
        env[f"PAI_CONTAINER_HOST_{label}_PORT_LIST"] = ",".join(map(str, p))
    # jobEnvs verbatim, as strings in the container's environment.
    for key, value in (job.config.get("jobEnvs") or {}).items():
        env[str(key)] = value if isinstance(value, str) else ("true" if value is True else "false" if value is False else str(value))
    return env


def command_line(role: TaskRole, debug: bool) -> str:
    """The user's command; with jobEnvs.isDebug a failing command keeps the task alive (§5.5)."""
    if not debug:
        return role.command
    hold = (f'code=$?; if [ "$code" -ne 0 ]; then echo "[PAI] command exited with $code; '
            f'task kept for debugging (stop the job to end it)" >&2; sleep {DEBUG_HOLD_SECONDS}; fi; exit $code')
    return f"( {role.command}\n); {hold}"  # a subshell, so `exit` in the command still reaches the hold


class RunningTask:
    """A task's processes and the copy of its output into the log files."""

    def __init__(self, process: asyncio.subprocess.Process, copiers: list[asyncio.Task], processes: TaskProcesses,
                 container: tuple[str, str] | None = None, group: bool = True):
        self.process = process
        self.copiers = copiers
        self.processes = processes
        self.container = container  # (engine, name) when the task runs in a container
        self.group = group  # it runs in a process group (session) of its own, signalled at once
        self.log_failure: OSError | None = None  # why the task's output could not be written, if it could not
        self.memory_exceeded = None  # memory.Exceeded: the task was killed past its memoryMB (--enforce-memory)
        self._ending: asyncio.Task | None = None

    def log_failed(self, error: OSError) -> None:
        """The task's log cannot be written (say the disk is full): the task ends, failed for that reason."""
        self.log_failure = error
        self._ending = asyncio.ensure_future(self.end(force=True))

    def over_memory(self, exceeded) -> None:
        """The task's processes use more than its role's memoryMB (--enforce-memory, memory.py): it is
        killed, failed for that reason."""
        self.memory_exceeded = exceeded
        self._ending = asyncio.ensure_future(self.end(force=True))

    async def wait(self) -> int:
        """The command's exit status, once its output is all in the log files. Whatever the command
        left running ends with it, as everything in a container ends with the container."""
        await self._exited()
        await self.end(force=True)
        code = await self.process.wait()  # asyncio's wait() also waits for the output pipes to close
        self.processes.leader = None  # reaped: its pid may be another process's from now on
        await asyncio.gather(*self.copiers, return_exceptions=True)
        return code

    async def end(self, force: bool) -> None:
        """Kill (`force`) or ask to stop every process of the task: its group at once where it has one,
        then all it started, wherever they went."""
        await end_tasks([self], force)

    async def _exited(self) -> None:
        """Until the command itself has exited (a pidfd turns readable: Linux), whoever still holds its
        output; elsewhere (and on the portable path) psutil sees it exit."""
        pidfd_open = getattr(os, "pidfd_open", None) if self.group else None
        if pidfd_open is None:
            return await self._seen_exiting()
        try:
            fd = pidfd_open(self.process.pid)
        except ProcessLookupError:
            return  # already gone
        except OSError:  # a kernel without pidfds
            return await self._seen_exiting()
        loop = asyncio.get_running_loop()
        exited = loop.create_future()
        loop.add_reader(fd, lambda: exited.done() or exited.set_result(None))
        try:
            await exited
        finally:
            loop.remove_reader(fd)
            os.close(fd)

    async def _seen_exiting(self) -> None:
        """psutil sees the command exit (a zombie until reaped; gone on Windows), or asyncio reaps it."""
        while self.process.returncode is None:
            try:
                if psutil.Process(self.process.pid).status() == psutil.STATUS_ZOMBIE:
                    return
            except psutil.NoSuchProcess:
                return
            except psutil.Error:  # not readable now: asyncio still reaps it
                pass
            await asyncio.sleep(0.1)

    def kill(self, force: bool = True) -> None:
        """Its process group at once, where it has one (the rest: `processes.end`)."""
        if self.group and self.process.returncode is None:  # once reaped, the group's id may be another's
            processes.signal_group(self.process.pid, force)
        if self.container is not None and force:
            # The engine's client is gone; the container must be killed through the engine (off the event loop).
            import subprocess
            import threading

            command = [self.container[0], "kill", self.container[1]]
            threading.Thread(target=subprocess.run, args=(command,), kwargs={"capture_output": True, "timeout": 30},
                             daemon=True).start()


async def end_tasks(victims: list[RunningTask], force: bool) -> None:
    """Kill (`force`) or ask to stop every process of these tasks: each group at once, then (one scan
    for them all, off the event loop) what they started outside it."""
    for victim in victims:
        victim.kill(force)
    await asyncio.to_thread(processes.end, [v.processes for v in victims], force)


def log_failure_exit(error: OSError) -> tuple[int, str]:
    """(exit code, diagnostics) of a task ended because its log could not be written: a full disk is
    the platform's out-of-disk kill (198, YARN's CONTAINER_OOD_ERROR, openpai-api.md §5.6)."""
    code = OUT_OF_DISK_EXIT if error.errno in (errno.ENOSPC, errno.EDQUOT) else 255
    return code, f"The task's output could not be written to its log ({error.strerror or error}): the task was stopped."


def container_command(engine: str, name: str, job: Job, role: TaskRole, workdir: Path, env: dict[str, str],
                      max_cpus: int | None = None, mounts: list[dict] | None = None, before: str = "") -> list[str]:
    """`docker run` (or podman) of the job's image with the task's resources (CPUs no more than the
    machine has, for a job scaled to it), environment and storages (`task_mounts.py`); `before`: shell
    lines the runtime's plugins run first."""
    cpus = min(role.cpu, max_cpus) if max_cpus else role.cpu
    argv = [engine, "run", "--rm", "--init", "--name", name, "--network", "host", "--workdir", "/pai/work",
            "--volume", f"{workdir}:/pai/work", "--cpus", str(cpus), "--memory", f"{role.memory_mb}m",
            "--shm-size", f"{role.shm_mb}m"]
    for mount in mounts or []:
        argv += ["--mount", f"type=bind,source={mount['source']},target={mount['target']}" + (",readonly" if mount["readOnly"] else "")]
    if job.debug:
        argv += ["--cap-add=SYS_PTRACE", "--security-opt", "seccomp=unconfined"]
    for key, value in env.items():
        argv += ["--env", f"{key}={value}"]
    return argv + ["--env", "PAI_WORK_DIR=/pai/work", job.config.get("image", ""), "/bin/bash", "-c",
                                                                    before + command_line(role, job.debug)]


def task_id(job: Job, task: Task) -> str:
    return f"{job.framework}/{job.attempt}/{task.role}/{task.index}"


async def start(job: Job, task: Task, workdir: Path, logdir: Path, env: dict[str, str], shell: str | None,
                engine: str | None = None, umask: int = 0o022, max_cpus: int | None = None,
                mounts: list[dict] | None = None, ssh: SshPlugin | None = None) -> RunningTask:
    """Start the task's command with `shell` (bash; in a container, the image's own) in its own process
    group with a clean environment: the shell's few variables, the platform's (§4) and the job's
    `jobEnvs`, nothing else of the cluster's, and the marker that finds its processes (kept with their
    pids in the task's folder). The job's note (a job scaled to this machine) opens the task's stderr.
    `mounts` (`task_mounts.py`): its storages, on the host through `mountns.py`, which becomes the command.
    `ssh` (`task_sshd.py`): the ssh plugin's sshd, started first in the task's group, as the runtime's
    plugins start before the user's command."""
    logdir.mkdir(mode=0o700, parents=True, exist_ok=True)
    role = job.role(task.role)
    full_env = shell_environment()
    if engine is not None:
        full_env.update((k, v) for k, v in os.environ.items() if k in ENGINE_VARIABLES)
    full_env.update(env)
    full_env["PAI_WORK_DIR"] = str(workdir)
    start_token = secrets.token_hex(8)
    full_env[TASK_MARKER] = f"{task_id(job, task)}/{start_token}"  # unique to this start, on any cluster
    container = None
    before = "" if ssh is None else await asyncio.to_thread(ssh_preamble, ssh, logdir.parent / "sshd", full_env, engine is None)
    if engine is None:
        if shell is None:
            raise FileNotFoundError(missing())
        argv = [shell, "-c", before + command_line(role, job.debug)]
        if mounts:
            spec = json.dumps({"mounts": mounts, "stage": str(logdir.parent / "mounts")})
            argv = [*helper_argv(), spec, *argv]
        full_env["PATH"] = search_path(shell, full_env.get("PATH", ""))
    else:
        # An engine's container names are the whole machine's: another local cluster (another data folder,
        # another user) may run a task of the same job name, so the name ends with this start's token.
        name = "pai-" + "".join(ch if ch.isalnum() or ch in "_.-" else "-" for ch in task_id(job, task)) + f"-{start_token[:8]}"
        container = (engine, name)
        argv = container_command(engine, name, job, role, workdir, env, max_cpus, mounts, before)
    files = {name: _private_log(logdir / name) for name in LOG_NAMES}  # a disk that takes no file fails the start here
    group = processes.posix_processes()
    try:
        if job.note:
            banner = f"[PAI local cluster] {job.note}\n".encode()
            files["stderr"].write(banner)
            files["all"].write(banner)
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=workdir, env=full_env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            umask=umask, **processes.spawn_options(group),
        )
    except BaseException:
        for f in files.values():
            f.close()
        raise
    tracked = TaskProcesses(logdir.parent / processes.RECORD_FILE, full_env[TASK_MARKER], process.pid)
    tracked.save()
    running = RunningTask(process, [], tracked, container, group)

    async def copy(stream: asyncio.StreamReader, name: str) -> None:
        """Output into the logs; once a log cannot be written (a full disk), the task is ended and its
        output read on, unwritten, so nothing it started blocks on a full pipe."""
        try:
            while chunk := await stream.read(65536):
                if running.log_failure is None:
                    try:
                        files[name].write(chunk)
                        files["all"].write(chunk)
                    except OSError as exc:
                        running.log_failed(exc)
        finally:
            files[name].close()

    copiers = [asyncio.ensure_future(copy(process.stdout, "stdout")), asyncio.ensure_future(copy(process.stderr, "stderr"))]

    async def close_all() -> None:
        await asyncio.gather(*copiers, return_exceptions=True)
        files["all"].close()

    running.copiers = [*copiers, asyncio.ensure_future(close_all())]
    return running


def _private_log(path: Path):
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab", buffering=0)


def reported_exit(code: int, era: str = "yarn", log_tail: str = "") -> tuple[int, int | None]:
    """(exit code the cluster reports, the user's own code) for a command that exited with `code`
    (-n: killed by signal n). Both eras report a signal as 128+n. YARN's launcher (v1 jobs, §5.6)
    reports any other failure as 255 and keeps the user's code beside it; Kubernetes' runtime (v2)
    gives the code of the first exit spec whose patterns match the code and the log's end (a
    `command not found` is 220, an `ImportError:` 232), else the command's own code."""
    if code == 0:
        return 0, None
    if code < 0:  # killed by a signal
        code = 128 - code
    if era == "k8s":
        spec = specs.runtime_match(code, log_tail)
        return (spec.code if spec is not None else code), code
    if code > 128:  # the shell reports a signal as 128+N
        return code, None
    return 255, code


def exit_diagnostics(code: int) -> str:
    """The runtime's words for how the command ended (`code` as the process gave it: -n for signal n)."""
    number = specs.signal_of(code)
    if number:
        return f"The command was killed by {specs.signal_name(number)} (signal {number}): exit code {128 + number}."
    return f"The command exited with code {code}."
