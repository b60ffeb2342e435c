"""How long after a job ends its failure explanation is ready (wanted: within 1 s, reading at most
the last 1 MB of each failed task's log).

`pai run` (as users run it, against the embedded local cluster, in an environment of its own) of a
job that prints LOG_MB of output and then fails with a traceback three modules deep; the daemon,
which watches every job it submitted, explains it by itself when it sees the end. `pai why --json`
afterwards reads what it kept: `madeAt - completed` (the cluster's end time) is the latency users
see, `tookMs` the making alone (job detail, config, the log's last 1 MB, the manifest check).
Runs jobs watched only (`pai run`) and followed (`pai run --follow`) alternately.

    .venv/bin/python bench/why_latency.py [RUNS]     (default 7)
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.cli import isolated_env, pai, stop_all  # noqa: E402

LOG_MB = 4
FAIL = "import sys\nfor i in range({n}):\n    sys.stdout.write('x' * 1023 + '\\n')\nfrom pkg.data import load\nload()\n"


def workspace(root: Path) -> Path:
    ws = root / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "__init__.py").write_text("")
    (ws / "pkg" / "data.py").write_text("from pkg.ops import scale\n\n\ndef load():\n    return scale()\n")
    (ws / "pkg" / "ops.py").write_text("def scale():\n    raise ValueError('no data')\n")
    (ws / "train.py").write_text(FAIL.format(n=LOG_MB * 1024))
    config = {"jobName": "bench", "image": "python", "codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
              "taskRoles": [{"name": "t", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
                             "command": "cd $PAI_JOB_NAME && python3 train.py"}]}
    (ws / "bench.pai.json").write_text(json.dumps(config))
    return ws


def one(env: dict, ws: Path, follow: bool) -> tuple[float, float]:
    out = pai(env, "run", "bench.pai.json", *(["--follow"] if follow else []), cwd=ws)
    job = out.stdout.splitlines()[0].split()[1]
    while True:
        got = json.loads(pai(env, "why", job, "--json").stdout)
        if got["state"] == "FAILED":
            break
        time.sleep(1)
    time.sleep(2.5)
    got = json.loads(pai(env, "why", job, "--json").stdout)
    assert got["explanation"]["traceback"]["primary"]["workspace"] == "pkg/ops.py", got["explanation"]
    return got["madeAt"] - got["completed"], got["tookMs"]


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory() as tmp:
        env = isolated_env(Path(tmp))
        ws = workspace(Path(tmp))
        env = dict(env, PAI_LSP_NO_GENERATE="")
        try:
            one(env, ws, True)  # warm: the cluster and the daemon started
            results = {"watched": [], "followed": []}
            for i in range(runs):
                for follow in ((False, True) if i % 2 == 0 else (True, False)):
                    results["followed" if follow else "watched"].append(one(env, ws, follow))
        finally:
            stop_all(env)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min)  runs: {runs}  log: {LOG_MB} MB (the last 1 MB read)")
    for name, rows in results.items():
        latency = statistics.median(r[0] for r in rows)
        took = statistics.median(r[1] for r in rows)
        print(f"{name:9} job end -> explanation kept: median {latency:.0f} ms (max {max(r[0] for r in rows):.0f}); "
              f"making it: median {took:.0f} ms")


if __name__ == "__main__":
    main()
