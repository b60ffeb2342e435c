"""Code uploads to the local cluster against `hdfscli upload -t 8` (the `hdfs` package's CLI), run so
that neither side is flattered (`bench/fair.py`: equal stores, alternating order, medians, the
load noted for every run). Each table:

- big: one file of S MB;
- put: one file of S MB by `pai hdfs put` as a user runs it (the CLI, the daemon doing the upload);
- call: one file of S MB, the upload call alone on both sides (pai's `storage.upload`, the `hdfs`
  package's `Client.upload` that `hdfscli upload` runs), each in a process of its own but timed
  without the process's start-up: how the daemon uploads every job's code, with nothing to import;
- files: N files of 10 KB in 350 folders (`bench/trees.py`);
- stored: 5,000 files of 10 KB into a cluster already holding 500,000 files, and into an empty one
  (one cluster each, every run's upload removed before the next, so each run sees the same store);
- edit: a 10,000-file workspace uploaded once, then one file edited and uploaded again (the daemon's
  own `upload` call's time, and the whole process); references: `hdfscli` sending that one file
  (the work's floor) and the first, whole upload; and the unchanged tree uploaded again.

    .venv/bin/python bench/uploads.py [big] [put] [call] [files] [stored] [edit] [--rounds N] [--sizes …]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fair import (  # noqa: E402
    USER,
    Compared,
    Run,
    alternate,
    call_seconds,
    fresh_cluster,
    hdfscli,
    measured,
    ours,
    reference_call,
    seed,
    warm,
)
from bench.report import print_markdown  # noqa: E402
from bench.trees import make_big, make_tree  # noqa: E402
from pai_lsp.storage.webhdfs import Hdfs  # noqa: E402


def fresh(work: Path, upload, folder: Path):
    """A run on a cluster of its own (started and stopped around it, untimed)."""
    def run(r: int) -> Run:
        with fresh_cluster(work) as cluster:
            return upload(cluster, folder, f"/bench/r{r}")
    return run


def cells(compared: Compared, amount: float | None = None, unit: str = "MB/s") -> list[str]:
    """seconds (and rate), ours and the reference; the speed-up; CPU of the cluster per side; memory; load."""
    mine, theirs = compared.median("ours"), compared.median("reference")
    rate = (lambda s: f" ({amount / s:.0f} {unit})") if amount else (lambda s: "")
    return [f"{mine:.2f}{rate(mine)}", f"{theirs:.2f}{rate(theirs)}", f"{compared.speedup:.2f}×",
            f"{compared.median('ours', 'cluster_cpu'):.2f} / {compared.median('reference', 'cluster_cpu'):.2f}",
            f"{compared.median('ours', 'client_cpu'):.2f} / {compared.median('reference', 'client_cpu'):.2f}",
            f"{max(r.rss for r in compared.ours):.0f} / {max(r.rss for r in compared.reference):.0f}", compared.loads()]


SIDES = ["pai, s", "`hdfscli upload -t 8`, s", "pai speed vs hdfscli", "cluster CPU pai / hdfscli, s",
         "client CPU pai / hdfscli, s", "peak RSS pai / hdfscli, MB", "load (1 min) over the runs"]


def bench_big(work: Path, rounds: int, sizes: list[int]) -> list[list[str]]:
    rows = []
    for mb in sizes or [100, 500, 1024]:
        folder = work / f"big{mb}"
        make_big(folder, mb)
        warm(folder)
        compared = alternate(rounds, fresh(work, ours, folder), fresh(work, hdfscli, folder))
        rows.append([f"{mb:,}", *cells(compared, mb * 1.048576)])
        shutil.rmtree(folder)
    return rows


def bench_call(work: Path, rounds: int, sizes: list[int]) -> list[list[str]]:
    rows = []
    for mb in sizes or [1024]:
        folder = work / f"big{mb}"
        make_big(folder, mb)
        warm(folder)
        compared = alternate(rounds, fresh(work, ours, folder), fresh(work, reference_call, folder))
        mine = statistics.median(call_seconds(run) for run in compared.ours)
        theirs = statistics.median(call_seconds(run) for run in compared.reference)
        rate = mb * 1.048576
        rows.append([f"{mb:,}", f"{mine:.2f} ({rate / mine:.0f} MB/s)", f"{theirs:.2f} ({rate / theirs:.0f} MB/s)",
                     f"{theirs / mine:.2f}×", f"{compared.median('ours'):.2f} / {compared.median('reference'):.2f}",
                     f"{compared.median('ours', 'cluster_cpu'):.2f} / {compared.median('reference', 'cluster_cpu'):.2f}",
                     compared.loads()])
        shutil.rmtree(folder)
    return rows


def bench_put(work: Path, rounds: int, sizes: list[int]) -> list[list[str]]:
    """`pai hdfs put FILE` as a user runs it (the CLI, the daemon already running and doing the upload)
    against `hdfscli upload -f -t 8 FILE`, on the one local cluster the CLI started for its `local`
    profile; each run's file removed (untimed) before the next, so every run finds the same store."""
    import json
    import subprocess
    from types import SimpleNamespace

    env = dict(os.environ, XDG_CONFIG_HOME=str(work / "config"), XDG_STATE_HOME=str(work / "state"),
               PAI_LOCAL_CLUSTER_DIR=str(work / "local"), PAI_LSP_SECRETS="file")
    pai = [sys.executable, "-m", "pai_lsp"]
    rows = []
    try:
        subprocess.run([*pai, "hdfs", "mkdir", f"/user/{USER}/bench"], env=env, check=True, capture_output=True, timeout=120)
        info = json.loads((work / "local" / "cluster.json").read_text())
        cluster = SimpleNamespace(process=SimpleNamespace(pid=info["pid"]), hdfs_url=info["hdfs"],
                                  data_dir=work / "local", url=info["url"])
        config = work / "hdfscli.cfg"
        config.write_text(f"[global]\ndefault.alias = bench\n\n[bench.alias]\nurl = {cluster.hdfs_url}\nuser = {USER}\n")

        def compare(big: Path) -> Compared:
            remote = f"/user/{USER}/bench/{big.name}"

            def removed(run: Run) -> Run:
                subprocess.run([*pai, "hdfs", "rm", remote], env=env, check=True, capture_output=True, timeout=120)
                return run

            hdfscli_env = dict(env, HDFSCLI_CONFIG=str(config))
            return alternate(rounds, lambda r: removed(measured([*pai, "hdfs", "put", str(big), f"/user/{USER}/bench/"], env, cluster)),
                             lambda r: removed(measured([str(Path(sys.executable).with_name("hdfscli")), "upload", "-f", "-t", "8",
                                                         str(big), remote], hdfscli_env, cluster)))

        for mb in sizes or [1024]:
            big = make_big(work / f"put{mb}", mb)
            warm(big.parent)
            rows.append([f"{mb:,}", *cells(compare(big), mb * 1.048576)])
            shutil.rmtree(big.parent)
    finally:
        for command in (["daemon", "stop"], ["cluster", "stop-local"]):
            subprocess.run([*pai, *command], env=env, capture_output=True, timeout=60)
    return rows


