"""`pai` as a user runs it: a subprocess in an environment of its own (config, state and local-cluster
folders in a temporary directory), and workspaces made from the example job."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx

from .paths import EXAMPLE


def isolated_env(root: Path) -> dict[str, str]:
    return dict(os.environ, XDG_CONFIG_HOME=str(root / "config"), PAI_LOCAL_CLUSTER_DIR=str(root / "local"),
                XDG_STATE_HOME=str(root / "state"), PAI_LSP_SECRETS="file", LANG="C.UTF-8")


def stop_all(env: dict[str, str]) -> None:
    """Stop the daemon and the local cluster this environment started."""
    for command in (["daemon", "stop"], ["cluster", "stop-local"]):
        subprocess.run([sys.executable, "-m", "pai_lsp", *command], env=env, capture_output=True, timeout=60)


def pai(env: dict, *args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pai_lsp", *args], env=env, cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=120)


def workspace(tmp_path: Path, code_dir: str, settings: dict | None = None) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    config = json.loads((ws / "mnist.pai.json").read_text())
    config["codeDir"] = code_dir
    (ws / "mnist.pai.json").write_text(json.dumps(config, indent=2))
    if settings is not None:
        (ws / ".vscode" / "settings.json").write_text(json.dumps(settings))
    return ws


def command_job(tmp_path: Path, file: str, command: str, **role) -> Path:
    """A workspace whose config `file` runs `command` alone (no code to upload)."""
    ws = workspace(tmp_path, "")
    config = json.loads((ws / "mnist.pai.json").read_text())
    config.pop("codeDir")
    config["taskRoles"][0].update(command=command, **role)
    (ws / file).write_text(json.dumps(config))
    return ws


def remote_files(env: dict, path: str) -> set[str]:
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    found = set()
    stack = [path]
    while stack:
        folder = stack.pop()
        listing = httpx.get(f"{info['hdfs']}/webhdfs/v1{folder}?op=LISTSTATUS").json()["FileStatuses"]["FileStatus"]
        for status in listing:
            full = f"{folder}/{status['pathSuffix']}"
            if status["type"] == "DIRECTORY":
                stack.append(full)
            else:
                found.add(full[len(path) + 1:])
    return found


def local_client_password(env: dict) -> str:
    """The password `pai` keeps for the local cluster, beside that cluster's secrets."""
    from pai_lsp.localcluster.datadir import secrets_dir

    return (secrets_dir(Path(env["PAI_LOCAL_CLUSTER_DIR"]), Path(env["XDG_CONFIG_HOME"])) / "pai-client-password").read_text()


def pai_lang(*args: str, cwd=None, lang: str = "C.UTF-8") -> subprocess.CompletedProcess:
    """`pai` in the user's own environment, with messages in `lang`."""
    env = dict(os.environ, LANG=lang, LC_ALL="", LC_MESSAGES="")
    return subprocess.run([sys.executable, "-m", "pai_lsp", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60)


def complete(env: dict, line: str) -> list[str]:
    """What bash offers for `line` once `eval "$(pai completion bash)"` set pai's completion up."""
    script = f'''eval "$(pai completion bash)"
COMP_LINE={json.dumps(line)}; COMP_POINT=${{#COMP_LINE}}
read -ra COMP_WORDS <<< "$COMP_LINE"; [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${{#COMP_WORDS[@]}}-1))
_python_argcomplete pai "${{COMP_WORDS[-1]}}" "${{COMP_WORDS[-2]}}"
printf '%s\\n' "${{COMPREPLY[@]}}"'''
    shell_env = dict(env, PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    done = subprocess.run(["bash", "-c", script], env=shell_env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]


def on_a_terminal(env: dict, *args: str) -> str:
    """What `pai` prints when its output is a terminal (a pseudo-terminal here)."""
    leader, follower = pty.openpty()
    with subprocess.Popen([sys.executable, "-m", "pai_lsp", *args], env=dict(env, TERM="xterm", COLUMNS="200"),
                          stdout=follower, stderr=follower, stdin=subprocess.DEVNULL) as process:
        os.close(follower)
        out = b""
        while True:
            try:
                piece = os.read(leader, 65536)
            except OSError:
                break
            if not piece:
                break
            out += piece
        process.wait(timeout=60)
    os.close(leader)
    return out.decode("utf-8", "replace")


def typed_on_a_terminal(env: dict, keys: bytes, after: bytes | Callable[[bytes], bool], *args: str) -> tuple[int, str]:
    """`pai` on a terminal of its own (a pseudo-terminal, its controlling one): `keys` are typed once
    it has printed `after` (or `after(what it printed)` holds). Ctrl-C there is SIGINT from the
    terminal to its foreground group, Ctrl-D the end of input. Returns the exit code and all it printed."""
    import select
    import signal
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: the terminal's session leader
        os.execve(sys.executable, [sys.executable, "-m", "pai_lsp", *args], dict(env, TERM="xterm"))
    out, typed, deadline = b"", False, time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    piece = os.read(fd, 65536)
                except OSError:  # the terminal closed: pai ended
                    break
                if not piece:
                    break
                out += piece
            if not typed and (after(out) if callable(after) else after in out):
                os.write(fd, keys)
                typed = True
    finally:
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")
