"""`pai` keeps the habits of gh, kubectl and `hdfs dfs` on every command: help with examples, exit
codes listed, --version, one rule for where an option goes, unknown words refused by their command,
Ctrl-C and missing input said in one line, `-o json`, `-` for standard input, shell completion."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers.cli import complete as _complete
from .helpers.cli import pai, pai_lang, typed_on_a_terminal
from .helpers.configs import VALID

pytestmark = pytest.mark.subprocess  # `pai` as a user runs it, and shells

BIN = Path(sys.executable).parent


def test_every_command_has_examples_and_every_argument_says_what_it_is():
    from pai_lsp.cli.args import walk
    from pai_lsp.cli.main import build_parser

    missing = []
    for name, parser in walk(build_parser()):
        if not parser.examples:
            missing.append(f"{name}: no examples")
        for action in parser._actions:
            if action.help in (None, "") and action.dest != "==SUPPRESS==" and not action.option_strings == []:
                missing.append(f"{name} {'/'.join(action.option_strings)}: no help")
            if not action.option_strings and action.help in (None, "") and action.nargs != "A...":
                missing.append(f"{name} {action.metavar or action.dest}: no help")
    assert missing == []
    shown = pai_lang("hdfs", "put", "--help").stdout
    assert "examples:\n  pai hdfs put data.csv data/" in shown and "LOCAL" in shown and "-f, --force" in shown


def test_help_lists_every_exit_code_and_version_prints():
    from pai_lsp import __version__, errors
    from pai_lsp.cli.args import EXIT_CODES

    shown = subprocess.run([str(BIN / "pai"), "--help"], capture_output=True, text=True, timeout=60).stdout
    listed = {code for code, _ in EXIT_CODES}
    assert {cls.exit_code for cls in errors.ERROR_CLASSES.values()} | {errors.Cancelled.exit_code, 0} <= listed
    for code, words in EXIT_CODES:
        assert f"{code:>3}  {words[:30]}" in shown
    reference = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    assert all(f"| {code} |" in reference for code in listed)
    version = subprocess.run([str(BIN / "pai"), "--version"], capture_output=True, text=True, timeout=60)
    assert (version.returncode, version.stdout) == (0, f"pai {__version__}\n")


def test_an_option_of_a_group_goes_before_or_after_its_subcommand(env):
    """`pai registry list --cluster X` as well as `pai registry --cluster X list` (and hdfs, local-cluster …)."""
    for words in (["registry", "list", "--cluster", "nosuch"], ["registry", "--cluster", "nosuch", "list"],
                  ["hdfs", "ls", "--cluster", "nosuch"], ["hdfs", "--cluster", "nosuch", "ls"]):
        result = pai(env, *words)
        assert (result.returncode, result.stderr) == (2, f"pai {words[0]}: no cluster named 'nosuch': see `pai cluster list`\n"), words
    from pai_lsp.cli.args import walk
    from pai_lsp.cli.main import build_parser

    parser = build_parser()
    for name, command in walk(parser):
        groups = [p for n, p in walk(parser) if name.startswith(n + " ")]
        for group in groups:
            for action in group._actions:
                if action.option_strings and action.dest not in ("help", "version", "_parser") and not getattr(action, "own_only", False):
                    assert any(o in command._option_string_actions for o in action.option_strings), (name, action.option_strings)


def test_an_unknown_option_is_refused_by_its_own_command(env):
    result = pai(env, "jobs", "--bogus")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: pai jobs ") and result.stderr.endswith("pai jobs: error: unrecognized arguments: --bogus\n")
    deep = pai(env, "cluster", "list", "--bogus")
    assert deep.stderr.startswith("usage: pai cluster list ") and "pai cluster list: error: unrecognized arguments" in deep.stderr


def test_an_unknown_locale_is_refused_and_known_spellings_work(tmp_path):
    job = tmp_path / "job.pai.json"
    job.write_text('{"jobName": "x", "image": "y"}')
    wrong = pai_lang("check", "--locale", "xx", str(job))
    assert wrong.returncode == 2 and "argument --locale: 'xx': pai speaks en (English) and zh-CN (Simplified Chinese)" in wrong.stderr
    chinese = pai_lang("check", "--locale", "zh_CN.UTF-8", str(job))
    assert chinese.returncode == 1 and "缺少必填字段" in chinese.stdout


def test_an_empty_value_is_refused_where_a_value_is_required(env):
    """`hdfs dfs -ls ''` refuses an empty path; `pai` refuses every empty value the same way, before
    it asks anyone (not the home folder, not the default profile)."""
    for words in (["hdfs", "ls", ""], ["hdfs", "stat", ""], ["jobs", "--cluster", ""], ["hdfs", "--cluster", "", "ls"],
                  ["status", ""], ["hdfs", "put", "x", ""], ["logs", "job", "--task", ""], ["check", ""]):
        result = pai(env, *words)
        assert result.returncode == 2, (words, result.stderr)
        last = result.stderr.splitlines()[-1]
        assert "error: argument" in last and last.endswith("an empty value: give one, or leave the option out"), (words, last)
        assert "Traceback" not in result.stderr and result.stdout == ""
    home = pai(env, "hdfs", "ls", "--help")  # leaving PATH out still means the home folder
    assert home.returncode == 0 and "(default: your home)" in home.stdout


def test_check_reads_standard_input_and_prints_json(env, tmp_path):
    bad = VALID.replace('"memoryMB"', '"memoryMb"')
    piped = pai(env, "check", "-", stdin=bad)
    assert piped.returncode == 1 and piped.stdout.startswith("-:8:7: error schema.unknown-key")
    shown = pai(env, "check", "-", "-o", "json", stdin=bad)
    found = json.loads(shown.stdout)
    assert shown.returncode == 1 and found[0] | {"message": ""} == {
        "file": "-", "line": 8, "column": 7, "endLine": 8, "endColumn": 17, "severity": "error", "code": "schema.unknown-key",
        "message": ""}
    clean = tmp_path / "ok.pai.json"
    clean.write_text(VALID)
    assert json.loads(pai(env, "check", "--json", str(clean)).stdout) == []


def _interrupt_at(command: list[str], env: dict, delay: float) -> subprocess.CompletedProcess:
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def _interpreter_start() -> float:
    """How long the interpreter takes here and now to reach the first line of a program (what both
    `pai` and `python -m pai_lsp` load before any of pai: runpy, re): Ctrl-C before that is Python's."""
    took = []
    for _ in range(3):
        start = time.monotonic()
        subprocess.run([sys.executable, "-c", "import runpy, re"], check=True, timeout=60)
        took.append(time.monotonic() - start)
    return max(took)


