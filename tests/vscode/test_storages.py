"""The cluster's storages in a real VS Code, as a user meets them: the Storages view beside HDFS lists
the local cluster's default storage `local` with its type, mount path and default, and a read-only
storage beside it; expanding `local` shows a file the terminal put there, which opens read-only;
Upload File… puts one beside it and Delete removes it (the terminal sees both), a folder dragged from
the Explorer is uploaded into it; a read-only storage offers no write action and refuses a drop. The tests run in order and share one window, as one user's session does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def storages(user, tmp_path_factory) -> Path:
    """`local` with `code/train.py` in it (put there from the terminal), and `datasets`, a read-only
    storage beside it. Returns the folder that holds `datasets`' files."""
    assert user.pai("storage", "list").returncode == 0  # starts the local cluster, which then reads storages.json
    datasets = tmp_path_factory.mktemp("datasets")
    (datasets / "given.csv").write_text("a,b\n")
    config = {"storages": {"datasets": {"path": str(datasets), "readOnly": True}}, "groups": {"default": ["local", "datasets"]}}
    (Path(user.env["PAI_LOCAL_CLUSTER_DIR"]) / "storages.json").write_text(json.dumps(config))
    code = user.home / "train.py"
    code.write_text("print('from the local storage')\n")
    put = user.pai("storage", "put", str(code), "local:/code/train.py")
    assert put.returncode == 0, put.stdout + put.stderr
    return datasets


def storage_row(workbench, name: str, view: str = "Storages"):
    """A storage's own row in the Storages view, by its name; `view`: the view's title where it is."""
    label = workbench.page.locator(".label-name").get_by_text(name, exact=True)
    return workbench.view_rows(view).filter(has=label)


def file_row(workbench, path: str, view: str = "Storages"):
    """A file or folder of a storage by its path there (its tooltip, the row's accessible label, starts with it)."""
    return workbench.view_rows(view).and_(workbench.page.locator(f"[aria-label^='{path} (in jobs: ']"))


def expand(workbench, row, what: str) -> None:
    workbench.wait_for(lambda: row.count(), f"{what} in the Storages view")
    if row.first.get_attribute("aria-expanded") != "true":
        row.first.click()
    workbench.wait_for(lambda: row.first.get_attribute("aria-expanded") == "true", f"{what} to expand")


def menu_entries(workbench, row) -> list[str]:
    """What the row's context menu offers (closed again after)."""
    row.first.click(button="right")
    menu = workbench.page.locator(".context-view .monaco-menu")
    menu.wait_for(state="visible")
    entries = [e.strip() for e in menu.locator(".action-menu-item .action-label").all_inner_texts() if e.strip()]
    workbench.page.keyboard.press("Escape")
    return entries


def test_the_storages_view_lists_them_and_browses_local(workbench, storages):
    workbench.command("PAI: Focus on Storages View")
    texts = workbench.wait_for(lambda: len(shown := [t for t in workbench.view_texts("Storages")
                                                     if t.startswith(("local ", "datasets "))]) == 2 and shown,
                               "local and datasets in the Storages view")
    assert texts == ["local unknown · /mnt/local · default", "datasets unknown · read-only · /mnt/datasets"], texts
    expand(workbench, storage_row(workbench, "local"), "local")
    expand(workbench, file_row(workbench, "/code"), "/code")
    workbench.wait_for(lambda: file_row(workbench, "/code/train.py").count(), "train.py in local's code folder")
    # A click opens it read-only, fetched from the storage (not HDFS).
    file_row(workbench, "/code/train.py").first.click()
    editor = workbench.editor("train.py", scheme="pai-hdfs:")
    editor.wait_for(state="visible")
    shown = lambda: editor.locator(".view-lines").inner_text().replace("\u00a0", " ")  # noqa: E731 (the editor shows spaces as no-break ones)
    workbench.wait_for(lambda: "from the local storage" in shown(), "train.py's text from the storage")
    workbench.clear_notifications()
    workbench.screenshot("storages", docs="vscode-storages.png")


