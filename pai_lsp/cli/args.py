"""How `pai` reads its command line, once for every command: the conventions of gh, kubectl and
`hdfs dfs` as rules of the parser rather than habits of each command.

- A group's options are taken after any of its subcommands too (`pai hdfs --cluster C ls` and
  `pai hdfs ls --cluster C`; `pai registry list --cluster C`): `inherit_options`.
- A word the command does not know is refused by that command, with its usage (`pai jobs --bogus`
  shows `pai jobs`'s usage, not the top level's).
- Every command's help ends with examples; `pai --help` lists the exit codes (`EXIT_CODES`).
- Its words are said in the terminal's language (`_`, `ngettext`): the help as it is shown (the
  parser's `HelpFormatter`), every other line where it is printed. The Chinese is the CLI's gettext
  catalogue, locale/zh_CN/LC_MESSAGES/cli.po (scripts/catalogue collects the help from the parser).
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
from collections.abc import Sequence

from . import complete

TYPE_CHECKING = False  # (not typing's: loading typing would cost every command's start)
if TYPE_CHECKING:
    from typing import Any

EXIT_OK, EXIT_ERRORS, EXIT_UNREADABLE, EXIT_INTERRUPTED = 0, 1, 2, 130

PARSER = "_parser"  # the namespace key of the deepest command the words chose


def terminal_is_chinese() -> bool:
    """Whether the terminal's language (LC_ALL, LC_MESSAGES, then LANG, as settings.terminal_locale
    reads them) is Chinese: read here so that English costs no import."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return value.lower().startswith("zh")
    return False


def _(text: str) -> str:
    """`text`, one of the CLI's own words, in the terminal's language."""
    if not text or not terminal_is_chinese():
        return text
    from ..core.translations import chinese

    return chinese().gettext(text)


def ngettext(one: str, other: str, n: int) -> str:
    """The words for `n` things (`one` when n is 1 in English) in the terminal's language."""
    if not terminal_is_chinese():
        return one if n == 1 else other
    from ..core.translations import chinese

    return chinese().ngettext(one, other, n)


def N_(text: str) -> str:
    """Marks a text for the catalogue where it is said later, through `_`."""
    return text


# argparse's own words: its headings and its error sentences, as its gettext calls name them. (pai
# takes no fixed count of values, `nargs=N`, whose refusal is argparse's only plural.)
ARGPARSE_WORDS = (N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
                  N_("show program's version number and exit"), N_("%(prog)s: error: %(message)s\n"),
                  N_("argument %(argument_name)s: %(message)s"), N_("the following arguments are required: %s"),
                  N_("one of the arguments %s is required"), N_("invalid choice: %(value)r (choose from %(choices)s)"),
                  N_("invalid choice: %(value)r, maybe you meant %(closest)r? (choose from %(choices)s)"),
                  N_("invalid %(type)s value: %(value)r"), N_("expected one argument"), N_("expected at most one argument"),
                  N_("expected at least one argument"), N_("not allowed with argument %s"), N_("ignored explicit argument %r"),
                  N_("ambiguous option: %(option)s could match %(matches)s"), N_("unrecognized arguments: %s"))
# argparse says them through its module's `_` and `ngettext` (the standard library's gettext, which
# picks a language by its own rule: LANGUAGE first, no catalogue for zh_TW): said through pai's, they
# follow the terminal's language as every other word of pai does.
argparse._ = _  # type: ignore[attr-defined]
argparse.ngettext = ngettext  # type: ignore[attr-defined]

# Each exit code once, in words (errors.py gives each failure its code; tests hold the two together).
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (0, N_("done")),
    (1, N_("wrong input: errors in a job config, a bad value, a name taken, something there already "
           "(-f replaces it), a job that has ended")),
    (2, N_("usage or set-up: an unknown option, a file that cannot be read, cluster profiles, the keyring")),
    (3, N_("not found: no such job, task, file or folder")),
    (4, N_("refused: the cluster refused the credentials or the permission")),
    (5, N_("unreachable: the cluster, its storage or the pai daemon did not answer")),
    (6, N_("the cluster failed (a 5xx, an answer that cannot be read)")),
    (7, N_("stopped half-way: the message says what was and was not done")),
    (130, N_("interrupted (Ctrl-C): what was under way stopped, partial files removed")),
)

