"""A user with no set-up: `pai.server.command` unset and no `pai-lsp` on PATH. Without a Python 3.10+ the
extension says so once; with one (installed, then the window reloaded) it installs the server it ships
into a virtual environment of its own, says so while it works, and then checks the config like any
other install."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(900)

PYTHONS = ("python3", "python3.13", "python3.12", "python3.11", "python3.10", "python", "py")  # what the extension tries


@pytest.fixture(scope="module")
def pai_on_path() -> bool:
    return False


@pytest.fixture(scope="module")
def python_installed(tmp_path_factory) -> Path:
    """Touch this file to "install Python": until then no Python is found on the user's PATH."""
    return tmp_path_factory.mktemp("python-switch") / "installed"


@pytest.fixture(scope="module")
def path_first(python_installed) -> tuple[Path, ...]:
    """Each Python the extension looks for, as a command that is not found until Python is installed."""
    stubs = python_installed.parent / "bin"
    stubs.mkdir()
    for name in PYTHONS:
        real = shutil.which(name)
        found = f'[ -e "{python_installed}" ] && exec "{real}" "$@"\n' if real else ""
        (stubs / name).write_text(f'#!/bin/sh\n{found}echo "sh: {name}: not found" >&2\nexit 127\n')
        (stubs / name).chmod(0o755)
    return (stubs,)


@pytest.fixture(scope="module")
def settings(settings) -> dict:
    return {k: v for k, v in settings.items() if k != "pai.server.command"}


def test_without_python_one_clear_message(workbench):
    workbench.open_file("mnist.pai.json")
    errors = workbench.wait_for(lambda: workbench.error_toasts(), "the message", errors=False)
    assert len(errors) == 1 and errors[0].startswith(
        "Error: No Python 3.10 or newer was found to install the pai language server: install Python (python.org) "
        "and reload the window, or set pai.server.command."), errors
    workbench.screenshot("no-python")


def test_the_shipped_server_is_installed_on_first_use(workbench, code_server, python_installed):
    python_installed.touch()  # the user installs Python and reloads the window, as the message said
    workbench.reload()
    workbench.open_file("mnist.pai.json")
    workbench.wait_for(lambda: any("Installing the pai language server" in t for t in workbench.toasts()), "the install notification")
    workbench.screenshot("installing-server")
    venv = code_server.user_data / "User" / "globalStorage" / "pai-lsp.pai-lsp" / "venv"
    workbench.wait_for(lambda: (venv / "pai-lsp-wheel.txt").exists(), "the server installed", timeout=600)
    assert (venv / "bin" / "pai-lsp").exists()
    # And it is a working server: the mistake shows in Problems.
    workbench.double_click_word("mnist.pai.json", '"memoryMB"')
    workbench.page.keyboard.type("memoryMb")
    workbench.wait_for(lambda: [r for r in workbench.problems() if 'Unknown key "memoryMb"' in r], "the mistake in Problems", timeout=120)
    workbench.screenshot("server-installed")
