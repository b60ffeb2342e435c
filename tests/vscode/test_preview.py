"""Know what you send, in a real VS Code: right-click a config → Preview Upload shows, in a read-only
document, the files Submit would upload (how many, the largest), the job's name and its final config,
and nothing is sent; what the default excludes (`.git/`) and `.paiignore` leave out is not there.
Run again from the command palette after a file is added, the same document shows the new count; its
Refresh button, after one is removed, likewise.
A file that looks like data gets a Warning on `codeDir` in the Problems view, and the hover on
`codeDir` says what the upload would send."""

from __future__ import annotations

import json
import re

import pytest

from ..helpers.configs import V2_HELLO
from .harness import copy_example

pytestmark = pytest.mark.timeout(600)

PREVIEW_EDITOR = ".editor-instance .monaco-editor[data-uri^='pai-preview:']"


@pytest.fixture(scope="module")
def workspace(user):
    """The mnist example with a config whose codeDir is one fixed place, big files the upload must
    leave out (in `.git/`, and in a folder `.paiignore` names), code, and a data file the workspace's
    include globs take."""
    ws = copy_example("mnist", user.home / "preview")
    config = json.loads((ws / "mnist.pai.json").read_text())
    config["codeDir"] = "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/code/mnist"
    (ws / "preview.pai.json").write_text(json.dumps(config, indent=2) + "\n")
    settings = json.loads((ws / ".vscode" / "settings.json").read_text())
    settings["pai.job.upload.include"] = [*settings["pai.job.upload.include"], "data/**"]
    (ws / ".vscode" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "hooks" / "huge_hook.py").write_text("#" * 500_000)
    (ws / "scratch").mkdir()
    (ws / "scratch" / "notes.py").write_text("#" * 400_000)
    (ws / ".paiignore").write_text("scratch/\n")
    (ws / "data_prep.py").write_text("x = 1\n" * 50_000)  # 300,000 bytes: the largest file sent
    (ws / "model").mkdir()
    (ws / "model" / "net.py").write_text("import math\n")
    (ws / "data").mkdir()
    (ws / "data" / "features.npy").write_bytes(b"\x93NUMPY" + bytes(20_000))
    return ws


def preview_text(workbench) -> str:
    editor = workbench.page.locator(PREVIEW_EDITOR)
    return editor.locator(".view-lines").inner_text().replace("\u00a0", " ") if editor.count() else ""


def test_preview_upload_from_the_explorer(workbench, user):
    workbench.open_file("preview.pai.json")
    workbench.context_menu(workbench.explorer_row("preview.pai.json"), "Preview Upload")
    text = workbench.wait_for(lambda: (t := preview_text(workbench)) and "config after substitution" in t and t,
                              "the preview document")
    assert text.startswith("Dry run of preview.pai.json: nothing was sent."), text
    job = re.search(r"^job name: (mnist_[0-9a-f]{8}) \(a new name is drawn at submit\)$", text, re.M)
    upload = re.search(r"^upload: +4 files, \S+ \S+ from \S+ to (\S+/code/mnist)$", text, re.M)
    assert job and upload, text
    assert "0 unchanged since the last upload there (skipped), 4 to send" in text
    lines = text.splitlines()
    largest = lines[lines.index("largest files:") + 1:lines.index("largest files:") + 5]
    assert [line.split()[-1] for line in largest] == ["data_prep.py", "data/features.npy", "train.py", "model/net.py"], largest
    assert largest[0].split()[:2] == ["293.0", "KB"], largest
    assert "1 file looks like data" in text
    assert "huge_hook" not in text and "scratch" not in text and ".git" not in text
    assert f'"jobName": "{job.group(1)}"' in text
    tab = workbench.page.locator(".tabs-container .tab.active")
    assert tab.get_attribute("aria-label").startswith("preview.pai.json (upload preview)"), tab.get_attribute("aria-label")
    workbench.screenshot("upload-preview", docs="vscode-upload-preview.png")

    # Read-only: typing changes nothing.
    workbench.page.locator(PREVIEW_EDITOR).locator(".view-lines").click()
    workbench.page.keyboard.type("zzz")
    assert "zzz" not in preview_text(workbench)
    # Nothing was sent.
    listed = user.pai("hdfs", "ls", upload.group(1))
    assert listed.returncode != 0 and "train.py" not in listed.stdout, listed.stdout


def test_preview_again_from_the_palette(workbench, workspace):
    (workspace / "model" / "extra.py").write_text("EXTRA = 1\n")
    workbench.open_file("preview.pai.json")
    workbench.command("PAI: Preview Upload")
    workbench.wait_for(lambda: re.search(r"^upload: +5 files, ", preview_text(workbench), re.M), "the preview with 5 files")
    assert workbench.page.locator(PREVIEW_EDITOR).count() == 1  # the same document, made again
    # Its title bar's Refresh: the files as they are now.
    (workspace / "model" / "extra.py").unlink()
    workbench.page.locator(".editor-actions .action-label[aria-label^='Refresh Upload Preview']").click()
    workbench.wait_for(lambda: re.search(r"^upload: +4 files, ", preview_text(workbench), re.M), "the refreshed preview with 4 files")


