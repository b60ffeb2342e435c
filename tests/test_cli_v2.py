"""v2 job files (`*.pai.yaml`, or any YAML with `protocolVersion: 2`) through `pai`, as a user runs them:
`check`, `run` on the embedded local cluster, `submit --dry-run` (the rendered job, secrets masked
unless asked), a Kubernetes-era cluster (the YAML as it is) and a YARN-era one (the job as its v1
config, or one refusal naming what v1 cannot express, with nothing uploaded)."""

from __future__ import annotations

import getpass
import json
import shutil
from pathlib import Path

import httpx
import pytest

from .helpers.cli import local_client_password, pai
from .helpers.paths import EXAMPLE, shared

pytestmark = pytest.mark.subprocess  # `pai`, its daemon and the local cluster

JOB = """\
# a comment the user keeps
protocolVersion: 2
name: hello_v2
type: job
prerequisites:
  - {name: image, type: dockerimage, uri: "ubuntu:18.04"}
parameters:
  greeting: hello
  times: 2
secrets:
  token: s3cr3t-value
deployments:
  - name: local
    taskRoles:
      worker: {preCommands: ["echo pre from <% $parameters.greeting %>"], postCommands: [echo post]}
defaults: {deployment: local}
taskRoles:
  worker:
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}
    commands:
      - echo "<% $parameters.greeting %> x<% $parameters.times %> from $PAI_CURRENT_TASK_ROLE_NAME"
      - test -n "<% $secrets.token %>"
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    ws = tmp_path / "ws"
    (ws / ".vscode").mkdir(parents=True, exist_ok=True)
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.enabled": False}))
    (ws / name).write_text(text)
    return ws


def token(env: dict, url: str) -> str:
    return httpx.post(f"{url}/api/v1/token", json={"username": getpass.getuser(),
                                                   "password": local_client_password(env)}).json()["token"]


def test_check_reads_a_v2_file_with_the_exit_codes_of_v1(env, tmp_path):
    ws = write(tmp_path, "job.pai.yaml", JOB)
    good = pai(env, "check", "job.pai.yaml", cwd=ws)
    assert (good.returncode, good.stdout) == (0, ""), good.stdout + good.stderr
    (ws / "unclosed.yml").write_text(JOB.replace("postCommands: [echo post]", 'postCommands: ["echo post <% $parameters.x"]'))
    bad = pai(env, "check", "unclosed.yml", cwd=ws)  # no *.pai.yaml name: known by `protocolVersion: 2`
    assert bad.returncode == 1 and bad.stdout.count("\n") == 1, bad.stdout
    assert bad.stdout.startswith("unclosed.yml:") and "Unclosed tag at" in bad.stdout and " error " in bad.stdout


def test_check_refuses_what_the_servers_code_fails_on_after_its_schema(env, tmp_path):
    """`taskRoles` null passes the server's schema, then its code answers 500: an error, exit 1."""
    ws = write(tmp_path, "null.pai.yaml", JOB[:JOB.index("\ntaskRoles:") + 1] + "taskRoles:\n")
    (ws / "listed.pai.yaml").write_text(JOB.replace("taskRoles:\n  worker:\n", "taskRoles:\n  - prerequisites: image\n"))
    for name in ("null.pai.yaml", "listed.pai.yaml"):
        bad = pai(env, "check", name, cwd=ws)
        assert bad.returncode == 1 and " error " in bad.stdout, bad.stdout + bad.stderr
        assert "the server" in bad.stdout.lower() and "Traceback" not in bad.stderr, bad.stdout
    assert "Cannot convert undefined or null to object" in pai(env, "check", "null.pai.yaml", cwd=ws).stdout


