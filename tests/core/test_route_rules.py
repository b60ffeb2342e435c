"""How a job's code reaches its cluster, and what the cluster's storages say of a v2 job file, on plain
facts (core/route_rules.py, core/v2/storage_checks.py): pure, in-process."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pai_lsp.core.jsonc import parse as parse_json
from pai_lsp.core.model import Settings
from pai_lsp.core.route_rules import (
    ClusterFacts,
    StorageFact,
    candidates,
    choose_storage,
    code_folder,
    present,
    setting_for,
)
from pai_lsp.core.settings_check import settings_diagnostics
from pai_lsp.settings import read

from ..helpers.core import Buffer

pytestmark = pytest.mark.unit

TEAM = StorageFact("team", "nfs", "10.0.0.1:/data", False, "/mnt/team", True, True)
DATA = StorageFact("data", "azureBlob", "acct/datasets", True, "/mnt/data", False, True)
HOMES = StorageFact("homes", "nfs", "10.0.0.1:/homes", False, "/mnt/homes", False, False)
K8S = ClusterFacts("prod", "alice", True, (TEAM, DATA, HOMES))
NO_DEFAULT = replace(K8S, storages=(replace(TEAM, default=False), DATA, HOMES))
YARN = ClusterFacts("old", "alice", False, None)

JOB = """\
protocolVersion: 2
name: first
type: job
prerequisites:
  - {name: image, type: dockerimage, uri: "ubuntu:18.04"}
taskRoles:
  main:
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}
    commands:
      - python3 train.py
"""
EXISTS = frozenset({"train.py"})


def cluster_findings(buffer: Buffer, facts: ClusterFacts, exists: frozenset[str] = EXISTS) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for d in buffer.format.cluster_diagnostics(buffer.doc, facts, buffer.settings, exists):
        out.setdefault(d.code, []).append(buffer.text[d.start:d.end])
    return out


# -- which words of a command may be workspace files --------------------------------------------
def test_candidates_are_relative_paths_and_modules_until_a_cd():
    found = candidates(["python3 -m pkg.sub --fast", "bash ./run.sh && python3 /abs/x.py $PAI_JOB_NAME/y.py",
                        "cd /mnt/code", "python3 later.py"])
    by_word = {c.word: c for c in found}
    assert by_word["pkg.sub"].paths == ("pkg/sub.py", "pkg/sub/")
    assert by_word["./run.sh"].paths == ("run.sh",) and by_word["./run.sh"].command == 1
    assert "/abs/x.py" not in by_word and "$PAI_JOB_NAME/y.py" not in by_word and "later.py" not in by_word
    assert [c.word for c in present(found, frozenset({"run.sh", "pkg/sub/"}))] == ["pkg.sub", "./run.sh"]
    assert candidates(["python3 'unclosed"])[-1].word == "unclosed"  # read as words all the same, never a crash


def test_a_file_a_command_runs_is_told_from_one_it_only_names():
    found = candidates(["python3 -u train.py --data data.csv", "bash run.sh notes.txt && ./go.sh", "echo info.py",
                        "torchrun --nproc_per_node=2 dist.py", "python -m torch.distributed.run launch.py"])
    assert {c.word: c.runs for c in found if "." in c.word} == {
        "train.py": True, "data.csv": False, "run.sh": True, "notes.txt": False, "./go.sh": True, "info.py": False,
        "dist.py": True, "torch.distributed.run": True, "launch.py": True}
    assert [c.word for c in present(found, frozenset({"data.csv", "info.py", "train.py"}), runs=True)] == ["train.py"]


def test_a_launcher_module_runs_the_script_after_its_options():
    """`python -m debugpy --listen 5678 train.py` (debugging by hand), `-m cProfile -o out train.py`: the
    script is run, the options' values are no files."""
    found = candidates(["python3 -m debugpy --listen 0.0.0.0:$PAI_CONTAINER_HOST_debug_PORT_LIST --wait-for-client train.py",
                        "python -m debugpy --listen 5678 eval.py --data d.csv", "python -m cProfile -o prof.out bench.py"])
    assert {c.word: c.runs for c in found if "." in c.word} == {"train.py": True, "eval.py": True, "d.csv": False, "bench.py": True}


# -- where the code goes ---------------------------------------------------------------------------
def test_the_storage_chosen_setting_then_default_then_one_the_job_mounts():
    assert choose_storage(K8S, None, []).storage == TEAM and choose_storage(K8S, None, []).source == "default"
    assert choose_storage(K8S, ("homes", ""), []).storage == HOMES
    assert choose_storage(NO_DEFAULT, None, ["data", "homes"]).storage == HOMES  # data is read-only
    assert choose_storage(NO_DEFAULT, None, []).problem == "route.no-default-storage"
    assert choose_storage(K8S, ("nope", ""), []).problem == "route.setting-unknown"
    assert choose_storage(K8S, ("data", ""), []).problem == "route.setting-read-only"
    assert choose_storage(replace(K8S, storages=(DATA,)), None, []).problem == "route.no-writable-storage"
    assert choose_storage(YARN, None, []).problem == "route.no-storages"


