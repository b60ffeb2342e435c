"""The local cluster's storages over real HTTP, as the real server serves them (openpai-k8s.md §A): the
two endpoints (who may use which, default first, 404 before 403, credentials in `data`), the deprecated
routes, `extras.storages` at submit (the `teamwise_storage` mapping, `[]` as the defaults, 404 for a
name the user may not use, `share` and `readOnly` from the server, the stored config as sent), and the
storage mounted in the task at `mountPath` on the host runtime: what the task writes there is in the
storage's folder, a read-only storage refuses writes, a `share: false` storage shows only `<user>/`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from pai_lsp.localcluster.runner import container_command
from pai_lsp.localcluster.task_mounts import helper_argv

from ..helpers.localcluster import (
    USER,
    all_started,
    login,
    own_cluster,
    secret_file,
    sleepers,
    sleepers_command,
    tagged,
    wait_for,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tasks mount storages in Linux mount namespaces")

CONFIG = {
    "storages": {
        "homes": {"share": False},
        "datasets": {"readOnly": True},
        "teamdata": {},
        "pending": {"bound": False},
        "smb": {"type": "samba", "data": {"address": "//127.0.0.1/share"}, "secretName": "smbcreds",
                "mountOptions": ["vers=3.0"]},
    },
    "groups": {"default": ["local", "homes", "datasets", "pending", "smb"], "ml": ["teamdata", "datasets"]},
}
SMB_CREDENTIALS = {"username": "smbuser", "password": "smb-secret-pw"}


def configured(data_dir: Path) -> Path:
    """A data folder whose storages.json names folders in it (each storage with a folder gets `path`)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    config = json.loads(json.dumps(CONFIG))
    for name, entry in config["storages"].items():
        if name != "smb" and entry.get("bound", True):
            entry["path"] = str(data_dir / "folders" / name)
    (data_dir / "storages.json").write_text(json.dumps(config))
    secret_file(data_dir, "storage-secrets.json").write_text(json.dumps({"smbcreds": SMB_CREDENTIALS}))
    return data_dir


def join_group(data_dir: Path, user: str, *groups: str) -> None:
    users = secret_file(data_dir, "users.json")
    table = json.loads(users.read_text())
    table[user]["grouplist"] = list(groups)
    users.write_text(json.dumps(table))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, starts_processes):
    data_dir = configured(tmp_path_factory.mktemp("storages"))
    # POSIX process control even in a run that forces the portable way (which refuses storages: tested below).
    with own_cluster(data_dir, env={"PAI_LSP_PORTABLE_PROCESSES": "0"}) as c:
        join_group(data_dir, USER, "ml")  # alice: default and ml; bob: default only
        yield c


@pytest.fixture(scope="module")
def alice(cluster):
    with cluster.client() as c:
        yield c


@pytest.fixture(scope="module")
def bob(cluster):
    with cluster.client(login(cluster.url, "bob")) as c:
        yield c


def folder(cluster, name: str) -> Path:
    return cluster.data_dir / "storages" / "local" if name == "local" else cluster.data_dir / "folders" / name


def v2_job(name: str, *commands: str, extras: str = "") -> str:
    lines = "\n".join(f"      - {json.dumps(c)}" for c in commands)
    return (f"protocolVersion: 2\nname: {name}\ntype: job\nprerequisites:\n  - {{name: img, type: dockerimage, uri: ubuntu}}\n"
            f"taskRoles:\n  main:\n    instances: 1\n    dockerImage: img\n"
            f"    resourcePerInstance: {{cpu: 1, memoryMB: 256, gpu: 0}}\n    commands:\n{lines}\n" + extras)


def send(c: httpx.Client, text: str) -> httpx.Response:
    return c.post("/api/v2/jobs", content=text.encode(), headers={"Content-Type": "text/yaml"})


def _user_of(c: httpx.Client) -> str:
    import base64

    payload = c.headers["authorization"].split()[1].split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=="))["username"]


def run(c: httpx.Client, name: str, *commands: str, extras: str = "") -> tuple[str, str]:
    """Submit a v2 job, wait for its end: (state, its task's whole log)."""
    sent = send(c, v2_job(name, *commands, extras=extras))
    assert sent.status_code == 202, sent.text
    framework = f"{_user_of(c)}~{name}"
    state = wait_for(lambda: (s := c.get(f"/api/v2/jobs/{framework}").json()["jobStatus"]["state"])
                     in ("SUCCEEDED", "FAILED", "STOPPED") and s)
    logs = c.get(f"/api/v2/jobs/{framework}/attempts/0/taskRoles/main/taskIndex/0/attempts/0/logs").json()
    uri = next(loc["uri"] for loc in logs["locations"] if loc["name"] == "all")
    return state, c.get(uri).text


