"""What a job ran, in a real VS Code: a job is run from the Explorer, the workspace moves
on, then from the Jobs view "Open Submitted Code" shows the files it was submitted with (read-only,
the old content) and "Compare with Workspace" opens VS Code's diff editor with the submitted file on
the left and the workspace's on the right. The tests run in order and share one window."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(600)

CHANGE = "print('changed after the job was submitted')"
session: dict[str, str] = {}


def the_job() -> str:
    if "job" not in session:
        pytest.fail("no job: test_open_submitted_code_shows_what_was_sent runs first and did not get one")
    return session["job"]


def job_row(workbench, job: str):
    return workbench.view_rows("Jobs").filter(has_text=job)


def test_open_submitted_code_shows_what_was_sent(workbench, workspace):
    workbench.open_file("mnist.pai.json")
    workbench.context_menu(workbench.explorer_row("mnist.pai.json"), "Run Job Locally")
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: mnist_"), "the job's Output channel", timeout=60)
    job = workbench.output_channel().removeprefix("PAI: ")
    session["job"] = job
    workbench.command("PAI: Focus on Jobs View")
    workbench.wait_for(lambda: job_row(workbench, job).count(), f"{job} in the Jobs view")
    workbench.close_notifications()
    # The workspace moves on after the submit.
    train = workspace / "train.py"
    train.write_text(train.read_text() + CHANGE + "\n")

    workbench.context_menu(job_row(workbench, job).first, "Open Submitted Code")
    view = f"Submitted Code: {job}"
    workbench.wait_for(lambda: "train.py" in " ".join(workbench.view_texts(view)), f"train.py in the {view} view")
    workbench.view_rows(view).filter(has_text="train.py").first.click()
    editor = workbench.editor("train.py", scheme="pai-record:")
    editor.wait_for(state="visible")
    workbench.wait_for(lambda: "import" in workbench.editor_text("train.py"), "the submitted train.py")
    text = workbench.editor("train.py", scheme="pai-record:").locator(".view-lines").inner_text()
    assert "changed after the job was submitted" not in text  # what was sent, not the workspace now
    editor.locator(".view-lines").click()
    workbench.page.keyboard.type("typed")
    assert "typed" not in workbench.editor("train.py", scheme="pai-record:").locator(".view-lines").inner_text()  # read-only


def test_compare_with_workspace_opens_the_diff_editor(workbench, workspace):
    job = the_job()
    workbench.command("PAI: Focus on Jobs View")
    workbench.context_menu(job_row(workbench, job).first, "Compare with Workspace")
    diff = workbench.page.locator(".editor-instance .monaco-diff-editor")
    workbench.wait_for(lambda: diff.count() and diff.first.is_visible(), "the diff editor")
    tab = workbench.page.locator(".tabs-container .tab.active")
    workbench.wait_for(lambda: f"train.py ({job} ↔ workspace)" in (tab.first.get_attribute("aria-label") or ""), "the diff's tab")
    original = diff.first.locator(".editor.original .view-lines")
    modified = diff.first.locator(".editor.modified .view-lines")
    workbench.wait_for(lambda: "changed after the job was submitted" in modified.inner_text().replace("\u00a0", " "),
                       "the workspace's train.py on the right")
    assert "changed after the job was submitted" not in original.inner_text().replace("\u00a0", " ")
    assert diff.first.locator(".editor.original [data-uri^='pai-record:']").count() == 1  # the left side: the job's file
    workbench.screenshot("record-diff", docs="vscode-record-diff.png")


def test_rerun_then_compare_the_two_runs(workbench):
    job = the_job()
    workbench.command("PAI: Focus on Jobs View")
    workbench.context_menu(job_row(workbench, job).first, "Rerun Job")
    toast = workbench.wait_for(lambda: next((t for t in workbench.toasts() if f"Rerunning {job} as " in t), None), "the rerun's message")
    assert "nothing uploaded" in toast, toast
    rerun = toast.split(" as ", 1)[1].split(":", 1)[0]
    workbench.wait_for(lambda: job_row(workbench, rerun).count(), f"{rerun} in the Jobs view")
    workbench.close_notifications()
    workbench.context_menu(job_row(workbench, job).first, "Compare with Another Job…")
    workbench.pick(rerun)
    workbench.wait_for(lambda: workbench.editor(f"{rerun}.diff", scheme="pai-runs-diff:").count(), "the two runs compared")
    workbench.wait_for(lambda: "environment:" in workbench.editor_text(f"{rerun}.diff"), "the comparison's text")
    text = workbench.editor_text(f"{rerun}.diff")
    assert "config: the same" in text and "code: the same" in text, text
