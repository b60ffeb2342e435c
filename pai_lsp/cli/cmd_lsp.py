"""`pai lsp` and `pai-lsp`: the language server, for editors (`--kinds`: what it knows, as JSON).

Only the standard library at the top: `pai-lsp` loads the language server and nothing of the
other commands (the editor waits for its `initialize` answer).
"""

from __future__ import annotations

import argparse
import sys

EXIT_OK = 0  # (args.py's, which this module does not load: see above)


def add_commands(sub) -> None:
    from .args import command

    add_lsp_arguments(command(sub, "lsp", "run the language server on stdio (for editors)", [
        ("pai lsp", "what an editor starts (the same as pai-lsp)"), ("pai lsp --kinds", "the job-file patterns, as JSON")]))


def main(argv: list[str]) -> int:
    """`pai lsp ARGS`: the editor waits, so the server starts before any other command's module loads."""
    lsp_args = add_lsp_arguments(argparse.ArgumentParser(prog="pai lsp")).parse_args(argv)
    return run(lsp_args)


def run(args: argparse.Namespace) -> int:
    return print_kinds() if args.kinds else serve_lsp(args.tcp)


def serve_lsp(tcp: str | None) -> int:
    if tcp:
        from ..server import create_language_server

        host, _, port = tcp.rpartition(":")
        create_language_server().start_tcp(host or "127.0.0.1", int(port))
    else:
        from ..server import serve_stdio

        return serve_stdio()
    return EXIT_OK


def add_lsp_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (for debugging)")
    parser.add_argument("--kinds", action="store_true",
                        help="print the job-file patterns and cluster kinds the server knows (JSON, as `pai.kinds` answers) and exit")
    return parser


def print_kinds(out=sys.stdout) -> int:
    """For an editor that must know which files to start the server for before it starts it."""
    import json

    from ..clusters.kinds import catalogue
    from .output import terminal_locale

    print(json.dumps(catalogue(terminal_locale()), ensure_ascii=False), file=out)
    return EXIT_OK
