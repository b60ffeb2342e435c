"""How long explaining a failed task's log takes: the last megabyte of busy training output ending in
a failure, and megabytes made to hurt the rules' regexes (the cases of tests/core/test_triage.py,
which bounds the work in calls and leaves the timing here). Median and worst of RUNS per case, in ms.

    .venv/bin/python bench/triage.py [RUNS]     (default 5)
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pai_lsp.core.triage.explain import explain_task  # noqa: E402
from pai_lsp.core.triage.logtext import MAX_LOG  # noqa: E402
from pai_lsp.core.triage.task_facts import TaskFacts  # noqa: E402
from tests.core.test_triage import BUSY, HOSTILE, LAYOUT  # noqa: E402


def timed(text: str, code: int | None, runs: int) -> list[float]:
    took = []
    for _ in range(runs):
        started = time.perf_counter()
        explain_task(TaskFacts(log=text, exit_code=code, layout=LAYOUT))
        took.append((time.perf_counter() - started) * 1000)
    return took


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(f"load average {os.getloadavg()[0]:.2f}; {runs} runs per case")
    print("| case | exit code | median ms | worst ms |\n|---|---:|---:|---:|")
    cases = [(f"busy: {name}", text[-MAX_LOG:], code) for name, (text, code, _) in sorted(BUSY.items())]
    cases += [(f"hostile: {name}", text, code) for name, text in sorted(HOSTILE.items()) for code in (1, 139, None)]
    timed(cases[0][1], cases[0][2], 1)  # the first call's imports and compiled patterns
    for name, text, code in cases:
        took = timed(text, code, runs)
        print(f"| {name} | {code} | {statistics.median(took):.1f} | {max(took):.1f} |")


if __name__ == "__main__":
    main()