# -- the endpoints ---------------------------------------------------------------------------
def test_the_list_holds_the_users_bound_storages_with_their_defaults(alice, bob):
    mine = alice.get("/api/v2/storages").json()["storages"]
    assert [(s["name"], s["default"]) for s in mine] == [("datasets", False), ("homes", False), ("local", True),
                                                          ("smb", False), ("teamdata", True)]  # `pending` is not bound
    assert next(s for s in mine if s["name"] == "homes") == {"name": "homes", "share": False, "volumeName": "pv-homes",
                                                            "default": False}
    theirs = bob.get("/api/v2/storages").json()["storages"]
    assert [(s["name"], s["default"]) for s in theirs] == [("datasets", False), ("homes", False), ("local", True),
                                                           ("smb", False)]
    defaults = alice.get("/api/v2/storages", params={"default": "true"}).json()["storages"]
    assert [(s["name"], s["default"]) for s in defaults] == [("local", True), ("teamdata", True)]
    assert bob.get("/rest-server/api/v2/storages?default=true").json()["storages"] == [
        {"name": "local", "share": True, "volumeName": "pv-local", "default": True}]
    assert httpx.get(f"{alice.base_url}/api/v2/storages").status_code == 401


def test_a_storage_is_not_found_before_it_is_forbidden(cluster, alice, bob):
    missing = bob.get("/api/v2/storages/nope")
    assert (missing.status_code, missing.json()) == (404, {"code": "NoStorageError", "message": "Storage nope is not found."})
    forbidden = bob.get("/api/v2/storages/teamdata")
    assert (forbidden.status_code, forbidden.json()) == (403, {"code": "ForbiddenUserError",
                                                               "message": "User bob is not allowed to access teamdata."})
    assert alice.get("/api/v2/storages/teamdata").status_code == 200
    assert bob.get("/api/v2/storages/pending").json() == {"name": "pending", "share": True}  # a claim with no volume
    local = bob.get("/api/v2/storages/local").json()
    assert local == {"name": "local", "share": True, "volumeName": "pv-local", "type": "unknown",
                     "data": {"path": str(folder(cluster, "local"))}, "readOnly": False}
    assert Path(local["data"]["path"]).is_dir()
    assert bob.get("/api/v2/storages/datasets").json()["readOnly"] is True
    assert bob.get("/api/v2/storages/homes").json()["share"] is False


def test_credentials_are_in_data_as_the_server_returns_them(bob):
    smb = bob.get("/api/v2/storages/smb").json()
    assert smb == {"name": "smb", "share": True, "volumeName": "pv-smb", "type": "samba", "readOnly": False,
                   "secretName": "smbcreds", "mountOptions": ["vers=3.0"],
                   "data": {"address": "//127.0.0.1/share", **SMB_CREDENTIALS}}


def test_the_user_record_and_the_deprecated_routes(alice, bob):
    assert bob.get("/api/v2/users/bob").json()["storageConfig"] == ["local", "homes", "datasets", "pending", "smb"]
    assert alice.get(f"/api/v2/users/{USER}").json()["grouplist"] == ["default", "ml"]
    configs = bob.get("/api/v2/storage/config").json()
    homes = next(c for c in configs if c["name"] == "homes")
    assert homes == {"name": "homes", "default": False, "servers": ["pv-homes"], "mountInfos": [
        {"mountPoint": "/mnt/homes", "path": "${PAI_USER_NAME}", "server": "pv-homes", "permission": "rw"}]}
    assert [c["name"] for c in bob.get("/api/v2/storage/config", params=[("names", "local"), ("names", "smb")]).json()] == [
        "local", "smb"]
    assert bob.get("/api/v2/storage/config/datasets").json()["mountInfos"][0]["permission"] == "rw"  # even read-only
    miss = bob.get("/api/v2/storage/config/teamdata")
    assert (miss.status_code, miss.json()) == (500, {"code": "UnknownError", "message": "Config not found."})
    assert bob.get("/api/v2/storage/server/pv-smb").json() == {"spn": "pv-smb", "type": "samba", "extension": {}, "data": {
        "address": "127.0.0.1", "rootPath": "share", "userName": "smbuser", "password": "smb-secret-pw", "domain": ""}}
    assert bob.get("/api/v2/storage/server/smb").json()["message"] == "Server not found."  # named by volume, not claim