def _before_pai(result: subprocess.CompletedProcess) -> bool:
    """Whether Ctrl-C came before the first line of pai ran (a loaded machine can start the
    interpreter slower than measured): Python's own handling, killed by the signal or a traceback
    through none of pai's files (the console script's `import re`, runpy's imports)."""
    return (result.returncode == -signal.SIGINT and result.stderr == "") or (
        "Traceback" in result.stderr and "pai_lsp" not in result.stderr)


def test_ctrl_c_at_any_moment_of_start_up_is_one_line(env):
    """`timeout -s INT 0.05 pai hdfs ls /` once printed a KeyboardInterrupt traceback out of an import."""
    seen = set()
    first = _interpreter_start() + 0.01
    for i in range(24):
        command = [str(BIN / "pai"), "hdfs", "ls", "/"] if i % 2 else [sys.executable, "-m", "pai_lsp", "hdfs", "ls", "/"]
        result = _interrupt_at(command, env, first + i * 0.03)
        if _before_pai(result):
            continue
        assert "Traceback" not in result.stderr, result.stderr
        if result.returncode != 0:
            assert result.returncode == 130 and result.stderr.count("\n") == 1, result.stderr
            assert result.stderr.startswith("pai hdfs: "), result.stderr
            seen.add(result.stderr)
    assert seen, "no run was interrupted"


CTRL_C_IN_GENERATED_CODE = """
import sys

class _CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "rich.progress":
            sys.meta_path.remove(self)
            exec("raise KeyboardInterrupt")  # as if Ctrl-C came while a dataclass built its methods
        return None

sys.meta_path.insert(0, _CtrlC())
"""


