"""Hostile requests to the local cluster: what each does to the data folder, the scheduler,
the other requests' latency and the server's memory.

    python bench/hostile_requests.py [--rounds 5] [--reference /path/to/an/older/checkout]

Each probe runs against a fresh cluster (a bomb must not spoil the next probe's numbers). After each
one: the files of the data folder that were there before and are gone ("data lost"), whether a plain
job submitted afterwards still runs to SUCCEEDED ("scheduler stall" when not), the worst latency of
`GET /api/v2/info` polled every 20 ms while the hostile request ran, the server's peak RSS over its
RSS before, and whether it then stopped on SIGINT by itself. A server past RSS_CAP is killed (and the
probe reported as such) so the machine, shared with others, never swaps. With `--reference`, every
round runs the probe against that checkout's cluster too, the order alternating.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.localcluster import PASSWORD, USER, login, start_cluster, stop_cluster  # noqa: E402

RSS_CAP = 2 << 30
PROBE_SECONDS = 20.0
HERE = Path(__file__).resolve().parents[1]


def deep_list(depth: int) -> object:
    value: object = []
    for _ in range(depth - 1):
        value = [value]
    return value


def v1(name: str, **extra) -> dict:
    return {"jobName": name, "image": "local", "taskRoles": [{"name": "r", "command": "true", "cpuNumber": 1,
                                                              "memoryMB": 64}], **extra}


def v2(name: str, instances: object = 1, memory: object = 64, extras: str = "") -> str:
    return (f"protocolVersion: 2\nname: {name}\ntype: job\nprerequisites:\n  - {{name: img, type: dockerimage, uri: local}}\n"
            f"taskRoles:\n  r:\n    instances: {instances}\n    dockerImage: img\n"
            f"    resourcePerInstance: {{cpu: 1, memoryMB: {memory}, gpu: 0}}\n    commands: [\"true\"]\n{extras}")


def bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["a0: &a0 [x]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return v2("bomb", extras="extras:\n" + "\n".join("  " + line for line in lines) + "\n")


def many_roles(count: int) -> str:
    """A v2 job of `count` roles in about 9 bytes a role: one written out, the rest aliases of it."""
    head = v2("roles").split("taskRoles:\n")[0] + "taskRoles:\n"
    first = "  r0: &r {instances: 1, dockerImage: img, resourcePerInstance: {cpu: 1, memoryMB: 64, gpu: 0}, commands: [\"true\"]}\n"
    return head + first + "".join(f"  r{i}: *r\n" for i in range(1, count))


# name -> (method, path, keyword arguments of httpx.request)
PROBES: dict[str, tuple[str, str, dict]] = {
    'v1 jobName ".." (legacy route)': ("POST", "/api/v1/jobs", {"json": v1("..")}),
    'v1 jobName "." (legacy route)': ("POST", "/api/v1/jobs", {"json": v1(".")}),
    "v1 jobEnvs 900 deep": ("POST", f"/api/v1/user/{USER}/jobs", {"json": v1("deep", jobEnvs={"x": deep_list(900)})}),
    "v2 self-referencing alias": ("POST", "/api/v2/jobs", {"content": v2("selfref", extras="extras: {a: &a [*a]}\n")}),
    "v2 YAML bomb, 9 levels of 9 aliases": ("POST", "/api/v2/jobs", {"content": bomb()}),
    "v2 instances 2147483648": ("POST", "/api/v2/jobs", {"content": v2("huge", instances=2147483648)}),
    "v2 instances 1e20": ("POST", "/api/v2/jobs", {"content": v2("huge2", instances="1e20")}),
    "v2 memoryMB 1e20": ("POST", "/api/v2/jobs", {"content": v2("hugemem", memory="1e20")}),
    "v2 10 MB YAML string": ("POST", "/api/v2/jobs", {"content": v2("big", extras="extras: {s: '" + "x" * (10 << 20) + "'}\n")}),
    "v2 8,000 roles (aliases, 94 KB)": ("POST", "/api/v2/jobs", {"content": many_roles(8_000)}),
    "300 MB body": ("POST", f"/api/v1/user/{USER}/jobs", {"content": b"{" + b" " * (300 << 20) + b"}"}),
    "1 MB request header": ("GET", "/api/v2/jobs", {"headers": {"X-Big": "x" * (1 << 20)}}),
    "PaddlePaddle Cloud GET /api/v1/file/ of a 300 MB file": (
        "GET", "/api/v1/file/", {"params": {"path": f"/pfs/local/home/{USER}/big.bin"}, "paddle": True}),
    "PUT job a%00b": ("PUT", f"/api/v1/user/{USER}/jobs/a%00b", {"json": v1("nul")}),
    "JSON 1,000 deep to /api/v1/jobs": ("POST", "/api/v1/jobs", {"content": b"[" * 1000 + b"]" * 1000,
                                                                 "headers": {"Content-Type": "application/json"}}),
}


class Watch:
    """Polls the health check and samples the server's RSS until stopped."""

    def __init__(self, url: str, pid: int):
        self.url, self.process = url, psutil.Process(pid)
        self.worst = 0.0
        self.peak = self.base = self.process.memory_info().rss
        self.killed = False
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._health), threading.Thread(target=self._memory)]

    def __enter__(self) -> Watch:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()

    def _health(self) -> None:
        with httpx.Client(timeout=PROBE_SECONDS) as c:
            while not self._stop.is_set():
                t0 = time.perf_counter()
                try:
                    c.get(f"{self.url}/api/v2/info")
                except httpx.HTTPError:
                    pass
                self.worst = max(self.worst, time.perf_counter() - t0)
                self._stop.wait(0.02)

    def _memory(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, self.process.memory_info().rss)
            except psutil.NoSuchProcess:
                return
            if self.peak > RSS_CAP:
                self.killed = True
                self.process.kill()
                return
            self._stop.wait(0.05)