# -- submit ----------------------------------------------------------------------------------
def test_a_name_the_user_may_not_use_is_not_found_at_submit(bob):
    for extras in ("extras:\n  storages:\n    - name: teamdata\n",  # exists, not permitted: 404 all the same
                   "extras:\n  storages:\n    - name: nope\n",
                   "extras:\n  com.microsoft.pai.runtimeplugin:\n    - plugin: teamwise_storage\n"
                   "      parameters:\n        storageConfigNames: [local, teamdata]\n"):
        refused = send(bob, v2_job("refused", "true", extras=extras))
        name = "nope" if "nope" in extras else "teamdata"
        assert (refused.status_code, refused.json()) == (404, {"code": "NoStorageError",
                                                               "message": f"Storage {name} is not found."})
    assert bob.get("/api/v2/jobs/bob~refused").status_code == 404  # nothing was made


def test_the_deprecated_plugin_is_mapped_and_the_stored_config_is_as_sent(cluster, alice):
    extras = ("extras:\n  com.microsoft.pai.runtimeplugin:\n    - plugin: ssh\n      parameters: {jobssh: true}\n"
              "    - plugin: teamwise_storage\n      parameters:\n        storageConfigNames: [teamdata]\n")
    (folder(cluster, "teamdata") / "team.txt").write_text("team file\n")
    state, log = run(alice, "teamwise", "cat /mnt/teamdata/team.txt", "test ! -e /mnt/local", extras=extras)
    assert state == "SUCCEEDED", log
    assert "team file" in log
    stored = alice.get(f"/api/v2/jobs/{USER}~teamwise/config").json()
    assert "storages" not in stored["extras"] and stored["extras"]["com.microsoft.pai.runtimeplugin"][1]["plugin"] == "teamwise_storage"
    # Given `extras.storages`, the plugin is ignored; without names, it means the defaults.
    both = extras + "  storages:\n    - name: datasets\n"
    state, log = run(alice, "both", "test -d /mnt/datasets", "test ! -e /mnt/teamdata", extras=both)
    assert state == "SUCCEEDED", log
    bare = "extras:\n  com.microsoft.pai.runtimeplugin:\n    - plugin: teamwise_storage\n"
    state, log = run(alice, "bare", "test -d /mnt/local", "test -d /mnt/teamdata", extras=bare)
    assert state == "SUCCEEDED", log


def test_a_job_reads_and_writes_its_default_storage(cluster, bob):
    (folder(cluster, "local") / "input.txt").write_text("data for the job\n")
    state, log = run(bob, "first", "cat /mnt/local/input.txt", "mkdir -p /mnt/local/results",
                     "echo from the task > /mnt/local/results/out.txt", extras="extras:\n  storages: []\n")
    assert state == "SUCCEEDED", log
    assert "data for the job" in log
    assert (folder(cluster, "local") / "results" / "out.txt").read_text() == "from the task\n"
    assert not Path("/mnt/local/input.txt").exists()  # seen by the task only


def test_a_read_only_storage_refuses_writes_whatever_the_job_says(cluster, bob):
    (folder(cluster, "datasets") / "train.csv").write_text("1,2\n")
    extras = "extras:\n  storages:\n    - name: datasets\n      readOnly: false\n      mountPath: /mnt/deep/inside/data\n"
    state, log = run(bob, "readonly", "cat /mnt/deep/inside/data/train.csv",
                     "if echo x > /mnt/deep/inside/data/new.txt; then echo WROTE; else echo REFUSED; fi",
                     "ls /mnt", extras=extras)
    assert state == "SUCCEEDED", log
    assert "1,2" in log and "REFUSED" in log and "Read-only file system" in log and "WROTE" not in log
    assert not (folder(cluster, "datasets") / "new.txt").exists()


def test_a_storage_that_is_not_shared_shows_only_the_users_folder(cluster, alice, bob):
    (folder(cluster, "homes") / "bob").mkdir(parents=True, exist_ok=True)
    (folder(cluster, "homes") / "bob" / "secret.txt").write_text("bob's\n")
    (folder(cluster, "homes") / "root.txt").write_text("at the root\n")
    state, log = run(alice, "homes", "echo listing; ls -A /mnt/homes; echo end", "echo mine > /mnt/homes/mine.txt",
                     extras="extras:\n  storages:\n    - name: homes\n")
    assert state == "SUCCEEDED", log
    listing = log.split("listing\n")[1].split("end\n")[0].split()
    assert listing == []  # alice's folder, made on first use: neither bob's files nor the root's
    assert (folder(cluster, "homes") / USER / "mine.txt").read_text() == "mine\n"
    state, log = run(bob, "homes", "cat /mnt/homes/secret.txt", extras="extras:\n  storages:\n    - name: homes\n")
    assert state == "SUCCEEDED" and "bob's" in log


