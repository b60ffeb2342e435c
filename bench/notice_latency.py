"""How soon a job's end is told (wanted: within 10 s of the end on the local cluster).

`pai run` (as users run it, in an environment of its own) of jobs that succeed and fail, alternately,
against the embedded local cluster; the daemon watches them and, when it sees an end, posts the notice
to a webhook receiver on 127.0.0.1 (the generic format). The latency is the receiver's clock at the
POST minus the job's `completedTime` (the cluster's end); a failure's notice waits for its one-line
cause, so it is measured apart.

    .venv/bin/python bench/notice_latency.py [RUNS]     (default 7 of each)
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.cli import command_job, isolated_env, pai, stop_all  # noqa: E402

ARRIVED: dict[str, float] = {}


class Hook(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ARRIVED[body["job"]] = time.time()
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def one(env: dict, ws: Path, config: str) -> float:
    job = pai(env, "run", config, cwd=ws).stdout.split()[1]
    while job not in ARRIVED:
        time.sleep(0.05)
    completed = json.loads(pai(env, "status", job, "-o", "json").stdout)["completed"] / 1000
    return ARRIVED[job] - completed


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as root:
        env = isolated_env(Path(root))
        env.pop("DISPLAY", None)  # the webhook alone: no desktop session here
        settings = Path(env["XDG_CONFIG_HOME"]) / "pai-lsp" / "notices.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"webhooks": [{"url": f"http://127.0.0.1:{server.server_address[1]}/", "format": "generic"}]}))
        try:
            ws = command_job(Path(root) / "a", "ok.pai.json", "sleep 1; echo done")
            bad = command_job(Path(root) / "b", "bad.pai.json", "sleep 1; python3 -c \"raise KeyError('x')\"")
            one(env, ws, "ok.pai.json")  # warm-up: the daemon and the cluster start
            ok = [one(env, ws, "ok.pai.json") for _ in range(runs)]
            failed = [one(env, bad, "bad.pai.json") for _ in range(runs)]
        finally:
            stop_all(env)
            server.shutdown()
    for name, took in (("succeeded", ok), ("failed (with its cause)", failed)):
        print(f"end -> notice, {name}: median {statistics.median(took) * 1000:.0f} ms, max {max(took) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
