"""The ssh runtime plugin's `userssh` (openpai-k8s.md §E.4), as the local cluster runs it: each task of
a v2 job whose `extras.com.microsoft.pai.runtimeplugin` holds `{plugin: ssh, parameters: {userssh:
{type, value: <public key>}}}` gets a real sshd (Debian's openssh-server) on 127.0.0.1 at its
`PAI_CONTAINER_SSH_PORT`, with a host key of its own and the job's key as its only authorized key.

It starts before the user's command, as the runtime's plugin pre-commands do, in the task's own
process group and with the task's marker, so it ends with the task like everything the task starts;
the processes of an ssh session carry the marker too (below), so they end with it as well.

Where the real runtime differs:
- sshd runs as the cluster's user (root only when the cluster runs as root), so the login name is that
  user's, not always `root`; only that user can log in.
- the runtime dumps the container's environment to `/root/.ssh/environment` and turns on
  `PermitUserEnvironment`; on the host that file is the user's own, which a job must not overwrite, so
  the same variables reach a session through `SetEnv` in the task's private sshd_config instead.
- `jobssh` (SSH between the job's tasks with a job key pair and host aliases in /etc/ssh/ssh_config)
  and the profile's `sshKeys` (the local cluster's users have none) are not emulated.
- no `apt-get install` at run time: where /usr/sbin/sshd is missing, the task's log says so in one line
  and the plugin's `failurePolicy` decides, as the runtime's initializer does (default `fail`: the task
  fails; `ignore`: it runs without SSH).
"""

from __future__ import annotations

import getpass
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from ..core.v2.facts import RUNTIME_PLUGIN_KEY
from .processes import TASK_MARKER

SSHD = "/usr/sbin/sshd"
PRIVSEP_DIR = "/run/sshd"  # Debian's sshd, started as root, needs it (its service makes it at start)
PLUGIN_FAILED_EXIT = 1  # the runtime's init container exits 1 for a plugin that failed ("platform error")
BANNER = "[PAI local cluster] ssh plugin:"
# Variables a session must not take from the task: the client's terminal, and what sshd sets for the session.
NOT_FOR_SESSIONS = frozenset({"TERM", "SHLVL", "PWD", "OLDPWD", "_"})


@dataclass(frozen=True)
class SshPlugin:
    """What a task's ssh plugin asks for."""

    keys: tuple[str, ...]  # public keys for authorized_keys (userssh.value)
    fail: bool  # failurePolicy "fail" (the runtime's default): the task fails when sshd cannot start
    jobssh: bool  # asked for SSH between the job's tasks (not emulated: said in the task's log)


def requested(config: dict, role: str) -> SshPlugin | None:
    """The ssh plugin the job's config asks of a task of `role` (None: none, or one that starts no sshd:
    empty parameters, or neither jobssh nor a userssh key), read as the runtime's ssh init.py reads it."""
    extras = config.get("extras")
    plugins = extras.get(RUNTIME_PLUGIN_KEY) if isinstance(extras, dict) else None
    if not isinstance(plugins, list):
        return None
    for plugin in plugins:
        if not isinstance(plugin, dict) or plugin.get("plugin") != "ssh":
            continue
        roles = plugin.get("taskroles")
        if isinstance(roles, list) and role not in roles:
            continue
        parameters = plugin.get("parameters")
        if not isinstance(parameters, dict) or not parameters:
            continue
        gang = extras.get("gangAllocation", True) is not False
        jobssh = gang and str(parameters.get("jobssh", "false")).lower() == "true"
        userssh = parameters.get("userssh")
        keys: tuple[str, ...] = ()
        if isinstance(userssh, dict) and userssh.get("type") and isinstance(userssh.get("value"), str):
            keys = tuple(line.strip() for line in userssh["value"].splitlines() if line.strip())
        if keys or jobssh:
            return SshPlugin(keys, str(plugin.get("failurePolicy", "fail")) != "ignore", jobssh)
    return None


def sshd_program() -> str | None:
    """Debian's sshd, when installed (openssh-server)."""
    return SSHD if os.access(SSHD, os.X_OK) else None


