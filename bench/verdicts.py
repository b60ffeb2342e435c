"""Verdict agreement: N generated job configs of the classes where tools used to disagree
with the real server, each judged by the language server (stdio), `pai check` (subprocess) and the
local cluster (HTTP) — and, when Node.js and the oracle's packages are installed
(`cd tests/oracle && npm ci`), by the real Joi 13.0.2 validator with the v1.0.0 server's job schema
and cross-field check plus the launcher's limits (tests/oracle/v1.js).

    .venv/bin/python bench/verdicts.py [N]        (default 1000)

Prints the agreement of each pair and the first disagreements.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.helpers.localcluster import USER, job, own_cluster, role, submit  # noqa: E402
from tests.helpers.verdicts import as_text, configs, language_server, local_cluster, pai_check, real_server  # noqa: E402


def generate(n: int) -> list[str]:
    texts: list[str] = []

    @settings(max_examples=n, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(configs())
    def collect(config: dict) -> None:
        texts.append(as_text(config))

    collect()
    return texts[:n]


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    texts = generate(n)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        folder = Path(tmp)
        verdicts = {"language server": language_server(texts, folder), "pai check": pai_check(texts, folder)}
        with own_cluster(folder / "cluster", "--cpus", "1", "--gpus", "0") as cluster, cluster.client() as c:
            submit(c, job("blocker", role("r", "sleep 3600", cpuNumber=1)))
            verdicts["local cluster"] = local_cluster(texts, c, USER)
    real = real_server(texts)
    if real is not None:
        verdicts["real Joi 13 + server + launcher"] = real
    names = list(verdicts)
    print(f"{len(texts)} generated configs, {sum(verdicts['local cluster'])} refused by the local cluster")
    print("| pair | agree |")
    print("|---|---|")
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            same = sum(x == y for x, y in zip(verdicts[a], verdicts[b], strict=True))
            print(f"| {a} / {b} | {same}/{len(texts)} ({100 * same / len(texts):.2f} %) |")
    shown = 0
    for k, text in enumerate(texts):
        row = {name: verdicts[name][k] for name in names}
        if len(set(row.values())) > 1 and shown < 10:
            shown += 1
            print(json.dumps(row), json.dumps(json.loads(text), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
