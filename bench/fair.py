"""How the upload benchmarks compare pai with a reference without flattering either.

- Each run gets an equal store: a fresh local cluster (`fresh_cluster`), or one cluster seeded with
  the same files for every run, each run's upload removed (untimed) before the next (`Seeded`).
- The order alternates (`alternate`): ours first in even rounds, the reference first in odd ones.
- Medians of at least five runs; every run notes the machine's load (`os.getloadavg`) when it starts,
  and waits first (up to `QUIET_WAIT` s) for the 1-minute load to fall under `QUIET_LOAD`: the machine
  is shared (2 cores), and a run made while others' suites run says little.
- The local files are read once before the first run, so neither side pays for a cold page cache,
  and the disk is synced before every run (`settle`), so neither pays for writing back what the run
  before it wrote: receiving 1 GiB cost the cluster 1.2 s of CPU after a sync and up to 2.5 s while
  the previous gigabyte was still being written back.
- Both sides are whole processes (start-up included) against the same cluster, as the same user;
  the cluster's own CPU time is taken for each run too (where the work is done).
"""

from __future__ import annotations

import getpass
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.helpers.localcluster import Cluster, seed_store, start_cluster, stop_cluster  # noqa: E402

USER = getpass.getuser()  # who `pai` is on the local cluster: the OS user (and so its superuser)
# The pai-lsp whose cluster and uploader run (`PAI_BENCH_CODE`: another checkout, e.g. `git worktree add
# --detach /tmp/base main`, to measure the code before a change the same way): its folder leads PYTHONPATH
# for every process started here.
CODE = Path(os.environ.get("PAI_BENCH_CODE") or ROOT)
os.environ["PYTHONPATH"] = str(CODE)
os.chdir(CODE)  # `python -m`/`-c` put the working folder before PYTHONPATH: run from /work/main, they ran its code
QUIET_LOAD = float(os.environ.get("PAI_BENCH_QUIET_LOAD", "2.5"))
QUIET_WAIT = float(os.environ.get("PAI_BENCH_QUIET_WAIT", "120"))

# pai's code upload, as the daemon runs it (`storage.upload`), in a process of its own.
OURS = """
import sys
from pathlib import Path
from pai_lsp.storage.upload import select, upload
from pai_lsp.storage.webhdfs import Hdfs
result = upload(Hdfs(sys.argv[1], sys.argv[2]), select(Path(sys.argv[3]), ["**/*"], []), sys.argv[4], threads=8)
print(result.sent_files, f"{result.seconds:.4f}")
"""


# The `hdfs` package's own upload call (what `hdfscli upload -f -t 8` runs), timed alone, in a process
# of its own: the reference for pai's upload call without either side's start-up.
REFERENCE_CALL = """
import sys, time
from hdfs import InsecureClient
client = InsecureClient(sys.argv[1], user=sys.argv[2])
t0 = time.perf_counter()
client.upload(sys.argv[4], sys.argv[3], n_threads=8, overwrite=True)
print(1, f"{time.perf_counter() - t0:.4f}")
"""


def load() -> float:
    return os.getloadavg()[0]


def settle() -> None:
    """What earlier runs wrote, on the disk: the next run starts with no write-back of theirs pending."""
    os.sync()
    time.sleep(0.2)


def wait_for_quiet() -> float:
    """The 1-minute load once it is under QUIET_LOAD (or after QUIET_WAIT seconds of waiting)."""
    deadline = time.monotonic() + QUIET_WAIT
    while load() > QUIET_LOAD and time.monotonic() < deadline:
        time.sleep(5)
    return load()


def warm(folder: Path) -> None:
    """Every file under `folder` read once: the page cache holds them for both sides alike."""
    subprocess.run(["find", str(folder), "-type", "f", "-exec", "cat", "{}", "+"], stdout=subprocess.DEVNULL, check=True)


@dataclass
class Run:
    seconds: float  # wall time of the whole process
    cluster_cpu: float  # the cluster's CPU time during it
    client_cpu: float  # the uploading process's own CPU time
    rss: float  # its peak resident memory, MB
    load: float  # the 1-minute load average when it started
    out: str = ""