def preamble(plugin: SshPlugin, folder: Path, env: dict[str, str], on_host: bool) -> str:
    """The shell lines that start the task's sshd before its command (its files written to `folder`),
    or that say in one line why there is none and, with failurePolicy fail, end the task."""
    lines = []
    if plugin.jobssh:
        lines.append(_say("jobssh (SSH between the job's tasks) is not emulated by the local cluster"))
    if not plugin.keys:
        return "".join(lines)
    program = sshd_program()
    port = env.get("PAI_CONTAINER_SSH_PORT", "")
    why = ("it runs only for tasks on the host (--runtime host)" if not on_host
           else f"no sshd on this machine ({SSHD}; Debian: apt-get install openssh-server)" if program is None
           else "the task has no ssh port" if not port.isdigit() else None)
    if why is not None:
        outcome = "the task fails (failurePolicy: fail)" if plugin.fail else "the task runs without SSH (failurePolicy: ignore)"
        lines.append(_say(f"{why}: {outcome}"))
        if plugin.fail:
            lines.append(f"exit {PLUGIN_FAILED_EXIT}\n")
        return "".join(lines)
    config = write_files(folder, int(port), plugin.keys, env)
    user = getpass.getuser()
    lines.append(f"{shlex.quote(str(program))} -D -f {shlex.quote(str(config))} -E {shlex.quote(str(folder / 'sshd.log'))}"
                 " </dev/null >/dev/null 2>&1 &\n")
    lines.append(_say(f"sshd on 127.0.0.1:{port} for {user} (ssh -p {port} {user}@127.0.0.1)"))
    return "".join(lines)


def _say(text: str) -> str:
    return f"echo {shlex.quote(f'{BANNER} {text}')} >&2\n"


def write_files(folder: Path, port: int, keys: tuple[str, ...], env: dict[str, str]) -> Path:
    """sshd's private files in `folder` (a host key of its own, authorized_keys, sshd_config), for
    sshd on 127.0.0.1:`port` letting in `keys` with `env` in each session; the config's path."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    host_key = folder / "ssh_host_ed25519_key"
    _private(host_key, _new_host_key())
    authorized = folder / "authorized_keys"
    _private(authorized, "".join(f"{key}\n" for key in keys))
    if sys.platform != "win32" and os.geteuid() == 0 and not os.path.isdir(PRIVSEP_DIR):
        os.makedirs(PRIVSEP_DIR, mode=0o755, exist_ok=True)
    config = folder / "sshd_config"
    _private(config, sshd_config(port, host_key, authorized, getpass.getuser(), env))
    return config


def sshd_config(port: int, host_key: Path, authorized: Path, user: str, env: dict[str, str]) -> str:
    """A private sshd's configuration: loopback only, keys only, one user, the task's environment.
    StrictModes is off: the files are the task's own, in its private folder, and a folder above it
    (/tmp) may be writable by others, which strict modes refuse."""
    lines = [
        "ListenAddress 127.0.0.1",
        f"Port {port}",
        f"HostKey {_quoted(str(host_key))}",
        f"AuthorizedKeysFile {_quoted(str(authorized))}",
        f"AllowUsers {user}",
        "PidFile none",
        "StrictModes no",
        "UsePAM no",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PermitRootLogin prohibit-password",
        "AllowTcpForwarding yes",  # the daemon reaches a task's ports (its debugger) through it
        "X11Forwarding no",
        "Subsystem sftp internal-sftp",
    ]
    session = [_quoted(f"{k}={v}") for k, v in sorted(env.items()) if _passable(k, v)]
    if session:
        lines.append("SetEnv " + " ".join(session))
    return "\n".join(lines) + "\n"


def _passable(name: str, value: str) -> bool:
    """A variable sshd's SetEnv can carry (one line, a plain name), and the task's marker always, so
    that a session's processes end with the task."""
    if name == TASK_MARKER:
        return True
    return (name not in NOT_FOR_SESSIONS and name.replace("_", "a").isalnum() and not name[:1].isdigit()
            and "\n" not in value and "\r" not in value and "\0" not in value)


def _quoted(text: str) -> str:
    """One argument of sshd_config: in double quotes, with `"` and `\\` escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def _new_host_key() -> str:
    """A new Ed25519 host key in OpenSSH's private-key format (the task's own: a container's sshd gets
    its keys when openssh-server is installed in it)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                                                      serialization.NoEncryption()).decode()
