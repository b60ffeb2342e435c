"""`pai` (for people) and `pai-lsp` (for editors): the parser, and which module runs each command.

Start-up is part of every command's time (bench/cli_startup.py): `pai --version` is answered before
anything else loads, `pai --help` from the table below, and a command loads only its own module
(pai_lsp/cli/cmd_*.py), which adds its words to the parser and runs it.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # (typing's own takes longer to load than `pai --version` takes)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable
    from types import ModuleType

# Only the standard library at the top: `pai-lsp` loads the language server and nothing of the
# other commands (the editor waits for its `initialize` answer); each command imports what it needs.

# Every command: the module that adds it to the parser and runs it, and its line in `pai --help`
# (tests/test_cli_startup.py holds each line to the one its module gives).
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("cmd_check", "check job configs and print their problems"),
    "lsp": ("cmd_lsp", "run the language server on stdio (for editors)"),
    "local-cluster": ("cmd_local_cluster", "run the embedded local cluster (OpenPAI REST + WebHDFS + task runner)"),
    "submit": ("cmd_jobs", "submit a job file, v1 JSON or v2 YAML (uploading its code first)"),
    "run": ("cmd_jobs", "submit a job file to the local cluster"),
    "debug": ("cmd_debug", "run a job with its Python command under a debugger: say where each task waits for one"),
    "jobs": ("cmd_jobs", "list your jobs"),
    "status": ("cmd_jobs", "show a job's state and tasks"),
    "top": ("cmd_top", "a running job's tasks: GPU use and memory, CPU, memory of the limit"),
    "why": ("cmd_why", "why a job failed, and where: the cause, the evidence, your file and line"),
    "logs": ("cmd_jobs", "print a job's logs"),
    "notices": ("cmd_notices", "where a job's end is told: the desktop, webhooks (Feishu, DingTalk, WeCom)"),
    "stop": ("cmd_jobs", "stop a job"),
    "ssh": ("cmd_jobs", "how to reach a task: SSH and its labelled ports (Jupyter, TensorBoard, …)"),
    "outputs": ("cmd_jobs", "download a job's outputDir"),
    "cluster": ("cmd_cluster", "manage cluster profiles"),
    "hdfs": ("cmd_hdfs", "browse and move files on the cluster's HDFS"),
    "vc": ("cmd_vc", "the cluster's virtual clusters: free, used and total resources, waiting and running jobs"),
    "quota": ("cmd_quota", "what you may use on a PaddlePaddle Cloud cluster, and use now"),
    "registry": ("cmd_registry", "image registry secrets on a PaddlePaddle Cloud cluster"),
    "daemon": ("cmd_daemon", "the background job daemon (started on demand)"),
    "show": ("cmd_records", "what a job ran: its submission record (commit, diff, files, final config)"),
    "code": ("cmd_records", "download exactly the code a job was submitted with"),
    "rerun": ("cmd_records", "submit a job again with exactly its code and config, under a new name"),
    "diff": ("cmd_records", "compare two runs: config keys, code, commit and environment"),
    "storage": ("cmd_storage", "list the cluster's storages and move files in and out of them"),
    "completion": ("cmd_completion", "print the shell code that completes pai's commands, options and names"),
}


def command_module(name: str) -> ModuleType:
    """The module of command `name` (loaded now if it was not)."""
    import importlib

    return importlib.import_module(f"{__package__}.{COMMANDS[name][0]}")


def build_parser(commands: Iterable[str | None] | None = None) -> argparse.ArgumentParser:
    """`pai`'s parser: the commands of the modules that `commands` name (every module's when None),
    whole; every other command as its line in the list only (`pai --help` loads no command's module)."""
    from .. import __version__
    from .args import Parser, _, exit_codes_text, group, inherit_options, listed

    parser = Parser(prog="pai", description="PAI training jobs from the terminal and the editor: check job configs, submit\n"
                    "and run them, follow their logs, fetch their outputs, browse the cluster's HDFS.",
                    epilog=lambda: exit_codes_text() + "\n\n" + _("Every command has --help, with examples. Shell completion: "
                                                                     "pai completion --help."),
                    examples=[("pai run mnist.pai.json --follow", "run a job on the embedded local cluster, print its log"),
                              ("pai submit mnist.pai.json --cluster prod", "submit it to the cluster profile prod"),
                              ("pai jobs --watch", "your jobs, kept current")])
    parser.add_argument("--version", action="version", version=f"pai {__version__}", help="print pai's version and exit")
    sub = group(parser, "command", required=False)
    modules = {module for module, _ in COMMANDS.values()} if commands is None else \
        {COMMANDS[name][0] for name in commands if name in COMMANDS}
    for name, (module, line) in COMMANDS.items():
        if module in modules and name not in sub.choices:
            command_module(name).add_commands(sub)
        elif module not in modules:
            listed(sub, name, line)
    order = list(COMMANDS)  # as the table lists them, whichever module added them
    sub._choices_actions.sort(key=lambda action: order.index(action.dest))
    parsers = sorted(sub.choices.items(), key=lambda item: order.index(item[0]))
    sub.choices.clear()
    sub.choices.update(parsers)
    inherit_options(parser)
    return parser


def command_name(args: argparse.Namespace) -> str:
    """How messages name the command: `pai hdfs`, `pai cluster`."""
    return f"pai {args.command}" if getattr(args, "command", None) else "pai"


def guarded(name: str, run) -> int:
    """The one place every command's failures become one line on stderr and an exit code: our
    errors, Ctrl-C (what was under way has stopped by then), the end of standard input, a closed
    standard output (`pai jobs | head -1`)."""
    import signal

    from ..errors import Exists, PaiError
    from .args import EXIT_INTERRUPTED, EXIT_OK, EXIT_UNREADABLE, _
    from .output import visible

    signal.signal(signal.SIGINT, signal.default_int_handler)  # from now on Ctrl-C stops what the command started
    try:
        return run()
    except PaiError as exc:
        from ..core.messages import render
        from .output import terminal_locale

        locale = terminal_locale()
        print(visible(f"{name}: {exc.render(locale)}") + (render("cli.f-replaces", locale) if isinstance(exc, Exists) else ""),
              file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{name}: " + _("interrupted"), file=sys.stderr)
        return EXIT_INTERRUPTED
    except EOFError:
        print(f"{name}: " + _("standard input ended before the input this needs"), file=sys.stderr)
        return EXIT_UNREADABLE
    except BrokenPipeError:
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second complaint when Python flushes at exit
        return EXIT_OK
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # done: a late Ctrl-C while Python exits changes nothing


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--version"]:  # before anything loads
        from .. import __version__

        print(f"pai {__version__}")
        return 0
    if argv[:1] == ["lsp"]:  # the editor waits: start the server before the other commands load
        from .cmd_lsp import main as lsp

        return lsp(argv[1:])
    import os

    if "_ARGCOMPLETE" in os.environ:  # the shell asks for completions: answered from the command being typed, then exit
        from .complete import command_in_line, complete

        complete(build_parser([command_in_line()]))
    from .args import EXIT_UNREADABLE

    chosen = next((word for word in argv if not word.startswith("-")), None)
    parser = build_parser([chosen])
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_UNREADABLE
    return guarded(command_name(args), lambda: command_module(args.command).run(args))


def lsp_main(argv: list[str] | None = None) -> int:
    return main(["lsp", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