def files_of(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if "cluster.lock" not in p.name}


def using(checkout: Path) -> None:
    """Clusters started from now on run the code of `checkout` (`python -m pai_lsp` from there)."""
    os.chdir(checkout)
    if checkout == HERE:
        os.environ.pop("PYTHONPATH", None)
    else:
        os.environ["PYTHONPATH"] = str(checkout)


def probe(name: str, tmp: Path, checkout: Path) -> dict:
    method, path, kwargs = PROBES[name]
    kwargs = dict(kwargs)
    using(checkout)
    cluster = start_cluster(tmp / f"data-{time.monotonic_ns()}")
    paddle = kwargs.pop("paddle", False)
    shutdown = "?"
    try:
        with cluster.client() as c:  # something to lose: an HDFS file and a finished job
            httpx.put(f"{cluster.hdfs_url}/webhdfs/v1/user/{USER}/keep.txt?op=CREATE&user.name={USER}", content=b"keep",
                      follow_redirects=True).raise_for_status()
            c.post(f"/api/v1/user/{USER}/jobs", json=v1("before")).raise_for_status()
            wait_state(c, "before", 30)
        if paddle:
            chunk = os.urandom(1 << 20)
            httpx.put(f"{cluster.hdfs_url}/webhdfs/v1/user/{USER}/big.bin?op=CREATE&user.name={USER}&datanode=true",
                      content=(chunk for _ in range(300)), timeout=120).raise_for_status()
        before = files_of(cluster.data_dir)
        auth = ("Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()) if paddle else f"Bearer {cluster.token}"
        headers = {"Authorization": auth, **kwargs.pop("headers", {})}
        with Watch(cluster.url, cluster.process.pid) as watch:
            t0 = time.perf_counter()
            try:
                base = cluster.paddle_url if paddle else cluster.url
                answer = httpx.request(method, base + path, headers=headers, timeout=PROBE_SECONDS, **kwargs)
                text = f"{len(answer.content) >> 20} MB of content" if len(answer.content) > 1 << 20 else repr(answer.text[:90])
                status = f"{answer.status_code} {text}"
            except httpx.HTTPError as exc:
                status = f"no answer ({type(exc).__name__})"
            took = time.perf_counter() - t0
        if watch.killed:
            return {"status": status, "took": took, "lost": "?", "stall": "?", "worst_ms": watch.worst * 1000,
                    "rss_mb": (watch.peak - watch.base) / 2**20, "note": f"killed past {RSS_CAP >> 30} GB RSS",
                    "shutdown": "killed"}
        lost = before - files_of(cluster.data_dir)
        stall = 0
        try:
            with httpx.Client(base_url=cluster.url, timeout=10,
                              headers={"Authorization": f"Bearer {login(cluster.url, USER)}"}) as c:
                c.post(f"/api/v1/user/{USER}/jobs", json=v1("after"))
                stall = 0 if wait_state(c, "after", 20) == "SUCCEEDED" else 1
        except (httpx.HTTPError, TimeoutError, KeyError, ValueError):
            stall = 1
        result = {"status": status, "took": took, "lost": len(lost), "stall": stall, "worst_ms": watch.worst * 1000,
                  "rss_mb": (watch.peak - watch.base) / 2**20, "note": ""}
    finally:
        stop_cluster(cluster)  # SIGINT, then SIGKILL after 20 s
        shutdown = "ok" if cluster.process.returncode in (0, 130) else "killed"
    result["shutdown"] = shutdown
    return result


def wait_state(c: httpx.Client, name: str, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = c.get(f"/api/v1/user/{USER}/jobs/{name}").json().get("jobStatus", {}).get("state")
        if state in ("SUCCEEDED", "FAILED", "STOPPED"):
            return state
        time.sleep(0.1)
    raise TimeoutError(name)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1, help="runs of each probe (medians are reported)")
    parser.add_argument("--only", help="probes whose name contains this")
    parser.add_argument("--reference", type=Path, help="a checkout to run the same probes against, alternating")
    args = parser.parse_args()
    checkouts = [HERE] + ([args.reference.resolve()] if args.reference else [])
    print(f"load: {os.getloadavg()}", file=sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")  # the clusters' secrets: never the real ~/.config
        for name in PROBES:
            if args.only and args.only not in name:
                continue
            runs: dict[Path, list[dict]] = {c: [] for c in checkouts}
            for i in range(args.rounds):
                for checkout in checkouts if i % 2 == 0 else checkouts[::-1]:
                    runs[checkout].append(probe(name, Path(tmp), checkout))
            for checkout in checkouts:
                done, last = runs[checkout], runs[checkout][-1]
                rows.append((name, "this" if checkout == HERE else "reference", last["status"],
                             statistics.median(r["took"] for r in done), max_of(done, "lost"), max_of(done, "stall"),
                             statistics.median(r["worst_ms"] for r in done), max(r["worst_ms"] for r in done),
                             statistics.median(r["rss_mb"] for r in done),
                             "/".join(sorted({r["shutdown"] for r in done})), last["note"]))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    os.chdir(HERE)
    print(f"load after: {os.getloadavg()}", file=sys.stderr)
    print(f"{args.rounds} round(s); medians, and the worst of any round where it says so")
    print("| probe | code | answer | took (s) | data lost (files, most) | scheduler stalls (most) | health check median / "
          "worst (ms) | RSS added (MB) | stops on SIGINT |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, code, status, took, lost, stall, worst, worst_max, rss, shutdown, note in rows:
        print(f"| {name} | {code} | {status.replace('|', '/')}{' — ' + note if note else ''} | {took:.2f} | {lost} | {stall} | "
              f"{worst:.0f} / {worst_max:.0f} | {rss:.0f} | {shutdown} |")
    return 0


def max_of(runs: list[dict], key: str) -> object:
    values = [r[key] for r in runs]
    return "?" if "?" in values else max(values)


if __name__ == "__main__":
    sys.exit(main())