def bench_files(work: Path, rounds: int, sizes: list[int]) -> list[list[str]]:
    rows = []
    for n in sizes or [5_000, 50_000]:
        folder = work / f"tree{n}"
        make_tree(folder, n)
        warm(folder)
        compared = alternate(rounds, fresh(work, ours, folder), fresh(work, hdfscli, folder))
        rows.append([f"{n:,}", *cells(compared, n, "files/s")])
        shutil.rmtree(folder)
    return rows


def bench_stored(work: Path, rounds: int, sizes: list[int]) -> list[list[str]]:
    """The same 5,000-file upload into a store of `stored` files and into an empty one, both sides;
    the stores stay as seeded (each run's upload is removed, untimed)."""
    stored = (sizes or [500_000])[0]
    folder = work / "tree5000"
    make_tree(folder, 5000)
    warm(folder)
    with fresh_cluster(work, lambda data: seed(data, stored)) as full, fresh_cluster(work) as empty:
        runs: dict[tuple[str, str], list[Run]] = {}
        for r in range(rounds):
            stores, sides = [("empty", empty), ("full", full)], [("ours", ours), ("hdfscli", hdfscli)]
            if r % 2:
                stores.reverse()
                sides.reverse()
            for store, cluster in stores:
                for side, upload in sides:
                    runs.setdefault((store, side), []).append(upload(cluster, folder, f"/bench/r{r}"))
                    Hdfs(cluster.hdfs_url, USER).delete(f"/bench/r{r}", recursive=True)
    med = {key: statistics.median(run.seconds for run in value) for key, value in runs.items()}
    cpu = {key: statistics.median(run.cluster_cpu for run in value) for key, value in runs.items()}
    loads = [run.load for value in runs.values() for run in value]
    return [[f"{side} ({stored:,} stored)", f"{med[('empty', side)]:.2f}", f"{med[('full', side)]:.2f}", f"{med[('full', side)] / med[('empty', side)]:.2f}×",
             f"{cpu[('empty', side)]:.2f} / {cpu[('full', side)]:.2f}", f"{min(loads):.1f}–{max(loads):.1f}"]
            for side in ("ours", "hdfscli")]


