"""However many clients start at once (an editor opening three views, several terminals), one daemon
serves the user and one local cluster runs."""

from __future__ import annotations

import os
import subprocess
import sys

import psutil
import pytest

pytestmark = pytest.mark.subprocess  # many `pai` at once, the daemon and the local cluster


def ours(env: dict, marker: str) -> list[psutil.Process]:
    """Processes of this test's user set-up whose command line has `marker`."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if marker in " ".join(proc.info["cmdline"] or []) and proc.environ().get("XDG_STATE_HOME") == env["XDG_STATE_HOME"]:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def test_concurrent_first_calls_start_one_daemon_and_one_local_cluster(tmp_path):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_STATE_HOME=str(tmp_path / "state"),
               PAI_LOCAL_CLUSTER_DIR=str(tmp_path / "local"), PAI_LSP_SECRETS="file")
    try:
        clients = [subprocess.Popen([sys.executable, "-m", "pai_lsp", *args], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
                   for args in (["jobs"], ["jobs"], ["hdfs", "ls", "/"], ["cluster", "list"], ["jobs"])]
        results = [(c.wait(timeout=120), c.stderr.read()) for c in clients]
        assert all(code == 0 for code, _ in results), results
        daemons = ours(env, "pai_lsp daemon serve")
        clusters = ours(env, "pai_lsp local-cluster")
        assert len(daemons) == 1, [p.pid for p in daemons]
        assert len(clusters) == 1, [p.pid for p in clusters]
    finally:
        for command in (["daemon", "stop"], ["cluster", "stop-local"]):
            subprocess.run([sys.executable, "-m", "pai_lsp", *command], env=env, capture_output=True, timeout=60)
        for proc in ours(env, "pai_lsp daemon serve") + ours(env, "pai_lsp local-cluster"):  # extra ones, if any
            proc.terminate()
