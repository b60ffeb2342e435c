"""The ssh runtime plugin's `userssh` on the local cluster (openpai-k8s.md §E.4, §E.6), over real HTTP
and real SSH: each task of a v2 job with the plugin gets its own sshd (Debian's openssh-server) on
127.0.0.1 at its ssh port, which lets in the job's key as the cluster's user with the task's
environment, leads a daemon's tunnel to the task's other ports, says itself in the task's log, and
ends with the job, with what its sessions started; `/ssh` still answers the Kubernetes-era 404. Without
sshd, the task's log says so in one line and the plugin's failurePolicy decides."""

from __future__ import annotations

import asyncio
import getpass
import json
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import httpx
import psutil
import pytest

from pai_lsp.daemon.ssh_tunnel import SshAccess, SshTarget, TunnelRegistry
from pai_lsp.localcluster import task_sshd
from pai_lsp.localcluster.task_sshd import SshPlugin, preamble, requested

from ..helpers.localcluster import USER, processes_named, tagged, task_pids, wait_for
from ..helpers.sshd import key_pair, needs_sshd

ME = getpass.getuser()  # the cluster's user: who its tasks' sshd lets in


def ssh_job(name: str, public_key: str, command: str, policy: str = "", ports: str = "{}") -> str:
    plugin = {"plugin": "ssh", "parameters": {"userssh": {"type": "custom", "value": public_key}}}
    if policy:
        plugin["failurePolicy"] = policy
    return (f"protocolVersion: 2\nname: {name}\ntype: job\nprerequisites:\n  - {{name: img, type: dockerimage, uri: ubuntu}}\n"
            f"taskRoles:\n  main:\n    instances: 1\n    dockerImage: img\n"
            f"    resourcePerInstance: {{cpu: 1, memoryMB: 256, gpu: 0, ports: {ports}}}\n"
            f"    commands:\n      - {json.dumps(command)}\n"
            f"extras:\n  com.microsoft.pai.runtimeplugin:\n    - {json.dumps(plugin)}\n")


@pytest.fixture(scope="module")
def client(cluster):
    with cluster.client() as c:
        yield c


def task_of(c: httpx.Client, framework: str) -> dict:
    return c.get(f"/api/v2/jobs/{framework}").json()["taskRoles"]["main"]["taskStatuses"][0]


def task_log(c: httpx.Client, framework: str) -> str:
    logs = c.get(f"/api/v2/jobs/{framework}/attempts/0/taskRoles/main/taskIndex/0/attempts/0/logs").json()
    if not logs.get("locations"):
        return ""
    return c.get(next(loc["uri"] for loc in logs["locations"] if loc["name"] == "all")).text


def state_of(c: httpx.Client, framework: str) -> str:
    return c.get(f"/api/v2/jobs/{framework}").json()["jobStatus"]["state"]


