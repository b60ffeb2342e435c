"""The VS Code workbench as a user drives it: the command palette, the keyboard, menus, and what is on
screen. Every wait is for a state of the DOM (never a fixed sleep), with timeouts generous enough for a
loaded 2-core machine. Selectors are the workbench's own stable class names (as in VS Code's smoke tests)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page

QUICK_INPUT = ".quick-input-widget"
QUICK_INPUT_BOX = f"{QUICK_INPUT} .quick-input-box input"
QUICK_INPUT_ROWS = f"{QUICK_INPUT} .quick-input-list .monaco-list-row"
CURSOR_POSITION = "[id='status.editor.selection']"  # the status bar's "Ln 10, Col 23"
EXPLORER_ROWS = ".explorer-folders-view .monaco-list-row"
PROBLEM_ROWS = ".markers-panel .monaco-list-row"
NOTIFICATION_MESSAGES = ".notifications-center .notification-list-item"
OUTPUT_LINES = ".output-view .view-lines"
SUGGEST_ROWS = ".editor-widget.suggest-widget.visible .monaco-list-row"
ACTION_ROWS = ".action-widget .monaco-list-row"
HOVER = ".monaco-hover:not(.hidden) .monaco-hover-content"

DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
LONG = 60.0  # seconds: a first action on a loaded machine (extension host, language server starting)


class ErrorShown(AssertionError):
    """An error notification appeared while we waited for something else: the test fails with its text."""


class Workbench:
    def __init__(self, page: Page, artifacts: Path):
        self.page = page
        page.set_default_timeout(LONG * 1000)  # what Playwright itself waits for (a click's target …), as for ours
        self.artifacts = artifacts
        self._shots = 0

    # --- waiting -----------------------------------------------------------------------------------

    def wait_for(self, condition: Callable[[], object], what: str, timeout: float = LONG, errors: bool = True):
        """Poll `condition` until it returns something truthy. With `errors`, fail at once with the text
        of any error notification that shows up meanwhile (an error the user sees is the real cause)."""
        deadline = time.monotonic() + timeout
        while True:
            result = condition()
            if result:
                return result
            if errors and (shown := self.error_toasts()):
                raise ErrorShown(f"while waiting for {what}, VS Code showed: {shown}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
            self.page.wait_for_timeout(200)

    def error_toasts(self) -> list[str]:
        return [label for label in labels(self.page.locator(".notification-toast .monaco-list-row[aria-label^='Error: ']")) if label]

    def screenshot(self, name: str, docs: str = "") -> Path:
        """Save what the user sees now as test-artifacts/vscode/<module>/NN-name.png; a picture the
        docs show (`docs`: its name in docs/images/) is refreshed there when PAI_DOCS_SCREENSHOTS=1."""
        self._shots += 1
        path = self.artifacts / f"{self._shots:02d}-{name}.png"
        self.page.screenshot(path=str(path), animations="disabled")
        if docs and os.environ.get("PAI_DOCS_SCREENSHOTS") == "1":
            shutil.copyfile(path, DOCS_IMAGES / docs)
        return path

    # --- the window --------------------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Load the workbench; ready when the folder's files are listed and our extension's
        activity-bar entry ("PAI") is there (the extension host has read its contributions)."""
        self.page.goto(url)
        self._wait_until_loaded()

    def reload(self) -> None:
        """Developer: Reload Window, as a user does after installing something the extension needs."""
        self.page.reload()
        self._wait_until_loaded()

    def _wait_until_loaded(self) -> None:
        self.page.wait_for_selector(".monaco-workbench", timeout=LONG * 1000)
        self.page.wait_for_selector(EXPLORER_ROWS, timeout=LONG * 1000)
        self.page.wait_for_selector(".part.activitybar .action-item [aria-label^='PAI']", timeout=LONG * 1000)

    def command(self, title: str, timeout: float = LONG) -> None:
        """Run a command from the command palette (F1), by its exact title as the palette shows it.
        The palette lists the commands known when it opened, so it is reopened until `title` is there."""
        deadline = time.monotonic() + timeout
        while True:
            self.page.keyboard.press("F1")
            box = self.page.locator(QUICK_INPUT_BOX)
            try:  # (a palette pressed open while another quick input closes can go inert: open it again)
                box.wait_for(state="visible", timeout=10_000)
                box.fill(">" + title, timeout=10_000)
            except PlaywrightError:
                if time.monotonic() > deadline:
                    raise
                self.page.keyboard.press("Escape")
                continue
            try:
                self.pick(title, timeout=min(10.0, max(1.0, deadline - time.monotonic())))
                return
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise
                self.page.keyboard.press("Escape")

    def pick(self, label: str, timeout: float = LONG) -> None:
        """Choose the quick-pick row labelled `label` (the palette, or a pick list a command showed).
        The list re-renders while it filters, so the row is looked up again until a click lands."""
        def chosen() -> bool:
            index = _index_of(label, self.quick_pick_labels())
            return bool(index) and click(self.page.locator(QUICK_INPUT_ROWS).nth(index - 1))

        self.wait_for(chosen, f"'{label}' in the quick pick", timeout)

    def quick_pick_labels(self) -> list[str]:
        return labels(self.page.locator(QUICK_INPUT_ROWS))

    def type_into_input(self, text: str, prompt: str = "") -> None:
        """Answer an input box (showInputBox) the way a user types; with `prompt`, first wait until the
        box asks that (input boxes shown one after another reuse the same widget)."""
        widget = self.page.locator(QUICK_INPUT)
        box = self.page.locator(QUICK_INPUT_BOX)
        box.wait_for(state="visible")
        if prompt:
            self.wait_for(lambda: prompt in widget.inner_text(), f"the input box asking '{prompt}'")
        box.fill(text)
        box.press("Enter")

    def input_problem(self) -> str:
        """The error an input box shows under it (e.g. why the last answer was refused), once it does."""
        flagged = self.page.locator(f"{QUICK_INPUT} .monaco-inputbox.error")  # the box, marked as in error
        message = self.page.locator(f"{QUICK_INPUT} .quick-input-message")
        return self.wait_for(lambda: flagged.count() and " ".join(texts(message)).strip(), "an error under the input box")

    def toasts(self) -> list[str]:
        """The notifications on screen now ("Info: …", "Error: …")."""
        rows = self.page.locator(".notification-toast .monaco-list-row")
        return [label.split(", source: ")[0] for label in labels(rows) if label]

    def notifications(self) -> list[str]:
        """Every notification of this window (the notification centre keeps the ones whose toast is gone)."""
        center = self.page.locator(".notifications-center")
        if not center.is_visible():
            self.command("Notifications: Show Notifications")
            center.wait_for(state="visible")
        return texts(self.page.locator(NOTIFICATION_MESSAGES))

    def close_notifications(self) -> None:
        if self.page.locator(".notifications-center").is_visible():
            self.command("Notifications: Hide Notifications")

    def clear_notifications(self) -> None:
        self.command("Notifications: Clear All Notifications")
        self.wait_for(lambda: not self.page.locator(".notification-toast").count(), "the notifications to go", errors=False)

    # --- explorer and editors ------------------------------------------------------------------------

    def explorer_row(self, name: str) -> Locator:
        return self.page.locator(f"{EXPLORER_ROWS}[aria-label='{_css(name)}']")

    def context_menu(self, target: Locator, item: str) -> None:
        """Right-click `target` and choose `item` from the context menu."""
        target.wait_for(state="visible", timeout=LONG * 1000)
        target.click(button="right")
        menu = self.page.locator(".context-view .monaco-menu")
        entry = menu.locator(".action-menu-item").filter(has=self.page.get_by_text(item, exact=True)).first
        entry.wait_for(state="visible", timeout=LONG * 1000)
        entry.hover()
        self._click_until_closed(entry, menu, f"'{item}' to be chosen from the context menu")

    def _click_until_closed(self, button: Locator, container: Locator, what: str) -> None:
        """Click `button` until `container` closes: VS Code ignores a click that comes too soon after a
        menu opened, and its own file dialog may take a click to navigate before one to accept."""
        def closed() -> bool:
            if container.count() and container.first.is_visible() and button.is_visible() and click(button):
                self.page.wait_for_timeout(300)
            return not container.count() or not container.first.is_visible()

        self.wait_for(closed, what, timeout=30)

    def view_rows(self, view: str) -> Locator:
        """The rows of a side-bar view, by its name as its header shows it ("Jobs", "HDFS" …)."""
        title = self.page.locator(".pane-header h3.title").get_by_text(view, exact=True)
        return self.page.locator(".pane").filter(has=title).locator(".pane-body .monaco-list-row")

    def view_labels(self, view: str) -> list[str]:
        """The rows' accessible labels (a tree item's label, or its tooltip when it has one)."""
        return labels(self.view_rows(view))

    def view_texts(self, view: str) -> list[str]:
        """The rows as shown: label, then description after a space ("local default")."""
        return self.view_rows(view).evaluate_all("""rows => rows.map(row => [...row.querySelectorAll(
            '.label-name, .label-description')].map(part => part.innerText.trim()).filter(Boolean).join(' '))""")

    def dialog(self, button: str) -> str:
        """Answer a modal dialog by pressing `button`; returns the dialog's text."""
        box = self.page.locator(".monaco-dialog-box")
        box.wait_for(state="visible", timeout=LONG * 1000)
        text = box.inner_text()
        box.locator(".dialog-buttons .monaco-button").filter(has_text=button).click()
        box.wait_for(state="hidden", timeout=LONG * 1000)
        return text

    def file_dialog(self, path: Path, button: str) -> None:
        """Answer VS Code's own open dialog (the one code-server shows): type the path (a folder with a
        trailing '/', as the dialog wants) and press `button`."""
        widget = self.page.locator(QUICK_INPUT)
        accept = widget.locator(".monaco-button").filter(has_text=button)
        accept.wait_for(state="visible", timeout=LONG * 1000)
        self.page.locator(QUICK_INPUT_BOX).fill(str(path) + ("/" if path.is_dir() else ""))
        self._click_until_closed(accept, widget, f"the dialog to take {path}")

    def open_file(self, name: str) -> Locator:
        """Open a file of the workspace folder by clicking it in the Explorer (once the file watcher
        has shown it there); returns its editor."""
        if not self.page.locator(".explorer-folders-view").is_visible():
            self.command("File: Focus on Files Explorer")
        row = self.explorer_row(name)
        row.wait_for(state="visible", timeout=LONG * 1000)
        row.click()
        editor = self.editor(name)
        editor.wait_for(state="visible", timeout=LONG * 1000)
        return editor

    def focus_editor(self) -> None:
        """Give the keyboard back to the editor (after a view took it)."""
        self.command("View: Focus Active Editor Group")

    def editor(self, name: str, scheme: str = "") -> Locator:
        """The editor of a file named `name` (of a URI scheme such as `pai-hdfs:` when given)."""
        start = f"[data-uri^='{scheme}']" if scheme else ""
        return self.page.locator(f".editor-instance .monaco-editor{start}[data-uri$='/{_css(name)}']")

    def editor_text(self, name: str) -> str:
        return self.editor(name).locator(".view-lines").inner_text().replace("\u00a0", " ")

    def go_to(self, line: int, column: int = 1) -> None:
        """Put the cursor at a position in the active editor (Ctrl+G, 'line:column'), and return once
        it is there and the editor has the keyboard again: a key pressed while the input box is
        still closing goes to the box, not to the text."""
        self.page.keyboard.press("Control+G")
        self.type_into_input(f":{line}:{column}")
        self.page.locator(QUICK_INPUT).wait_for(state="hidden")
        cursor = self.page.locator(CURSOR_POSITION)
        self.wait_for(lambda: f"Ln {line}, Col {column}" in cursor.inner_text()
                      and self.page.evaluate("() => !!document.activeElement?.closest('.editor-instance .monaco-editor')"),
                      f"the cursor at line {line}, column {column}")

    def double_click_word(self, name: str, token: str) -> None:
        """Double-click the first token `token` (as the editor shows it) in the editor: selects its word."""
        # Playwright's own double-click waits until the span is visible and stable, and tries again
        # when the editor re-renders its lines under it (as it does while tokens are coloured).
        span = self.editor(name).locator(".view-lines span span").filter(has_text=token).first
        span.dblclick(timeout=LONG * 1000)

    # --- panels --------------------------------------------------------------------------------------

    def webview(self, selector: str, timeout: float = LONG):
        """The frame of the webview (an editor tab an extension draws) that shows `selector`: VS Code puts
        each webview's page in an iframe of its own inside another."""
        def found():
            for frame in self.page.frames:
                try:
                    if frame.locator(selector).count():
                        return frame
                except PlaywrightError:  # a frame that went away while we looked
                    continue
            return None

        return self.wait_for(found, f"a webview showing {selector}", timeout)

    def problems(self) -> list[str]:
        """The Problems view's rows as shown: message, source(code), [Ln, Col]."""
        if not self.page.locator(".markers-panel").is_visible():
            self.command("Problems: Focus on Problems View")
            self.page.locator(".markers-panel").wait_for(state="visible")
            self.focus_editor()
        return [text.replace("\n", " ") for text in texts(self.page.locator(PROBLEM_ROWS))]

    def show_output(self, channel: str) -> None:
        self.command("Output: Show Output Channels...")
        self.pick(channel)
        self.page.locator(OUTPUT_LINES).first.wait_for(state="visible")

    def output_channel(self) -> str:
        """The name of the Output channel on screen ('' when the Output panel is not showing)."""
        if not self.page.locator(".panel .output-view").first.is_visible():
            return ""
        chooser = self.page.locator(".panel select.monaco-select-box")
        return chooser.first.evaluate("s => s.options[s.selectedIndex] ? s.options[s.selectedIndex].text : ''") if chooser.count() else ""

    def output_text(self) -> str:
        return self.page.locator(OUTPUT_LINES).first.inner_text().replace("\u00a0", " ")

    def filter_output(self, text: str) -> None:
        """Type into the Output panel's own filter box (VS Code's, not ours): only matching lines stay shown."""
        box = self.page.locator('input[placeholder^="Filter (e.g. text"]:visible')
        box.first.fill(text)

    def hover_text(self) -> str:
        """Show the hover at the cursor (as Ctrl+K Ctrl+I does) and return its text."""
        self.command("Show or Focus Hover")
        hover = self.page.locator(HOVER)
        return self.wait_for(lambda: hover.count() and hover.first.inner_text().strip(), "the hover")

    def quick_fix(self, title: str) -> None:
        """Open the quick fixes at the cursor (Ctrl+.) and apply the one titled `title`."""
        self.page.keyboard.press("Control+Period")
        item = self.page.locator(ACTION_ROWS).filter(has_text=title)
        self.wait_for(lambda: item.count() > 0, f"the quick fix '{title}'")
        item.first.click()

    def completions(self) -> list[str]:
        """Trigger suggestions at the cursor (Ctrl+Space) and return the labels offered."""
        rows = self.page.locator(SUGGEST_ROWS)
        asked = [0.0]

        def offered() -> bool:
            if rows.count() > 0:
                return True
            if time.monotonic() - asked[0] > 5:  # asked again: an answer that came before the text reached the server is empty
                if asked[0]:
                    self.page.keyboard.press("Escape")
                self.page.keyboard.press("Control+Space")
                asked[0] = time.monotonic()
            return False

        self.wait_for(offered, "the suggestion list")
        return labels(rows)


def labels(rows: Locator) -> list[str]:
    """The aria-labels of the elements `rows` matches, read at one instant: lists re-render while we
    poll, and reading element by element would wait for one that has just gone."""
    return rows.evaluate_all("rows => rows.map(row => row.getAttribute('aria-label') || '')")


def texts(rows: Locator) -> list[str]:
    """The text of the elements `rows` matches, read at one instant (see `labels`)."""
    return rows.evaluate_all("rows => rows.map(row => row.innerText)")


def click(target: Locator) -> bool:
    """Click once, briefly: False when the element went away or was covered meanwhile (a caller that
    polls then looks again, instead of waiting on an element that is gone)."""
    try:
        target.click(timeout=2000)
        return True
    except PlaywrightError:
        return False


def _index_of(label: str, labels: list[str]) -> int:
    """1-based index of the row whose aria-label is `label` (possibly followed by ', keybinding')."""
    for i, text in enumerate(labels, 1):
        if text == label or text.startswith(label + ", "):
            return i
    return 0


def _css(value: str) -> str:
    return value.replace("\\", "\\\\").replace("'", "\\'")