def test_check_takes_every_real_v2_example_as_it_is(env, tmp_path):
    """OpenPAI's own v2 examples (named *.yaml, known by `protocolVersion: 2`): no finding, exit 0."""
    files = sorted(shared("corpus", "openpai-examples", "v2").glob("*.yaml"))
    assert len(files) > 20
    result = pai(env, "check", *map(str, files), cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_run_renders_the_commands_as_the_server_does_and_keeps_the_file(env, tmp_path):
    ws = write(tmp_path, "hello.pai.yaml", JOB)
    before = (ws / "hello.pai.yaml").read_bytes()
    result = pai(env, "run", "hello.pai.yaml", "--follow", cwd=ws)
    assert result.returncode == 0, result.stderr
    job = result.stdout.splitlines()[0].split()[1]
    assert job.startswith("hello_v2_") and len(job) == len("hello_v2_") + 8
    assert result.stdout.splitlines()[1:4] == ["pre from hello", "hello x2 from worker", "post"]
    assert f"{job}: SUCCEEDED" in result.stderr
    assert (ws / "hello.pai.yaml").read_bytes() == before
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    stored = httpx.get(f"{info['url']}/api/v2/jobs/{getpass.getuser()}~{job}/config",
                       headers={"Authorization": f"Bearer {token(env, info['url'])}"})
    assert json.loads(stored.text)["secrets"] == "******" and json.loads(stored.text)["name"] == job


def test_dry_run_prints_the_rendered_job_secrets_masked_unless_asked(env, tmp_path):
    ws = write(tmp_path, "hello.pai.yaml", JOB)
    shown = pai(env, "submit", "hello.pai.yaml", "--dry-run", cwd=ws)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert "the job as the server will see it:" in text and "deployment 'local' merged into the commands" in text
    assert "- echo pre from hello\n" in text and "- echo \"hello x2 from $PAI_CURRENT_TASK_ROLE_NAME\"" in text
    assert "s3cr3t-value" not in text and "test -n \"******\"" in text and "secrets: '******'" in text
    assert "instances: 1" in text and "shmMB: 512" in text  # the defaults the scheduler applies
    revealed = pai(env, "submit", "hello.pai.yaml", "--dry-run", "--show-secrets", cwd=ws)
    assert "test -n \"s3cr3t-value\"" in revealed.stdout


def test_a_kubernetes_era_cluster_gets_the_yaml_and_a_yarn_era_one_the_v1_config(env, tmp_path):
    pai(env, "jobs")
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    user, password = getpass.getuser(), local_client_password(env)
    for name, protocol in (("k8s", "2"), ("yarn", "1")):
        pai(env, "cluster", "add", name, "--rest", info["url"], "--webhdfs", info["hdfs"], "--user", user, "--protocol", protocol)
        assert pai(env, "cluster", "login", name, "--password-stdin", stdin=password + "\n").returncode == 0
    plain = JOB.replace('      - test -n "<% $secrets.token %>"\n', "")
    ws = write(tmp_path, "hello.pai.yaml", plain)
    headers = {"Authorization": f"Bearer {token(env, info['url'])}"}
    for cluster in ("k8s", "yarn"):
        result = pai(env, "submit", "--cluster", cluster, "hello.pai.yaml", "--follow", cwd=ws)
        assert result.returncode == 0, result.stderr
        job = result.stdout.splitlines()[0].split()[1]
        assert result.stdout.splitlines()[1:4] == ["pre from hello", "hello x2 from worker", "post"], result.stdout
        stored = json.loads(httpx.get(f"{info['url']}/api/v2/jobs/{user}~{job}/config", headers=headers).text)
        if cluster == "k8s":
            assert stored["protocolVersion"] == 2 and stored["deployments"][0]["name"] == "local"
        else:  # the v1 config, its command the rendered lines under the v2 runtime's shell options
            assert stored["jobName"] == job and stored["taskRoles"][0]["command"].splitlines() == [
                "set -o errexit -o nounset -o pipefail", "echo pre from hello",
                'echo "hello x2 from $PAI_CURRENT_TASK_ROLE_NAME"', "echo post"]
    # What v1 cannot express: one line naming it, before anything is uploaded.
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.generateJobName.enabled": False}))
    (ws / "hello.pai.yaml").write_text(JOB + "extras: {codeDir: $PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME}\n")
    (ws / "train.py").write_text("print(1)\n")
    refused = pai(env, "submit", "--cluster", "yarn", "hello.pai.yaml", cwd=ws)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("pai submit: hello.pai.yaml: yarn is a YARN-era cluster that takes v1 jobs only")
    assert "secrets in the commands of worker ($secrets.token)" in refused.stderr
    dry = pai(env, "submit", "--cluster", "yarn", "hello.pai.yaml", "--dry-run", cwd=ws)
    assert dry.returncode == 1 and "v1 cannot express" in dry.stderr
    assert pai(env, "hdfs", "stat", f"/{user}/hello_v2", "--cluster", "yarn").returncode != 0  # nothing uploaded
    for name in ("k8s", "yarn"):
        pai(env, "cluster", "remove", name)


def test_the_v2_example_uploads_its_code_runs_it_and_its_outputs_download(env, tmp_path):
    """examples/mnist/mnist.pai.yaml: its code uploaded to extras.codeDir, copied into the task's folder
    (`cd $PAI_JOB_NAME`), `$PAI_OUTPUT_DIR` from extras.outputDir, `pai outputs` from there."""
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws)
    result = pai(env, "run", "mnist.pai.yaml", "--follow", cwd=ws)
    assert result.returncode == 0, result.stderr
    job = result.stdout.splitlines()[0].split()[1]
    assert "uploaded 1 file," in result.stderr and f"/{getpass.getuser()}/{job}" in result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("epoch")] == [
        "epoch 1/3 loss=1.3800", "epoch 2/3 loss=0.8280", "epoch 3/3 loss=0.4968"]
    out = pai(env, "outputs", job, str(tmp_path / "out"))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "out" / job / "result.txt").read_text() == "final loss 0.4968\n"