def test_the_setting_per_cluster_and_its_folder():
    settings = read({"pai.job.upload.storage": {"prod": {"storage": "homes", "path": "code/$PAI_USER_NAME/$PAI_JOB_NAME/"},
                                                "other": {"storage": "team"}, "broken": {"path": "x"}}})
    assert setting_for(settings.upload_storage, "prod") == ("homes", "code/$PAI_USER_NAME/$PAI_JOB_NAME/")
    assert setting_for(settings.upload_storage, "other") == ("team", "")
    assert setting_for(settings.upload_storage, "broken") is None
    assert code_folder("code/$PAI_USER_NAME/$PAI_JOB_NAME/", "alice", "j_1") == "/code/alice/j_1"
    assert code_folder("", "alice", "j_1") == "/alice~j_1"


def test_the_setting_of_a_wrong_shape_is_said_in_settings_json():
    text = '{"pai.job.upload.storage": {"prod": {"path": "x"}}, "pai.job.upload.requireRoute": false}'
    (d,) = settings_diagnostics(parse_json(text), None, None)
    assert d.code == "settings.storage-type" and text[d.start:d.end] == '{"path": "x"}'
    assert settings_diagnostics(parse_json('{"pai.job.upload.storage": {"prod": {"storage": "team"}}}'), None, None) == []


# -- a workspace file no upload reaches -------------------------------------------------------------
def test_a_route_says_nothing():
    assert cluster_findings(Buffer(JOB, "job.pai.yaml"), K8S) == {}
    assert cluster_findings(Buffer(JOB, "job.pai.yaml"), NO_DEFAULT, frozenset()) == {}  # no workspace file: nothing to miss
    with_code_dir = JOB + "extras:\n  codeDir: $PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME\n"
    assert cluster_findings(Buffer(with_code_dir, "job.pai.yaml"), YARN) == {}


def test_no_default_storage_is_fixed_by_mounting_one():
    buffer = Buffer(JOB, "job.pai.yaml")
    (d,) = buffer.format.cluster_diagnostics(buffer.doc, NO_DEFAULT, buffer.settings, EXISTS)
    assert (d.code, d.severity, buffer.text[d.start:d.end]) == ("route.no-default-storage", "error", "train.py")
    assert "team, data, homes" in d.message
    assert [f.title for f in d.fixes] == ["Mount storage team and upload the code there", "Mount storage homes and upload the code there"]
    buffer.apply(d.fixes[0])
    assert buffer.text.endswith("extras:\n  storages:\n    - name: team\n")
    assert cluster_findings(buffer, NO_DEFAULT) == {}


def test_uploads_off_and_a_yarn_era_cluster():
    off = Buffer(JOB, "job.pai.yaml", Settings(upload_enabled=False))
    assert cluster_findings(off, K8S) == {"route.upload-off": ["train.py"]}
    warned = Buffer(JOB, "job.pai.yaml", Settings(upload_enabled=False, upload_require_route=False))
    (d,) = warned.format.cluster_diagnostics(warned.doc, K8S, warned.settings, EXISTS)
    assert d.severity == "warning"
    old = Buffer(JOB, "job.pai.yaml")
    (d,) = old.format.cluster_diagnostics(old.doc, YARN, old.settings, EXISTS)
    assert d.code == "route.no-storages" and "extras.codeDir" in d.message
    (fix,) = d.fixes
    old.apply(fix)
    assert "      - cd $PAI_JOB_NAME\n      - python3 train.py\n" in old.text
    assert "  codeDir: $PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME" in old.text
    assert cluster_findings(old, YARN) == {} and old.diagnostics() == []


def test_the_settings_storage_that_cannot_take_the_code():
    bad = Buffer(JOB, "job.pai.yaml", read({"pai.job.upload.storage": {"prod": {"storage": "data"}}}))
    (d,) = bad.format.cluster_diagnostics(bad.doc, K8S, bad.settings, EXISTS)
    assert d.code == "route.setting-read-only" and "storage data, which is read-only" in d.message


# -- storage names in the job file -------------------------------------------------------------------
LISTED = JOB + "extras:\n  storages:\n    - name: team\n      readOnly: true\n    - name: tema\n    - name: data\n      readOnly: true\n"


def test_a_name_the_user_may_not_use_and_a_read_only_the_server_overwrites():
    buffer = Buffer(LISTED, "job.pai.yaml")
    found = buffer.format.cluster_diagnostics(buffer.doc, K8S, Settings(), EXISTS)
    assert {d.code: buffer.text[d.start:d.end] for d in found} == {"v2.storage-writable-ignored": "true",
                                                                  "v2.storage-unknown": "tema"}
    unknown = next(d for d in found if d.code == "v2.storage-unknown")
    assert unknown.severity == "error" and "404 NoStorageError" in unknown.message
    assert [f.title for f in unknown.fixes] == ["Use storage team"]
    assert cluster_findings(Buffer(LISTED, "job.pai.yaml"), YARN, frozenset()) == {}  # no storages: nothing said of names


