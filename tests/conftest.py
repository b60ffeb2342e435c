"""Fixtures: language-server sessions (stdio, pytest-lsp) and the hypothesis profiles; the test tiers
(`tiers.py`). Helpers live in `tests/helpers/`."""

from __future__ import annotations

import importlib.util
import os

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from .helpers.cli import isolated_env, stop_all
from .helpers.lsp import SERVER, start_session

pytest_plugins = ["tests.helpers.leftovers",  # the run fails if a process the tests started outlives them
                  "tests.helpers.tiers",  # unit / subprocess / editor, and no process from a unit test
                  "pytester"]

# The real-VS-Code tests import Playwright: without it (scripts/install-vscode-test-tools not run) they are
# left out here, so that `pytest -m unit` answers in a plain checkout; CI installs it and runs them.
collect_ignore = ["vscode"] if importlib.util.find_spec("playwright") is None and not os.environ.get("CI") else []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    await start_session(lsp_client, "en")
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client_zh(lsp_client: LanguageClient):
    await start_session(lsp_client, "zh-CN")
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client_scm(lsp_client: LanguageClient):
    await start_session(lsp_client, "en", {"pai": {"cluster": {"kind": "scm"}}})
    yield
    await lsp_client.shutdown_session()


def pytest_addoption(parser):
    parser.addoption("--daemon-transport", choices=["unix", "tcp"],
                     help="how every pai started by the tests reaches its daemon (PAI_LSP_TRANSPORT): tcp is "
                          "Windows' design, which CI also runs the daemon, CLI and editor-job tests on")


def pytest_configure(config):
    if transport := config.getoption("--daemon-transport"):
        os.environ["PAI_LSP_TRANSPORT"] = transport
    _load_hypothesis_profile(config)


def pytest_report_header(config):
    from pai_lsp.daemon.transport import kind

    left_out = ["tests/vscode left out: Playwright is not installed (scripts/install-vscode-test-tools)"] if collect_ignore else []
    return [f"daemon transport: {kind()}", *left_out]


@pytest.fixture(scope="module")
def env(tmp_path_factory, starts_processes):
    """An environment of its own for `pai` (one per test module): its daemon and local cluster are
    stopped at the end."""
    environment = isolated_env(tmp_path_factory.mktemp("pai-home"))
    yield environment
    stop_all(environment)


UNIT_EXAMPLES = 30  # examples a property test tries in a run of the unit tier alone


def _load_hypothesis_profile(config) -> None:
    """Property tests: CI runs a fixed set of examples (a red CI must be reproducible);
    `HYPOTHESIS_PROFILE=explore` searches afresh with many more. A run of the unit tier alone (`-m unit`)
    tries at most UNIT_EXAMPLES of each, the quick answer (a test that names its own count gives it
    through `tests/helpers/tiers.py:examples`, capped the same way), unless HYPOTHESIS_PROFILE names a
    profile; the full suite tries them all."""
    from hypothesis import settings

    from .helpers.tiers import only_selects  # a plugin (above): imported once pytest has rewritten it

    settings.register_profile("dev", max_examples=300)
    settings.register_profile("ci", max_examples=300, derandomize=True)
    settings.register_profile("explore", max_examples=5000)
    name = os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev")
    if "HYPOTHESIS_PROFILE" not in os.environ and only_selects(config.getoption("markexpr", ""), "unit"):
        settings.register_profile("unit", settings.get_profile(name), max_examples=UNIT_EXAMPLES)
        name = "unit"
    settings.load_profile(name)
