"""Where `pai` and `pai-lsp` start (the console scripts, `python -m pai_lsp`). From the first moment
Ctrl-C ends the command with one line and exit code 130, never a traceback out of whatever module
was loading; once a command runs, `cli.main` turns Ctrl-C into stopping what it started.

Only modules the interpreter has loaded already (or built into it: `_signal`, not `signal`, whose
enums take a while to load) are used here, so the guard is in place before anything else is read.
"""

from __future__ import annotations

import _signal
import os
import sys

INTERRUPTED = 130


def _starting(program: str):
    def interrupted(signum: int, frame: object) -> None:
        """Ctrl-C while `pai` loads: nothing has started yet, so there is nothing to stop."""
        words = [a for a in sys.argv[1:2] if not a.startswith("-")] if program == "pai" else []
        os.write(2, f"{' '.join([program, *words])}: interrupted\n".encode())
        os._exit(INTERRUPTED)

    return interrupted


def _guard(program: str) -> None:
    try:
        _signal.signal(_signal.SIGINT, _starting(program))
    except ValueError:  # not the main thread (an embedding host): its own handling stands
        pass


def _handled(code: int) -> int:
    """The exit code as given, even when a Ctrl-C was handled. A KeyboardInterrupt that left code
    run by exec() of a string (as dataclasses and namedtuple build their methods, say in a module
    loading when Ctrl-C came) marks the interpreter, and `python -m` then ends by killing itself
    with SIGINT after the one-line message, whatever code the command returned. Running a string
    that completes clears the mark."""
    exec("pass")
    return code


def main() -> int:
    _guard("pai")
    from .cli.main import main as run

    return _handled(run())


def lsp_main() -> int:
    _guard("pai-lsp")
    from .cli.main import lsp_main as run

    return _handled(run())