Examples = Sequence[tuple[str, str]]


def _examples_text(examples: Examples) -> str:
    width = max(len(command) for command, _what in examples)
    return _("examples:") + "\n" + "\n".join(f"  {command:{width}}  # {_(what)}" if what else f"  {command}"
                                              for command, what in examples)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Shows each option's and command's help in the terminal's language."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return _(action.help) if action.help else action.help


class Parser(argparse.ArgumentParser):
    """An `argparse` parser with `pai`'s conventions: examples under its help, and unknown words
    refused by the command that was given them. Subcommands are made of the same class."""

    def __init__(self, *args: Any, examples: Examples = (), **kwargs: Any):
        kwargs.setdefault("formatter_class", HelpFormatter)
        more = kwargs.get("epilog")
        self.late_epilog = more if callable(more) else None  # what makes the rest when the help is shown
        if examples or callable(more):
            kwargs["epilog"] = "\n\n".join(part for part in (_examples_text(examples) if examples else None,
                                                               None if callable(more) else more) if part) or None
        self.summary = kwargs.pop("summary", None)  # a command's line in its group's list, its description made of it
        super().__init__(*args, **kwargs)
        self.examples = list(examples)
        self.set_defaults(**{PARSER: self})

    def format_help(self) -> str:
        if self.summary is not None:
            said = _(self.summary)
            self.description = said + "。" if said != self.summary else self.description
        elif self.description:
            self.description = _(self.description)
        if self.late_epilog is not None:
            self.epilog = "\n\n".join(part for part in (self.epilog, self.late_epilog()) if part)
            self.late_epilog = None
        return super().format_help()

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:  # type: ignore[override]
        """Every word a command takes as a value (a path, a job, a profile, a name) must say something:
        `pai hdfs ls ''` is refused as `hdfs dfs -ls ''` is, rather than read as the home folder."""
        if kwargs.get("action", "store") in ("store", "append") and "type" not in kwargs and "choices" not in kwargs:
            kwargs["type"] = required_value
        return super().add_argument(*args, **kwargs)

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> argparse.Namespace:  # type: ignore[override]
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:  # said by the command that got them, with its own usage
            getattr(parsed, PARSER, self).error(_("unrecognized arguments: {words}").format(words=" ".join(extras)))
        return parsed


def group(parser: argparse.ArgumentParser, dest: str, required: bool = True) -> argparse._SubParsersAction:
    """A command group's subcommands (each made by `command`)."""
    return parser.add_subparsers(dest=dest, metavar="COMMAND", required=required)


def command(sub: argparse._SubParsersAction, name: str, help: str, examples: Examples, **kwargs: Any) -> Parser:
    """One command: `help` is its line in its group's list and the start of its own help, which
    ends with `examples` (command, what it does)."""
    if "description" not in kwargs:  # made of its line: said again in the reader's language when shown
        kwargs.update(description=help[:1].upper() + help[1:] + ".", summary=help)
    return sub.add_parser(name, help=help, examples=examples, **kwargs)


def listed(sub: argparse._SubParsersAction, name: str, help: str) -> None:
    """A command in its group's list (`pai --help`), without its parser: a parser is made for the
    command that is chosen (`cli.main`), and making one for every other command would take longer
    than printing the help."""
    sub._choices_actions.append(sub._ChoicesPseudoAction(name, (), help))
    sub._name_parser_map[name] = _NotLoaded(name)


class _NotLoaded:
    """Stands for a listed command's parser (argparse only asks a chosen command's, which is loaded)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def parse_known_args(self, *_: Any) -> Any:
        raise AssertionError(f"the parser of `pai {self.name}` was not loaded")


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """The commands right below `parser` (each once, without its aliases; a `listed` one has none)."""
    found: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, child in action.choices.items():
                if isinstance(child, argparse.ArgumentParser) and id(child) not in seen:
                    seen.add(id(child))
                    found.append((name, child))
    return found


def walk(parser: argparse.ArgumentParser, prefix: str = "pai") -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command of the tree, as (`pai hdfs ls`, its parser), the top one first."""
    out = [(prefix, parser)]
    for name, child in subcommands(parser):
        out.extend(walk(child, f"{prefix} {name}"))
    return out