def measured(command: list[str], env: dict[str, str], cluster: Cluster) -> Run:
    """One command as a whole process: wall time, its CPU and peak memory (sampled from outside:
    ru_maxrss would count the starting process's memory too), and the cluster's CPU meanwhile."""
    settle()
    started_load = wait_for_quiet()
    server = psutil.Process(cluster.process.pid)
    server_cpu = sum(server.cpu_times()[:2])
    t0 = time.perf_counter()
    # its output into files, not pipes: a pipe nobody reads while it runs fills at 64 KB and stops a
    # chatty command (smbclient says a line per file) until it is read
    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
        child = subprocess.Popen(command, env=env, stdout=out_file, stderr=err_file)
        peak, cpu = 0, 0.0
        try:
            process = psutil.Process(child.pid)
            while child.poll() is None:
                peak = max(peak, process.memory_info().rss)
                times = process.cpu_times()
                cpu = times.user + times.system
                time.sleep(0.01)
        except psutil.Error:
            pass
        child.wait()
        seconds = time.perf_counter() - t0
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    if child.returncode:
        raise RuntimeError(f"{command[:3]} failed: {err.decode()[-800:]}")
    return Run(seconds, sum(server.cpu_times()[:2]) - server_cpu, cpu, peak / 1e6, started_load, out.decode())


def ours(cluster: Cluster, folder: Path, remote: str) -> Run:
    return measured([sys.executable, "-c", OURS, cluster.hdfs_url, USER, str(folder), remote], dict(os.environ), cluster)


def reference_call(cluster: Cluster, folder: Path, remote: str) -> Run:
    return measured([sys.executable, "-c", REFERENCE_CALL, cluster.hdfs_url, USER, str(folder), remote], dict(os.environ), cluster)


def call_seconds(run: Run) -> float:
    """The upload call's own time, as the process printed it (OURS, REFERENCE_CALL)."""
    return float(run.out.split()[1])


def hdfscli(cluster: Cluster, folder: Path, remote: str) -> Run:
    """`hdfscli upload -f -t 8` (the `hdfs` package's CLI): a folder, 8 threads."""
    config = cluster.data_dir.parent / f"{cluster.data_dir.name}-hdfscli.cfg"
    config.write_text(f"[global]\ndefault.alias = bench\n\n[bench.alias]\nurl = {cluster.hdfs_url}\nuser = {USER}\n")
    command = [str(Path(sys.executable).with_name("hdfscli")), "upload", "-f", "-t", "8", str(folder), remote]
    return measured(command, dict(os.environ, HDFSCLI_CONFIG=str(config)), cluster)


@contextmanager
def fresh_cluster(work: Path, before_start: Callable[[Path], None] | None = None) -> Iterator[Cluster]:
    """A local cluster of its own (data and secrets in a new folder under `work`), stopped after;
    `before_start` is given its data folder first (to fill its store)."""
    folder = Path(tempfile.mkdtemp(dir=work, prefix="cluster-"))
    saved = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(folder / "config")  # its secrets: never the real ~/.config
    if before_start is not None:
        (folder / "data").mkdir(mode=0o700)
        before_start(folder / "data")
    cluster = start_cluster(folder / "data", "--cpus", "64")
    try:
        yield cluster
    finally:
        stop_cluster(cluster)
        if saved is None:
            os.environ.pop("XDG_CONFIG_HOME", None)
        else:
            os.environ["XDG_CONFIG_HOME"] = saved
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def seed(data_dir: Path, files: int, folders: int = 1000) -> None:
    """`files` empty files in `folders` folders under /seed of the store in `data_dir` (before a cluster serves it)."""
    seed_store(data_dir, files, folders)


@dataclass
class Compared:
    """Runs of ours and of the reference, made alternately from the same starting state."""

    ours: list[Run] = field(default_factory=list)
    reference: list[Run] = field(default_factory=list)

    def median(self, side: str, what: str = "seconds") -> float:
        return statistics.median(getattr(run, what) for run in getattr(self, side))

    @property
    def speedup(self) -> float:
        """How many times faster ours is (below 1: the reference is faster)."""
        return self.median("reference") / self.median("ours")

    def loads(self) -> str:
        values = [run.load for run in self.ours + self.reference]
        return f"{min(values):.1f}–{max(values):.1f}"


def alternate(rounds: int, ours_run: Callable[[int], Run], reference_run: Callable[[int], Run]) -> Compared:
    """`rounds` of both, ours first in even rounds and the reference first in odd ones."""
    out = Compared()
    for r in range(rounds):
        pair = [("ours", ours_run), ("reference", reference_run)]
        for side, run in pair if r % 2 == 0 else reversed(pair):
            done = run(r)
            getattr(out, side).append(done)
            print(f"round {r} {side}: {done.seconds:.2f} s, cluster CPU {done.cluster_cpu:.2f} s, client CPU {done.client_cpu:.2f} s, "
                  f"load {done.load:.1f}", file=sys.stderr, flush=True)  # each run as it ends: a cut-short set still says something
    return out
