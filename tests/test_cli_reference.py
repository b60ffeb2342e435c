"""docs/cli.md, the command reference, is generated from `pai`'s own parsers (scripts/cli-reference):
it is fresh, it has every command with its examples, and the README's first screen is a front door
that points to it."""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_command_reference_is_fresh(capsys):
    script = runpy.run_path(str(ROOT / "scripts" / "cli-reference"))  # in-process: the parsers are built here
    assert script["main"](["--check"]) == 0, capsys.readouterr().err


def test_the_reference_has_every_command_its_examples_and_the_terminal_rule():
    from pai_lsp.cli.args import EXIT_CODES, walk
    from pai_lsp.cli.main import build_parser
    from pai_lsp.cli.output import TERMINAL_RULE

    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for name, parser in walk(build_parser()):
        assert f"`{name}`\n" in doc, name
        for command, _ in parser.examples:
            assert f"\n{command}" in doc, (name, command)
    assert all(f"| {code} |" in doc for code, _ in EXIT_CODES)
    assert TERMINAL_RULE in doc


def test_the_readme_is_a_front_door():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = readme.splitlines()
    assert len(lines) <= 60
    assert "![" in readme and "(docs/images/" in readme
    assert "    bash scripts/main-job\n" in readme and "    bash .ci/run\n" in readme
    for link in [part.split(")")[0] for part in readme.split("](")[1:]]:
        assert (ROOT / link.split("#")[0]).exists(), link
    assert "docs/cli.md" in readme
