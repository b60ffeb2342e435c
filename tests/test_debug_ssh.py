"""Debug Job through SSH end to end on the embedded local cluster, `pai debug --via ssh -o json` as a
subprocess: the task's debugpy listens on the task's 127.0.0.1 only, the daemon opens a tunnel through the
task's own sshd (the ssh runtime plugin's `userssh`), the printed host and port are the tunnel's local end,
a Debug Adapter Protocol client stops there at a breakpoint in the workspace's file, and the tunnel is gone
once the job ends. One click: a job file with no ssh plugin, for a user with no key, gets a key pair the
daemon makes for the session (its public half in the job, its private half only in the daemon's memory);
a job whose plugin names the user's key is reached with the user's own (~/.ssh)."""

from __future__ import annotations

import os
import shutil
import socket
import sys
from pathlib import Path

import pytest

from .helpers.cli import isolated_env, pai, stop_all
from .helpers.debug_job import LOOP_LINE, finish, line_of, start, stop_once_at, targets
from .helpers.paths import EXAMPLE
from .helpers.sshd import key_pair, needs_sshd

pytestmark = pytest.mark.subprocess

PLUGIN = """\
  com.microsoft.pai.runtimeplugin:
    - {plugin: ssh, parameters: {userssh: {type: custom, value: "KEY"}}}
"""
PRIVATE = "PRIVATE KEY-----"  # what any private key file (OpenSSH, PEM) holds


def environment(tmp_path: Path) -> dict[str, str]:
    """`pai` (its daemon and local cluster of its own) for a user whose home is in `tmp_path`, no ssh agent."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**isolated_env(tmp_path / "pai"), "HOME": str(home),
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    env.pop("SSH_AUTH_SOCK", None)
    return env


@pytest.fixture
def keyless_env(tmp_path, starts_processes):
    """A user with no SSH key at all."""
    env = environment(tmp_path)
    yield env
    stop_all(env)


@pytest.fixture
def ssh_env(tmp_path, starts_processes):
    """A user whose ~/.ssh holds the key the job names."""
    env = environment(tmp_path)
    _, public = key_pair(Path(env["HOME"]) / ".ssh")
    yield env, public
    stop_all(env)


def debug_through_the_tunnel(env: dict, ws: Path, job_file: str) -> dict:
    """`pai debug --via ssh` stops at the loop's breakpoint through the tunnel and the job succeeds; its target."""
    process = start(env, ws, job_file, "--via", "ssh")
    (target,) = targets(process, 1)
    assert target["task"] == "train:0" and target["host"] == "127.0.0.1"
    reachable = pai(env, "ssh", target["job"]).stdout  # the task's own ports, as the job detail gives them
    assert f"127.0.0.1:{target['port']}" not in reachable  # what the debugger got is the tunnel's end, not the task's port
    variables = stop_once_at(target, ws / "train.py", line_of(ws / "train.py", LOOP_LINE))
    assert variables["epoch"] == "1" and variables["loss"] == "2.3"
    code, out, err = finish(process)
    assert code == 0, err
    assert f"{target['job']} ended: SUCCEEDED" in err
    ended = pai(env, "status", target["job"])  # the daemon has seen the end: the job's tunnels are closed
    assert "SUCCEEDED" in ended.stdout
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", target["port"])) != 0
    return target


def test_debug_job_via_ssh_with_no_plugin_and_no_key_tunnels_with_a_session_key(keyless_env, tmp_path):
    needs_sshd()
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    assert "runtimeplugin" not in (ws / "mnist.pai.yaml").read_text()
    target = debug_through_the_tunnel(keyless_env, ws, "mnist.pai.yaml")
    config = pai(keyless_env, "show", target["job"], "-o", "json")  # the record of the job as submitted names the session's key
    assert config.returncode == 0, config.stderr
    assert '"plugin": "ssh"' in config.stdout and "ssh-ed25519 " in config.stdout and "pai-debug" in config.stdout
    # The private half never reached a file: not the submission record, the daemon's log, the cluster's, nor the home
    # (the one private key on disk is the task's sshd's own host key).
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and not p.name.startswith("ssh_host_")
              and PRIVATE in p.read_text(errors="replace")]
    assert leaked == []


def test_debug_job_via_ssh_with_the_users_own_key_in_the_job(ssh_env, tmp_path):
    needs_sshd()
    env, public = ssh_env
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    job_file = ws / "mnist.pai.yaml"
    job_file.write_text(job_file.read_text() + PLUGIN.replace("KEY", public))
    target = debug_through_the_tunnel(env, ws, "mnist.pai.yaml")
    config = pai(env, "show", target["job"], "-o", "json").stdout
    assert public in config and "pai-debug" not in config  # the user's key only: no session key was added


def test_dry_run_via_ssh_shows_the_added_plugin_and_a_v1_job_is_refused(keyless_env, tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    shown = pai(keyless_env, "debug", "mnist.pai.yaml", "--via", "ssh", "--dry-run", cwd=ws)
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "com.microsoft.pai.runtimeplugin" in text and "plugin: ssh" in text and "type: custom" in text
    assert "ssh-ed25519 " in text and PRIVATE not in text
    refused = pai(keyless_env, "debug", "mnist.pai.json", "--via", "ssh", cwd=ws)
    assert refused.returncode != 0 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "mnist.pai.json" in refused.stderr and "ssh runtime plugin" in refused.stderr
    assert "mnist" not in pai(keyless_env, "jobs").stdout  # nothing was submitted