def bench_edit(work: Path, rounds: int, sizes: list[int]) -> list[list[str]]:
    files = (sizes or [10_000])[0]
    folder = work / "workspace"
    make_tree(folder, files)
    warm(folder)
    one = work / "one"
    with fresh_cluster(work) as cluster:
        first = ours(cluster, folder, "/code")
        edits, floors = [], []
        for r in range(rounds):
            edited = folder / f"pkg{r % 50}" / f"mod{r % 7}" / f"f{r}.py"
            edited.write_bytes(os.urandom(10_000))
            shutil.rmtree(one, ignore_errors=True)
            one.mkdir()
            shutil.copy(edited, one / edited.name)
            pair = [(edits, lambda: ours(cluster, folder, "/code")), (floors, lambda r=r: hdfscli(cluster, one, f"/one{r}"))]
            for out, run in pair if r % 2 == 0 else reversed(pair):
                out.append(run())
        again = [ours(cluster, folder, "/code") for _ in range(rounds)]
    sent = {run.out.split()[0] for run in edits}
    assert sent == {"1"}, f"an edit sent {sent} file(s)"
    inside = statistics.median(float(run.out.split()[1]) for run in edits)
    loads = [run.load for run in edits + floors + again]
    return [[f"{files:,}", f"{inside:.2f} / {statistics.median(r.seconds for r in edits):.2f}",
             f"{statistics.median(r.seconds for r in floors):.2f}", f"{first.seconds:.1f}",
             f"{statistics.median(float(r.out.split()[1]) for r in again):.3f} / {statistics.median(r.seconds for r in again):.2f}",
             f"{min(loads):.1f}–{max(loads):.1f}"]]


TABLES = {
    "big": (bench_big, ["file MB", *SIDES]),
    "put": (bench_put, ["file MB", "`pai hdfs put` (CLI, daemon running), s", "`hdfscli upload -t 8`, s", "pai speed vs hdfscli",
                        "cluster CPU pai / hdfscli, s", "client CPU pai / hdfscli, s", "peak RSS pai / hdfscli, MB",
                        "load (1 min) over the runs"]),
    "call": (bench_call, ["file MB", "pai's upload call, s", "the `hdfs` package's upload call, s", "pai speed vs the `hdfs` package",
                          "whole processes pai / `hdfs`, s", "cluster CPU pai / `hdfs`, s", "load (1 min) over the runs"]),
    "files": (bench_files, ["10 KB files", *SIDES]),
    "stored": (bench_stored, ["5,000 files of 10 KB by", "into an empty store, s", "into the full store, s",
                              "full / empty (target ≤ 1.2×)", "cluster CPU empty / full, s", "load (1 min) over the runs"]),
    "edit": (bench_edit, ["workspace files", "one file edited, uploaded again: the upload / the whole process, s (target ≤ 1)",
                          "`hdfscli` sending that one file, s", "the first, whole upload, s",
                          "nothing changed, uploaded again: the upload / the whole process, s", "load (1 min) over the runs"]),
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tables", nargs="*", choices=list(TABLES), default=list(TABLES))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="*", default=[])
    args = parser.parse_args()
    for name in args.tables or list(TABLES):
        run, header = TABLES[name]
        with tempfile.TemporaryDirectory(prefix=f"pai-bench-{name}-") as tmp:
            rows = run(Path(tmp), args.rounds, args.sizes)
        print(f"\n### {name} (median of {args.rounds})\n")
        print_markdown(header, rows)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
