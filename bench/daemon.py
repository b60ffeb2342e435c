"""Daemon scale, each measure at several sizes beside its reference in the same run:

- followers: N jobs print their clock every 0.5 s, N followers (one per job, through the daemon)
  note each line's delay; meanwhile `pai jobs` is timed and the daemon's CPU and memory sampled.
  Reference: `tail -F` of the same log files on disk (no HTTP, no daemon: the floor).
- logs: a task writes S MB as fast as it can, `pai logs -f` prints it into a reader that counts and
  hashes; task end -> last line, peak resident memory of the cluster, the daemon and the CLI, and
  every byte checked against the file. Reference: `cat <log> | reader`.
- watch: the daemon watching one running job with H finished jobs in the history: its CPU share.
  Reference: what watching used to cost, one whole job list every 2 s, timed at the same H.

    .venv/bin/python bench/daemon.py [followers] [logs] [watch]

Uploads (one big file, many small ones, against `hdfscli`) are measured by bench/uploads.py, on equal
stores and in alternating order: here they ran pai first on an empty cluster and
`hdfscli` second with pai's files still stored.

Run it on a quiet machine (`uptime`): every number is also printed with the load average.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import print_markdown  # noqa: E402
from pai_lsp import api  # noqa: E402
from pai_lsp.clusters.profiles import local_password, local_profile  # noqa: E402
from pai_lsp.daemon import client as daemon  # noqa: E402

PAI = [sys.executable, "-m", "pai_lsp"]


# -- set-up ------------------------------------------------------------------------------
class Cluster:
    """The local cluster as `pai` starts it, in an environment of its own, with a REST client."""

    def __init__(self, work: Path):
        self.work = work
        os.environ.update(XDG_CONFIG_HOME=str(work / "config"), XDG_STATE_HOME=str(work / "state"),
                          PAI_LOCAL_CLUSTER_DIR=str(work / "local"), PAI_LSP_SECRETS="file",
                          PAI_LOCAL_CLUSTER_ARGS="--cpus 512 --memory-mb 262144")
        self.start()

    def start(self) -> None:
        self.profile = local_profile()
        self.user = self.profile.user
        token = httpx.post(f"{self.profile.rest_uri}/api/v1/token", json={"username": self.user,
                                                                           "password": local_password()}).json()["token"]
        self.http = httpx.Client(base_url=self.profile.rest_uri, headers={"Authorization": f"Bearer {token}"}, timeout=60)
        self.pid = json.loads((self.work / "local" / "server.json").read_text())["pid"]

    def submit(self, name: str, command: str) -> None:
        self.http.post(f"/api/v1/user/{self.user}/jobs", json={"jobName": name, "image": "local", "taskRoles": [
            {"name": "r", "command": command, "cpuNumber": 1, "memoryMB": 16, "shmMB": 8}]}).raise_for_status()

    def state(self, name: str) -> str:
        return self.http.get(f"/api/v1/user/{self.user}/jobs/{name}").json()["jobStatus"]["state"]

    def wait_running(self, names: list[str], timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        for name in names:
            while self.state(name) == "WAITING":
                assert time.monotonic() < deadline, f"{name} never started"
                time.sleep(0.05)

    def log_path(self, name: str) -> Path:
        return self.work / "local" / "jobs" / f"{self.user}~{name}" / "attempt-0" / "r-0" / "logs" / "stdout"

    def stop(self) -> None:
        for command in (["daemon", "stop"], ["cluster", "stop-local"]):
            subprocess.run([*PAI, *command], capture_output=True)


def daemon_process() -> psutil.Process:
    return psutil.Process(daemon.call_sync(api.Ping()).pid)


class Sampler:
    """Peak resident memory of some processes (and their CPU time) sampled in a thread."""

    def __init__(self, processes: dict[str, psutil.Process], every: float = 0.05):
        self.processes, self.every = processes, every
        self.peak = dict.fromkeys(processes, 0.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, process in list(self.processes.items()):
                try:
                    self.peak[name] = max(self.peak[name], process.memory_info().rss / 1e6)
                except psutil.Error:
                    pass
            self._stop.wait(self.every)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


# -- followers ---------------------------------------------------------------------------
CLOCK = ("python3 -c \"import time\ntime.sleep(max(0, {start} - time.time()))\n"
         "for i in range({lines}): print(repr(time.time()), flush=True); time.sleep({every})\"")


async def follow_all(names: list[str], delays: list[float], seconds: float) -> int:
    done = 0

    def on_log(log: api.JobLog, data: bytes) -> None:
        now = time.time()
        for line in data.splitlines():
            try:
                delays.append(now - float(line))
            except ValueError:
                pass

    async def one(name: str) -> None:
        nonlocal done
        await daemon.follow(api.FollowLogs(job=name, cluster="local"), on_log)
        done += 1

    await asyncio.wait_for(asyncio.gather(*(one(n) for n in names)), seconds + 120)
    return done


def tail_reference(cluster: Cluster, names: list[str], delays: list[float]) -> list[subprocess.Popen]:
    """`tail -F` of each job's log file, each line's delay noted as it comes."""
    tails = []
    for name in names:
        tail = subprocess.Popen(["tail", "-n", "+1", "-F", str(cluster.log_path(name))], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)

        def read(stream=tail.stdout) -> None:
            for line in stream:
                try:
                    delays.append(time.time() - float(line))
                except ValueError:
                    pass

        threading.Thread(target=read, daemon=True).start()
        tails.append(tail)
    return tails


def bench_followers(cluster: Cluster, sizes=(1, 10, 50, 100), seconds: float = 20.0, every: float = 0.5) -> list[list[str]]:
    rows = []
    for n in sizes:
        names = [f"f{n}_{i}" for i in range(n)]
        start = time.time() + 8 + n * 0.05  # every job runs and every follower is in place before the first line
        for name in names:
            cluster.submit(name, CLOCK.format(start=start, lines=int(seconds / every), every=every))
        cluster.wait_running(names)
        proc = daemon_process()
        ours: list[float] = []
        floor: list[float] = []
        tails = tail_reference(cluster, names, floor)
        jobs_cli: list[float] = []
        jobs_call: list[float] = []
        stop = threading.Event()

        def probe(stop: threading.Event = stop, jobs_cli: list[float] = jobs_cli, jobs_call: list[float] = jobs_call) -> None:
            while not stop.wait(1.0):
                t0 = time.perf_counter()
                subprocess.run([*PAI, "jobs"], capture_output=True)
                jobs_cli.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                daemon.call_sync(api.Jobs(cluster="local", limit=50))
                jobs_call.append(time.perf_counter() - t0)

        prober = threading.Thread(target=probe, daemon=True)
        window: list[float] = []

        def measure(proc: psutil.Process = proc, start: float = start, window: list[float] = window) -> None:
            """The daemon's CPU while the lines flow (not while followers connect)."""
            time.sleep(max(0.0, start + 1 - time.time()))
            c0, t0 = cpu(proc), time.perf_counter()
            time.sleep(seconds - 2)
            window.append((cpu(proc) - c0) / (time.perf_counter() - t0))

        measuring = threading.Thread(target=measure, daemon=True)
        with Sampler({"daemon": proc}) as sampler:
            measuring.start()
            prober.start()
            finished = asyncio.run(follow_all(names, ours, seconds + start - time.time()))
            measuring.join()
            share = window[0]
            stop.set()
            prober.join()
        for tail in tails:
            tail.kill()
        expected = n * int(seconds / every)
        rows.append([str(n), f"{quantile(ours, 0.5) * 1000:.0f} / {quantile(ours, 0.95) * 1000:.0f}",
                     f"{quantile(floor, 0.5) * 1000:.0f} / {quantile(floor, 0.95) * 1000:.0f}",
                     f"{len(ours)}/{expected}" + ("" if finished == n else f" ({n - finished} followers unfinished)"),
                     f"{statistics.median(jobs_cli):.2f} / {max(jobs_cli):.2f}",
                     f"{statistics.median(jobs_call) * 1000:.0f} / {max(jobs_call) * 1000:.0f}",
                     f"{share * 100:.1f}", f"{sampler.peak['daemon']:.0f}", load()])
    return rows


