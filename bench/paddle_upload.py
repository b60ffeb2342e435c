"""Job-package upload through PaddlePaddle Cloud's file server (PFS), against the local
cluster's PFS, with references measured in the same run on the same storage:

- 5,000 files / 50 MB, and one 1 GB file: first upload, and the unchanged re-upload;
- references: the same trees through WebHDFS (`storage/upload.py`, 8 threads) and a plain `cp -r`
  of the trees on this disk (the physical floor: every byte read and written once).

Chunk size 4 MiB (the paddlecloud client's default); 8 threads. Each number is the median of
`--repeat` runs (default 3).

    python bench/paddle_upload.py [--repeat N] [--big-mb 1024]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.trees import make_big, make_tree  # noqa: E402
from pai_lsp.clusters.paddlecloud import PaddleCloud  # noqa: E402
from pai_lsp.clusters.profiles import local_paddle_profile, local_password, local_profile  # noqa: E402
from pai_lsp.storage.upload import select, upload  # noqa: E402
from pai_lsp.storage.webhdfs import Hdfs  # noqa: E402


def timed(fn, *args, **kwargs) -> float:
    t0 = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big-mb", type=int, default=1024)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pai-bench-paddle-"))
    os.environ.setdefault("PAI_LOCAL_CLUSTER_DIR", str(work / "cluster"))
    os.environ.setdefault("XDG_CONFIG_HOME", str(work / "config"))
    try:
        trees = {"5,000 files / 50 MB": work / "small", f"1 file / {args.big_mb} MB": work / "big"}
        make_tree(trees["5,000 files / 50 MB"], 5000, 10_000)
        make_big(trees[f"1 file / {args.big_mb} MB"], args.big_mb)
        paddle = PaddleCloud(local_paddle_profile(), local_password)
        pai = local_profile()
        hdfs = Hdfs(pai.webhdfs_uri, pai.user)
        print(f"chunk {paddle.storage.chunk // 2**20} MiB, {paddle.storage.threads} threads, median of {args.repeat}; "
              f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
        print(f"{'tree':24} {'PFS first':>10} {'PFS again':>10} {'WebHDFS first':>14} {'WebHDFS again':>14} {'cp -r':>8}")
        for label, tree in trees.items():
            files = select(tree, ["**/*"], [])
            rows: dict[str, list[float]] = {k: [] for k in ("pfs", "pfs2", "hdfs", "hdfs2", "cp")}
            for i in range(args.repeat):
                remote = f"/pfs/local/home/{paddle.user}/jobs/bench-{tree.name}-{i}"
                rows["pfs"].append(timed(paddle.upload, files, remote))
                rows["pfs2"].append(timed(paddle.upload, files, remote))
                target = f"/bench/{tree.name}-{i}"
                rows["hdfs"].append(timed(upload, hdfs, files, target, threads=8))
                rows["hdfs2"].append(timed(upload, hdfs, files, target, threads=8))
                copy = work / f"cp-{tree.name}-{i}"
                rows["cp"].append(timed(subprocess.run, ["cp", "-r", str(tree), str(copy)], check=True))
                paddle.storage.delete(remote, recursive=True)
                hdfs.delete(target, recursive=True)
                shutil.rmtree(copy)
            m = {k: statistics.median(v) for k, v in rows.items()}
            print(f"{label:24} {m['pfs']:>9.2f}s {m['pfs2']:>9.2f}s {m['hdfs']:>13.2f}s {m['hdfs2']:>13.2f}s {m['cp']:>7.2f}s")
        paddle.close()
    finally:
        subprocess.run([sys.executable, "-m", "pai_lsp", "cluster", "stop-local"], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