def test_what_cannot_be_mounted_here_is_refused_in_one_line(bob):
    no_folder = send(bob, v2_job("smbjob", "true", extras="extras:\n  storages:\n    - name: smb\n"))
    assert no_folder.status_code == 400 and "Storage smb has no folder on this machine" in no_folder.json()["message"]
    top = "/pai-lsp-test-absent-folder/data"
    assert not Path("/pai-lsp-test-absent-folder").exists()
    at_top = send(bob, v2_job("topjob", "true", extras=f"extras:\n  storages:\n    - name: local\n      mountPath: {top}\n"))
    assert at_top.status_code == 400
    assert "needs a new top-level folder /pai-lsp-test-absent-folder" in at_top.json()["message"]
    for answer in (no_folder, at_top):
        assert "\n" not in answer.json()["message"]


def test_a_storage_listed_twice_fails_the_job_as_kubernetes_refuses_its_pod(bob):
    extras = "extras:\n  storages:\n    - name: local\n    - name: local\n      mountPath: /mnt/again\n"
    assert send(bob, v2_job("twice", "true", extras=extras)).status_code == 202
    status = wait_for(lambda: (j := bob.get("/api/v2/jobs/bob~twice").json())["jobStatus"]["state"] == "FAILED" and j)
    assert "Storage local is listed more than once" in json.dumps(status)


def test_every_process_of_a_task_with_storages_ends_with_it(bob):
    with tagged() as tag:
        sent = send(bob, v2_job("sleepers", sleepers_command(tag, "sleep 300"), extras="extras:\n  storages: []\n"))
        assert sent.status_code == 202, sent.text
        all_started(tag)
        time.sleep(1.5)  # the scrubbed sleeper is known by having been seen in the task's tree
        stop = bob.put("/api/v2/jobs/bob~sleepers/executionType", json={"value": "STOP"})
        assert stop.status_code == 202
        wait_for(lambda: not sleepers(tag), 20)


@pytest.mark.subprocess
def test_the_portable_process_path_refuses_storages_in_one_line(tmp_path):
    with own_cluster(tmp_path / "portable", env={"PAI_LSP_PORTABLE_PROCESSES": "1"}) as cluster, cluster.client() as c:
        refused = send(c, v2_job("portable", "true", extras="extras:\n  storages: []\n"))
        assert refused.status_code == 400
        message = refused.json()["message"]
        assert "PAI_LSP_PORTABLE_PROCESSES=1" in message and "mount namespace" in message and "\n" not in message
        assert send(c, v2_job("plain", "true")).status_code == 202  # a job without storages runs as before


@pytest.mark.subprocess
def test_a_bad_storage_config_stops_the_cluster_in_one_line(tmp_path):
    data_dir = tmp_path / "bad"
    data_dir.mkdir()
    (data_dir / "storages.json").write_text(json.dumps({"storages": {"Bad_Name": {}}}))
    result = subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", str(data_dir), "--port", "0"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "storage 'Bad_Name'" in result.stderr and "Traceback" not in result.stderr


def test_a_container_gets_the_storages_as_bind_mounts(tmp_path):
    from pai_lsp.core.roles import TaskRole
    from pai_lsp.localcluster.job_data import Job

    role = TaskRole(name="main", tasks=1, cpu=1, memory_mb=256, gpu=0, shm_mb=64, command="true", ports={},
                    min_failed=None, min_succeeded=None)
    job = Job(user="bob", name="j", version=2, legacy=False, config={"image": "ubuntu"}, virtual_cluster="default",
              roles=[role], retry_count=0)
    argv = container_command("docker", "pai-x", job, role, tmp_path, {}, mounts=[
        {"name": "a", "source": "/srv/a", "target": "/mnt/a", "readOnly": True},
        {"name": "b", "source": "/srv/b/bob", "target": "/data", "readOnly": False}])
    assert argv[argv.index("type=bind,source=/srv/a,target=/mnt/a,readonly") - 1] == "--mount"
    assert "type=bind,source=/srv/b/bob,target=/data" in argv


