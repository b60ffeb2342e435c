"""Debug Job through SSH end to end on the embedded local cluster: a v2 job with the ssh runtime plugin's
`userssh` (the user's public key), `pai debug --via ssh -o json` as a subprocess: the task's debugpy
listens on the task's 127.0.0.1 only, the daemon opens a tunnel through the task's own sshd with the
user's key (~/.ssh), the printed host and port are the tunnel's local end, a Debug Adapter Protocol
client stops there at a breakpoint in the workspace's file, and the tunnel is gone once the job ends."""

from __future__ import annotations

import os
import shutil
import socket
import sys

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


@pytest.fixture
def ssh_env(tmp_path, starts_processes):
    """`pai` (its daemon and local cluster of its own) for a user whose ~/.ssh holds the key the job names."""
    home = tmp_path / "home"
    key, public = key_pair(home / ".ssh")
    environment = {**isolated_env(tmp_path / "pai"), "HOME": str(home),
                   "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    environment.pop("SSH_AUTH_SOCK", None)
    yield environment, public
    stop_all(environment)


def test_debug_job_via_ssh_stops_at_a_breakpoint_through_the_tasks_sshd(ssh_env, tmp_path):
    needs_sshd()
    env, public = ssh_env
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    job_file = ws / "mnist.pai.yaml"
    job_file.write_text(job_file.read_text() + PLUGIN.replace("KEY", public))
    process = start(env, ws, "mnist.pai.yaml", "--via", "ssh")
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
