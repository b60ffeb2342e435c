"""`pai completion bash|zsh|fish`: the shell code that completes pai's words (the hooks that answer
it are complete.py's)."""

from __future__ import annotations

import argparse
import sys

from .args import EXIT_OK, command


def add_commands(sub) -> None:
    completion = command(sub, "completion", "print the shell code that completes pai's commands, options and names", [
        ('eval "$(pai completion bash)"', "in ~/.bashrc: bash completes pai"),
        ('eval "$(pai completion zsh)"', "in ~/.zshrc (after compinit)"),
        ("pai completion fish > ~/.config/fish/completions/pai.fish", "fish")],
        epilog="Completes commands and options, cluster profiles, job names (from the pai daemon), tasks and HDFS paths.")
    completion.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell to complete in")


def run(args: argparse.Namespace) -> int:
    from .complete import shell_code

    sys.stdout.write(shell_code(args.shell))
    return EXIT_OK
