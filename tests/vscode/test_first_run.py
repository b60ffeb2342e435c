"""A new user's first job in a real VS Code: a folder with `train.py` and the most natural v2 job file
(`commands: [python3 train.py]`, nothing about where the code goes). The Storages view lists the local
cluster's storages; right-click the job file in the Explorer → Submit Job to PAI Cluster: the code goes
to the default storage, the job mounts it, the notification says where ("1 file → storage
local:/<user>~<job>, mounted at /mnt/local"), the job's log shows train.py's output and the job ends
SUCCEEDED, with the file on disk as the user wrote it; the notification's Show in Storages opens the
job's code folder. The tests run in order and share one window."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from ..helpers.configs import FIRST_RUN

pytestmark = pytest.mark.timeout(600)

TRAIN = "import sys\nprint('hello from train.py', sys.argv[0], flush=True)\n"


session: dict[str, str] = {}  # what earlier steps learned (the job's name), for the later ones


@pytest.fixture(scope="module")
def workspace(user) -> Path:
    folder = user.home / "first-run"
    folder.mkdir()
    (folder / "train.py").write_text(TRAIN)
    (folder / "job.pai.yaml").write_text(FIRST_RUN)
    return folder


def job_row(workbench, job: str, state: str = ""):
    return workbench.view_rows("Jobs").filter(has_text=job).filter(has_text=state)


def test_the_storages_view_lists_the_local_clusters_storages(workbench):
    """Nothing set up by hand: the embedded local cluster's default storage is there, marked default."""
    workbench.command("PAI: Focus on Storages View")
    shown = workbench.wait_for(lambda: [t for t in workbench.view_texts("Storages") if t.startswith("local ")],
                               "the local storage in the Storages view", timeout=120)
    assert shown == ["local unknown · /mnt/local · default"], workbench.view_texts("Storages")


def test_submit_from_the_explorer_sends_the_code_through_the_storage(workbench, workspace):
    workbench.clear_notifications()
    workbench.open_file("job.pai.yaml")  # as the user wrote it
    workbench.context_menu(workbench.explorer_row("job.pai.yaml"), "Submit Job to PAI Cluster")
    told = workbench.wait_for(lambda: [t for t in workbench.toasts() if "→ storage local:/" in t],
                              "the notification that says where the code went", timeout=120)
    user = getpass.getuser()
    assert len(told) == 1 and ", mounted at /mnt/local" in told[0], told
    folder = told[0].split("→ storage local:/")[1].split(",")[0]
    assert folder.startswith(f"{user}~firstrun_"), told
    assert told[0].startswith("Info: 1 file → storage"), told
    session["job"] = folder.removeprefix(f"{user}~")
    assert (workspace / "job.pai.yaml").read_text() == FIRST_RUN  # no hand edit, and none by the editor either


def storage_row(workbench, path: str):
    """A file or folder of a storage in the Storages view, by its path there (its tooltip starts with it)."""
    return workbench.view_rows("Storages").and_(workbench.page.locator(f"[aria-label^='{path} (in jobs: ']"))


def test_the_jobs_log_shows_train_py_output_and_it_succeeds(workbench):
    job = session.get("job") or pytest.fail("no job: the submit test runs first and did not get one")
    # The job's log opens by itself, as the user sees it after a submit.
    workbench.wait_for(lambda: workbench.output_channel() == f"PAI: {job}", "the job's Output channel")
    workbench.wait_for(lambda: "hello from train.py train.py" in workbench.output_text(), "train.py's output in the log", timeout=120)
    workbench.command("PAI: Focus on Jobs View")
    workbench.wait_for(lambda: job_row(workbench, job, "SUCCEEDED").count(), f"{job} SUCCEEDED in the Jobs view", timeout=120)
    workbench.wait_for(lambda: not [t for t in workbench.toasts() if t.startswith("Info: Submitting job.pai.yaml")],
                       "the submit's progress notification to close", errors=False)
    workbench.screenshot("first-run", docs="vscode-first-run.png")


def test_show_in_storages_opens_the_jobs_code_folder(workbench, user):
    """The notification's button: the job's code folder, expanded and selected in the Storages view;
    the terminal finds the same file there."""
    job = session.get("job") or pytest.fail("no job: the submit test runs first and did not get one")
    told = workbench.page.locator(".notification-list-item").filter(has_text="→ storage local:/")
    if not told.first.is_visible():  # its toast has gone: the notification centre keeps it
        workbench.notifications()
    told.first.locator(".monaco-button").filter(has_text="Show in Storages").click()
    folder = f"/{getpass.getuser()}~{job}"
    row = storage_row(workbench, folder)
    workbench.wait_for(lambda: row.count() and row.first.get_attribute("aria-selected") == "true", f"{folder} selected in the Storages view")
    workbench.wait_for(lambda: storage_row(workbench, f"{folder}/train.py").count(), "train.py in the job's code folder")
    got = user.pai("storage", "cat", f"local:{folder}/train.py")
    assert got.returncode == 0 and got.stdout == TRAIN, got.stdout + got.stderr
    workbench.screenshot("code-folder-revealed")
    workbench.close_notifications()
