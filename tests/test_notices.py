"""A job's end, told wherever the user is, through `pai` and the daemon against the embedded local
cluster: a desktop notification through a real D-Bus session bus (`dbus-daemon --session`, started
here, with a notification service of the freedesktop spec on it: tests/helpers/notification_server.py),
and the webhooks the user set — a generic one, Feishu's, DingTalk's and WeCom's bot formats — posted to
a receiver on 127.0.0.1. Each within 10 s of the job's end; a failure with its one-line cause; a
retry told as one; a webhook that refuses or does not answer is one line in the daemon's log and
holds nothing up; the desktop notice turned off is not shown."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from .helpers.cli import command_job, isolated_env, pai, stop_all
from .helpers.failing import RUN, failing_workspace
from .helpers.localcluster import wait_for

pytestmark = pytest.mark.skipif(shutil.which("dbus-daemon") is None or sys.platform != "linux",
                                reason="needs dbus-daemon (Debian's dbus package)")

HELPER = Path(__file__).parent / "helpers" / "notification_server.py"
FEISHU_SECRET, DINGTALK_SECRET = "feishu-secret", "dingtalk-secret"


class Receiver(ThreadingHTTPServer):
    """Webhook bots on 127.0.0.1: every POST recorded (path, query, JSON body, when); /refuse answers as
    a bot that turns a message away (HTTP 200 with an error code)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Hook)
        self.posts: list[dict] = []