def inherit_options(parser: argparse.ArgumentParser, inherited: Sequence[argparse.Action] = ()) -> None:
    """The one rule for where an option goes: an option of a command group (`--cluster` of `pai hdfs`,
    `--data-dir` of `pai local-cluster`) is also taken after any of its subcommands, at any depth,
    meaning the same. Given in both places, the later one counts. (An option a group has only as
    the command it also is, such as `pai local-cluster --port`, is marked `own_only`.)"""
    own = [a for a in parser._actions if a.option_strings and not isinstance(a, (argparse._HelpAction, argparse._VersionAction))
           and a.default is not argparse.SUPPRESS and not getattr(a, "own_only", False)]
    passed = [*inherited, *own]
    for _name, child in subcommands(parser):
        for action in passed:
            if any(option in child._option_string_actions for option in action.option_strings):
                continue
            copied = copy.copy(action)  # the same option, its completer too; absent there, it leaves the group's value
            copied.default, copied.required = argparse.SUPPRESS, False
            child._add_action(copied)
        inherit_options(child, passed)


CLUSTER_HELP = "cluster profile (default: the default profile, else local; see `pai cluster list`)"


def cluster_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cluster", metavar="PROFILE", help=CLUSTER_HELP).completer = complete.profiles  # type: ignore[attr-defined]


def job_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("job", metavar="JOB", help="the job's name, as `pai jobs` lists it").completer = complete.jobs  # type: ignore[attr-defined]


def local_path(path: str) -> str:
    """A local path as the daemon gets it: absolute, its symbolic links and its trailing `/` kept
    (the daemon says what is wrong with either: a link that loops, a folder meant)."""
    absolute = os.path.abspath(path)
    return absolute + os.sep if path.endswith(("/", os.sep)) and not absolute.endswith(os.sep) else absolute


def required_value(value: str) -> str:
    """A value that must not be empty: one line, as argparse says a bad value. (Blanks are a value:
    an HDFS file may be named ' '.)"""
    if value:
        return value
    from ..core.messages import render
    from .output import terminal_locale

    raise argparse.ArgumentTypeError(render("cli.empty-value", terminal_locale()))


def locale(value: str) -> str:
    """`--locale`: the languages pai speaks (English, Simplified Chinese), in any usual spelling."""
    tag = value.replace("_", "-").split(".")[0].lower()
    if tag in ("c", "posix") or tag == "en" or tag.startswith("en-"):
        return "en"
    if tag == "zh" or tag.startswith(("zh-cn", "zh-hans", "zh-sg")):
        return "zh-CN"
    from ..core.messages import render
    from .output import terminal_locale

    raise argparse.ArgumentTypeError(render("cli.bad-locale", terminal_locale(), value=repr(value)))


def exit_codes_text() -> str:
    import textwrap

    return _("exit codes:") + "\n" + "\n".join(textwrap.fill(_(words), 100, initial_indent=f"  {code:>3}  ",
                                                             subsequent_indent=" " * 7) for code, words in EXIT_CODES)


def _has_terminal() -> bool:
    """Whether a password can be asked for: getpass asks on the controlling terminal, even when
    standard input is a pipe."""
    if sys.stdin is not None and sys.stdin.isatty():
        return True
    if sys.platform == "win32":  # (no controlling terminal to open; mypy --platform win32 follows this test)
        return False
    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        return False
    return True


def password(from_stdin: bool, prompt: str) -> str:
    """A password, read once for every command that takes one: the first line of standard input with
    `--password-stdin`, else asked on the terminal. No input, or an empty one, is one clear line."""
    import getpass

    from ..core.messages import message
    from ..errors import InvalidInput

    if from_stdin:
        value = (sys.stdin.readline() if sys.stdin is not None else "").rstrip("\r\n")
        if not value:
            raise InvalidInput(message("cli.no-password-stdin"))
        return value
    if not _has_terminal():
        raise InvalidInput(message("cli.no-terminal-password"))
    try:
        value = getpass.getpass(prompt)
    except (KeyboardInterrupt, EOFError):
        _end_line_on_terminal()  # the one-line message then starts a line of its own, not after the prompt
        raise
    if not value:
        raise InvalidInput(message("cli.no-password"))
    return value


def _end_line_on_terminal() -> None:
    try:
        with open("/dev/tty", "w", encoding="utf-8") as tty:
            tty.write("\n")
    except OSError:
        sys.stderr.write("\n")