def test_ctrl_c_inside_generated_code_still_exits_130(env, tmp_path):
    """`python -m pai_lsp` said "interrupted" and then killed itself with SIGINT (-2, not 130) when
    the KeyboardInterrupt had passed through exec() of a string (dataclasses, namedtuple)."""
    (tmp_path / "sitecustomize.py").write_text(CTRL_C_IN_GENERATED_CODE)
    result = subprocess.run([sys.executable, "-m", "pai_lsp", "hdfs", "ls", "/"], env=dict(env, PYTHONPATH=str(tmp_path)),
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (result.returncode, result.stderr) == (130, "pai hdfs: interrupted\n")


def test_ctrl_c_on_the_language_server_names_the_program(env):
    """`pai-lsp` once said "pai: interrupted"."""
    for command, said in (([str(BIN / "pai-lsp")], "pai-lsp: interrupted\n"), ([str(BIN / "pai"), "lsp"], "pai lsp: interrupted\n")):
        process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(_interpreter_start() + 1.5)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        assert (process.returncode, err) == (130, said)


def _no_terminal(env: dict, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`pai` with no controlling terminal (as under cron or CI) and the given standard input."""
    return subprocess.run([sys.executable, "-m", "pai_lsp", *args], env=env, input=stdin or "", capture_output=True, text=True,
                          timeout=60, start_new_session=True)


def test_a_password_that_cannot_be_had_is_one_line(env):
    no_tty = _no_terminal(env, "cluster", "login", "prod")
    assert (no_tty.returncode, no_tty.stderr) == (1, "pai cluster: no terminal to ask for the password on: give it on standard "
                                                     "input with --password-stdin\n")
    for words in (["cluster", "login", "prod", "--password-stdin"],
                  ["cluster", "add", "prod", "--rest", "http://127.0.0.1:9", "--webhdfs", "http://127.0.0.1:9", "--password-stdin"]):
        empty = _no_terminal(env, *words)
        assert empty.returncode == 1 and empty.stderr.startswith("pai cluster: no password on standard input"), empty.stderr
        assert "pai cluster login" not in empty.stderr  # not "run the command you just ran"
    assert "prod" not in pai(env, "cluster", "list").stdout  # nothing was added
    user = _no_terminal(env, "local-cluster", "--data-dir", str(Path(env["PAI_LOCAL_CLUSTER_DIR"])), "users", "add", "bob")
    assert user.returncode == 1 and "no terminal to ask for the password" in user.stderr and "Traceback" not in user.stderr
    in_a_file = _no_terminal(env, "local-cluster", "--data-dir", "/etc/hostname", "users", "add", "bob", "--password-stdin",
                             stdin="pw\n")
    assert (in_a_file.returncode, in_a_file.stderr) == (
        2, "pai local-cluster users add: --data-dir /etc/hostname: it is a file, not a folder\n")


def test_ctrl_c_or_ctrl_d_at_a_password_prompt_is_one_line_of_its_own(env):
    """Ctrl-C (or Ctrl-D) at `password for prod:` printed the message after the prompt, on its line."""
    stopped = typed_on_a_terminal(env, b"\x03", b"password for prod: ", "cluster", "login", "prod")
    assert stopped == (130, "password for prod: \r\npai cluster: interrupted\r\n")
    ended = typed_on_a_terminal(env, b"\x04", b"password for prod: ", "cluster", "login", "prod")
    assert ended == (2, "password for prod: \r\npai cluster: standard input ended before the input this needs\r\n")


def test_cluster_list_prints_json(env):
    shown = pai(env, "cluster", "list", "-o", "json")
    listed = json.loads(shown.stdout)
    assert listed["default"] == "local" and [c["name"] for c in listed["clusters"]][:2] == ["local", "local-paddle"]


def test_bash_completes_commands_options_and_profiles(env):
    assert _complete(env, "pai clu") == ["cluster"]
    assert _complete(env, "pai hdfs l") == ["ls"]
    assert {"--cluster", "--watch", "--output"} <= set(_complete(env, "pai jobs --"))
    assert _complete(env, "pai jobs --cluster loc") == ["local", "local-paddle"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_completion_code_for_other_shells(shell):
    code = pai_lang("completion", shell)
    assert code.returncode == 0 and "pai" in code.stdout and "_ARGCOMPLETE" in code.stdout


def _shell_env(env: dict) -> dict:
    return dict(env, PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}")


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_commands_and_profiles(env):
    """As `pai completion fish > ~/.config/fish/completions/pai.fish` sets it up."""
    def offered(line: str) -> list[str]:
        done = subprocess.run(["fish", "--no-config", "-c", f"pai completion fish | source; complete -C {shlex.quote(line)}"],
                              env=_shell_env(env), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert offered("pai clu") == ["cluster"]
    assert offered("pai jobs --cluster loc") == ["local", "local-paddle"]


ZSH_TYPES = """zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z 'PS1="> "; autoload -U compinit; compinit -u; eval "$(pai completion zsh)"'
zpty -w -n z "$1"$'\\t'
all=""
for i in {1..300}; do
  if zpty -r -t z chunk; then all+="$chunk"; else sleep 0.1; fi
  [[ "$all" == *"$2"* ]] && break
done
print -r -- "$all"
zpty -d z
"""


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_completes_commands_and_profiles(env):
    """Tab in an interactive zsh set up as `pai completion --help` says (compinit, then the eval)."""
    for typed, completed in (("pai clu", "pai cluster"), ("pai jobs --cluster local-p", "pai jobs --cluster local-paddle")):
        done = subprocess.run(["zsh", "-f", "-c", ZSH_TYPES, "zsh", typed, completed], env=_shell_env(env), capture_output=True,
                              text=True, timeout=120)
        assert completed in done.stdout, done.stdout[-500:]  # only Tab can have written it
