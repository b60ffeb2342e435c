"""A job rewritten for debugging, through its format's interface (`role_commands`, `add_ports`): each
chosen role gets a port label `debug` (one port per Python process it starts: torchrun's workers each
have one) and its Python command — the last one its lines start: `python x.py`, `python -m pkg`,
`torchrun …`, `python -m torch.distributed.launch …` — runs, in the chosen instances, through the
debug launcher (`debugpy_launcher.py`), written to a temporary file by the same command (one line of
base64, so that it reads the same in JSON, YAML and the shell). The other instances
run it as written. The wrapped command names what it was asked (`PAI_DEBUG_TASKS`, `PAI_DEBUG_VIA`,
`PAI_DEBUG_POST_MORTEM`), so a job's config says which of its tasks are debugged (`debugged`).

Debugged through ssh, the tasks need an sshd that lets the daemon in: a job whose ssh runtime plugin
names no key of the user's (`userssh`) gets the public half of a key pair the caller made for the
session (`ssh_key`, given as data: the core makes no keys), which the plan then names."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..job_format import JobFormat
from ..messages import Message, message
from .debugpy_launcher import ENCODED
from .selector import ALL, Selection, SelectionError, select
from .shell_words import Invocation, invocation, segments

LABEL = "debug"
VIAS = ("direct", "ssh")
UNKNOWN_WORKERS = 8  # ports for a torchrun whose --nproc-per-node is `gpu` or `auto`: a node's GPUs, at most 8 as a rule
INDEX = '"${PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX:-$PAI_TASK_INDEX}"'  # the v2 name, else the v1 one
_SAID = re.compile(r"PAI_DEBUG_TASKS=(\S+) PAI_DEBUG_VIA=(\w+)(?: PAI_DEBUG_POST_MORTEM=(\d+))?")


@dataclass(frozen=True)
class Options:
    tasks: str = "first"  # "first", "all", "ROLE", "ROLE:INDEX"
    post_mortem_minutes: int | None = None  # stop at an uncaught exception, waiting this long, instead of at the start
    via: str = "direct"  # how the debugger reaches the task: "direct" (its address) or "ssh" (a tunnel to 127.0.0.1)


@dataclass(frozen=True)
class DebugPlan:
    """What the rewrite did: the tasks debugged ("role:index") and, per role, the program it wraps."""

    tasks: list[str]
    programs: dict[str, str]
    options: Options
    ssh_key: str | None = None  # the session's public key the job's ssh plugin was given (None: the job's own keys)


class DebugRefused(ValueError):
    """A job that cannot be debugged as asked: `said` is the user's line."""

    def __init__(self, said: Message):
        super().__init__(str(said))
        self.said = said


def rewrite(job_format: JobFormat, job: dict, options: Options, ssh_key: str | None = None) -> DebugPlan:
    """Rewrite `job` (in place) so that the tasks `options.tasks` chooses wait for a debugger. Via ssh,
    `ssh_key` (a public key's OpenSSH line) goes into the job's ssh plugin unless it names a key already."""
    if options.via not in VIAS:
        raise DebugRefused(message("debug.bad-via", via=options.via))
    own_keys = job_format.ssh_keys(job) if options.via == "ssh" else ()
    if own_keys is None:
        raise DebugRefused(message("debug.ssh-no-plugin"))
    minutes = options.post_mortem_minutes
    if minutes is not None and minutes <= 0:
        raise DebugRefused(message("debug.bad-post-mortem", minutes=minutes))
    roles = job_format.task_roles(job)
    try:
        selection = select(options.tasks, roles)
    except SelectionError as exc:
        raise DebugRefused(exc.said) from None
    programs: dict[str, str] = {}
    refused: Message | None = None
    kept: dict[str, frozenset[int] | None] = {}
    for role, chosen in selection.roles.items():
        lines = job_format.role_commands(job, role)
        found = _last_python(lines)
        if found is None:
            shown = " ".join(" ".join(lines).split())
            refused = refused or message("debug.cannot-wrap", role=role, command=shown if len(shown) <= 80 else shown[:77] + "...")
            if options.tasks.strip() != ALL:
                raise DebugRefused(refused)
            continue  # "all": every role that runs Python (a parameter server's shell script is left as it is)
        at, program = found
        job_format.add_ports(job, role, LABEL, program.workers or UNKNOWN_WORKERS)
        spec = role if chosen is None else f"{role}:{min(chosen)}"
        line = lines[at]
        seg = program.segment
        lines[at] = line[:seg.start] + wrapped(program, chosen, spec, options) + line[seg.end:]
        job_format.set_role_commands(job, role, lines)
        programs[role] = program.program
        kept[role] = chosen
    if refused is not None and not programs:
        raise DebugRefused(refused)
    added = None
    if options.via == "ssh" and not own_keys and ssh_key:
        job_format.add_ssh_key(job, list(programs), ssh_key)
        added = ssh_key
    return DebugPlan(Selection(kept).tasks(dict(roles)), programs, options, added)


