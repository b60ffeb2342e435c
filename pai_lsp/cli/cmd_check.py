"""`pai check FILE…`: the editor's diagnostics of job configs, one per line (or as JSON)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .args import EXIT_ERRORS, EXIT_OK, EXIT_UNREADABLE, command, locale
from .output import add_output_option


def add_commands(sub) -> None:
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


def run(args: argparse.Namespace) -> int:
    from .output import terminal_locale

    return check(args.files, args.cluster_kind, args.locale or terminal_locale(), as_json=args.output == "json",
                 stdin_name=args.stdin_name)


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
