"""The log lines that tell why a task failed, as rules: each is found by a literal keyword (a C-level
search from the log's end), confirmed on its one line by more literals and, where details are wanted,
a regex whose every repeat is bounded and anchored on a literal (so it costs at most a few thousand
steps per line, whatever the line holds).

The wordings are the frameworks' own (PyTorch, TensorFlow, PaddlePaddle, NCCL, gloo, bash, dash,
coreutils, the JVM's HDFS client, the Linux kernel); `spec` names the OpenPAI exit spec whose
runtime pattern (exit_specs.json) matches the same line. Order is priority: the first rule that
matches wins, so specific causes (the GPU's memory) come before their consequences (a collective
timing out on the other ranks, a bus error)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .logtext import MAX_LINE, Log
from .specs import SIGNALS, signal_name

TAIL = 64 * 1024  # rules are tried on the log's last 64 KB first: the cause is nearly always there
TRIES = 40  # lines a rule's keyword may lead to before the rule gives up on a log
MAX_MESSAGE_LINES = 24

Details = dict[str, str]


@dataclass(frozen=True)
class Rule:
    id: str  # "<kind>.<what>": the message is the catalogue's entry for `kind` and `variant`
    kind: str
    keyword: str  # lower case
    also: tuple[str, ...] = ()  # lower-case literals that must be on the line too
    unless: tuple[str, ...] = ()  # lower-case literals that rule the line out
    regex: re.Pattern[str] | None = None  # must match the line; its named groups are the details
    extract: re.Pattern[str] | None = None  # may match the line; its named groups are more details
    parse: Callable[[str, str], Details | None] | None = None  # (line, lower-case line) -> details, or None: no match
    variant: str = ""
    spec: int | None = None  # the Kubernetes-era exit spec that matches the same line
    exit_codes: tuple[int, ...] = ()  # only when the command exited with one of these
    decisive: bool = False  # more telling than a Python traceback printed after it (its consequence)
    fixed: Details = field(default_factory=dict)  # details the rule itself gives (a signal's name)

    def check(self, line: str, low: str) -> Details | None:
        if any(word not in low for word in self.also) or any(word in low for word in self.unless):
            return None
        details = dict(self.fixed)
        if self.regex is not None:
            m = self.regex.search(line)
            if m is None:
                return None
            details.update({k: v for k, v in m.groupdict().items() if v})
        if self.extract is not None and (m := self.extract.search(line)) is not None:
            details.update({k: v for k, v in m.groupdict().items() if v})
        if self.parse is not None:
            found = self.parse(line, low)
            if found is None:
                return None
            details.update(found)
        return details


@dataclass(frozen=True)
class Hit:
    rule: Rule
    details: Details
    start: int  # the matched line in the log
    end: int


# -- details read off a line ---------------------------------------------------------------
_ERRNO = re.compile(r"\s*\[Errno \d{1,4}\]\s*$")
_QUOTES = {"'": "'`‘", '"': '"', "’": "‘'"}  # closing quote -> the opening quotes it pairs with


def _quoted_after(rest: str) -> str | None:
    """`: '/data/x'` (Python's `[Errno 2] …: '<path>'`) -> /data/x."""
    rest = rest.lstrip(":; ")
    if rest[:2] in ("b'", 'b"'):
        rest = rest[1:]
    if rest[:1] in ("'", '"'):
        end = rest.find(rest[0], 1)
        if end > 1:
            return rest[1:end]
    return None


def _before(head: str) -> tuple[str | None, str | None]:
    """(path, the command that said so) from the text before `: No such file or directory` or
    `: Permission denied`: `cat: /x`, `ls: cannot access '/x'`, `` ls: `hdfs://nn/x' ``,
    `bash: line 1: cd: job`, `NotFoundError: /x.tfrecord;`, `python3: can't open file '/x.py': [Errno 2]`."""
    head = _ERRNO.sub("", head).rstrip(" :;")
    if head and head[-1] in _QUOTES:
        opening = max(head.rfind(q, 0, len(head) - 1) for q in _QUOTES[head[-1]])
        if opening >= 0:
            before = head[:opening].rstrip(" :")
            return head[opening + 1:-1], before.rsplit(": ", 1)[-1].split()[0] if before.strip() else None
    parts = head.rsplit(": ", 2)
    path = parts[-1].strip()
    command = parts[-2].strip().split()[0] if len(parts) > 1 and parts[-2].strip() else None
    return (path or None), command


def _path_parser(marker: str) -> Callable[[str, str], Details]:
    def parse(line: str, low: str) -> Details:
        at = low.find(marker)
        path = _quoted_after(line[at + len(marker):])
        command = None
        if path is None:
            path, command = _before(line[:at])
        details = {}
        if path:
            details["path"] = path
        if command:
            details["command"] = command
        if path and (path.startswith(("hdfs://", "webhdfs://", "viewfs://")) or "`" in line[:at] or "hadoop" in low or "hdfs" in low):
            details["hdfs"] = "1"
        return details
    return parse


def _hdfs_denied(line: str, low: str) -> Details | None:
    m = re.search(r'user=(?P<user>[^,\s]{1,100}), access=(?P<access>[A-Z_]{1,20}), inode="(?P<path>[^"\n]{1,1000})"', line)
    return {**m.groupdict(), "hdfs": "1"} if m else None


def _segments_before(marker: str, *names: str) -> Callable[[str, str], Details | None]:
    """`a: b: <marker>` -> {names[-1]: "b", names[-2]: "a"}: bash's `script: interpreter: bad interpreter`."""
    def parse(line: str, low: str) -> Details | None:
        at = low.find(marker)
        parts = [p.strip() for p in line[:at].rstrip(" :").rsplit(": ", len(names))]
        if not parts or not parts[-1]:
            return None
        return {name: part for name, part in zip(reversed(names), reversed(parts), strict=False) if part}
    return parse


def _signal_word(line: str, low: str) -> Details | None:
    """`DataLoader worker (pid 1234) is killed by signal: Killed.` -> SIGKILL."""
    at = low.find("killed by signal: ")
    word = line[at + len("killed by signal: "):].strip().rstrip(".").lower()
    for name, words in SIGNALS.values():
        if word in (words.lower(), name.lower()):
            return {"signal": name}
    return None


def _negative_exit(line: str, low: str) -> Details | None:
    """torchrun's `exitcode  : -9 (pid: 4711)` / `failed (exitcode: -11) local_rank: 0`."""
    m = re.search(r"exitcode\s{0,4}:\s{0,4}-(\d{1,2})\b", low)
    return {"signal": signal_name(int(m.group(1)))} if m else None


def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


_SIZE = r"(?P<size>\d[\d.]{0,12} ?[KMGT]i?B)"


# -- the rules, by priority ----------------------------------------------------------------------
RULES: tuple[Rule, ...] = (
    # The GPU's memory (PyTorch ≥ 1.0 and 2.x, old PyTorch's THC, TensorFlow 1/2, PaddlePaddle, JAX/XLA).
    Rule("cuda-oom.pytorch", "cuda-oom", "cuda out of memory", spec=226, decisive=True,
         extract=_rx(r"Tried to allocate " + _SIZE + r"(?:[^\n]{0,40}?\(?GPU (?P<gpu>\d{1,3}))?", re.I)),
    Rule("cuda-oom.thc", "cuda-oom", "cuda runtime error (2) : out of memory", spec=226, decisive=True),
    Rule("cuda-oom.cuda-error", "cuda-oom", "cuda error: out of memory", spec=226, decisive=True),
    Rule("cuda-oom.tf-allocator", "cuda-oom", "ran out of memory trying to allocate", unless=("(cpu)",), spec=221, decisive=True,
         extract=_rx(r"trying to allocate (?P<size>\d[\d.]{0,12} ?[KMGT]i?B)", re.I)),
    Rule("cuda-oom.tf", "cuda-oom", "oom when allocating tensor", unless=("device:cpu", "allocator cpu"), spec=221, decisive=True,
         extract=_rx(r"device:GPU:(?P<gpu>\d{1,3})", re.I)),
    Rule("cuda-oom.paddle", "cuda-oom", "out of memory error on gpu", spec=221, decisive=True,
         extract=_rx(r"on GPU (?P<gpu>\d{1,3})\. Cannot allocate (?P<size>\d[\d.]{0,12} ?[KMGT]i?B)", re.I)),
    Rule("cuda-oom.xla", "cuda-oom", "resource_exhausted: out of memory", unless=("cpu",), spec=221, decisive=True),
    Rule("cuda-oom.cuda-driver", "cuda-oom", "cuda_error_out_of_memory", spec=221, decisive=True),
    # A hardware fault on the GPU; a GPU missing, or one the image cannot drive.
    Rule("gpu-ecc.cuda", "gpu-ecc", "uncorrectable ecc error", spec=223, decisive=True),
    Rule("gpu-ecc.driver-api", "gpu-ecc", "cuda_error_ecc_uncorrectable", spec=223, decisive=True),
    Rule("gpu-ecc.runtime-api", "gpu-ecc", "cudaerroreccuncorrectable", spec=223, decisive=True),
    Rule("gpu-unavailable.no-device", "gpu-unavailable", "no cuda-capable device is detected", decisive=True),
    Rule("gpu-unavailable.no-gpus", "gpu-unavailable", "no cuda gpus are available", decisive=True),
    Rule("gpu-unavailable.no-driver", "gpu-unavailable", "found no nvidia driver on your system", decisive=True),
    Rule("gpu-unavailable.device-error", "gpu-unavailable", "nvidia-container-cli: device error", spec=-1205, decisive=True),
    Rule("gpu-unavailable.cuda-version", "gpu-unavailable", "cuda driver version is insufficient for cuda runtime version",
         variant="version", spec=224, decisive=True),
    Rule("gpu-unavailable.driver-too-old", "gpu-unavailable", "the nvidia driver on your system is too old", variant="version",
         decisive=True),
    Rule("gpu-unavailable.cudnn-version", "gpu-unavailable", "dropout supported only in cudnn v", variant="version", spec=225,
         decisive=True),
    Rule("gpu-unavailable.cpu-build", "gpu-unavailable", "torch not compiled with cuda enabled", variant="cpu-build", decisive=True),
    # /dev/shm: PyTorch's DataLoader workers and NCCL put tensors there; Docker's default is 64 MB.
    Rule("shared-memory.dataloader", "shared-memory", "insufficient shared memory (shm)", decisive=True),
    Rule("shared-memory.workers", "shared-memory", "out of shared memory", decisive=True),
    Rule("shared-memory.nccl", "shared-memory", "error while creating shared memory segment", decisive=True),
    Rule("shared-memory.full", "shared-memory", "no space left on device", also=("/dev/shm",), decisive=True),
    # The host's memory: the kernel's OOM killer, YARN's and Kubernetes' memory limits, the local cluster's.
    Rule("host-oom.cgroup", "host-oom", "memory cgroup out of memory", variant="killed", decisive=True),
    Rule("host-oom.kernel", "host-oom", "out of memory: killed process", variant="killed", decisive=True),
    Rule("host-oom.kubernetes", "host-oom", "oomkilled", variant="killed", decisive=True),
    Rule("host-oom.yarn", "host-oom", "beyond physical memory limits", variant="killed", decisive=True,
         extract=_rx(r"Current usage: (?P<usage>[\d.]{1,12} [KMGT]?B of [\d.]{1,12} [KMGT]?B) physical memory used")),
    Rule("host-oom.yarn-virtual", "host-oom", "beyond virtual memory limits", variant="killed", decisive=True),
    Rule("host-oom.local", "host-oom", "exceeded its memory limit", variant="killed", decisive=True),
    Rule("host-oom.tf-cpu", "host-oom", "oom when allocating tensor", also=("cpu",), variant="error", spec=221, decisive=True),
    Rule("host-oom.memory-error", "host-oom", "memoryerror", regex=_rx(r"\bMemoryError\b"), variant="error", decisive=True),
    Rule("host-oom.bad-alloc", "host-oom", "std::bad_alloc", variant="error", decisive=True),
    Rule("host-oom.enomem", "host-oom", "cannot allocate memory", variant="error", decisive=True),
    Rule("host-oom.bash-killed", "host-oom", "killed", regex=_rx(r"(?:^|[:\]] {1,4})\d{1,10} Killed(?: |$)|^Killed$"),
         variant="likely", decisive=True, fixed={"signal": "SIGKILL"}),
    Rule("host-oom.worker-killed", "host-oom", "killed by signal: killed", variant="likely", decisive=True, fixed={"signal": "SIGKILL"}),
    Rule("host-oom.elastic", "host-oom", "exitcode", regex=_rx(r"exitcode\s{0,4}:\s{0,4}-9\b"), variant="likely", decisive=True,
         fixed={"signal": "SIGKILL"}),
    # An import that failed: a package the image lacks, a version without that name, a missing library.
    Rule("missing-module.no-module", "missing-module", "no module named", spec=232,
         regex=_rx(r"No module named '?(?P<module>[A-Za-z_][\w.]{0,200})", re.I)),
    Rule("missing-module.cannot-import", "missing-module", "cannot import name", variant="name", spec=232,
         regex=_rx(r"cannot import name '?(?P<name>\w{1,200})'?(?: from '(?P<module>[\w.]{1,200})')?")),
    Rule("missing-module.library", "missing-module", "cannot open shared object file", variant="library", spec=232,
         regex=_rx(r"(?P<library>[\w.+-]{1,200}\.so(?:\.[\w.]{1,40})?): cannot open shared object file")),
    # The command: not in the image, a script with Windows line ends, an interpreter that is not there.
    Rule("command-not-found.crlf", "command-not-found", "$'\\r': command not found", variant="crlf", spec=220),
    Rule("command-not-found.bad-interpreter", "command-not-found", "bad interpreter", variant="interpreter",
         parse=_segments_before("bad interpreter", "script", "command")),
    Rule("command-not-found.required-file", "command-not-found", "cannot execute: required file not found", variant="interpreter",
         parse=_segments_before("cannot execute: required file not found", "script")),
    Rule("command-not-found.env", "command-not-found", "env: ", also=("no such file or directory",), variant="env",
         regex=_rx(r"env: [‘'\"]?(?P<command>[^’'\":\n]{1,300})[’'\"]?: No such file or directory")),
    Rule("command-not-found.bash", "command-not-found", "command not found", spec=220,
         parse=_segments_before("command not found", "command")),
    Rule("command-not-found.dash", "command-not-found", ": not found", spec=220,
         regex=_rx(r"^(?:/(?:usr/)?bin/)?(?:ba|da|k|z)?sh: (?:line )?(?:\d{1,9}: )?(?P<command>[^\n:]{1,300}): not found$")),
    Rule("command-not-found.docker", "command-not-found", "executable file not found", spec=-1203,
         regex=_rx(r"exec: \"?(?P<command>[^\"\n]{1,300})\"?: executable file not found")),
    # The network between the tasks: NCCL, gloo, torch.distributed's store and elastic agent, TensorFlow's gRPC, Horovod.
    Rule("distributed.nccl-timeout", "distributed", "watchdog caught collective operation timeout", variant="timeout",
         extract=_rx(r"OpType=(?P<op>\w{1,40})")),
    Rule("distributed.nccl-error", "distributed", "nccl error", extract=_rx(
        r"NCCL error in: [^,\n]{0,500}, (?P<detail>[^\n]{1,300}?)(?:, NCCL version|$)|NCCL error:? (?P<reason>[^\n]{1,300})", re.I)),
    Rule("distributed.nccl-warn", "distributed", "nccl warn", regex=_rx(r"NCCL WARN (?P<detail>[^\n]{1,300})")),
    Rule("distributed.pg-timeout", "distributed", "timed out initializing process group", variant="timeout"),
    Rule("distributed.store-timeout", "distributed", "socket timeout", variant="timeout"),
    Rule("distributed.rendezvous", "distributed", "rendezvoustimeouterror", variant="timeout"),
    Rule("distributed.gloo-timeout", "distributed", "timed out waiting", also=("gloo",), variant="timeout"),
    Rule("distributed.reset", "distributed", "connection reset by peer", variant="reset"),
    Rule("distributed.closed", "distributed", "connection closed by peer", variant="reset"),
    Rule("distributed.refused", "distributed", "connection refused", variant="reset"),
    Rule("distributed.network", "distributed", "distnetworkerror", variant="reset"),
    Rule("distributed.backend", "distributed", "distbackenderror"),
    Rule("distributed.horovod", "distributed", "horovodinternalerror"),
    Rule("distributed.tf-unavailable", "distributed", "unavailableerror", variant="reset"),
    # Files: not there (locally or on HDFS), or not allowed.
    Rule("path-not-found.hdfs", "path-not-found", "file does not exist", fixed={"hdfs": "1"}, spec=229,
         regex=_rx(r"File does not exist: (?P<path>[^\s,;'\"]{1,1000})", re.I)),
    Rule("path-not-found.cant-open", "path-not-found", "can't open file", also=("no such file or directory",), variant="script",
         parse=_path_parser("no such file or directory"), spec=229),
    Rule("path-not-found.enoent", "path-not-found", "no such file or directory", parse=_path_parser("no such file or directory"),
         spec=229),
    Rule("path-not-found.tf", "path-not-found", "notfounderror", regex=_rx(r"NotFoundError: (?P<path>[^;\n]{1,1000});"), spec=229),
    Rule("permission-denied.hdfs", "permission-denied", "permission denied: user=", parse=_hdfs_denied),
    Rule("permission-denied.any", "permission-denied", "permission denied", parse=_path_parser("permission denied")),
    # A signal, said in words (bash, libc, MPI, torch.multiprocessing, torchrun).
    Rule("signal.segv", "signal", "segmentation fault", spec=234, fixed={"signal": "SIGSEGV"}),
    Rule("signal.mpi-segv", "signal", "signal code: address not mapped", spec=222, fixed={"signal": "SIGSEGV"}),
    Rule("signal.bus", "signal", "bus error", fixed={"signal": "SIGBUS"}),
    Rule("signal.fpe", "signal", "floating point exception", fixed={"signal": "SIGFPE"}),
    Rule("signal.ill", "signal", "illegal instruction", fixed={"signal": "SIGILL"}),
    Rule("signal.abort-cpp", "signal", "terminate called after throwing an instance of", fixed={"signal": "SIGABRT"},
         regex=_rx(r"instance of '(?P<detail>[^'\n]{1,300})'")),
    Rule("signal.abort", "signal", "aborted", regex=_rx(r"(?:^|[:\]] {1,4})(?:\d{1,10} )?Aborted(?: |$)"), fixed={"signal": "SIGABRT"}),
    Rule("signal.torch-mp", "signal", "terminated with signal", regex=_rx(r"terminated with signal (?P<signal>SIG[A-Z]{2,7})")),
    Rule("signal.worker", "signal", "killed by signal: ", parse=_signal_word),
    Rule("signal.elastic", "signal", "exitcode", parse=_negative_exit),
    Rule("signal.core", "signal", "core dumped", spec=235),
    # Arguments the program refused (argparse, click, getopt): exit code 2.
    Rule("exit-nonzero.usage", "exit-nonzero", ": error: ", variant="usage", exit_codes=(2,),
         regex=_rx(r"^(?P<command>[\w.\-/]{1,200}): error: (?P<detail>[^\n]{1,300})")),
    Rule("exit-nonzero.unrecognized", "exit-nonzero", "unrecognized option", variant="usage", exit_codes=(1, 2), spec=228),
)


def check_text(text: str, rules: tuple[Rule, ...] = RULES, exit_code: int | None = None) -> tuple[Rule, Details] | None:
    """The first rule (by priority) that matches one of a few lines (an exception's `type: message`
    and the lines that continue it), each line checked on its own."""
    lines = [(line, line.lower()) for line in text[:8 * MAX_LINE].splitlines()[:MAX_MESSAGE_LINES]]
    for rule in rules:
        if rule.exit_codes and exit_code not in rule.exit_codes:
            continue
        for line, low in lines:
            if rule.keyword in low:
                details = rule.check(line, low)
                if details is not None:
                    return rule, details
    return None


def last_hit(log: Log, rule: Rule, start: int, end: int) -> Hit | None:
    """The last line in log[start:end] the rule matches (giving up after TRIES candidate lines)."""
    pos = log.find_last(rule.keyword, end, start)
    for _ in range(TRIES):
        if pos < 0:
            return None
        s, e = log.bounds(pos)
        line = log.line(s, e)
        details = rule.check(line, line.lower())
        if details is not None:
            return Hit(rule, details, s, e)
        pos = log.find_last(rule.keyword, s, start)
    return None


def scan(log: Log, exit_code: int | None = None, rules: tuple[Rule, ...] = RULES, start: int = 0, end: int | None = None) -> Hit | None:
    """The first rule, by priority, with a line in log[start:end]'s last TAIL characters; if none has
    one, the first with a line anywhere in log[start:end] (at most 1 MB)."""
    end = len(log) if end is None else end
    usable = [r for r in rules if not r.exit_codes or exit_code in r.exit_codes]
    tail = max(start, end - TAIL)
    for since in (tail, start) if tail > start else (start,):
        for rule in usable:
            hit = last_hit(log, rule, since, end)
            if hit is not None:
                return hit
    return None


def hits(log: Log, rule: Rule, limit: int, end: int | None = None) -> list[Hit]:
    """Up to `limit` lines the rule matches, last first: the evidence."""
    found: list[Hit] = []
    end = len(log) if end is None else end
    while len(found) < limit:
        hit = last_hit(log, rule, 0, end)
        if hit is None:
            break
        found.append(hit)
        end = hit.start
    return found