class Hook(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        url = urllib.parse.urlsplit(self.path)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.posts.append({"path": url.path, "query": dict(urllib.parse.parse_qsl(url.query)), "body": body,  # type: ignore[attr-defined]
                                  "at": time.time()})
        answer = {"errcode": 310000, "errmsg": "keywords not in content"} if url.path == "/refuse" else \
            {"code": 0, "msg": "success"} if url.path == "/feishu" else {"errcode": 0, "errmsg": "ok"}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def desktop(tmp_path_factory, starts_processes):
    """A session bus with a notification service on it; yields (its address, the file of what it showed)."""
    root = tmp_path_factory.mktemp("desktop")
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1", f"--address=unix:path={root}/bus"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = bus.stdout.readline().strip()  # type: ignore[union-attr]
    shown = root / "shown.jsonl"
    service = subprocess.Popen([sys.executable, str(HELPER), str(shown)], env={**_env_base(), "DBUS_SESSION_BUS_ADDRESS": address},
                               stdout=subprocess.PIPE, text=True)
    assert service.stdout.readline().strip() == "ready"  # type: ignore[union-attr]
    yield address, shown
    for process in (service, bus):
        process.terminate()
        process.wait(10)


def _env_base() -> dict[str, str]:
    import os

    return dict(os.environ)


@pytest.fixture(scope="module")
def receiver():
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


@pytest.fixture(scope="module")
def noticed(tmp_path_factory, desktop, receiver):
    """`pai`'s environment in a desktop session (a display and the test's bus: no X server is needed,
    notifications go over D-Bus), with every kind of webhook set, one that refuses and one that never answers."""
    address, _ = desktop
    env = isolated_env(tmp_path_factory.mktemp("pai-home"))
    env.update(DBUS_SESSION_BUS_ADDRESS=address, DISPLAY=":0")
    env.pop("WAYLAND_DISPLAY", None)
    base = f"http://127.0.0.1:{receiver.server_address[1]}"
    silent = _silent_port()
    settings = {"desktop": True, "webhooks": [
        {"url": f"http://127.0.0.1:{silent}/never", "format": "generic"},  # accepts, never answers: the others go on
        {"url": f"{base}/generic", "format": "generic"},
        {"url": f"{base}/feishu", "format": "feishu", "secret": FEISHU_SECRET},
        {"url": f"{base}/dingtalk?access_token=t0k", "format": "dingtalk", "secret": DINGTALK_SECRET},
        {"url": f"{base}/wecom?key=k3y", "format": "wecom"},
        {"url": f"{base}/refuse?key=hidden", "format": "wecom"},
    ]}
    _write_settings(env, settings)
    yield env
    stop_all(env)


def _silent_port() -> int:
    """A port that accepts connections and never answers."""
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    _silent_port.sock = sock  # type: ignore[attr-defined] # kept open for the module
    return sock.getsockname()[1]


def _write_settings(env: dict, settings: dict) -> None:
    path = Path(env["XDG_CONFIG_HOME"]) / "pai-lsp" / "notices.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def _shown(shown: Path, job: str) -> list[dict]:
    lines = shown.read_text(encoding="utf-8").splitlines() if shown.exists() else []
    return [n for n in map(json.loads, lines) if job in n["summary"]]


def _posts(receiver: Receiver, path: str, job: str) -> list[dict]:
    return [p for p in receiver.posts if p["path"] == path and job in json.dumps(p["body"], ensure_ascii=False)]


def _completed(env: dict, job: str) -> float:
    """When the cluster says the job ended (seconds since the epoch)."""
    status = pai(env, "status", job, "-o", "json")
    assert status.returncode == 0, status.stderr
    return json.loads(status.stdout)["completed"] / 1000


def test_a_failed_job_is_told_on_the_desktop_and_every_webhook_with_its_cause_within_10_s(noticed, desktop, receiver, tmp_path):
    _, shown = desktop
    ws = failing_workspace(tmp_path / "boom", "boom", RUN)
    run = pai(noticed, "run", "boom.pai.json", cwd=ws)
    assert run.returncode == 0, run.stderr
    job = run.stdout.split()[1]

    notice = wait_for(lambda: _shown(shown, job), timeout=30)[0]
    assert notice["app"] == "pai-lsp" and notice["summary"] == f"Job {job} failed"
    assert "KeyError" in notice["body"] and "pkg/ops.py:3" in notice["body"]  # the one-line why
    paths = ("/generic", "/feishu", "/dingtalk", "/wecom", "/refuse")
    posts = wait_for(lambda: all(_posts(receiver, p, job) for p in paths) and {p: _posts(receiver, p, job)[0] for p in paths},
                     timeout=30)
    ended = _completed(noticed, job)
    for post in posts.values():
        assert post["at"] - ended < 10, (post["path"], post["at"] - ended)

    generic = posts["/generic"]["body"]
    assert generic["event"] == "job.ended" and generic["job"] == job and generic["state"] == "FAILED"
    assert generic["cluster"] == "local" and "pkg/ops.py:3" in generic["why"] and generic["title"] == f"Job {job} failed"

    feishu = posts["/feishu"]
    assert feishu["body"]["msg_type"] == "text" and f"Job {job} failed" in feishu["body"]["content"]["text"]
    assert "KeyError" in feishu["body"]["content"]["text"]
    stamp = feishu["body"]["timestamp"]  # Feishu checks: HMAC-SHA256 keyed by "timestamp\nsecret" over nothing
    assert abs(int(stamp) - time.time()) < 3600
    assert feishu["body"]["sign"] == base64.b64encode(
        hmac.new(f"{stamp}\n{FEISHU_SECRET}".encode(), b"", hashlib.sha256).digest()).decode()

    dingtalk = posts["/dingtalk"]
    assert dingtalk["body"]["msgtype"] == "text" and f"Job {job} failed" in dingtalk["body"]["text"]["content"]
    query = dingtalk["query"]  # DingTalk checks: the token kept, HMAC-SHA256 keyed by the secret over "timestamp\nsecret"
    assert query["access_token"] == "t0k"
    assert query["sign"] == base64.b64encode(
        hmac.new(DINGTALK_SECRET.encode(), f"{query['timestamp']}\n{DINGTALK_SECRET}".encode(), hashlib.sha256).digest()).decode()

    wecom = posts["/wecom"]
    assert wecom["query"] == {"key": "k3y"}
    assert wecom["body"] == {"msgtype": "text", "text": {"content": dingtalk["body"]["text"]["content"]}}

    # The bot that refused it is one line in the daemon's log, without the key its address holds.
    log = Path(noticed["XDG_STATE_HOME"], "pai-lsp", "daemon.log")
    refused = wait_for(lambda: [line for line in log.read_text().splitlines() if "/refuse" in line and job in line])
    assert len(refused) == 1 and "310000" in refused[0] and "hidden" not in refused[0]


def test_a_success_and_a_stop_are_told_and_the_desktop_notice_can_be_turned_off(noticed, desktop, receiver, tmp_path):
    _, shown = desktop
    ws = command_job(tmp_path, "ok.pai.json", "echo done")
    run = pai(noticed, "run", "ok.pai.json", cwd=ws)
    job = run.stdout.split()[1]
    assert wait_for(lambda: _shown(shown, job), timeout=30)[0]["summary"] == f"Job {job} succeeded"
    assert wait_for(lambda: _posts(receiver, "/generic", job), timeout=30)[0]["body"]["state"] == "SUCCEEDED"

    ws2 = command_job(tmp_path / "b", "sleepy.pai.json", "sleep 600")
    sleepy = pai(noticed, "run", "sleepy.pai.json", cwd=ws2).stdout.split()[1]
    wait_for(lambda: json.loads(pai(noticed, "status", sleepy, "-o", "json").stdout)["state"] == "RUNNING", timeout=30)
    assert pai(noticed, "stop", sleepy).returncode == 0
    assert wait_for(lambda: _shown(shown, sleepy), timeout=30)[0]["summary"] == f"Job {sleepy} was stopped"

    settings = json.loads((Path(noticed["XDG_CONFIG_HOME"]) / "pai-lsp" / "notices.json").read_text())
    _write_settings(noticed, {**settings, "desktop": False})
    ws3 = command_job(tmp_path / "c", "quiet.pai.json", "echo quiet")
    quiet = pai(noticed, "run", "quiet.pai.json", cwd=ws3).stdout.split()[1]
    assert wait_for(lambda: _posts(receiver, "/generic", quiet), timeout=30)  # the webhooks still are told
    time.sleep(1.0)
    assert _shown(shown, quiet) == []
    _write_settings(noticed, settings)


def test_a_retry_is_told_as_one(noticed, desktop, receiver, tmp_path):
    _, shown = desktop
    ws = command_job(tmp_path, "flaky.pai.json", "sleep 1; exit 3")
    config = json.loads((ws / "flaky.pai.json").read_text())
    config["retryCount"] = 1
    (ws / "flaky.pai.json").write_text(json.dumps(config))
    job = pai(noticed, "run", "flaky.pai.json", cwd=ws).stdout.split()[1]
    told = wait_for(lambda: len(_shown(shown, job)) >= 2 and _shown(shown, job), timeout=60)
    assert told[0]["summary"] == f"Job {job} is running again (retry 1)"
    assert told[1]["summary"] == f"Job {job} failed"
    posts = wait_for(lambda: len(_posts(receiver, "/generic", job)) >= 2 and _posts(receiver, "/generic", job), timeout=30)
    assert [p["body"]["state"] for p in posts] == ["RETRIED", "FAILED"] and posts[0]["body"]["retries"] == 1


def test_the_channels_are_set_with_pai_notices_and_tried_with_its_test(desktop, receiver, tmp_path):
    """`pai notices` writes the file the daemon reads (private: it holds the bots' keys), lists the
    webhooks without their keys, and `pai notices test` tells a sample end through each channel now,
    saying of each what it did (exit 1 when one did not take it)."""
    address, shown = desktop
    env = isolated_env(tmp_path / "home")
    env.update(DBUS_SESSION_BUS_ADDRESS=address, DISPLAY=":0")
    env.pop("WAYLAND_DISPLAY", None)
    base = f"http://127.0.0.1:{receiver.server_address[1]}"
    added = pai(env, "notices", "add-webhook", f"{base}/feishu", "--format", "feishu", "--secret-stdin", stdin=FEISHU_SECRET + "\n")
    assert added.returncode == 0, added.stderr
    assert pai(env, "notices", "add-webhook", f"{base}/wecom?key=s3cr3t-key", "--format", "wecom").returncode == 0
    assert pai(env, "notices", "states", "FAILED", "STOPPED").returncode == 0
    path = Path(env["XDG_CONFIG_HOME"]) / "pai-lsp" / "notices.json"
    assert path.stat().st_mode & 0o077 == 0
    settings = json.loads(path.read_text())
    assert settings["webhooks"][0] == {"url": f"{base}/feishu", "format": "feishu", "secret": FEISHU_SECRET}
    assert settings["states"] == ["FAILED", "STOPPED"] and settings["desktop"] is True

    listed = pai(env, "notices")
    assert "1. feishu, signed" in listed.stdout and f"2. wecom  {base}/wecom\n" in listed.stdout
    assert "s3cr3t-key" not in listed.stdout + pai(env, "notices", "-o", "json").stdout

    tried = pai(env, "notices", "test", "--state", "FAILED")
    assert tried.returncode == 0, tried.stdout + tried.stderr
    assert tried.stdout.splitlines() == ["desktop: sent", f"feishu {base}/feishu: sent", f"wecom {base}/wecom: sent"]
    assert wait_for(lambda: _shown(shown, "pai-notices-test"))[0]["summary"] == "Job pai-notices-test failed"
    assert wait_for(lambda: _posts(receiver, "/feishu", "pai-notices-test"))[0]["body"]["sign"]

    assert pai(env, "notices", "remove-webhook", "1").returncode == 0
    assert pai(env, "notices", "add-webhook", f"{base}/refuse", "--format", "wecom").returncode == 0
    refused = pai(env, "notices", "test")
    assert refused.returncode == 1 and f"wecom {base}/refuse: not sent: 310000 keywords not in content" in refused.stdout

    path.write_text("{not json")  # a file it cannot read is left as it is
    kept = pai(env, "notices", "desktop", "off")
    assert kept.returncode != 0 and kept.stderr.count("\n") == 1 and "notices.json" in kept.stderr
    assert path.read_text() == "{not json"