# -- one big log -------------------------------------------------------------------------
WRITER = ("python3 -c \"import sys,time\nline=b'x'*99+b'\\n'\nn={lines}\nout=sys.stdout.buffer\n"
          "for i in range(0,n,1000): out.write(line*min(1000,n-i))\nout.write(b'END %r\\n' % time.time())\n\"")


def reader(stream, result: dict) -> None:
    """Count and hash what arrives; note when the END line (the task's last) arrives."""
    h = hashlib.sha256()
    count = 0
    while chunk := stream.read(1 << 20):
        h.update(chunk)
        count += len(chunk)
        if b"END " in chunk[-40:]:
            result["last"] = time.time()
            result["end"] = float(chunk.rsplit(b"END ", 1)[1])
    result["bytes"], result["sha256"] = count, h.hexdigest()


def bench_logs(cluster: Cluster, sizes=(20, 50, 100, 200), rounds: int = 3) -> list[list[str]]:
    rows = []
    for size in sizes:
        lines = size * 10_000  # 100-byte lines
        runs = []
        for r in range(rounds):
            name = f"log{size}_{r}"
            proc = daemon_process()
            cluster.submit(name, WRITER.format(lines=lines))
            cluster.wait_running([name])
            follower = subprocess.Popen([*PAI, "logs", "-f", name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            got: dict = {}
            with Sampler({"cluster": psutil.Process(cluster.pid), "daemon": proc,
                          "cli": psutil.Process(follower.pid)}) as sampler:
                reading = threading.Thread(target=reader, args=(follower.stdout, got))
                reading.start()
                reading.join()
                follower.wait()
            log = cluster.log_path(name)
            t0 = time.perf_counter()
            cat = subprocess.Popen(["cat", str(log)], stdout=subprocess.PIPE)
            ref: dict = {}
            reader(cat.stdout, ref)
            cat.wait()
            cat_seconds = time.perf_counter() - t0
            on_disk = hashlib.sha256(log.read_bytes()).hexdigest()
            runs.append((got["last"] - got["end"], cat_seconds, sampler.peak, got["bytes"] == log.stat().st_size,
                         got["sha256"] == on_disk))
        rows.append([str(size), f"{statistics.median(r[0] for r in runs):.2f}", f"{statistics.median(r[1] for r in runs):.2f}",
                     " / ".join(f"{max(r[2][k] for r in runs):.0f}" for k in ("cluster", "daemon", "cli")),
                     "yes" if all(r[3] and r[4] for r in runs) else "NO", load()])
    return rows


# -- watching with a long history --------------------------------------------------------
def seed_history(cluster: Cluster, count: int, first: int = 0) -> None:
    """`count` finished jobs, cloned from one real finished job while the cluster is stopped."""
    seed = f"seed{first}x"
    cluster.submit(seed, "true")
    while cluster.state(seed) != "SUCCEEDED":
        time.sleep(0.05)
    cluster.stop()
    jobs = cluster.work / "local" / "jobs"
    template = (jobs / f"{cluster.user}~{seed}" / "status.json").read_text()
    for i in range(first, first + count):
        folder = jobs / f"{cluster.user}~old{i}"
        folder.mkdir(mode=0o700)
        (folder / "status.json").write_text(template.replace(seed, f"old{i}"))
    cluster.start()


def bench_watch(cluster: Cluster, histories=(0, 2_000, 20_000), seconds: float = 30.0) -> list[list[str]]:
    rows = []
    seeded = 0
    for history in histories:
        if history > seeded:
            seed_history(cluster, history - seeded, seeded)
            seeded = history
        name = f"watched{history}"
        cluster.submit(name, "sleep 600")
        daemon.call_sync(api.Watch(cluster="local", job=name))
        proc = daemon_process()
        time.sleep(3)
        c0, t0 = cpu(proc), time.perf_counter()
        time.sleep(seconds)
        share = (cpu(proc) - c0) / (time.perf_counter() - t0)
        times = []
        for _ in range(5):  # the old way: the whole list, every 2 s
            p0, w0 = time.process_time(), time.perf_counter()
            listed = cluster.http.get(f"/api/v1/user/{cluster.user}/jobs")
            listed.json()
            times.append((time.process_time() - p0, time.perf_counter() - w0, len(listed.content)))
        client_cpu = statistics.median(t[0] for t in times)
        rows.append([f"{history:,}", f"{share * 100:.2f}", f"{client_cpu / 2 * 100:.2f}",
                     f"{statistics.median(t[1] for t in times) * 1000:.0f} ms, {times[0][2] / 1e3:.0f} KB", load()])
        cluster.http.put(f"/api/v1/user/{cluster.user}/jobs/{name}/executionType", json={"value": "STOP"})
    return rows


# -- report ------------------------------------------------------------------------------
TABLES = {
    "followers": (bench_followers, ["followers (= jobs)", "line delay p50 / p95, ms (target p95 ≤ 1000)",
                                    "tail -F floor p50 / p95, ms", "lines received", "`pai jobs` meanwhile, s: median / max",
                                    "daemon `jobs` call, ms: median / max (target ≤ 300)", "daemon CPU, % of a core (≤ 20)",
                                    "daemon peak RSS, MB (≤ 100)", "machine"]),
    "logs": (bench_logs, ["log MB", "task end -> last line printed, s (target ≤ 1.5)", "`cat | reader`, s",
                          "peak RSS cluster / daemon / CLI, MB (≤ 100 each)", "every byte once (count + sha256)", "machine"]),
    "watch": (bench_watch, ["finished jobs", "daemon CPU watching 1 job, % of a core (≤ 1)",
                            "old way (whole list every 2 s): client CPU, % of a core", "one whole list", "machine"]),
}


@contextmanager
def environment():
    with tempfile.TemporaryDirectory() as tmp:
        cluster = Cluster(Path(tmp))
        try:
            yield cluster
        finally:
            cluster.stop()


def main(argv: list[str]) -> int:
    wanted = argv or list(TABLES)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))  # a few hundred followers and tails
    for name in wanted:
        run, header = TABLES[name]
        with environment() as cluster:
            rows = run(cluster)
        print(f"\n### {name}\n")
        print_markdown(header, rows)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
