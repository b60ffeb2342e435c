"""What the cluster's checks add to a keystroke in a v2 job file (`JobFormat.cluster_diagnostics` on
the cluster's facts, plus the workspace look-ups the language server makes for them), against the
format's own checks of the same text, in-process, same run.

Two files: a real OpenPAI example from the corpus and a generated job of 3,000 task roles (bench/lsp_v2.py's).
Each round re-parses the text with one `memoryMB` changed (as an edit does), then times the format's
`diagnose` (the first round, which reads every role, is left out by the median) and, apart, the cluster
checks with the workspace look-ups (a `stat` per candidate path), wall and process CPU time, with a route for the code (the usual
case) and without one (each role's command said, at most 50). `--as-edited`: each round edits the one
parse as the language server does (`Document.edit`: the roles the edit left alone are the same nodes,
with what the checks keep on them), where the default re-reads the whole text each round.

    .venv/bin/python bench/cluster_checks.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lsp_v2 import CORPUS, generated  # noqa: E402

from pai_lsp.core.formats import format_for  # noqa: E402
from pai_lsp.core.model import Settings  # noqa: E402
from pai_lsp.core.route_rules import ClusterFacts, StorageFact  # noqa: E402

# 20 storages; the default one read-only, so that a job with no storage listed has no route (the worst case:
# every role's command is looked at and said), and the same with a writable default (the usual case).
MISSING = ClusterFacts("prod", "alice", True, tuple(
    StorageFact(f"s{i}", "nfs", "10.0.0.1:/data", i % 3 == 0, f"/mnt/s{i}", i == 0, True) for i in range(20)))
ROUTED = ClusterFacts("prod", "alice", True, tuple(
    StorageFact(f"s{i}", "nfs", "10.0.0.1:/data", False, f"/mnt/s{i}", i == 0, True) for i in range(20)))


def existing(workspace: Path, paths: frozenset[str]) -> frozenset[str]:
    """As the language server looks them up, without its two-second memory of each (every path stat'ed)."""
    return frozenset(rel for rel in paths if ((workspace / rel).is_dir() if rel.endswith("/") else (workspace / rel).is_file()))


def measure(name: str, text: str, rounds: int, workspace: Path, facts: ClusterFacts, as_edited: bool = False) -> None:
    job_format = format_for("job.pai.yaml", text)
    settings = Settings()
    own, cluster = [], []
    doc = job_format.parse(text)
    values = [m.start(1) for m in re.finditer(r"memoryMB: *(\d+)", text)]
    at = values[len(values) // 2]  # a role in the middle
    for i in range(rounds):
        if as_edited:
            value = str(8192 + i + 1)
            doc = doc.edit(at, at + len(doc.text[at:].split("\n", 1)[0]), value)
        else:
            edited = text.replace("memoryMB: 8192", f"memoryMB: {8192 + i + 1}", 1)
            doc = job_format.parse(edited)
        started, cpu = time.perf_counter(), time.process_time()
        job_format.diagnose(doc, settings)
        own.append((time.perf_counter() - started, time.process_time() - cpu))
        started, cpu = time.perf_counter(), time.process_time()
        found = existing(workspace, job_format.workspace_paths(doc))
        job_format.cluster_diagnostics(doc, facts, settings, found)
        cluster.append((time.perf_counter() - started, time.process_time() - cpu))
    a, b = (statistics.median(wall for wall, _ in own) * 1000, statistics.median(wall for wall, _ in cluster) * 1000)
    a_cpu, b_cpu = (statistics.median(c for _, c in own) * 1000, statistics.median(c for _, c in cluster) * 1000)
    print(f"{name:45} format's checks {a:8.2f} ms (CPU {a_cpu:7.2f})   cluster checks {b:8.2f} ms (CPU {b_cpu:6.2f})   "
          f"({b / a:.2f}x)   load {os.getloadavg()[0]:.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--as-edited", action="store_true", help="edit one parse, as the language server does")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        (workspace / "train.py").write_text("")
        for facts, said in ((ROUTED, "code has a route"), (MISSING, "no route: said")):
            if CORPUS.is_file():
                measure(f"{CORPUS.name}, {said}", CORPUS.read_text(), args.rounds, workspace, facts, args.as_edited)
            measure(f"3,000 roles, {said}", generated(3000), args.rounds if args.as_edited else max(3, args.rounds // 4),
                    workspace, facts, args.as_edited)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
