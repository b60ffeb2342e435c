"""`pai` (for people) and `pai-lsp` (for editors)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Only the standard library at the top: `pai-lsp` must answer the editor's `initialize` before
# anything else loads (server/fast_start.py); each command imports what it needs.

EXIT_OK, EXIT_ERRORS, EXIT_UNREADABLE = 0, 1, 2


def check(paths: list[str], dialect: str | None, locale: str | None, out=sys.stdout, err=sys.stderr) -> int:
    """Print the editor's diagnostics for each file, one per line: `file:line:col: severity code message`.
    Each file is read in its own format (a PaddlePaddle Cloud job file whatever the workspace's cluster kind)."""
    from .config_file import UnreadableConfig, read_config
    from .core.formats import format_for
    from .core.messages import render
    from .core.model import LineIndex
    from .settings import find_workspace_settings, read

    status = EXIT_OK
    for name in paths:
        path = Path(name)
        try:
            text = read_config(path)
        except UnreadableConfig as exc:
            print(render("check.unreadable", locale, file=name, why=exc.said), file=err)
            status = EXIT_UNREADABLE
            continue
        values = find_workspace_settings(path.resolve())
        settings = read({**values, "pai.cluster.kind": dialect} if dialect else values, locale)
        job_format = format_for(path.name, text)
        diagnostics = job_format.diagnose(job_format.parse(text), settings)
        lines = LineIndex(text, "utf-32")
        for d in diagnostics:
            line, col = lines.position(d.start)
            print(f"{name}:{line + 1}:{col + 1}: {d.severity} {d.code} {d.message}", file=out)
        if any(d.severity == "error" for d in diagnostics) and status == EXIT_OK:
            status = EXIT_ERRORS
    return status


def serve_lsp(tcp: str | None) -> int:
    if tcp:
        from .server import create_language_server

        host, _, port = tcp.rpartition(":")
        create_language_server().start_tcp(host or "127.0.0.1", int(port))
    else:
        from .server.fast_start import serve_stdio

        serve_stdio()
    return EXIT_OK


def local_cluster(args: argparse.Namespace) -> int:
    from .localcluster.server import default_data_dir, prepare_data_dir, serve

    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    if args.lc_command == "users":
        from .localcluster.auth import Users

        password = sys.stdin.readline().rstrip("\n") if args.password_stdin else None
        if not password:
            print("pai local-cluster users add: give the password on standard input with --password-stdin", file=sys.stderr)
            return EXIT_UNREADABLE
        problem = prepare_data_dir(data_dir)
        if problem:
            print(f"pai local-cluster users add: {problem}", file=sys.stderr)
            return EXIT_UNREADABLE
        try:
            Users(data_dir).add(args.name, password, admin=args.admin)
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
    p_lc = sub.add_parser("local-cluster", help="run the embedded local cluster (OpenPAI REST + WebHDFS + task runner)")
    p_lc.add_argument("--data-dir", help="where jobs, logs and HDFS files live (default: ~/.local/share/pai-lsp/local-cluster)")
    lc_sub = p_lc.add_subparsers(dest="lc_command", metavar="COMMAND")
    serve_args = [p_lc, lc_sub.add_parser("serve", help="serve in the foreground (the default)")]
    serve_args[1].add_argument("--data-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    for p in serve_args:
        p.add_argument("--host", default="127.0.0.1")
        p.add_argument("--port", type=int, default=9186, help="REST (and WebHDFS) port; 0 picks a free one")
        p.add_argument("--hdfs-port", type=int, help="also serve WebHDFS on this port, as a namenode does")
        p.add_argument("--paddle-port", type=int, default=0,
                       help="PaddlePaddle Cloud API (jobs and PFS) on this port (default: a free one, printed at start)")
        p.add_argument("--gpus", type=int, help="GPU slots to simulate (default: from nvidia-smi, else 0)")
        p.add_argument("--cpus", type=int, help="CPU slots to offer (default: this machine's cores)")
        p.add_argument("--memory-mb", type=int, help="memory to offer in MB (default: this machine's memory)")
        p.add_argument("--runtime", choices=["host", "container"], default="host")
        p.add_argument("--allow-remote", action="store_true",
                       help="allow a --host reachable from other machines (every call then needs a token)")
        p.add_argument("--strict-resources", action="store_true",
                       help="refuse jobs larger than this machine, as a real cluster's quota does (default: run them "
                            "scaled to the machine, with a note)")
        p.add_argument("--enforce-memory", action="store_true",
                       help="kill a task whose processes use more memory than its role's memoryMB, as a real cluster does")
        p.add_argument("--private", action="store_true",
                       help="require a token for reading jobs too, and for every WebHDFS call (delegation=<token>)")
    users = lc_sub.add_parser("users", help="manage the cluster's users")
    users_sub = users.add_subparsers(dest="users_command", metavar="COMMAND", required=True)
    add = users_sub.add_parser("add", help="add a user")
    add.add_argument("name")
    add.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    add.add_argument("--admin", action="store_true")
    add.add_argument("--data-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def _add_lsp_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (for debugging)")
    parser.add_argument("--kinds", action="store_true",
                        help="print the job-file patterns and cluster kinds the server knows (JSON, as `pai.kinds` answers) and exit")
    return parser


def print_kinds(out=sys.stdout) -> int:
    """For an editor that must know which files to start the server for before it starts it."""
    import json

    from .clusters.kinds import catalogue
    from .settings import terminal_locale

    print(json.dumps(catalogue(terminal_locale()), ensure_ascii=False), file=out)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pai", description="PAI training jobs from the terminal and the editor.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_check = sub.add_parser("check", help="check job configs and print their problems")
    p_check.add_argument("files", nargs="+", metavar="FILE")
    from .core.schema import DIALECTS

    p_check.add_argument("--cluster-kind", choices=DIALECTS, help="dialect to check against (default: the workspace's pai.cluster.kind)")
    p_check.add_argument("--locale", help="message language, e.g. en or zh-CN (default: from LANG)")
    _add_lsp_arguments(sub.add_parser("lsp", help="run the language server on stdio (for editors)"))
    _add_local_cluster(sub)
    from .cli_jobs import add_commands

    add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["lsp"]:  # the editor waits: start the server before the other commands load
        lsp_args = _add_lsp_arguments(argparse.ArgumentParser(prog="pai lsp")).parse_args(argv[1:])
        return print_kinds() if lsp_args.kinds else serve_lsp(lsp_args.tcp)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            from .settings import terminal_locale

            return check(args.files, args.cluster_kind, args.locale or terminal_locale())
        if args.command == "lsp":
            return print_kinds() if args.kinds else serve_lsp(args.tcp)
        if args.command == "local-cluster":
            return local_cluster(args)
        if args.command is not None:
            from .cli_jobs import run

            return run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    parser.print_help()
    return EXIT_UNREADABLE


def lsp_main(argv: list[str] | None = None) -> int:
    return main(["lsp", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