def test_a_job_whose_templates_fill_in_hugely_is_refused_in_one_line(env, tmp_path):
    """A 90 KB parameter used 3,000 times (270 MB once filled in): `pai submit --dry-run`, `pai run`
    and the local cluster's REST API each refuse it in one line, having filled in no more than the
    bound; `pai check` reads it as a valid job."""
    def job(name: str, size: int, uses: int) -> str:
        commands = "".join("      - echo <% $parameters.big %>\n" for _ in range(uses))
        return (f"protocolVersion: 2\nname: {name}\ntype: job\nparameters:\n  big: {'x' * size}\n"
                "prerequisites:\n  - {name: image, type: dockerimage, uri: 'ubuntu:18.04'}\n"
                "taskRoles:\n  main:\n    dockerImage: image\n    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n"
                f"    commands:\n{commands}")

    ws = write(tmp_path, "huge.pai.yaml", job("huge", 90_000, 3_000))
    assert pai(env, "check", "huge.pai.yaml", cwd=ws).returncode == 0
    said = "huge.pai.yaml: its templates fill in to more than 16 MB of commands"
    for words in (["submit", "huge.pai.yaml", "--dry-run"], ["submit", "huge.pai.yaml", "--dry-run", "--show-secrets"],
                  ["run", "huge.pai.yaml"]):
        refused = pai(env, *words, cwd=ws)
        assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
        assert refused.stderr.startswith(f"pai {words[0]}: {said}"), refused.stderr
    info = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
    posted = httpx.post(f"{info['url']}/api/v2/jobs", content=job("huge_direct", 20_000, 1_000),  # 20 MB from 55 KB
                        headers={"Authorization": f"Bearer {token(env, info['url'])}", "Content-Type": "text/yaml"},
                        timeout=120)
    assert posted.status_code == 500 and "more than 16 MB" in posted.json()["message"], posted.text[:300]
    assert pai(env, "daemon", "status").returncode == 0  # the daemon did not fall over
