"""`pai` starts like the tools beside it by loading little: `--version` nothing of pai's beyond its
entry, `--help` no command's module, a command only its own (and `pai jobs` with the daemon up
neither asyncio nor rich). The times are bench/cli_startup.py's (docs/benchmarks.md); here, the work:
which modules load, counted."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .helpers.cli import pai

# As the console script starts pai (its argv), then what it loaded: the modules new since the start.
LOADED = """
import sys
before = set(sys.modules)
sys.argv = ["pai", *sys.argv[1:]]
from pai_lsp.entry import main
try:
    main()
except SystemExit:
    pass
sys.stderr.write("\\nLOADED " + " ".join(sorted(set(sys.modules) - before)) + "\\n")
"""

HEAVY = ("asyncio", "rich", "httpx", "hdfs", "ssl", "hmac", "secrets", "argcomplete", "concurrent", "pygls", "jsonschema")


def loaded(env: dict | None, *args: str) -> tuple[str, set[str]]:
    """What `pai ARGS` printed, and the modules it loaded."""
    done = subprocess.run([sys.executable, "-c", LOADED, *args], env=env, capture_output=True, text=True, timeout=120)
    head, _, modules = done.stderr.rpartition("\nLOADED ")
    assert modules, done.stderr
    return done.stdout + head, set(modules.split())


def ours(modules: set[str]) -> set[str]:
    return {m for m in modules if m == "pai_lsp" or m.startswith("pai_lsp.")}


def heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in HEAVY}


@pytest.mark.subprocess
def test_version_loads_nothing_but_the_entry():
    shown, modules = loaded(None, "--version")
    assert shown.startswith("pai ")
    assert ours(modules) == {"pai_lsp", "pai_lsp.entry", "pai_lsp.cli", "pai_lsp.cli.main"}
    assert len(modules) <= 6, sorted(modules)  # with __future__: nothing else, not even typing


@pytest.mark.subprocess
def test_help_lists_every_command_without_loading_one():
    shown, modules = loaded(None, "--help")
    assert "exit codes:" in shown and "completion" in shown
    assert ours(modules) == {"pai_lsp", "pai_lsp.entry", "pai_lsp.cli", "pai_lsp.cli.main", "pai_lsp.cli.args",
                             "pai_lsp.cli.complete"}
    assert not heavy(modules) and "typing" not in modules
    assert len(modules) <= 50, sorted(modules)  # argparse and what it formats help with (44 on Python 3.11)


@pytest.mark.subprocess
def test_a_command_loads_its_own_module_only():
    _, modules = loaded(None, "check", "--help")
    assert {m for m in ours(modules) if m.startswith("pai_lsp.cli.cmd_")} == {"pai_lsp.cli.cmd_check"}
    _, modules = loaded(None, "hdfs", "ls", "--help")
    assert {m for m in ours(modules) if m.startswith("pai_lsp.cli.cmd_")} == {"pai_lsp.cli.cmd_hdfs", "pai_lsp.cli.cmd_daemon"}
    assert not heavy(modules)


def test_jobs_with_the_daemon_up_loads_neither_asyncio_nor_rich(env):
    """The daemon answers `ping` and `jobs` over the quick path; the table goes into a pipe, unstyled."""
    first = pai(env, "jobs")  # starts the daemon (and the local cluster)
    assert first.returncode == 0, first.stderr
    shown, modules = loaded(env, "jobs")
    assert shown.startswith("NAME ") and "CLUSTER" in shown.splitlines()[0]
    assert not heavy(modules), sorted(heavy(modules))
    assert ours(modules) <= {"pai_lsp", "pai_lsp.entry", "pai_lsp.errors", "pai_lsp.api", "pai_lsp.core", "pai_lsp.core.messages",
                             "pai_lsp.core.openpai_rest", "pai_lsp.common", "pai_lsp.common.folders", "pai_lsp.common.portable",
                             "pai_lsp.common.winacl", "pai_lsp.daemon", "pai_lsp.daemon.client", "pai_lsp.daemon.protocol",
                             "pai_lsp.daemon.transport", "pai_lsp.cli", "pai_lsp.cli.main", "pai_lsp.cli.args",
                             "pai_lsp.cli.complete", "pai_lsp.cli.output", "pai_lsp.cli.cmd_jobs", "pai_lsp.cli.cmd_daemon",
                             "pai_lsp.cli.cmd_why"}, sorted(ours(modules))
    assert len(modules) <= 115, len(modules)  # 102 on Python 3.11


def test_the_list_of_commands_is_what_each_module_adds():
    """`pai --help` lists the commands from main.py's table; each module adds its own: the two agree."""
    from pai_lsp.cli.args import subcommands
    from pai_lsp.cli.main import COMMANDS, build_parser

    whole = build_parser()
    action = whole._subparsers._group_actions[0]  # type: ignore[union-attr]
    given = {pseudo.dest: pseudo.help for pseudo in action._choices_actions}
    assert given == {name: line for name, (_, line) in COMMANDS.items()}
    assert {name for name, _ in subcommands(whole)} == set(given)  # every command a parser of its own
    for name, (module, _) in COMMANDS.items():
        assert build_parser([name])._subparsers._group_actions[0].choices[name].prog == f"pai {name}", module  # type: ignore[union-attr]


@pytest.mark.parametrize(("line", "command"), [
    ("pai ", None), ("pai hd", None), ("pai hdfs", None), ("pai hdfs ", "hdfs"), ("pai hdfs l", "hdfs"),
    ("pai --help jobs ", "jobs"), ("pai jobs --cluster loc", "jobs")])
def test_completion_loads_the_command_being_typed(monkeypatch, line, command):
    from pai_lsp.cli.complete import command_in_line

    monkeypatch.setenv("COMP_LINE", line)
    monkeypatch.setenv("COMP_POINT", str(len(line)))
    assert command_in_line() == command