@pytest.mark.subprocess
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root to become another user")
def test_a_user_who_is_not_root_mounts_through_a_user_namespace():
    """The mount helper as an unprivileged user (nobody): the uid stays theirs, the read-only mount holds
    (the command has no capability left to undo it), the writable one is written through."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="pai-mountns-"))  # in /tmp, which nobody may reach (pytest's folders are root's)
    try:
        base.chmod(0o777)
        for name in ("rw", "ro"):
            (base / name).mkdir()
            (base / name).chmod(0o777)
        (base / "ro" / "given.txt").write_text("given\n")
        spec = json.dumps({"mounts": [{"name": "rw", "source": str(base / "rw"), "target": "/mnt/pai-rw", "readOnly": False},
                                      {"name": "ro", "source": str(base / "ro"), "target": "/mnt/pai-ro", "readOnly": True}],
                           "stage": str(base / "stage")})
        script = ("id -u; cat /mnt/pai-ro/given.txt; echo out > /mnt/pai-rw/out.txt; "
                  "echo x > /mnt/pai-ro/x 2>/dev/null && echo WROTE; mount -o remount,rw /mnt/pai-ro 2>/dev/null && echo REMOUNTED; "
                  "ls /mnt/pai-ro")
        result = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *helper_argv(), spec,
                                 "/bin/bash", "-c", script], capture_output=True, text=True, cwd=base, timeout=60)
        if "cannot be made here" in result.stderr:
            pytest.skip(f"this kernel refuses unprivileged user namespaces: {result.stderr.strip()}")
        assert result.stdout.split() == ["65534", "given", "given.txt"], result.stderr
        assert (base / "rw" / "out.txt").read_text() == "out\n"
        assert not (base / "ro" / "x").exists()
    finally:
        shutil.rmtree(base, ignore_errors=True)


# -- in-process: the table and the server's reading of extras --------------------------------
def test_extras_are_read_as_the_servers_javascript_reads_them(tmp_path):
    from pai_lsp.localcluster.job_storages import effective
    from pai_lsp.localcluster.rest_errors import ClusterError
    from pai_lsp.localcluster.storages import Storages

    table = Storages(configured(tmp_path / "data"))
    plugins = "com.microsoft.pai.runtimeplugin"

    def names(extras, groups=frozenset()):
        return [(s["name"], s["mountPath"], s["share"], s["readOnly"]) for s in effective(extras, "bob", set(groups), table)]

    teamwise = {"plugin": "teamwise_storage", "parameters": {"storageConfigNames": ["homes"]}}
    later = {"plugin": "teamwise_storage", "parameters": {"storageConfigNames": ["datasets"]}}
    assert names({plugins: [teamwise, later]}) == [("datasets", "/mnt/datasets", True, True)]  # the later entry wins
    assert names({"storages": None, plugins: [teamwise]}) == [("homes", "/mnt/homes", False, False)]  # null is falsy
    assert names({"storages": [], plugins: [teamwise]}) == [("local", "/mnt/local", True, False)]  # [] is not: defaults
    assert names({plugins: [{"plugin": "ssh"}]}) == [] and names({}) == [] and names(None) == []
    assert names({"storages": [{"mountPath": "/x"}, {"name": "local", "mountPath": "/mnt/l", "share": False}]}) == [
        ("local", "/mnt/l", True, False)]  # no name: skipped; share from the server
    assert names({"storages": []}, {"ml"}) == [("local", "/mnt/local", True, False), ("teamdata", "/mnt/teamdata", True, False)]
    for extras, message in (({plugins: 3}, "is not iterable"), ({"storages": {"name": "local"}}, "is not iterable"),
                            ({"storages": [None]}, "of null")):
        with pytest.raises(ClusterError) as raised:
            effective(extras, "bob", set(), table)
        assert (raised.value.status, raised.value.code) == (500, "UnknownError") and message in raised.value.message


def test_the_table_follows_its_file(tmp_path):
    from pai_lsp.localcluster.storages import StorageConfigError, Storages

    data_dir = tmp_path / "data"
    data_dir.mkdir()
    table = Storages(data_dir)
    assert table.listed(set()) == [{"name": "local", "share": True, "volumeName": "pv-local", "default": True}]
    (data_dir / "storages.json").write_text(json.dumps({"storages": {"scratch": {"path": str(tmp_path / "scratch")}}}))
    assert [s["name"] for s in table.listed(set())] == ["local", "scratch"]  # `local` stays, and stays the default
    assert table.defaults(set()) == ["local"] and (tmp_path / "scratch").is_dir()
    (data_dir / "storages.json").write_text(json.dumps({"storages": {"scratch": {"path": "relative"}}}))
    assert [s["name"] for s in table.listed(set())] == ["local", "scratch"]  # a broken file changes nothing
    with pytest.raises(StorageConfigError, match="absolute path"):
        Storages(data_dir)  # ... but a cluster does not start on it
