"""Writing to the local cluster's WebHDFS, with `hdfscli upload -t 8` (the `hdfs` package's
own client) as the reference in the same run:

- the code upload of a tree (`storage.upload`: staging folder, one switch into place), over the
  session's pooled HTTP client (storage/session.py);
- `pai hdfs put` of the same tree (`service.hdfs.put`: a new folder written whole under a temporary
  name and renamed into place), of it again over itself (each file under a temporary name, renamed
  into place when whole), and of one big file.

Run in-process against one running local cluster; each number is the median of `--repeat` runs.
To compare two checkouts, run this script from each with `--json` (in alternation, same cluster).

    python bench/storage_put.py [--files 2000] [--big-mb 256] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.trees import make_big, make_tree  # noqa: E402
from pai_lsp.clusters.openpai import OpenPai  # noqa: E402
from pai_lsp.clusters.profiles import local_password, local_profile  # noqa: E402
from pai_lsp.service import hdfs as explorer  # noqa: E402
from pai_lsp.storage.upload import select, upload  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--big-mb", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="one JSON object of medians (seconds) on stdout")
    parser.add_argument("--work", help="a folder holding the trees (made when missing)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="pai-bench-put-"))
    tree, big = work / "tree", work / "big" / "model.bin"
    if not tree.exists():
        make_tree(tree, args.files, 10_000)
    if not big.exists():
        make_big(big.parent, args.big_mb)
    backend = OpenPai(local_profile(), local_password)
    hdfs = backend.storage
    files = select(tree, ["**/*"], [])
    profile = backend.profile
    config = work / "hdfscli.cfg"
    config.write_text(f"[global]\ndefault.alias = bench\n\n[bench.alias]\nurl = {profile.webhdfs_uri}\nuser = {profile.user}\n")
    hdfscli = [str(Path(sys.executable).with_name("hdfscli")), "upload", "-s", "-t", "8"]
    env = dict(os.environ, HDFSCLI_CONFIG=str(config))
    steps = {  # each writes under the folder it is given
        "code upload, tree": lambda to: upload(hdfs, files, f"{to}/upload", threads=8),
        "pai hdfs put, tree": lambda to: explorer.put(backend.storage, tree, to),  # a new folder: written whole, one rename
        "pai hdfs put, tree again": lambda to: explorer.put(backend.storage, tree, to),  # over it: file by file, a rename each
        "hdfscli upload, tree": lambda to: subprocess.run([*hdfscli, str(tree), f"{to}/cli-tree"], check=True, env=env,
                                                          capture_output=True),
        "pai hdfs put, big file": lambda to: explorer.put(backend.storage, big, f"{to}/put-big.bin"),
        "hdfscli upload, big file": lambda to: subprocess.run([*hdfscli, str(big), f"{to}/cli-big.bin"], check=True, env=env,
                                                              capture_output=True),
    }
    runs: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.repeat):
        to = f"/bench/put-{secrets.token_hex(4)}"
        hdfs.mkdir(to)
        for name, step in steps.items():
            t0 = time.perf_counter()
            step(to)
            runs[name].append(time.perf_counter() - t0)
        hdfs.delete(to, recursive=True)
    medians = {name: statistics.median(times) for name, times in runs.items()}
    backend.close()
    if args.json:
        print(json.dumps(medians))
        return 0
    mb = args.files * 10_000 / 1e6
    print(f"{args.files} files / {mb:.0f} MB, one file of {args.big_mb} MiB; median of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for name, seconds in medians.items():
        size = args.big_mb * 1.048576 if "big" in name else mb
        print(f"{name:28} {seconds:7.2f} s  {size / seconds:7.1f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