async def logged_in(port: int, key: Path) -> asyncssh.SSHClientConnection:
    """An SSH connection to the task's sshd, once it listens (it starts beside the command)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return await asyncssh.connect("127.0.0.1", port, username=ME, client_keys=[str(key)], known_hosts=None)
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


def task_sshds(framework: str) -> list[psutil.Process]:
    """The sshd processes of a job's tasks: their title names their config, in the task's folder (sshd
    writes its title over its environment, so the task's marker is not read there)."""
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        if proc.info["name"] == "sshd" and framework in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


def refused(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_a_task_gets_its_own_sshd_that_lets_the_jobs_key_in_and_ends_with_the_job(cluster, client, tmp_path):
    needs_sshd()
    key, public = key_pair(tmp_path)
    server = f"exec {sys.executable} -m http.server --bind 127.0.0.1 $PAI_CONTAINER_HOST_debug_PORT_LIST"
    sent = client.post("/api/v2/jobs", content=ssh_job("sshjob", public, server, ports="{debug: 1}").encode(),
                       headers={"Content-Type": "text/yaml"})
    assert sent.status_code == 202, sent.text
    framework = f"{USER}~sshjob"
    task = wait_for(lambda: (t := task_of(client, framework))["taskState"] == "RUNNING" and t)
    port, debug_port = int(task["containerPorts"]["ssh"]), int(task["containerPorts"]["debug"])
    assert task["containerIp"] == "127.0.0.1"
    line = f"[PAI local cluster] ssh plugin: sshd on 127.0.0.1:{port} for {ME} (ssh -p {port} {ME}@127.0.0.1)"
    wait_for(lambda: line in task_log(client, framework))
    # The Kubernetes-era server has no SSH info: the portal and clients compute it from the detail.
    ssh_info = client.get(f"/api/v2/jobs/{framework}/ssh")
    assert ssh_info.status_code == 404 and ssh_info.json() == {
        "code": "NoJobSshInfoError", "message": f"SSH info of job {framework} is not found."}

    async def inside(tag: str) -> tuple[str, tuple[str, int], bytes]:
        async with await logged_in(port, key) as connection:
            said = await connection.run('echo "$PAI_CURRENT_TASK_ROLE_NAME $PAI_TASK_INDEX $PAI_CONTAINER_SSH_PORT $(id -un)"',
                                        check=True)
            # Started from a session, out of sshd's session and group: it ends with the task all the same.
            await connection.run(f"setsid bash -c 'exec -a {tag}-ssh sleep 300' </dev/null >/dev/null 2>&1 &", check=True)
        registry = TunnelRegistry()  # the daemon's way to the task's debug port, through this sshd
        local = await registry.reach("local", "sshjob", SshTarget(task["containerIp"], port, "main:0"), debug_port,
                                     SshAccess(ME, (key,)))
        async with httpx.AsyncClient() as http:
            page = (await http.get(f"http://{local[0]}:{local[1]}/")).content
        await registry.close_all()
        return said.stdout, local, page

    with tagged() as tag:
        said, local, page = asyncio.run(inside(tag))
        assert said.split() == ["main", "0", str(port), ME]
        assert local[0] == "127.0.0.1" and b"Directory listing" in page
        wait_for(lambda: processes_named(f"{tag}-ssh"))
        # What a session starts carries the task's marker (sshd passes it on), so the task's sweep finds it.
        assert any(psutil.Process(pid).cmdline()[0] == f"{tag}-ssh" for pid in task_pids("sshjob"))
        assert task_sshds(framework)
        client.put(f"/api/v2/jobs/{framework}/executionType", json={"value": "STOP"})
        wait_for(lambda: state_of(client, framework) == "STOPPED")
        wait_for(lambda: refused(port) and not processes_named(f"{tag}-ssh") and not task_sshds(framework), 20)


def test_without_sshd_the_log_says_so_and_the_failure_policy_decides(tmp_path, monkeypatch, starts_processes):
    monkeypatch.setattr(task_sshd, "sshd_program", lambda: None)
    env = {"PAI_CONTAINER_SSH_PORT": "23117"}
    said = "[PAI local cluster] ssh plugin: no sshd on this machine (/usr/sbin/sshd; Debian: apt-get install openssh-server): "
    for fail, code, line, ran in ((True, 1, said + "the task fails (failurePolicy: fail)", ""),
                                  (False, 0, said + "the task runs without SSH (failurePolicy: ignore)", "ran\n")):
        lines = preamble(SshPlugin(("ssh-ed25519 AAAA k",), fail, False), tmp_path / "sshd", env, on_host=True)
        done = subprocess.run(["bash", "-c", lines + "echo ran"], capture_output=True, text=True, timeout=30)
        assert (done.returncode, done.stderr, done.stdout) == (code, line + "\n", ran)
    assert not (tmp_path / "sshd").exists()  # nothing written for an sshd that does not start


def test_the_plugin_is_read_as_the_runtime_reads_it():
    def config(*plugins, **extras) -> dict:
        return {"extras": {"com.microsoft.pai.runtimeplugin": list(plugins), **extras}}

    user = {"plugin": "ssh", "parameters": {"userssh": {"type": "custom", "value": "ssh-rsa AAAA a\nssh-ed25519 BBBB b\n"}}}
    assert requested(config(user), "main") == SshPlugin(("ssh-rsa AAAA a", "ssh-ed25519 BBBB b"), True, False)
    assert requested(config({**user, "failurePolicy": "ignore"}), "main").fail is False
    assert requested(config({**user, "taskroles": ["other"]}), "main") is None  # for other roles only
    assert requested(config({"plugin": "ssh", "parameters": {}}), "main") is None  # empty parameters do nothing
    assert requested(config({"plugin": "ssh", "parameters": {"userssh": {"type": "custom", "value": ""}}}), "main") is None
    assert requested(config({"plugin": "ssh", "parameters": {"userssh": {"value": "ssh-rsa A"}}}), "main") is None  # no type
    jobssh = {"plugin": "ssh", "parameters": {"jobssh": True}}
    assert requested(config(jobssh), "main") == SshPlugin((), True, True)
    assert requested(config(jobssh, gangAllocation=False), "main") is None  # jobssh is forced off without gang allocation
    assert requested(config({"plugin": "tensorboard", "parameters": {"port": 1}}), "main") is None
    assert requested({"extras": {}}, "main") is None and requested({}, "main") is None
