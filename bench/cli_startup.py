"""How fast `pai` starts: whole processes, each beside its reference in one run, the order alternated
and medians of 5 (bench/fair.py), the machine's load noted:

- `pai --version` and `pai --help` against `python -c pass` (the interpreter's own start);
- `pai jobs` and `pai status JOB` with the daemon up, against curl of the same REST call on the same
  local cluster (what the daemon asks the cluster for them), its output piped (as a script reads it)
  and on a terminal (a pseudo-terminal: colours, as a person reads it);
- completion answers, as bash asks them (`pai completion bash`'s hook): a command's options
  (`pai jobs --<Tab>`) against `python -c pass`, and job names from the daemon (`pai status <Tab>`)
  against curl.

    python bench/cli_startup.py [--rounds 5] [--instructions]

With `--instructions`, each command's instructions are also counted under valgrind (callgrind), once:
a count the machine's load does not change, for a machine too busy for honest times. Set
`PAI_BENCH_CODE` (bench/fair.py) to measure another checkout's pai the same way.

Each process runs with compiled bytecode present (as an installed `pai` does; `PYTHONDONTWRITEBYTECODE`
is dropped and every command runs once before the timed rounds). Targets: `--version` ≤ 60 ms,
`--help` ≤ 100 ms, `jobs` / `status` ≤ 100 ms, a completion answer ≤ 100 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fair import Compared, Run, alternate, load, wait_for_quiet  # noqa: E402
from bench.report import print_table  # noqa: E402
from tests.helpers.cli import command_job, isolated_env, local_client_password, stop_all  # noqa: E402

PAI = str(Path(sys.executable).with_name("pai"))  # the console script, as a user runs it


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def piped(command: list[str], env: dict[str, str], fds: dict[int, int] | None = None) -> Run:
    """One process, its output captured: wall time and its CPU time."""
    started_load = wait_for_quiet()
    cpu = _children_cpu()
    t0 = time.perf_counter()
    done = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, capture_output=True, pass_fds=tuple(fds or ()))
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed ({done.returncode}): {done.stderr.decode()[-800:]}")
    return Run(seconds, 0.0, _children_cpu() - cpu, 0.0, started_load, done.stdout.decode())


def on_terminal(command: list[str], env: dict[str, str]) -> Run:
    """One process writing to a pseudo-terminal (read until it closes)."""
    started_load = wait_for_quiet()
    leader, follower = pty.openpty()
    cpu = _children_cpu()
    t0 = time.perf_counter()
    process = subprocess.Popen(command, env=dict(env, TERM="xterm-256color", COLUMNS="120"), stdin=subprocess.DEVNULL,
                               stdout=follower, stderr=follower)
    os.close(follower)
    out = b""
    while True:
        try:
            piece = os.read(leader, 65536)
        except OSError:
            break
        if not piece:
            break
        out += piece
    code = process.wait()
    seconds = time.perf_counter() - t0
    os.close(leader)
    if code != 0:
        raise RuntimeError(f"{command[:3]} failed ({code}): {out.decode(errors='replace')[-800:]}")
    return Run(seconds, 0.0, _children_cpu() - cpu, 0.0, started_load, out.decode(errors="replace"))


def completion(env: dict[str, str], line: str) -> Run:
    """The answer to one Tab, as bash's hook asks it: argcomplete's environment, the answer on fd 8."""
    read, write = os.pipe()
    os.dup2(write, 8)
    os.close(write)
    try:
        run = piped([PAI], dict(env, _ARGCOMPLETE="1", _ARGCOMPLETE_SHELL="bash", COMP_LINE=line, COMP_POINT=str(len(line)),
                                COMP_TYPE="9", _ARGCOMPLETE_IFS="\v"), fds={8: 8})
    finally:
        os.close(8)
    answer = os.read(read, 1 << 20).decode()
    os.close(read)
    run.out = answer.replace("\v", " ")
    return run


def instructions(command: list[str], env: dict[str, str], fds: dict[int, int] | None = None) -> float:
    """Millions of instructions the process ran (valgrind's callgrind; what it runs under valgrind, as is)."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command], env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, pass_fds=tuple(fds or ()), timeout=600)
    counted = [line for line in done.stderr.decode().splitlines() if "Collected :" in line]
    if done.returncode != 0 or not counted:
        raise RuntimeError(f"valgrind {command[:3]} failed: {done.stderr.decode()[-800:]}")
    return int(counted[-1].split(":")[-1]) / 1e6


def completion_instructions(env: dict[str, str], line: str) -> float:
    read, write = os.pipe()
    os.dup2(write, 8)
    os.close(write)
    try:
        return instructions([PAI], dict(env, _ARGCOMPLETE="1", _ARGCOMPLETE_SHELL="bash", COMP_LINE=line,
                                         COMP_POINT=str(len(line)), COMP_TYPE="9", _ARGCOMPLETE_IFS="\v"), fds={8: 8})
    finally:
        os.close(8)
        os.close(read)


def compare(rounds: int, ours: Callable[[], Run], reference: Callable[[], Run]) -> Compared:
    ours(), reference()  # once untimed: bytecode compiled, files in the page cache
    return alternate(rounds, lambda _: ours(), lambda _: reference())


def row(what: str, compared: Compared, target_ms: float, reference: str) -> tuple[str, str]:
    ours_ms, reference_ms = compared.median("ours") * 1000, compared.median("reference") * 1000
    cpu_ms = compared.median("ours", "client_cpu") * 1000
    verdict = "holds" if ours_ms <= target_ms else "MISSED"
    return (f"{what} (target ≤ {target_ms:.0f} ms)",
            f"{ours_ms:.0f} ms (CPU {cpu_ms:.0f} ms) vs {reference} {reference_ms:.0f} ms; target {verdict}; load {compared.loads()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true", help="also count each command's instructions (valgrind)")
    options = parser.parse_args()
    rounds = options.rounds
    curl = shutil.which("curl")
    if curl is None:
        sys.exit("bench/cli_startup.py: curl is the reference for `pai jobs`; install it")
    work = Path(tempfile.mkdtemp(prefix="pai-bench-cli-"))
    env = {k: v for k, v in isolated_env(work).items() if k != "PYTHONDONTWRITEBYTECODE"}
    python = [sys.executable, "-c", "pass"]
    rows: list[tuple[str, str]] = []
    try:
        rows.append(row("pai --version", compare(rounds, lambda: piped([PAI, "--version"], env), lambda: piped(python, env)),
                        60, "python -c pass"))
        rows.append(row("pai --help", compare(rounds, lambda: piped([PAI, "--help"], env), lambda: piped(python, env)),
                        100, "python -c pass"))
        rows.append(row("completion of a command's options, `pai jobs --<Tab>`",
                        compare(rounds, lambda: completion(env, "pai jobs --"), lambda: piped(python, env)), 100,
                        "python -c pass"))

        # A job on the local cluster, the daemon up (started by the first command).
        ws = command_job(work, "quick.pai.json", "echo hello")
        submitted = piped([PAI, "run", str(ws / "quick.pai.json"), "--follow"], env)
        job = next(line.split()[1] for line in (submitted.out + "\n").splitlines() if line.startswith("submitted "))
        server = json.loads((Path(env["PAI_LOCAL_CLUSTER_DIR"]) / "server.json").read_text())
        user = piped([sys.executable, "-c", "import getpass; print(getpass.getuser())"], env).out.strip()
        jobs_url = f"{server['url']}/api/v2/jobs?username={user}"
        job_url = f"{server['url']}/api/v2/jobs/{user}~{job}"
        token = json.loads(piped([curl, "-sf", "-H", "Content-Type: application/json", "-d",
                                  json.dumps({"username": user, "password": local_client_password(env)}),
                                  f"{server['url']}/api/v1/token"], env).out)["token"]

        def curl_get(url: str) -> Run:  # with a token, as the daemon holds one
            return piped([curl, "-sf", "-H", f"Authorization: Bearer {token}", url], env)

        rows.append(row("pai jobs, piped (daemon up)", compare(rounds, lambda: piped([PAI, "jobs"], env),
                                                              lambda: curl_get(jobs_url)), 100, "curl of GET /api/v2/jobs"))
        rows.append(row("pai jobs, on a terminal (daemon up)", compare(rounds, lambda: on_terminal([PAI, "jobs"], env),
                                                                      lambda: curl_get(jobs_url)), 100, "curl of GET /api/v2/jobs"))
        rows.append(row("pai status JOB, piped (daemon up)", compare(rounds, lambda: piped([PAI, "status", job], env),
                                                                    lambda: curl_get(job_url)), 100,
                        "curl of GET /api/v2/jobs/USER~JOB"))
        rows.append(row("pai status JOB, on a terminal (daemon up)", compare(rounds, lambda: on_terminal([PAI, "status", job], env),
                                                                            lambda: curl_get(job_url)), 100,
                        "curl of GET /api/v2/jobs/USER~JOB"))
        names = compare(rounds, lambda: completion(env, "pai status "), lambda: curl_get(jobs_url))
        assert job in names.ours[-1].out.split(), names.ours[-1].out
        rows.append(row("completion of job names from the daemon, `pai status <Tab>`", names, 100, "curl of GET /api/v2/jobs"))
        if options.instructions:
            base = instructions(python, env)
            for what, count in (("pai --version", instructions([PAI, "--version"], env)),
                                ("pai --help", instructions([PAI, "--help"], env)),
                                ("`pai jobs --<Tab>`", completion_instructions(env, "pai jobs --")),
                                ("pai jobs (daemon up)", instructions([PAI, "jobs"], env)),
                                ("pai status JOB (daemon up)", instructions([PAI, "status", job], env)),
                                ("`pai status <Tab>`", completion_instructions(env, "pai status "))):
                rows.append((f"{what}: instructions (valgrind)", f"{count:.0f} M = {count / base:.2f}× python -c pass ({base:.0f} M)"))
    finally:
        stop_all(env)
        shutil.rmtree(work, ignore_errors=True)
    print(f"# pai start-up (medians of {rounds}, alternated with the reference; load at the end {load():.1f})")
    print_table(rows)


if __name__ == "__main__":
    main()
