"""Reading a v2 job file: what `pai_lsp.core.yaml.tree.parse` costs, against PyYAML as the
floor, on a real v2 example and on a generated 3,000-role file.

Measured in one run, medians of RUNS, each round alternating which side goes first:
- ours: `yaml.tree.parse(text)` (the tree with offsets), then with `.root.value` (js-yaml's values);
- the floor: PyYAML `compose` and `safe_load` with libyaml (`CSafeLoader`, C) and pure Python
  (`SafeLoader`, what `yaml.compose` / `yaml.safe_load` use without libyaml); neither keeps going
  past a mistake, nor gives js-yaml's values;
- tree-sitter-yaml's own parse of the same bytes (the C part of ours; over 32,768 lines it gives up
  at once, so for the big file it is the sum over the pieces we parse);
- an edit (didChange): a key typed in the middle of the file without its colon, then removed, by
  `Document.edit`, which reads again only the piece it touched.
The garbage collector is tuned as the language server tunes it (`tune_garbage_collection`).

    .venv/bin/python bench/yaml_parse.py [--runs N] [--roles N] [FILE.yaml]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from bench.report import print_table  # noqa: E402
from pai_lsp.core.yaml import tree as yaml_tree  # noqa: E402
from pai_lsp.core.yaml.cst import _parser  # noqa: E402

RUNS = 7
SHARED = Path(os.environ.get("PAI_SHARED_DIR") or ROOT.parent / "shared")
CORPUS = SHARED / "corpus" / "openpai-examples" / "v2"


def generated(roles: int) -> str:
    """A v2 job with `roles` task roles written as the web portal writes them (ports, completion,
    extra options, folded commands), 18 lines each."""
    out = ["protocolVersion: 2", "name: big_job", "type: job", "jobRetryCount: 0", "prerequisites:",
           "  - type: dockerimage", "    uri: 'openpai/standard:python_3.6-pytorch_1.2.0-gpu'", "    name: docker_image_0",
           "taskRoles:"]
    for i in range(roles):
        out += [f"  worker{i}:", "    instances: 2", "    completion:", "      minFailedInstances: 1",
                "      minSucceededInstances: -1", "    taskRetryCount: 0", "    dockerImage: docker_image_0",
                "    resourcePerInstance:", "      gpu: 1", "      cpu: 4", "      memoryMB: 8192",
                "      ports: {http: 1, tensorboard: 1}", "    extraContainerOptions: {shmMB: 512}", "    commands:",
                f"      - echo role {i} on $PAI_CURRENT_TASK_ROLE_NAME", "      - >-",
                "        python train.py --epochs 10", "        --lr 0.1 --batch-size 256"]
    out += ["defaults:", "  virtualCluster: default", "extras:", "  com.microsoft.pai.runtimeplugin:",
            "    - plugin: ssh", "      parameters:", "        jobssh: true"]
    return "\n".join(out) + "\n"


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def measure(named: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Median seconds of each, the order rotating every round so none always goes first."""
    names = list(named)
    for fn in named.values():
        fn()  # warm up: imports, the parser, caches of the first call
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(runs):
        order = names[round_ % len(names):] + names[: round_ % len(names)]
        for name in (order if round_ % 2 == 0 else list(reversed(order))):
            samples[name].append(timed(named[name]))
    return {name: statistics.median(values) for name, values in samples.items()}


def tree_sitter_alone(text: str) -> Callable[[], object]:
    parser = _parser()
    plan = yaml_tree._plan(text)
    if plan is None:
        data = text.encode()
        return lambda: parser.parse(data)
    pieces = [text[a:b].encode() for start, end, parts in plan
              for a, b in ([(start, parts[0][0])] + parts if parts else [(start, end)])]
    return lambda: [parser.parse(p) for p in pieces]


def edit_round(text: str) -> Callable[[], object]:
    """A key typed without its colon in the middle of the file, then removed: two didChanges."""
    middle = text.index("\n  ", len(text) // 2) + 1
    at = text.index("\n", text.index("\n", middle) + 1) + 1  # inside a role, after its first key
    state = {"doc": yaml_tree.parse(text)}

    def run() -> None:
        typed = state["doc"].edit(at, at, "    dock\n")
        assert [e.code for e in typed.errors] == ["syntax.missing-colon"], typed.errors
        state["doc"] = typed.edit(at, at + 9, "")
        assert state["doc"].errors == []
    return run


def bench(label: str, text: str, runs: int) -> list[tuple[str, str]]:
    pure_runs = max(3, runs // 3) if len(text) > 200_000 else runs
    fast = measure({
        "ours": lambda: yaml_tree.parse(text),
        "ours+values": lambda: yaml_tree.parse(text).root.value,
        "libyaml compose": lambda: yaml.compose(text, Loader=yaml.CSafeLoader),
        "libyaml safe_load": lambda: yaml.load(text, Loader=yaml.CSafeLoader),  # noqa: S506 - the safe C loader
        "tree-sitter": tree_sitter_alone(text),
    }, runs)
    slow = measure({
        "pure compose": lambda: yaml.compose(text, Loader=yaml.SafeLoader),
        "pure safe_load": lambda: yaml.load(text, Loader=yaml.SafeLoader),  # noqa: S506 - the safe loader
    }, pure_runs)
    edits = measure({"edit": edit_round(text)}, runs)
    ms = {name: value * 1000 for name, value in {**fast, **slow, **edits}.items()}
    lines = text.count("\n")
    head = f"{label} ({len(text) / 1024:,.0f} KB, {lines:,} lines)"
    return [
        (f"{head}: parse, ours vs PyYAML compose with libyaml / pure Python",
         f"{ms['ours']:.1f} ms vs {ms['libyaml compose']:.1f} ms ({ms['ours'] / ms['libyaml compose']:.2f}×) / "
         f"{ms['pure compose']:.1f} ms ({ms['ours'] / ms['pure compose']:.2f}×)"),
        (f"{head}: parse + values, ours vs PyYAML safe_load with libyaml / pure Python",
         f"{ms['ours+values']:.1f} ms vs {ms['libyaml safe_load']:.1f} ms ({ms['ours+values'] / ms['libyaml safe_load']:.2f}×) / "
         f"{ms['pure safe_load']:.1f} ms ({ms['ours+values'] / ms['pure safe_load']:.2f}×)"),
        (f"{head}: tree-sitter-yaml's C parse alone (part of ours)", f"{ms['tree-sitter']:.1f} ms"),
        (f"{head}: an edit (didChange): key typed without its colon, then removed; per edit",
         f"{ms['edit'] / 2:.1f} ms"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, help="a v2 job file (default: the largest corpus example)")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--roles", type=int, default=3000)
    args = parser.parse_args()
    gc.set_threshold(50_000, 20, 10)  # as the language server sets it (server/documents.py)
    load_before = os.getloadavg()[0]
    if args.file is None and CORPUS.is_dir():
        args.file = max(CORPUS.glob("*.yaml"), key=lambda p: p.stat().st_size)
    rows = []
    if args.file is not None:
        rows += bench(args.file.name, args.file.read_text(encoding="utf-8"), args.runs)
    rows += bench(f"generated, {args.roles:,} roles", generated(args.roles), args.runs)
    print_table(rows)
    print(f"\nload average (1 min) before / after: {load_before:.1f} / {os.getloadavg()[0]:.1f}; medians of {args.runs} runs")


if __name__ == "__main__":
    main()
