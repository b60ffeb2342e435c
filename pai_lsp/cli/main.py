"""`pai` (for people) and `pai-lsp` (for editors)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Only the standard library at the top: `pai-lsp` loads the language server and nothing of the
# other commands (the editor waits for its `initialize` answer); each command imports what it needs.

EXIT_OK, EXIT_ERRORS, EXIT_UNREADABLE, EXIT_INTERRUPTED = 0, 1, 2, 130


def check(paths: list[str], dialect: str | None, locale: str | None, out=sys.stdout, err=sys.stderr, as_json: bool = False,
          stdin_name: str = "stdin.pai.json") -> int:
    """Print the editor's diagnostics for each file, one per line: `file:line:col: severity code message`
    (with `as_json`, one JSON list of them). `-` is standard input, read as a file named `stdin_name`.
    Each file is read in its own format (a PaddlePaddle Cloud job file whatever the workspace's cluster kind)."""
    from ..common.config_file import MAX_CONFIG_BYTES, UnreadableConfig, decode_config, read_config
    from ..core.formats import format_for
    from ..core.messages import render
    from ..core.model import LineIndex
    from ..settings import find_workspace_settings, read
    from .output import visible

    status = EXIT_OK
    found: list[dict] = []
    for name in paths:
        path = Path(stdin_name if name == "-" else name)
        try:
            text = decode_config(sys.stdin.buffer.read(MAX_CONFIG_BYTES + 1)) if name == "-" else read_config(path)
        except UnreadableConfig as exc:
            print(visible(render("check.unreadable", locale, file=name, why=exc.said)), file=err)
            status = EXIT_UNREADABLE
            continue
        values = find_workspace_settings(path.resolve())
        settings = read({**values, "pai.cluster.kind": dialect} if dialect else values, locale)
        job_format = format_for(path.name, text)
        diagnostics = job_format.diagnose(job_format.parse(text), settings)
        lines = LineIndex(text, "utf-32")
        for d in diagnostics:
            line, col = lines.position(d.start)
            if as_json:
                end_line, end_col = lines.position(d.end)
                found.append({"file": name, "line": line + 1, "column": col + 1, "endLine": end_line + 1,
                              "endColumn": end_col + 1, "severity": d.severity, "code": d.code, "message": d.message})
            else:
                print(visible(f"{name}:{line + 1}:{col + 1}: {d.severity} {d.code} {d.message}"), file=out)
        if any(d.severity == "error" for d in diagnostics) and status == EXIT_OK:
            status = EXIT_ERRORS
    if as_json:
        from .output import print_json

        print_json(found, out)
    return status


def serve_lsp(tcp: str | None) -> int:
    if tcp:
        from ..server import create_language_server

        host, _, port = tcp.rpartition(":")
        create_language_server().start_tcp(host or "127.0.0.1", int(port))
    else:
        from ..server import serve_stdio

        return serve_stdio()
    return EXIT_OK


def local_cluster(args: argparse.Namespace) -> int:
    from ..localcluster.asgi import default_data_dir, prepare_data_dir, serve

    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    if args.lc_command == "users":
        from ..localcluster.auth import Users
        from .args import password

        secret = password(args.password_stdin, f"password for {args.name}: ")
        problem = prepare_data_dir(data_dir)
        if problem:
            print(f"pai local-cluster users add: {problem}", file=sys.stderr)
            return EXIT_UNREADABLE
        try:
            Users(data_dir).add(args.name, secret, admin=args.admin)
        except ValueError as exc:
            print(f"pai local-cluster users add: {exc}", file=sys.stderr)
            return EXIT_ERRORS
        print(f"user {args.name} added")
        return EXIT_OK
    try:
        return serve(data_dir, args.host, args.port, args.hdfs_port, args.gpus, args.runtime, args.cpus, args.memory_mb,
                     allow_remote=args.allow_remote, private=args.private, strict_resources=args.strict_resources,
                     paddle_port=args.paddle_port, enforce_memory=args.enforce_memory)
    except OSError as exc:
        print(f"pai local-cluster: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERRORS


def _add_local_cluster(sub) -> None:
    from .args import command, group

    p_lc = command(sub, "local-cluster", "run the embedded local cluster (OpenPAI REST + WebHDFS + task runner)", [
        ("pai local-cluster", "serve in the foreground on 127.0.0.1:9186 (Ctrl-C stops it)"),
        ("pai local-cluster --port 0 --gpus 2", "on a free port, offering two GPU slots"),
        ("echo s3cret | pai local-cluster users add bob --password-stdin", "a user for a colleague's jobs")])
    p_lc.add_argument("--data-dir", metavar="DIR",
                      help="where jobs, logs and HDFS files live (default: ~/.local/share/pai-lsp/local-cluster)")
    lc_sub = group(p_lc, "lc_command", required=False)
    serve_args = [p_lc, command(lc_sub, "serve", "serve in the foreground (the default)", [
        ("pai local-cluster serve --data-dir ./cluster", "keep this cluster's jobs and files in ./cluster")])]
    first = len(p_lc._actions)
    for p in serve_args:
        p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1; another needs --allow-remote)")
        p.add_argument("--port", type=int, default=9186, help="REST (and WebHDFS) port; 0 picks a free one")
        p.add_argument("--hdfs-port", type=int, help="also serve WebHDFS on this port, as a namenode does")
        p.add_argument("--paddle-port", type=int, default=0,
                       help="PaddlePaddle Cloud API (jobs and PFS) on this port (default: a free one, printed at start)")
        p.add_argument("--gpus", type=int, help="GPU slots to simulate (default: from nvidia-smi, else 0)")
        p.add_argument("--cpus", type=int, help="CPU slots to offer (default: this machine's cores)")
        p.add_argument("--memory-mb", type=int, help="memory to offer in MB (default: this machine's memory)")
        p.add_argument("--runtime", choices=["host", "container"], default="host",
                       help="run tasks as processes of yours (host, the default) or in containers (docker or podman)")
        p.add_argument("--allow-remote", action="store_true",
                       help="allow a --host reachable from other machines (every call then needs a token)")
        p.add_argument("--strict-resources", action="store_true",
                       help="refuse jobs larger than this machine, as a real cluster's quota does (default: run them "
                            "scaled to the machine, with a note)")
        p.add_argument("--enforce-memory", action="store_true",
                       help="kill a task whose processes use more memory than its role's memoryMB, as a real cluster does")
        p.add_argument("--private", action="store_true",
                       help="require a token for reading jobs too, and for every WebHDFS call (delegation=<token>)")
    for action in p_lc._actions[first:]:
        action.own_only = True  # serve's options, which `pai local-cluster` takes as the command it runs by default
    users = command(lc_sub, "users", "manage the cluster's users", [
        ("pai local-cluster users add bob --password-stdin < pw.txt", "add the user bob")])
    users_sub = group(users, "users_command")
    add = command(users_sub, "add", "add a user (a running cluster picks it up at once)", [
        ("echo s3cret | pai local-cluster users add bob --password-stdin", "the password from standard input"),
        ("pai local-cluster users add alice --admin", "asked on the terminal; alice may see everyone's jobs")])
    add.add_argument("name", metavar="NAME", help="the user's name, as jobs and HDFS paths show it (/user/NAME)")
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of standard input")
    add.add_argument("--admin", action="store_true", help="an administrator, who sees and stops every user's jobs")


def _add_lsp_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (for debugging)")
    parser.add_argument("--kinds", action="store_true",
                        help="print the job-file patterns and cluster kinds the server knows (JSON, as `pai.kinds` answers) and exit")
    return parser


def print_kinds(out=sys.stdout) -> int:
    """For an editor that must know which files to start the server for before it starts it."""
    import json

    from ..clusters.kinds import catalogue
    from ..settings import terminal_locale

    print(json.dumps(catalogue(terminal_locale()), ensure_ascii=False), file=out)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__
    from .args import Parser, command, exit_codes_text, group, inherit_options, locale
    from .output import add_output_option

    parser = Parser(prog="pai", description="PAI training jobs from the terminal and the editor: check job configs, submit\n"
                    "and run them, follow their logs, fetch their outputs, browse the cluster's HDFS.",
                    epilog=exit_codes_text() + "\n\nEvery command has --help, with examples. Shell completion: pai completion --help.",
                    examples=[("pai run mnist.pai.json --follow", "run a job on the embedded local cluster, print its log"),
                              ("pai submit mnist.pai.json --cluster prod", "submit it to the cluster profile prod"),
                              ("pai jobs --watch", "your jobs, kept current")])
    parser.add_argument("--version", action="version", version=f"pai {__version__}", help="print pai's version and exit")
    sub = group(parser, "command", required=False)
    p_check = command(sub, "check", "check job configs and print their problems", [
        ("pai check mnist.pai.json", "one line per problem: file:line:col: severity code message"),
        ("pai check *.pai.json -o json", "all problems of several files, as JSON"),
        ("cat job.pai.json | pai check -", "a config from standard input"),
        ("pai check --cluster-kind scm job.pai.json", "as the SCM dialect reads it")])
    p_check.add_argument("files", nargs="+", metavar="FILE", help="job config files (*.pai.json, *.pai.yaml, *.paddle.json); "
                         "- reads standard input")
    from ..core.schema import DIALECTS

    p_check.add_argument("--cluster-kind", choices=DIALECTS, help="dialect to check against (default: the workspace's pai.cluster.kind)")
    p_check.add_argument("--locale", type=locale, metavar="LOCALE",
                         help="message language: en or zh-CN (default: from LC_ALL, LC_MESSAGES or LANG)")
    p_check.add_argument("--stdin-name", default="stdin.pai.json", metavar="NAME",
                         help="the file name standard input is read as, which chooses its format (default: stdin.pai.json)")
    add_output_option(p_check)
    _add_lsp_arguments(command(sub, "lsp", "run the language server on stdio (for editors)", [
        ("pai lsp", "what an editor starts (the same as pai-lsp)"), ("pai lsp --kinds", "the job-file patterns, as JSON")]))
    _add_local_cluster(sub)
    from .cmd_jobs import add_commands

    add_commands(sub)
    from .cmd_storage import add_commands as add_storage_commands

    add_storage_commands(sub)
    completion = command(sub, "completion", "print the shell code that completes pai's commands, options and names", [
        ('eval "$(pai completion bash)"', "in ~/.bashrc: bash completes pai"),
        ('eval "$(pai completion zsh)"', "in ~/.zshrc (after compinit)"),
        ("pai completion fish > ~/.config/fish/completions/pai.fish", "fish")],
        epilog="Completes commands and options, cluster profiles, job names (from the pai daemon), tasks and HDFS paths.")
    completion.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell to complete in")
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
    from .output import visible

    signal.signal(signal.SIGINT, signal.default_int_handler)  # from now on Ctrl-C stops what the command started
    try:
        return run()
    except PaiError as exc:
        from ..core.messages import render
        from ..settings import terminal_locale

        locale = terminal_locale()
        print(visible(f"{name}: {exc.render(locale)}") + (render("cli.f-replaces", locale) if isinstance(exc, Exists) else ""),
              file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except EOFError:
        print(f"{name}: standard input ended before the input this needs", file=sys.stderr)
        return EXIT_UNREADABLE
    except BrokenPipeError:
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second complaint when Python flushes at exit
        return EXIT_OK
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # done: a late Ctrl-C while Python exits changes nothing


def run_command(args: argparse.Namespace) -> int:
    if args.command == "check":
        from ..settings import terminal_locale

        return check(args.files, args.cluster_kind, args.locale or terminal_locale(), as_json=args.output == "json",
                     stdin_name=args.stdin_name)
    if args.command == "lsp":
        return print_kinds() if args.kinds else serve_lsp(args.tcp)
    if args.command == "local-cluster":
        return local_cluster(args)
    if args.command == "completion":
        from .complete import shell_code

        sys.stdout.write(shell_code(args.shell))
        return EXIT_OK
    if args.command == "storage":
        from .cmd_storage import run as run_storage

        return run_storage(args)
    from .cmd_jobs import run

    return run(args)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["lsp"]:  # the editor waits: start the server before the other commands load
        lsp_args = _add_lsp_arguments(argparse.ArgumentParser(prog="pai lsp")).parse_args(argv[1:])
        return print_kinds() if lsp_args.kinds else serve_lsp(lsp_args.tcp)
    parser = build_parser()
    from .complete import complete

    complete(parser)  # when the shell asks for completions: answers them and exits
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_UNREADABLE
    return guarded(command_name(args), lambda: run_command(args))


def lsp_main(argv: list[str] | None = None) -> int:
    return main(["lsp", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
