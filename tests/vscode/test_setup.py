"""A user with no set-up: `pai.server.command` unset and no `pai-lsp` on PATH. The extension installs the
server it ships into a virtual environment of its own (with the user's Python), says so while it works,
and then checks the config like any other install."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def pai_on_path() -> bool:
    return False


@pytest.fixture(scope="module")
def settings(settings) -> dict:
    return {k: v for k, v in settings.items() if k != "pai.server.command"}


def test_the_shipped_server_is_installed_on_first_use(workbench, code_server):
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