def test_teamwise_storage_names_are_checked_only_without_extras_storages():
    plugin = JOB + ("extras:\n  com.microsoft.pai.runtimeplugin:\n    - plugin: teamwise_storage\n      parameters:\n"
                    "        storageConfigNames: [team, nope]\n")
    assert cluster_findings(Buffer(plugin, "job.pai.yaml"), K8S) == {"v2.storage-unknown": ["nope"]}
    both = plugin.replace("extras:\n", "extras:\n  storages: []\n")
    assert cluster_findings(Buffer(both, "job.pai.yaml"), K8S) == {}  # the server ignores the plugin then


def test_storage_names_completed_and_explained():
    buffer = Buffer(LISTED, "job.pai.yaml")
    offset = buffer.offset("tema", 2)
    items = {c.label: c for c in buffer.format.cluster_complete(buffer.doc, offset, K8S, Settings())}
    assert set(items) == {"team", "data", "homes"} and items["data"].detail == "azureBlob · acct/datasets · ro"
    assert buffer.text[items["team"].start:items["team"].end] == "tema"
    plugin = Buffer(JOB + ("extras:\n  com.microsoft.pai.runtimeplugin:\n    - plugin: teamwise_storage\n      parameters:\n"
                           "        storageConfigNames:\n          - ho\n"), "job.pai.yaml")
    assert "homes" in {c.label for c in plugin.format.cluster_complete(plugin.doc, plugin.offset("- ho", 4), K8S, Settings())}
    hover = buffer.format.cluster_hover(buffer.doc, buffer.offset("name: data", 7), K8S, Settings())
    assert hover.markdown.startswith("**Storage data** (azureBlob) on prod") and "read-only" in hover.markdown
    assert "`/mnt/data`" in hover.markdown
    homes = Buffer(JOB + "extras:\n  storages:\n    - {name: homes, mountPath: /home/me}\n", "job.pai.yaml")
    said = homes.format.cluster_hover(homes.doc, homes.offset("homes", 1), K8S, Settings(locale="zh-CN")).markdown
    assert "`/home/me`" in said and "`alice/`" in said and "存储 homes" in said


def test_a_v1_config_without_code_dir_gets_one_and_its_command_starts_there():
    text = '{\n  "jobName": "mnist",\n  "image": "python:3",\n  "taskRoles": [\n    {"name": "main", "taskNumber": 1, "cpuNumber": 1, ' \
           '"memoryMB": 1024, "gpuNumber": 0, "command": "python mnist.py --epochs 1"}\n  ]\n}\n'
    buffer = Buffer(text, "mnist.pai.json")
    (d,) = buffer.format.cluster_diagnostics(buffer.doc, YARN, buffer.settings, frozenset({"mnist.py"}))
    assert (d.code, buffer.text[d.start:d.end]) == ("route.no-code-dir", "mnist.py") and "names no codeDir" in d.message
    (fix,) = d.fixes
    buffer.apply(fix)
    assert '"codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME"' in buffer.text
    assert '"command": "cd $PAI_JOB_NAME && python mnist.py --epochs 1"' in buffer.text
    assert buffer.format.cluster_diagnostics(buffer.doc, YARN, buffer.settings, frozenset({"mnist.py"})) == []
    off = Buffer(text, "mnist.pai.json", Settings(upload_enabled=False))
    assert [d.code for d in off.format.cluster_diagnostics(off.doc, K8S, off.settings, frozenset({"mnist.py"}))] == ["route.upload-off"]


@pytest.mark.parametrize("text", [
    "protocolVersion: 2\ntaskRoles: [a, b]\nextras: {storages: nope}\n",
    "protocolVersion: 2\ntaskRoles:\n  r: {commands: python3 train.py}\nextras:\n  storages:\n    - name: 3\n    - [x]\n",
    "protocolVersion: 2\ntaskRoles:\n  r:\n    commands: [1, null, {a: b}, python3 train.py]\nextras:\n"
    "  com.microsoft.pai.runtimeplugin: [{plugin: teamwise_storage, parameters: {storageConfigNames: nope}}]\n",
    "protocolVersion: 2\nextras: [1]\n",
    "- just\n- a list\n",
])
def test_odd_files_are_checked_against_the_cluster_without_a_crash(text):
    buffer = Buffer(text, "job.pai.yaml")
    for facts in (K8S, NO_DEFAULT, YARN):
        found = buffer.format.cluster_diagnostics(buffer.doc, facts, buffer.settings, EXISTS)
        assert all(0 <= d.start <= d.end <= len(text) for d in found)
        for offset in range(0, len(text), 7):
            buffer.format.cluster_complete(buffer.doc, offset, facts, buffer.settings)
            buffer.format.cluster_hover(buffer.doc, offset, facts, buffer.settings)
