"""What `pai` prints: `-o json` (the daemon's results as they are, documented in docs/protocol.md),
sizes people read, job states in colour on a terminal (plain when piped, or with NO_COLOR), and
text from others made harmless to the terminal (`visible`, the rule in `TERMINAL_RULE`).

Colours are rich's, loaded only where it would colour anything: printed into a pipe or a file,
rich prints the text as it is, and so does `PlainConsole`, without loading rich (which takes longer
than `pai jobs` itself).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .. import api

# The one rule for what reaches the terminal as it is (docs/cli.md quotes it).
TERMINAL_RULE = """\
Text that comes from a cluster, a log, a record or another user (job and file names, owners, paths,
the server's messages, `pai why`'s evidence, status fields, configs) is printed with its control
characters made visible, as `ls -b` and git's quoted paths show them: an escape character (ESC) is
printed as `\\033`, a newline inside a name as `\\n`, a tab as `\\t`, any other control character
(C0, DEL, C1) as `\\` and three octal digits. A window-title change or a colour code written into
a log line or a file name cannot act on your terminal. (In multi-line text — a diff, a config — the
lines and their tabs stay as they are; a backslash is left as it is.) `-o json` gives every value
exactly, JSON-escaped.

Raw bytes, as `cat` writes them, only where you asked for the contents of a log or a file:
`pai logs`, the log that `--follow` streams (`pai run`, `pai submit`, `pai rerun`), and
`pai hdfs cat`, `pai hdfs tail` and `pai hdfs get REMOTE -`."""

_NAMED = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_IN_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # newline and tab kept


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or f"\\{ord(char):03o}"


def visible(value: object) -> str:
    """`value` as text with every control character made visible (`TERMINAL_RULE`): for anything
    printed that `pai` did not write itself."""
    return _CONTROL.sub(_visible, str(value))


def visible_lines(text: str) -> str:
    """Multi-line text (a diff, a config) with its lines and tabs kept and every other control
    character made visible."""
    return _CONTROL_IN_LINES.sub(_visible, text)

# A state's colour, whatever printed it (job tables, task lines, the end of `logs -f`).
STATE_STYLES = {"SUCCEEDED": "green", "FAILED": "bold red", "RUNNING": "cyan", "WAITING": "yellow", "STOPPING": "magenta",
                "STOPPED": "magenta", "UNKNOWN": "dim", "PENDING": "yellow", "SUCCEEDING": "green"}


def add_output_option(parser: argparse.ArgumentParser) -> None:
    """`-o json` / `--json` for a command that prints data."""
    parser.add_argument("-o", "--output", choices=["text", "json"], default="text",
                        help="text for people (the default) or json for scripts: the daemon's result as documented "
                             "in docs/protocol.md, stable across versions")
    parser.add_argument("--json", dest="output", action="store_const", const="json", help="the same as -o json")


def plain(value: Any) -> Any:
    """A result as JSON values: the one serialising rule for `-o json`. A typed result (pai_lsp/api.py)
    writes itself, with the keys the daemon sends (`to_json`); what the CLI puts together around
    results (lists, dicts of them) is walked."""
    from ..api import Wire

    if isinstance(value, Wire):
        return value.to_json()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def print_json(value: Any, out: IO[str] | None = None) -> None:
    out = out or sys.stdout
    json.dump(plain(value), out, indent=2, ensure_ascii=False)
    out.write("\n")
    out.flush()


def human_size(n: int | float) -> str:
    """As `hdfs dfs -ls -h` says a size: bytes below 1 K, else one decimal and a binary unit (4.9 K, 1.2 G)."""
    if n < 1024:
        return str(int(n))
    for unit in "KMGTPE":
        n /= 1024
        if n < 1024 or unit == "E":
            return f"{n:.1f} {unit}"
    return str(n)


def console(err: bool = False):
    """rich's console on stdout (or stderr): colours only on a terminal that wants them (elsewhere a
    `PlainConsole`, which prints the same)."""
    stream = sys.stderr if err else sys.stdout
    if not _styled(stream):
        return PlainConsole(stream)
    from rich.console import Console

    return Console(file=stream, highlight=False, soft_wrap=True)


def _styled(stream: IO[str]) -> bool:
    """Whether rich would style what goes to `stream` (its rule: TTY_COMPATIBLE, then FORCE_COLOR, then
    whether it is a terminal)."""
    said = os.environ.get("TTY_COMPATIBLE", "")
    if said in ("0", "1"):
        return said == "1"
    if "FORCE_COLOR" in os.environ:
        return os.environ["FORCE_COLOR"] != ""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # (a stream without isatty, or closed)
        return False


_UNPRINTED = dict.fromkeys((7, 8, 11, 12, 13))  # what rich's text leaves out: bell, backspace, \v, \f, \r


class PlainConsole:
    """What rich's console prints where it styles nothing: each text as it is, on a line of its own."""

    is_terminal = False

    def __init__(self, file: IO[str]) -> None:
        self.file = file

    def print(self, text: str, markup: bool = True) -> None:
        self.file.write(text.translate(_UNPRINTED).expandtabs(8) + "\n")

    def clear(self) -> None:
        pass


def print_row(parts: list[tuple[str, str | None]], out=None) -> None:
    """One line of a table: (text, style or None) pieces, padded already; styled on a terminal."""
    out = out or console()
    if isinstance(out, PlainConsole):
        out.print("".join(visible(text) for text, _ in parts))
        return
    from rich.text import Text

    line = Text()
    for text, style in parts:
        line.append(visible(text), style=style)
    out.print(line)


def state_style(state: str | None) -> str | None:
    return STATE_STYLES.get(state or "")


def human_duration(seconds: float) -> str:
    """As `pai jobs` and `pai daemon status` say how long: 42s, 3m07s, 2h05m."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def progress_bar():
    """A transfer's progress on stderr while it runs (nothing when stderr is no terminal)."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    return Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                    transient=True, disable=not sys.stderr.isatty())


def bar_updater(bar: Any, task: Any) -> Callable[[api.Event], None]:
    """What moves `task` of `bar` along: a daemon call's progress events."""
    from .. import api

    def on_progress(event: api.Event) -> None:
        if isinstance(event, api.Progress):
            bar.update(task, completed=event.bytes, total=event.total_bytes or None)

    return on_progress


def terminal_locale() -> str | None:
    """Locale of a terminal user: LC_ALL, LC_MESSAGES, then LANG (e.g. zh_CN.UTF-8). Here, not with the
    editor's settings, so that a command reads it without loading those."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return value.split(".")[0]
    return None