def test_upload_into_a_storage_and_delete_from_it(workbench, workspace, user):
    notes = workspace.parent / "notes.txt"
    notes.write_text("uploaded from the Storages view\n")
    workbench.context_menu(file_row(workbench, "/code").first, "Upload File…")
    workbench.file_dialog(notes, "Upload to")
    workbench.wait_for(lambda: file_row(workbench, "/code/notes.txt").count(), "notes.txt in the Storages view")
    got = user.pai("storage", "cat", "local:/code/notes.txt")
    assert got.returncode == 0 and got.stdout == notes.read_text(), got.stdout + got.stderr

    workbench.context_menu(file_row(workbench, "/code/notes.txt").first, "Delete")
    assert "Delete local:/code/notes.txt?" in workbench.dialog("Delete")
    workbench.wait_for(lambda: not file_row(workbench, "/code/notes.txt").count(), "notes.txt to leave the Storages view")
    listed = user.pai("storage", "ls", "local:/code")
    assert listed.returncode == 0 and "notes.txt" not in listed.stdout and "train.py" in listed.stdout, listed.stdout + listed.stderr


def test_a_read_only_storage_offers_no_write_action(workbench, storages):
    row = storage_row(workbench, "datasets")
    offered = menu_entries(workbench, row)
    assert "Download…" in offered and "Copy Path" in offered, offered
    assert not {"Upload File…", "Upload Folder…", "New Folder…", "Rename…", "Delete"} & set(offered), offered
    expand(workbench, row, "datasets")
    given = file_row(workbench, "/given.csv")
    workbench.wait_for(lambda: given.count(), "given.csv in datasets")
    offered = menu_entries(workbench, given)
    assert "Download…" in offered and not {"Rename…", "Delete"} & set(offered), offered
    assert (storages / "given.csv").read_text() == "a,b\n"


def test_dragging_a_folder_from_the_explorer_uploads_it_into_a_storage(workbench, workspace, user):
    """Both views in sight (View: Move View puts Storages under the Explorer): a folder dragged onto a
    storage's folder is uploaded into it, files and all; dropped onto a read-only storage, nothing is
    sent and the user is told why."""
    (workspace / "labels").mkdir()
    (workspace / "labels" / "train.csv").write_text("id,label\n1,cat\n")
    (workspace / "labels" / "test.csv").write_text("id,label\n2,dog\n")
    workbench.clear_notifications()
    workbench.command("View: Move View")
    workbench.pick("Storages")
    workbench.pick("Explorer, Side Bar")
    view = "PAI: Storages"
    try:
        workbench.command("File: Focus on Files Explorer")
        expand(workbench, storage_row(workbench, "local", view), "local")
        expand(workbench, file_row(workbench, "/code", view), "/code")
        source = workbench.explorer_row("labels")
        source.wait_for(state="visible")
        source.drag_to(file_row(workbench, "/code", view).first)
        workbench.wait_for(lambda: "Info: Uploaded 2 files to local:/code" in workbench.toasts(), "the upload to finish")
        for name in ("train.csv", "test.csv"):
            uploaded = user.pai("storage", "cat", f"local:/code/labels/{name}")
            assert uploaded.returncode == 0 and uploaded.stdout == (workspace / "labels" / name).read_text(), uploaded.stderr
        workbench.clear_notifications()
        source.drag_to(storage_row(workbench, "datasets", view).first)
        refused = workbench.wait_for(lambda: workbench.error_toasts(), "the drop onto datasets refused", errors=False)
        assert any("Storage datasets is read-only" in toast for toast in refused), refused
        listed = user.pai("storage", "ls", "datasets:/")
        assert listed.returncode == 0 and "labels" not in listed.stdout, listed.stdout + listed.stderr
    finally:
        workbench.clear_notifications()
        workbench.command("View: Reset View Locations")
