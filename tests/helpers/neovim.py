"""A real Neovim for the tests: headless, driven over its RPC as an embedder (pynvim), with the
plugin in editor-clients/nvim on its runtimepath and everything it writes in a temporary home.

Keys go in as a user types them (`keys`, Neovim's typeahead: prompts read them too); what the
user sees is read back from buffers and `:messages` (where vim.notify writes without a
notification plugin).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pynvim

from .cli import isolated_env as cli_env
from .cli import stop_all
from .lsp import SERVER
from .paths import ROOT

CLIENT = ROOT / "editor-clients" / "nvim"


def isolated_env() -> dict[str, str]:
    """The environment of one test: `pai`'s own (config, state with the daemon's socket, local
    cluster, secrets file) under a short temporary path (a Unix socket's path is at most 107 bytes),
    and Neovim's data and cache folders there too."""
    home = Path(tempfile.mkdtemp(prefix="pai-nvim-"))
    env = cli_env(home)
    env.update(XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=str(home / "cache"), PAI_NVIM_TEST_HOME=str(home))
    return env


def stop_services(env: dict[str, str]) -> None:
    """Stop the test's daemon and local cluster, and remove its home."""
    stop_all(env)
    shutil.rmtree(env["PAI_NVIM_TEST_HOME"], ignore_errors=True)


class Neovim:
    def __init__(self, env: dict[str, str], cwd: Path, runtimepath: Path = CLIENT, setup: dict | None = None):
        nvim = shutil.which("nvim")
        assert nvim, "Neovim is needed for this test: .ci/run installs it (apt-get install neovim)"
        assignments = [f"{k}={v}" for k, v in env.items() if os.environ.get(k) != v]
        self.api = pynvim.attach("child", argv=[
            "env", *assignments, nvim, "--embed", "--headless", "--clean", "-n",
            "--cmd", f"set runtimepath^={runtimepath}", "--cmd", f"cd {cwd}"])
        options = {"cmd": SERVER, **(setup or {})}
        self.lua(f"require('pai_lsp').setup(vim.fn.json_decode({json.dumps(json.dumps(options))}))")

    def close(self) -> None:
        try:
            self.api.command("qa!")
        except Exception:  # noqa: BLE001 - Neovim quits before it answers
            pass
        self.api.close()

    def lua(self, code: str, *args):
        return self.api.exec_lua(code, *args)

    def command(self, command: str) -> None:
        self.api.command(command)

    def keys(self, keys: str) -> None:
        """Type `keys` (Neovim's key notation) as the user would."""
        self.api.input(keys)

    def wait(self, condition: str, timeout: float = 60, what: str = "") -> object:
        """Wait until the Lua expression `condition` is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.lua(f"return {condition}")
            if value:
                return value
            assert time.monotonic() < deadline, f"timed out waiting for {what or condition}; messages:\n{self.messages()}"
            time.sleep(0.05)

    def buffer_lines(self, name: str) -> list[str] | None:
        """The lines of the buffer named `name` (None when there is none)."""
        return self.lua("""
            for _, b in ipairs(vim.api.nvim_list_bufs()) do
              if vim.api.nvim_buf_get_name(b) == ... then return vim.api.nvim_buf_get_lines(b, 0, -1, false) end
            end
            return nil""", name)

    def current_lines(self) -> list[str]:
        return self.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")

    def current_name(self) -> str:
        return self.lua("return vim.api.nvim_buf_get_name(0)")

    def messages(self) -> str:
        return self.api.command_output("messages")

    def wait_message(self, text: str, timeout: float = 60) -> str:
        """Wait until `:messages` has a line containing `text`; that line."""
        deadline = time.monotonic() + timeout
        while True:
            for line in self.messages().splitlines():
                if text in line:
                    return line
            assert time.monotonic() < deadline, f"no message with {text!r}; messages:\n{self.messages()}"
            time.sleep(0.05)

    def cursor_to(self, text: str) -> None:
        """Put the cursor on the first line of the current buffer that contains `text`."""
        lines = self.current_lines()
        line = next(i for i, s in enumerate(lines, 1) if text in s)
        self.lua("vim.api.nvim_win_set_cursor(0, ...)", [line, 0])