def _last_python(lines: list[str]) -> tuple[int, Invocation] | None:
    """The last Python program the lines start (the training script, after any setup)."""
    found = None
    for at, line in enumerate(lines):
        for segment in segments(line):
            program = invocation(segment)
            if program is not None:
                found = (at, program)
    return found


def wrapped(program: Invocation, chosen: frozenset[int] | None, spec: str, options: Options) -> str:
    """The command in place of the segment: the launcher written to a temporary file, then the program
    through it in the chosen instances (all when `chosen` is None), as written in the others; the
    segment's exit code kept, the file removed."""
    text = program.segment.text
    settings = f"PAI_DEBUG_TASKS={spec} PAI_DEBUG_VIA={options.via}"
    if options.post_mortem_minutes:
        settings += f" PAI_DEBUG_POST_MORTEM={options.post_mortem_minutes}"
    if program.launcher != "python":
        settings += " PAI_DEBUG_RANKED=1"
    launched = text[:program.insert_at] + '"$PAI_DEBUGPY" ' + ("-m " if text[program.insert_at:program.resume_at] else "") \
        + text[program.resume_at:].lstrip()
    debug = f"{settings} {launched}"
    run = debug if chosen is None else f"if [ {INDEX} = {min(chosen)} ]; then {debug}; else {text}; fi"
    return (f'{{ PAI_DEBUGPY=$(mktemp) && echo {ENCODED} | base64 -d > "$PAI_DEBUGPY" && {run}; '
            f'PAI_DEBUG_EXIT=$?; rm -f "$PAI_DEBUGPY"; (exit $PAI_DEBUG_EXIT); }}')


def debugged(job_format: JobFormat, job: dict) -> dict[str, tuple[frozenset[int] | None, Options]]:
    """Which tasks of a job (as submitted) are debugged, per role: the instances (None: every one)
    and the options they were asked with. Empty: a job not submitted for debugging."""
    out: dict[str, tuple[frozenset[int] | None, Options]] = {}
    for role, line in command_lines(job_format, job):
        said = _SAID.search(line)
        if said is None:
            continue
        spec, via, minutes = said.groups()
        _, _, index = spec.partition(":")
        out[role] = (frozenset({int(index)}) if index.isdigit() else None, Options(spec, int(minutes) if minutes else None, via))
    return out


def command_lines(job_format: JobFormat, job: dict) -> Iterator[tuple[str, str]]:
    """(role, command line) of each role of a job as submitted; nothing for a config of the wrong shape."""
    try:
        roles = job_format.task_roles(job)
    except (KeyError, TypeError, AttributeError):
        return
    for role, _ in roles:
        for line in job_format.role_commands(job, role):
            yield role, line


__all__ = ["DebugPlan", "DebugRefused", "Options", "Selection", "debugged", "rewrite"]
