"""Fixtures for the real-VS-Code tests: per test module one isolated user, one code-server with the
.vsix installed, one chromium page on the workspace. Installed by scripts/install-vscode-test-tools."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from .harness import ARTIFACTS, CHROMIUM, VENV_BIN, CodeServer, User, build_language_pack, build_vsix, copy_example, missing_tools
from .workbench import Workbench

# Quiet defaults so the screen shows only what our extension does.
SETTINGS = {
    "pai.server.command": [str(VENV_BIN / "pai-lsp")],
    "workbench.startupEditor": "none",
    "workbench.colorTheme": "Default Dark Modern",
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "workbench.tips.enabled": False,
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "workbench.enableExperiments": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "security.workspace.trust.enabled": False,
    "chat.disableAIFeatures": True,
    "json.schemaDownload.enable": False,
    "editor.minimap.enabled": False,
    "files.autoSave": "off",
    "git.enabled": False,
    "remote.autoForwardPorts": False,
}


@pytest.fixture(scope="session")
def tools() -> None:
    """Skip (fail under CI) when scripts/install-vscode-test-tools has not been run."""
    missing = missing_tools()
    if missing:
        message = f"VS Code test tools missing ({', '.join(missing)}): run scripts/install-vscode-test-tools"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
def vsix(tools) -> Path:
    return build_vsix()


@pytest.fixture(scope="module")
def artifacts(request) -> Path:
    """test-artifacts/vscode/<module>/: screenshots and the logs of every process."""
    folder = ARTIFACTS / request.module.__name__.rsplit(".", 1)[-1]
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    return folder


@pytest.fixture(scope="module")
def pai_on_path() -> bool:
    """Whether this checkout's `pai-lsp` is on the user's PATH; a module overrides this fixture."""
    return True


@pytest.fixture(scope="module")
def path_first() -> tuple[Path, ...]:
    """Folders at the front of the user's PATH; a module overrides this fixture."""
    return ()


@pytest.fixture(scope="module")
def user(tools, tmp_path_factory, artifacts, pai_on_path, path_first):
    person = User(tmp_path_factory.mktemp("vscode-user"), pai_on_path, path_first)
    try:
        person.start_keyring(artifacts)
        yield person
    finally:
        killed = person.close()
        (artifacts / "stop.log").write_text("\n".join(person.stop_log + [f"killed: {k}" for k in killed]) + "\n")
        if killed:
            warnings.warn(f"still running after the test and killed: {killed}", stacklevel=1)


@pytest.fixture(scope="module")
def workspace(user) -> Path:
    """The folder VS Code opens; a module overrides this fixture for other contents."""
    return copy_example("mnist", user.home / "mnist")


@pytest.fixture(scope="module")
def settings() -> dict:
    """User settings; a module overrides this fixture to add its own."""
    return dict(SETTINGS)


@pytest.fixture(scope="module")
def locale() -> str | None:
    """VS Code's display language; a module overrides this fixture (None: code-server's default, English)."""
    return None


@pytest.fixture(scope="module")
def code_server(user, vsix, settings, artifacts, locale, tmp_path_factory):
    server = CodeServer(user, artifacts, locale)
    server.install_extension(vsix)
    if locale:
        server.install_language_pack(build_language_pack(locale, tmp_path_factory.mktemp("language-pack")))
    server.write_settings(settings)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def workbench(code_server, workspace, artifacts):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"])
        try:
            # Copy SSH Command / Copy Path write the clipboard as in a browser the user allowed to.
            page = browser.new_page(viewport={"width": 1400, "height": 860}, permissions=["clipboard-read", "clipboard-write"])
            bench = Workbench(page, artifacts)
            bench.open(code_server.url(workspace))
            yield bench
        finally:
            browser.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A screenshot of the workbench when a test fails: what the user would have seen."""
    outcome = yield
    report = outcome.get_result()
    bench = item.funcargs.get("workbench") if hasattr(item, "funcargs") else None
    if report.failed and bench is not None:
        try:
            bench.screenshot(f"FAILED-{item.name}")
        except Exception as e:  # the page may be gone; the failure itself is what matters
            report.sections.append(("screenshot", f"no screenshot: {e}"))
