"""OpenPAI's exit specs as data (`exit_specs.json`, facts taken from microsoft/pai; its `source` says
where from), looked up by code, and the Linux signals behind 128+n and negative exit codes.

Two eras share the number line: the Kubernetes-era spec (FrameworkController and the openpai-runtime:
-999…-1, -1000…-1399, 128…143, 220…256) and the YARN-era one (the launcher: -7100…-8000, 130…198,
255). Where both define a code the caller's era decides; unknown positive codes fall back to the
spec's 256 entry and unknown negative ones to -8000, as the rest-server does (openpai-api.md §5.6).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

ERAS = ("k8s", "yarn")
FALLBACK_CODES = (255, 256, -8000)  # "nothing recognised" entries: a phrase that explains nothing
STOP_TYPES = ("USER_STOP",)

# Linux signal numbers (the tasks run on Linux whatever the client's OS is): name and the words
# bash prints for a job it reaps, e.g. `bash: line 1:  4711 Segmentation fault (core dumped) python x.py`.
SIGNALS: dict[int, tuple[str, str]] = {
    1: ("SIGHUP", "Hangup"), 2: ("SIGINT", "Interrupt"), 3: ("SIGQUIT", "Quit"), 4: ("SIGILL", "Illegal instruction"),
    5: ("SIGTRAP", "Trace/breakpoint trap"), 6: ("SIGABRT", "Aborted"), 7: ("SIGBUS", "Bus error"),
    8: ("SIGFPE", "Floating point exception"), 9: ("SIGKILL", "Killed"), 10: ("SIGUSR1", "User defined signal 1"),
    11: ("SIGSEGV", "Segmentation fault"), 12: ("SIGUSR2", "User defined signal 2"), 13: ("SIGPIPE", "Broken pipe"),
    14: ("SIGALRM", "Alarm clock"), 15: ("SIGTERM", "Terminated"), 24: ("SIGXCPU", "CPU time limit exceeded"),
    25: ("SIGXFSZ", "File size limit exceeded"), 31: ("SIGSYS", "Bad system call"),
}
SIGNAL_NUMBERS = {name: number for number, (name, _) in SIGNALS.items()}


@dataclass(frozen=True)
class ExitSpec:
    """One exit-spec entry: the facts, without OpenPAI's prose."""

    code: int
    phrase: str
    type: str = "UNKNOWN_FAILURE"  # USER_SUCCESS | USER_STOP | USER_FAILURE | PLATFORM_FAILURE | RESOURCE_ALLOCATION_TIMEOUT | UNKNOWN_FAILURE
    issuer: str = ""
    causer: str = ""
    stage: str = ""
    reaction: str = ""  # ALWAYS_RETRY | ALWAYS_BACKOFF_RETRY | RETRY_TO_MAX | NEVER_RETRY
    era: str = "k8s"
    user_log_patterns: tuple[str, ...] = ()  # the runtime's `userLogRegex`es (Go RE2 syntax)
    exit_code: int | None = None  # the user exit code a runtime pattern requires

    @property
    def specific(self) -> bool:
        """Whether the phrase says more than "something failed" (the fallback entries, which the
        rest-server also sends for codes no entry defines, with the real code in them)."""
        return self.code not in FALLBACK_CODES and self.phrase not in _fallback_phrases()

    @classmethod
    def from_wire(cls, data: Any) -> ExitSpec | None:
        """An `appExitSpec` / `containerExitSpec` object as the rest-server sends it (None if it is none)."""
        if not isinstance(data, dict) or not isinstance(data.get("code"), int) or not isinstance(data.get("phrase"), str):
            return None
        text = {key: str(data.get(key) or "") for key in ("type", "issuer", "causer", "stage", "reaction")}
        return cls(code=data["code"], phrase=data["phrase"], **{k: v for k, v in text.items() if v})


@lru_cache(maxsize=1)
def _raw() -> dict:
    return json.loads(resources.files(__package__).joinpath("exit_specs.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _tables() -> dict[str, dict[int, ExitSpec]]:
    raw = _raw()
    tables: dict[str, dict[int, ExitSpec]] = {}
    for era in ERAS:
        table = tables[era] = {}
        for entry in raw[era]:
            runtime = (entry.get("pattern") or {}).get("runtimeContainerPatterns") or []
            table[entry["code"]] = ExitSpec(
                code=entry["code"], phrase=entry["phrase"], type=entry.get("type", "UNKNOWN_FAILURE"),
                issuer=entry.get("issuer", ""), causer=entry.get("causer", ""), stage=entry.get("stage", ""),
                reaction=entry.get("reaction", ""), era=era,
                user_log_patterns=tuple(p["userLogRegex"] for p in runtime if "userLogRegex" in p),
                exit_code=next((p["exitCode"] for p in runtime if "exitCode" in p), None))
    return tables


@lru_cache(maxsize=1)
def _fallback_phrases() -> frozenset[str]:
    return frozenset(t[code].phrase for t in _tables().values() for code in FALLBACK_CODES if code in t)


def table(era: str = "k8s") -> dict[int, ExitSpec]:
    return _tables()[era]


def lookup(code: int | None, era: str | None = None) -> ExitSpec | None:
    """The spec entry of `code` in `era` (None: the Kubernetes era first, then YARN's), with the
    fallback entries for codes neither defines. None for no code."""
    if code is None:
        return None
    eras = (era,) if era in ERAS else ERAS
    for name in eras:
        found = _tables()[name].get(code)
        if found is not None:
            return found
    fallback = _tables()[eras[0]].get(256 if code > 0 else -8000)
    if fallback is None:
        return None
    return ExitSpec(code=code, phrase=fallback.phrase, type=fallback.type, issuer=fallback.issuer, causer=fallback.causer,
                    stage=fallback.stage, reaction=fallback.reaction, era=fallback.era)


RUNTIME_TAIL = 64 * 1024  # characters of a task's log end the runtime's patterns are matched against


def runtime_match(user_code: int, log_tail: str) -> ExitSpec | None:
    """The Kubernetes-era spec the openpai-runtime gives a command that exited with `user_code`: the
    first entry (in the spec's order, as the runtime tries them) whose runtime patterns match, each
    pattern's exit code and user-log regex both (None: no pattern matched; the runtime then passes
    the command's code on). Go's RE2 patterns Python's re does not take are skipped."""
    tail = log_tail[-RUNTIME_TAIL:]
    for spec in _tables()["k8s"].values():
        for pattern in _runtime_patterns(spec.code):
            if "exitCode" not in pattern and "userLogRegex" not in pattern:
                continue  # a GPU's or the platform's pattern: nothing the task's own output shows
            if "exitCode" in pattern and pattern["exitCode"] != user_code:
                continue
            regex = pattern.get("userLogRegex")
            try:
                if regex is None or re.search(regex, tail):
                    return spec
            except re.error:
                continue
    return None


@cache
def _runtime_patterns(code: int) -> tuple[dict, ...]:
    entry = next((e for e in _raw()["k8s"] if e["code"] == code), {})
    return tuple(p for p in (entry.get("pattern") or {}).get("runtimeContainerPatterns") or [] if "platformLogRegex" not in p)


def signal_of(code: int | None) -> int | None:
    """The signal a process exit code stands for: -n (Python's subprocess, Go's os/exec) or 128+n
    (what a shell reports for a child killed by signal n)."""
    if code is None:
        return None
    if code < 0 and -code in SIGNALS:
        return -code
    if 128 < code < 128 + 65 and code - 128 in SIGNALS:
        return code - 128
    return None


def signal_name(number: int) -> str:
    return SIGNALS.get(number, (f"signal {number}", ""))[0]