def test_codeDir_warning_in_problems_and_its_hover(workbench):
    workbench.open_file("preview.pai.json")
    rows = workbench.wait_for(lambda: [r for r in workbench.problems() if "like data" in r], "the codeDir warning in Problems")
    (row,) = rows
    assert "data/features.npy" in row and "pai upload.data-files" in row and "[Ln 4, Col 3]" in row, row
    workbench.command("Problems: Focus on Problems View")
    warning = workbench.page.locator(".markers-panel .monaco-list-row .codicon-warning")
    assert warning.count() >= 1
    workbench.screenshot("codeDir-warning")
    # The hover on codeDir says what the upload would send.
    workbench.focus_editor()
    workbench.go_to(4, 6)
    hover = workbench.wait_for(lambda: (t := workbench.hover_text()) and "Upload" in t and t, "the codeDir hover")
    assert re.search(r"Upload: 4 files, \S+ KB from this workspace", hover) and "data_prep.py" in hover, hover
    assert "Looks like data: data/features.npy" in hover, hover
    workbench.screenshot("codeDir-hover")
    workbench.page.keyboard.press("Escape")


def test_an_invalid_config_is_one_error(workbench, workspace):
    (workspace / "bad.pai.json").write_text(json.dumps({"jobName": "x", "image": "i", "taskRoles": [{"name": "a-b", "command": "c"}]}))
    workbench.clear_notifications()
    workbench.context_menu(workbench.explorer_row("bad.pai.json"), "Preview Upload")
    errors = workbench.wait_for(lambda: workbench.error_toasts(), "the error", errors=False)
    assert len(errors) == 1 and '"a-b"' in errors[0] and "bad.pai.json" in errors[0], errors
    workbench.page.wait_for_timeout(1000)  # a second message would show by now
    assert workbench.error_toasts() == errors
    assert not workbench.page.locator(".tabs-container .tab[aria-label^='bad.pai.json (upload preview)']").count()
    workbench.clear_notifications()


def test_settings_json_diagnostics(workbench, workspace):
    """`.vscode/settings.json` reaches the language server: an include glob that matches nothing is a
    Warning in Problems, and it goes when the glob is corrected in the editor."""
    path = workspace / ".vscode" / "settings.json"
    settings = json.loads(path.read_text())
    settings["pai.job.upload.include"] = [*settings["pai.job.upload.include"], "**/*.ipynb"]
    text = json.dumps(settings, indent=2) + "\n"
    path.write_text(text)
    if not workbench.explorer_row("settings.json").count():
        workbench.command("File: Focus on Files Explorer")
        workbench.explorer_row(".vscode").click()
    workbench.open_file("settings.json")
    rows = workbench.wait_for(lambda: [r for r in workbench.problems() if "pai settings." in r], "the glob's warning in Problems")
    (row,) = rows  # the only problem of the file
    assert "No file in this workspace matches **/*.ipynb" in row and "pai settings.glob-unmatched" in row, row
    workbench.screenshot("settings-json-warning")
    line = next(i for i, s in enumerate(text.splitlines(), 1) if "**/*.ipynb" in s)
    workbench.focus_editor()
    workbench.go_to(line, text.splitlines()[line - 1].index("ipynb") + 1)
    for _ in "ipynb":
        workbench.page.keyboard.press("Delete")
    workbench.page.keyboard.type("py")  # "**/*.py": matches
    workbench.wait_for(lambda: "ipynb" not in (shown := workbench.editor_text("settings.json")) and shown.count('"**/*.py"') == 2,
                       "the corrected glob in the editor")
    workbench.wait_for(lambda: not [r for r in workbench.problems() if "pai settings." in r], "the warning to go")



def test_preview_rendered_job_shows_the_job_as_the_server_will_see_it(workbench, workspace):
    """A v2 job file → Preview Rendered Job: its templates filled in, the defaults the scheduler applies,
    secrets masked; a read-only YAML document."""
    (workspace / "rendered.pai.yaml").write_text(V2_HELLO)
    workbench.command("File: Focus on Files Explorer")
    workbench.context_menu(workbench.explorer_row("rendered.pai.yaml"), "Preview Rendered Job")
    text = workbench.wait_for(lambda: (t := preview_text(workbench)) and "hello from" in t and t, "the rendered job")
    assert text.startswith("# The job as the server will see it"), text
    assert '- test -n "******" && echo done' in text and "s3cr3t-value" not in text
    assert '- echo "hello from $PAI_CURRENT_TASK_ROLE_NAME"' in text and "instances: 1" in text
    tab = workbench.page.locator(".tabs-container .tab.active")
    assert tab.get_attribute("aria-label").startswith("rendered.pai.yaml (rendered)"), tab.get_attribute("aria-label")
    workbench.page.locator(PREVIEW_EDITOR).locator(".view-lines").click()
    workbench.page.keyboard.press("Control+End")  # the defaults below what the editor's height shows
    workbench.wait_for(lambda: "shmMB: 512" in preview_text(workbench), "the scheduler's default shmMB at the end")
    workbench.page.keyboard.type("zzz")
    assert "zzz" not in preview_text(workbench)
