"""PaddlePaddle Cloud end to end against the local cluster, as the seed manuals' users work: profiles
from ~/.paddle/config, submit (the package uploaded through PFS), get jobs, workers, the logs of one
worker, kill, a name still in use refused; the upload resumed after a cut and re-sent by chunks."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from .helpers.cli import local_client_password, pai
from .helpers.proxy import CuttingProxy
from .helpers.standin import StandIn

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster

SEED_003 = """datacenters:
- name: datacenter1
  username: alice@example.com
  password: s3cret-one
  endpoint: http://cloud.example.org/
current-datacenter: datacenter1
"""
SEED_001 = """# the Chinese manual's layout
datacenters:
- name: dc-old
  active: false
  username: bob
  password: pw-old
  endpoint: http://old.example.org
- name: dc-new
  active: true
  username: bob
  password: pw-new
  endpoint: https://new.example.org
"""
TRAIN = """import os, time
print("trainer", os.environ["PADDLE_INIT_TRAINER_ID"], "of", open("trainer_count").read().strip(),
      "pservers", os.environ["PADDLE_INIT_PSERVERS"], flush=True)
time.sleep(float(os.environ.get("PADDLE_INIT_NUM_PASSES", "1")) - 1)
"""


@pytest.fixture(scope="module")
def penv(env):
    """The isolated environment, with room on the local cluster for 2 trainers and a pserver."""
    return dict(env, PAI_LOCAL_CLUSTER_ARGS="--cpus 16")


def secrets(env: dict) -> dict:
    return json.loads((Path(env["XDG_CONFIG_HOME"]) / "pai-lsp" / "secrets.json").read_text())


def test_import_both_layouts_of_paddle_config(penv, tmp_path):
    first = tmp_path / "config-003"
    first.write_text(SEED_003)
    result = pai(penv, "cluster", "import-paddle", "--config", str(first))
    assert result.returncode == 0, result.stderr
    assert "added cluster datacenter1 (PaddlePaddle Cloud http://cloud.example.org, datacenter datacenter1" in result.stdout
    # The file is the paddlecloud client's: left as it is, and the line says where the password went.
    store = Path(penv["XDG_CONFIG_HOME"]) / "pai-lsp" / "secrets.json"
    assert (f"stored the password of datacenter1 in {store} (PAI_LSP_SECRETS=file); {first} was left as it is"
            in result.stdout), result.stdout
    assert first.read_text() == SEED_003
    assert secrets(penv)["datacenter1:alice@example.com:password"] == "s3cret-one"
    second = tmp_path / "config-001"
    second.write_text(SEED_001)
    kept = pai(penv, "cluster", "import-paddle", "--config", str(second), "--remove-passwords")
    assert kept.returncode == 0, kept.stderr
    assert "password" not in second.read_text() and "active: true" in second.read_text()  # only when asked
    assert f"and removed from {second} (the paddlecloud client asks for them now)" in kept.stdout
    assert "dc-new" in kept.stdout and ", active" in kept.stdout.splitlines()[1]
    assert secrets(penv)["dc-new:bob:password"] == "pw-new"
    listed = pai(penv, "cluster", "list").stdout
    assert "datacenter datacenter1" in listed and "https://new.example.org  bob  paddlecloud  datacenter dc-new" in listed
    assert "local-paddle" in listed
    profiles = json.loads((Path(penv["XDG_CONFIG_HOME"]) / "pai-lsp" / "clusters.json").read_text())
    assert profiles["clusters"]["dc-new"]["webhdfs_uri"] == "https://new.example.org/api/v1/pfs"
    assert profiles["default"] == "datacenter1"  # the first import's active datacenter; the second one changed nothing
    broken = tmp_path / "broken"
    broken.write_text("datacenters:\n- name: x\n  username: u\n  endpoint: http://h\ncurrent-datacenter: y\n")
    bad = pai(penv, "cluster", "import-paddle", "--config", str(broken))
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "current-datacenter 'y' names no datacenter" in bad.stderr
    for name in ("datacenter1", "dc-old", "dc-new"):
        assert pai(penv, "cluster", "remove", name).returncode == 0


def workspace(tmp_path: Path, **fields) -> Path:
    ws = tmp_path / "ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.include": ["**/*.py"]}))
    (ws / "train.py").write_text(TRAIN)
    job = {"name": "fit-a-line", "parallelism": 2, "pservers": 1, "memory": "256Mi", "psmemory": "256Mi",
           "entry": "python3 train.py", **fields}
    (ws / "fit.paddle.json").write_text("// the seed's job\n" + json.dumps(job, indent=2))
    return ws


def test_seed_flow_submit_jobs_workers_logs_kill(penv, tmp_path):
    ws = workspace(tmp_path)
    run = pai(penv, "run", "fit.paddle.json", "--follow", cwd=ws)
    assert run.returncode == 0, run.stderr
    job = run.stdout.splitlines()[0].split()[1]
    assert job.startswith("fit-a-line-") and len(job) == len("fit-a-line-") + 8 and "_" not in job
    assert f"uploaded 1 file, {len(TRAIN)} bytes to /pfs/local/home/" in run.stderr and f"/jobs/{job} " in run.stderr
    said = sorted(line.split("] ", 1)[1] for line in run.stdout.splitlines() if "] trainer " in line)
    assert [s.split(" pservers ")[0] for s in said] == ["trainer 0 of 2", "trainer 1 of 2"]
    # The task labelled trainer:N is the trainer whose id is N (as the platform numbers them: by address).
    labelled = {line.split("] ", 1)[0][1:]: line.split("] ", 1)[1].split(" pservers ")[0]
                for line in run.stdout.splitlines() if "] trainer " in line}
    assert labelled == {"trainer:0": "trainer 0 of 2", "trainer:1": "trainer 1 of 2"}
    assert len({s.split(" pservers ")[1] for s in said}) == 1  # both see the one pserver's address
    assert f"{job}: SUCCEEDED" in run.stderr
    table = pai(penv, "jobs", "--cluster", "local-paddle").stdout.splitlines()
    assert any(line.split()[:2] == [job, "SUCCEEDED"] for line in table[1:])
    status = pai(penv, "status", job, "--cluster", "local-paddle").stdout.splitlines()
    assert status[0] == f"{job}: SUCCEEDED"
    workers = [line.split() for line in status[1:]]
    assert [w[0] for w in workers] == ["pserver:0", "trainer:0", "trainer:1"]
    trainer = workers[2][1]
    assert trainer.startswith(f"{job}-trainer-") and workers[2][2] == "SUCCEEDED" and workers[2][-2:] == ["exit", "0"]
    logs = pai(penv, "logs", job, "--cluster", "local-paddle", "--task", trainer)
    assert logs.returncode == 0 and logs.stdout.startswith("Starting training job: ")
    assert sum(line.startswith("trainer ") for line in logs.stdout.splitlines()) == 1  # one worker's log only
    for index in (0, 1):
        own = pai(penv, "logs", job, "--cluster", "local-paddle", "--task", f"trainer:{index}").stdout
        assert [line.split(" pservers ")[0] for line in own.splitlines() if line.startswith("trainer ")] == [f"trainer {index} of 2"]


def test_kill_and_a_name_still_in_use_is_refused(penv, tmp_path):
    ws = workspace(tmp_path, name="long-job", passes=120)
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.include": ["**/*.py"],
                                                               "pai.job.generateJobName.enabled": False}))
    first = pai(penv, "run", "fit.paddle.json", cwd=ws)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "submitted long-job to local-paddle"
    deadline = time.monotonic() + 30
    while "RUNNING" not in pai(penv, "status", "long-job", "--cluster", "local-paddle").stdout:
        assert time.monotonic() < deadline
        time.sleep(0.3)
    again = pai(penv, "run", "fit.paddle.json", cwd=ws)
    assert again.returncode == 1 and again.stderr.count("\n") == 1
    assert "a job named long-job already exists on local-paddle" in again.stderr
    stopped = pai(penv, "stop", "long-job", "--cluster", "local-paddle")
    assert stopped.returncode == 0 and stopped.stdout.strip() == "stopped long-job (it was RUNNING)"
    gone = pai(penv, "stop", "long-job", "--cluster", "local-paddle")
    assert gone.returncode in (1, 3) and gone.stderr.count("\n") == 1, gone.stderr
    assert "long-job has ended already (STOPPED)" in gone.stderr or "no job long-job" in gone.stderr
    # Once its pods are gone the platform keeps nothing of it: pai says why, in the reader's language.
    chinese = {**penv, "LC_ALL": "zh_CN.UTF-8"}
    deadline = time.monotonic() + 30
    while "已被其用户停止" not in (shown := pai(chinese, "status", "long-job", "--cluster", "local-paddle")).stdout:
        assert time.monotonic() < deadline, shown.stdout + shown.stderr
        time.sleep(0.3)
    assert "stopped by its user" in pai(penv, "status", "long-job", "--cluster", "local-paddle").stdout
    deadline = time.monotonic() + 30
    while pai(penv, "run", "fit.paddle.json", cwd=ws).returncode != 0:  # free again once its pods are gone
        assert time.monotonic() < deadline
        time.sleep(0.5)
    assert pai(penv, "stop", "long-job", "--cluster", "local-paddle").returncode == 0


def test_upload_resumes_after_a_cut_and_resends_only_changed_chunks(penv, tmp_path, monkeypatch):
    from pai_lsp.clusters.paddlecloud import PaddleCloud
    from pai_lsp.clusters.profiles import local_paddle_profile
    from pai_lsp.errors import Interrupted
    from pai_lsp.storage.upload import select

    for key in ("XDG_CONFIG_HOME", "PAI_LOCAL_CLUSTER_DIR", "XDG_STATE_HOME", "PAI_LSP_SECRETS", "PAI_LOCAL_CLUSTER_ARGS"):
        monkeypatch.setenv(key, penv[key])
    profile = local_paddle_profile()
    password = local_client_password(penv)
    ws = tmp_path / "pkg"
    ws.mkdir()
    big = os.urandom(1 << 20) + b"tail"
    (ws / "big.bin").write_bytes(big)
    for i in range(3):
        (ws / f"small{i}.py").write_text(f"print({i})\n" * 200)
    files = select(ws, ["**/*"], [])
    remote = f"/pfs/local/home/{profile.user}/jobs/resume-test"
    port = int(profile.rest_uri.rsplit(":", 1)[1])
    proxy = CuttingProxy(port, budget=400_000)
    cut = PaddleCloud(profile.__class__(**{**profile.__dict__, "rest_uri": proxy.url, "webhdfs_uri": proxy.url + "/api/v1/pfs"}),
                      lambda: password)
    cut.storage.chunk = 64 * 1024
    with pytest.raises(Interrupted) as stopped:
        cut.upload(files, remote)
    assert "the next upload sends only what is missing" in stopped.value.message
    proxy.close()
    arrived_before = proxy.sent
    backend = PaddleCloud(profile, lambda: password)
    backend.storage.chunk = 64 * 1024
    resumed = backend.upload(files, remote)
    assert resumed.sent_files == 4 and 0 < resumed.sent_bytes < len(big) + 3 * 1800  # what had arrived was not sent again
    assert arrived_before > 64 * 1024
    assert hashlib.md5(backend.storage.read(f"{remote}/big.bin")).hexdigest() == hashlib.md5(big).hexdigest()
    same = backend.upload(files, remote)
    assert (same.sent_files, same.sent_bytes, same.unchanged_files) == (0, 0, 4)
    changed = bytearray(big)
    changed[700_000:700_010] = b"0123456789"
    (ws / "big.bin").write_bytes(bytes(changed))
    again = backend.upload(select(ws, ["**/*"], []), remote)
    assert (again.sent_files, again.unchanged_files) == (1, 3)
    assert again.sent_bytes == 64 * 1024  # one chunk of one file
    assert backend.storage.read(f"{remote}/big.bin") == bytes(changed)
    backend.close()
    cut.close()


def test_trainer_labels_follow_the_platform_s_trainer_ids(env):
    """The platform numbers trainers by their pods' addresses, sorted (k8s_tools.py fetch_id), not by
    name: the task labelled trainer:0 is the one whose PADDLE_INIT_TRAINER_ID is 0."""
    def pod(name: str, ip: str, role: str = "paddle-job") -> dict:
        return {"metadata": {"name": name, "labels": {role: "fit"}}, "status": {"phase": "Running", "pod_ip": ip}}

    pods = [pod("fit-trainer-aaaaa", "10.0.0.9"), pod("fit-trainer-bbbbb", "10.0.0.10"),  # as text: "10.0.0.10" < "10.0.0.9"
            pod("fit-pserver-1-zzzzz", "10.0.0.5", "paddle-job-pserver")]

    def respond(method, path, body):
        if path.startswith("/api-token-auth/"):
            return 200, {}, {"token": "t"}
        if path.startswith("/api/v1/jobs/"):
            return 200, {}, {"items": [{"metadata": {"name": "fit-trainer"}, "spec": {"parallelism": 2},
                                        "status": {"active": 2}}]}
        if path.startswith("/api/v1/workers/"):
            return 200, {}, {"items": pods}
        return 404, {}, {}

    with StandIn(respond) as server:
        pai(env, "cluster", "add", "pc", "--kind", "paddlecloud", "--rest", server.url, "--user", "u", "--password-stdin",
            stdin="pw\n")
        try:
            shown = pai(env, "status", "fit", "--cluster", "pc")
        finally:
            pai(env, "cluster", "remove", "pc")
    assert shown.returncode == 0, shown.stderr
    workers = {line.split()[0]: line.split()[1] for line in shown.stdout.splitlines()[1:]}
    assert workers == {"pserver:0": "fit-pserver-1-zzzzz", "trainer:0": "fit-trainer-bbbbb", "trainer:1": "fit-trainer-aaaaa"}



def test_a_followed_log_keeps_its_label_while_trainers_get_their_addresses(env):
    """A trainer that runs while another still waits for its address was shown as trainer:0; once the
    other got a lower address it became trainer:1, yet its log went on under trainer:0 and the other's
    log never came. Logs are read once the numbers are final (every pod has its address)."""
    import threading

    began: list[float] = []
    lock = threading.Lock()

    def since() -> float:
        with lock:
            if not began:
                began.append(time.monotonic())
            return time.monotonic() - began[0]

    def pod(name: str, ip: str | None, role: str = "paddle-job") -> dict:
        phase = "Running" if ip else "Pending"
        return {"metadata": {"name": name, "labels": {role: "fit"}}, "status": {"phase": phase, "pod_ip": ip}}

    def respond(method, path, body):
        now = since()
        if path.startswith("/api-token-auth/"):
            return 200, {}, {"token": "t"}
        if path.startswith("/api/v1/jobs/"):
            status = {"succeeded": 2} if now > 4 else {"active": 2}
            return 200, {}, {"items": [{"metadata": {"name": "fit-trainer"}, "spec": {"parallelism": 2}, "status": status}]}
        if path.startswith("/api/v1/workers/"):  # bbbbb gets its address (lower, as text) 1.5 s after aaaaa
            return 200, {}, {"items": [pod("fit-trainer-aaaaa", "10.0.0.9"), pod("fit-trainer-bbbbb", "10.0.0.10" if now > 1.5 else None),
                                       pod("fit-pserver-1-zzzzz", "10.0.0.5", "paddle-job-pserver")]}
        if path.startswith("/api/v1/logs/"):
            said = {"fit-trainer-aaaaa": "I am aaaaa, trainer id 1\n", "fit-trainer-bbbbb": "I am bbbbb, trainer id 0\n",
                    "fit-pserver-1-zzzzz": "pserver up\n"}
            return 200, {}, {"code": 200, "msg": next(text for name, text in said.items() if f"w={name}" in path)}
        return 404, {}, {}

    with StandIn(respond) as server:
        pai(env, "cluster", "add", "pc", "--kind", "paddlecloud", "--rest", server.url, "--user", "u", "--password-stdin",
            stdin="pw\n")
        try:
            shown = pai(env, "logs", "fit", "--follow", "--cluster", "pc")
        finally:
            pai(env, "cluster", "remove", "pc")
    assert shown.returncode == 0, shown.stderr
    assert sorted(shown.stdout.splitlines()) == ["[pserver:0] pserver up", "[trainer:0] I am bbbbb, trainer id 0",
                                                 "[trainer:1] I am aaaaa, trainer id 1"]
