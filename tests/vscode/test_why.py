"""A job that fails, in a real VS Code: Run Job Locally on a config whose code raises three modules
deep; the Error lands in Problems on the user's own file and line (the calling frames as related
information), the Jobs view row shows the class, "Why Did It Fail?" opens the short report, and the
diagnostic goes when the config is run again or the user dismisses it."""

from __future__ import annotations

import re

import pytest

from ..helpers.failing import OPS, failing_workspace

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def workspace(user):
    return failing_workspace(user.home / "failing", "failing")


def why_rows(workbench) -> list[str]:
    return [r for r in workbench.problems() if "KeyError" in r]


def run_and_wait_for_the_problem(workbench, not_job: str = "") -> tuple[str, str]:
    workbench.command("File: Focus on Files Explorer")
    workbench.context_menu(workbench.explorer_row("failing.pai.json"), "Run Job Locally")
    rows = workbench.wait_for(lambda: [r for r in why_rows(workbench) if not not_job or not_job not in r],
                              "the failure in Problems", timeout=90)
    job = re.search(r"(failing_[0-9a-f]{8})", rows[0]).group(1)
    return job, rows[0]


def test_a_failed_job_puts_an_error_on_the_users_file_and_line(workbench, workspace):
    workbench.open_file("failing.pai.json")
    job, row = run_and_wait_for_the_problem(workbench)
    # The deepest frame in the user's own code: pkg/ops.py line 3, the message saying what and what to do.
    assert f"{job}: KeyError was raised at pkg/ops.py:3: 'train'." in row and "[Ln 3, Col 1]" in row, row
    assert "pai python-exception" in row, row
    # The calling frames are related information under it: pkg/data.py:5 and train.py:5.
    related = workbench.page.locator(".markers-panel .monaco-list-row").filter(has_text="called from")
    workbench.wait_for(lambda: related.count() >= 2, "the calling frames under the error")
    related_text = " ".join(related.all_inner_texts())
    assert "data.py" in related_text and "train.py" in related_text, related_text
    # The job's row in the Jobs view says why.
    workbench.command("PAI: Focus on Jobs View")
    row_of_job = workbench.view_rows("Jobs").filter(has_text=job)
    workbench.wait_for(lambda: row_of_job.count() and "Python exception: KeyError" in row_of_job.first.inner_text(),
                       "the class on the job's row")
    workbench.close_notifications()
    # A click on the error opens pkg/ops.py at it, as the Problems view does for any mistake.
    workbench.problems()
    workbench.page.locator(".markers-panel .monaco-list-row").filter(has_text="KeyError").first.click()
    workbench.editor("ops.py").wait_for(state="visible")
    workbench.screenshot("why-diagnostic", docs="vscode-why.png")

    # "Why Did It Fail?": the report, with the frames as links to the files.
    workbench.context_menu(row_of_job.first, "Why Did It Fail?")
    report = workbench.editor(f"{job}.md", scheme="pai-why:")
    report.wait_for(state="visible")
    text = workbench.wait_for(lambda: (t := report.locator(".view-lines").inner_text().replace("\u00a0", " ")) and "pkg/ops.py:3" in t and t,
                              "the report")
    assert f"# {job}: Python exception: KeyError" in text and "## Where" in text, text
    assert "[pkg/data.py:5](file://" in text and "[train.py:5](file://" in text, text
    workbench.screenshot("why-report")

    # Dismissed: the error and the row's class go.
    workbench.context_menu(row_of_job.first, "Dismiss Failure Explanation")
    workbench.wait_for(lambda: not why_rows(workbench), "the error to leave Problems")
    workbench.wait_for(lambda: "Python exception" not in row_of_job.first.inner_text(), "the class to leave the row")

    # The file changed since the upload: the error says so, and the version that ran is one click away.
    (workspace / "pkg" / "ops.py").write_text("# edited after the run\n" + OPS)
    workbench.context_menu(row_of_job.first, "Why Did It Fail?")
    rows = workbench.wait_for(lambda: [r for r in why_rows(workbench) if "changed since it was uploaded" in r], "the note on the error")
    assert "pkg/ops.py changed since it was uploaded" in rows[0], rows
    ran = workbench.page.locator(".markers-panel .monaco-list-row").filter(has_text="the version that ran")
    workbench.wait_for(lambda: ran.count(), "the uploaded version under the error")
    ran.first.click()
    uploaded = workbench.editor("ops.py", scheme="pai-hdfs:")
    uploaded.wait_for(state="visible")
    workbench.wait_for(lambda: "factor = {'test': 2}" in uploaded.locator(".view-lines").inner_text().replace("\u00a0", " ")
                       and "edited after" not in uploaded.locator(".view-lines").inner_text(), "the uploaded ops.py from HDFS")
    (workspace / "pkg" / "ops.py").write_text(OPS)
    workbench.context_menu(row_of_job.first, "Dismiss Failure Explanation")
    workbench.wait_for(lambda: not why_rows(workbench), "the error to leave Problems")


def test_running_the_config_again_replaces_the_old_error(workbench):
    first, _ = run_and_wait_for_the_problem(workbench)
    second, _ = run_and_wait_for_the_problem(workbench, not_job=first)
    workbench.wait_for(lambda: [r for r in why_rows(workbench)] and all(second in r for r in why_rows(workbench)),
                       "only the new run's error")


def test_a_job_that_failed_from_the_terminal_shows_its_class_on_its_row(workbench, workspace, user):
    """Not run from this window: its row in the Jobs view still says why it failed (asked of the daemon once)."""
    submitted = user.pai("run", str(workspace / "failing.pai.json"))
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.split()[1]
    workbench.wait_for(lambda: user.pai("status", job).stdout.startswith(f"{job}: FAILED"), "the job to fail", timeout=90)
    workbench.command("PAI: Focus on Jobs View")
    workbench.command("PAI: Refresh Jobs")
    row = workbench.view_rows("Jobs").filter(has_text=job)
    workbench.wait_for(lambda: row.count() and "Python exception: KeyError" in row.first.inner_text(), "the class on the row")
    assert not [r for r in why_rows(workbench) if job in r]  # no Error in Problems for a job the user did not run here
    workbench.screenshot("why-row-from-the-terminal")
