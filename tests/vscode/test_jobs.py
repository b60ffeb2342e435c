"""Running a job from a real VS Code and working with it, as a user does: right-click the config →
Run Job Locally → its log fills the Output channel `PAI: <job>` while the Jobs view follows its state;
then Download Outputs, and the job's code folder in the HDFS view: list, upload a file, delete it.
The tests run in order and share one window, as one user's session does."""

from __future__ import annotations

import getpass
import json
import re
import time

import pytest

pytestmark = pytest.mark.timeout(600)

session: dict[str, str] = {}  # what earlier steps learned (the job's name), for the later ones


def the_job() -> str:
    """The mnist job the first test ran (the tests of this module are one session, in order)."""
    if "job" not in session:
        pytest.fail("no job: test_run_job_locally_shows_its_log_and_state runs first and did not get one")
    return session["job"]


def job_row(workbench, job: str, state: str = ""):
    return workbench.view_rows("Jobs").filter(has_text=job).filter(has_text=state)


def test_run_job_locally_shows_its_log_and_state(workbench):
    workbench.open_file("mnist.pai.json")
    started = time.monotonic()
    workbench.context_menu(workbench.explorer_row("mnist.pai.json"), "Run Job Locally")
    # Within 30 s the job's own Output channel is open and shows its training log.
    workbench.wait_for(lambda: (channel := workbench.output_channel()).startswith("PAI: mnist_") and channel,
                       "the job's Output channel to open", timeout=30)
    workbench.wait_for(lambda: "epoch 1/3" in workbench.output_text(), "the first log line", timeout=30 - (time.monotonic() - started))
    job = workbench.output_channel().removeprefix("PAI: ")
    session["job"] = job
    workbench.wait_for(lambda: "epoch 3/3" in workbench.output_text() and "done" in workbench.output_text(), "the whole log")
    # The Jobs view shows it under the local cluster, SUCCEEDED, without a refresh from the user.
    workbench.command("PAI: Focus on Jobs View")
    workbench.wait_for(lambda: job_row(workbench, job, "SUCCEEDED").count(), f"{job} SUCCEEDED in the Jobs view")
    assert any(label.startswith("local") for label in workbench.view_labels("Jobs"))
    assert any(f"Job {job} SUCCEEDED" in toast for toast in workbench.notifications())
    workbench.close_notifications()
    workbench.screenshot("job-log")
    # The log stays after the job ended: reopened from the Jobs view it shows the same lines.
    workbench.show_output("Tasks")
    workbench.context_menu(job_row(workbench, job).first, "Show Logs")
    workbench.wait_for(lambda: workbench.output_channel() == f"PAI: {job}" and "epoch 3/3" in workbench.output_text(), "the log again")
    assert [line for line in workbench.output_text().splitlines() if line.startswith("epoch")] == [
        "epoch 1/3 loss=1.3800", "epoch 2/3 loss=0.8280", "epoch 3/3 loss=0.4968"]


def test_download_outputs_writes_the_file(workbench, workspace):
    job = the_job()
    dest = workspace.parent / "downloads"
    dest.mkdir()
    workbench.context_menu(job_row(workbench, job).first, "Download Outputs")
    workbench.file_dialog(dest, "Download Here")
    workbench.wait_for(lambda: any(f"Downloaded the outputs of {job}" in t for t in workbench.toasts()), "the download to finish")
    result = dest / job / "result.txt"
    assert result.is_file() and result.stat().st_size > 0, sorted(p.name for p in dest.rglob("*"))


def test_show_tasks_and_open_config(workbench):
    job = the_job()
    workbench.context_menu(job_row(workbench, job).first, "Show Tasks")
    task = workbench.view_rows("Jobs").filter(has_text="train:0")
    workbench.wait_for(lambda: task.count() and "SUCCEEDED" in task.first.inner_text(), "the task train:0 SUCCEEDED")
    assert "exit 0" in task.first.inner_text(), task.first.inner_text()
    # The config as it was submitted: the unique name, the variables filled in, read-only.
    workbench.context_menu(job_row(workbench, job).first, "Open Config")
    config = workbench.editor(f"{job}.pai.json", scheme="pai-job:")
    config.wait_for(state="visible")
    workbench.wait_for(lambda: f'"jobName": "{job}"' in workbench.editor_text(f"{job}.pai.json"), "the submitted config")
    before = workbench.editor_text(f"{job}.pai.json")
    config.locator(".view-lines").click()
    workbench.page.keyboard.type("typed")
    assert workbench.editor_text(f"{job}.pai.json") == before  # read-only: nothing typed lands in it


def hdfs_row(workbench, path: str, view: str = "HDFS"):
    """A row of the HDFS view by its full path (its aria-label); `view`: the view's title where it is."""
    return workbench.view_rows(view).and_(workbench.page.locator(f"[aria-label^='{path},']"))


def expand(workbench, path: str, view: str = "HDFS") -> None:
    row = hdfs_row(workbench, path, view)
    workbench.wait_for(lambda: row.count(), f"{path} in the HDFS view")
    if row.first.get_attribute("aria-expanded") != "true":
        row.first.click()
    workbench.wait_for(lambda: row.first.get_attribute("aria-expanded") == "true", f"{path} to expand")


def test_hdfs_view_lists_the_uploaded_code_and_uploads_and_deletes(workbench, workspace, user):
    job = the_job()
    code = f"/{getpass.getuser()}/{job}"  # codeDir of examples/mnist on the local cluster
    workbench.command("PAI: Focus on HDFS View")
    for folder in ("/", code.rsplit("/", 1)[0], code):
        expand(workbench, folder)
    workbench.wait_for(lambda: hdfs_row(workbench, f"{code}/train.py").count(), "train.py in the job's code folder")
    # A click opens the uploaded file read-only in an editor.
    hdfs_row(workbench, f"{code}/train.py").first.click()
    editor = workbench.editor("train.py", scheme="pai-hdfs:")
    editor.wait_for(state="visible")
    workbench.wait_for(lambda: "argparse" in editor.locator(".view-lines").inner_text(), "train.py's text from HDFS")
    workbench.clear_notifications()
    workbench.screenshot("hdfs-explorer", docs="vscode-hdfs.png")

    notes = workspace.parent / "notes.txt"
    notes.write_text("uploaded from the HDFS view\n")
    workbench.context_menu(hdfs_row(workbench, code).first, "Upload File…")
    workbench.file_dialog(notes, "Upload to")
    workbench.wait_for(lambda: hdfs_row(workbench, f"{code}/notes.txt").count(), "notes.txt in the HDFS view")
    listed = user.pai("hdfs", "ls", code)
    assert "notes.txt" in listed.stdout, listed.stdout + listed.stderr

    workbench.context_menu(hdfs_row(workbench, f"{code}/notes.txt").first, "Delete")
    assert f"{code}/notes.txt" in workbench.dialog("Delete")
    workbench.wait_for(lambda: not hdfs_row(workbench, f"{code}/notes.txt").count(), "notes.txt to leave the HDFS view")
    listed = user.pai("hdfs", "ls", code)
    assert listed.returncode == 0 and "notes.txt" not in listed.stdout and "train.py" in listed.stdout, listed.stdout + listed.stderr


def test_hdfs_view_new_folder_rename_and_download(workbench, workspace, user):
    code = f"/{getpass.getuser()}/{the_job()}"
    workbench.context_menu(hdfs_row(workbench, code).first, "New Folder…")
    workbench.type_into_input("results", f"New folder in {code}")
    workbench.wait_for(lambda: hdfs_row(workbench, f"{code}/results").count(), "the new folder")
    workbench.context_menu(hdfs_row(workbench, f"{code}/results").first, "Rename…")
    workbench.type_into_input("results-v2", f"Rename {code}/results")
    workbench.wait_for(lambda: hdfs_row(workbench, f"{code}/results-v2").count() and not hdfs_row(workbench, f"{code}/results").count(),
                       "the folder renamed")
    # A file too big to open in an editor says so, in one message.
    big = workspace.parent / "big.bin"
    big.write_bytes(b"\0" * (6 << 20))
    put = user.pai("hdfs", "put", str(big), f"{code}/results-v2/big.bin")
    assert put.returncode == 0, put.stdout + put.stderr
    expand(workbench, f"{code}/results-v2")
    workbench.wait_for(lambda: hdfs_row(workbench, f"{code}/results-v2/big.bin").count(), "big.bin in the view")
    workbench.clear_notifications()
    hdfs_row(workbench, f"{code}/results-v2/big.bin").first.click()
    errors = workbench.wait_for(lambda: workbench.error_toasts(), "the message about the big file", errors=False)
    assert len(errors) == 1 and "not opened in the editor. Download it instead." in errors[0], errors
    workbench.clear_notifications()

    dest = workspace.parent / "from-hdfs"
    dest.mkdir()
    workbench.context_menu(hdfs_row(workbench, f"{code}/train.py").first, "Download…")
    workbench.file_dialog(dest, "Download Here")
    workbench.wait_for(lambda: (dest / "train.py").exists() and (dest / "train.py").read_bytes() == (workspace / "train.py").read_bytes(),
                       "train.py downloaded as uploaded")

    # Copy Path, then Delete of a folder: asked first, gone with everything in it.
    folder = f"{code}/results-v2"
    workbench.context_menu(hdfs_row(workbench, folder).first, "Copy Path")
    workbench.wait_for(lambda: workbench.page.evaluate("navigator.clipboard.readText()") == folder, "the path in the clipboard")
    workbench.context_menu(hdfs_row(workbench, folder).first, "Delete")
    assert f"Delete the folder {folder} and everything in it?" in workbench.dialog("Delete")
    workbench.wait_for(lambda: not hdfs_row(workbench, folder).count(), "the folder to leave the HDFS view")
    gone = user.pai("hdfs", "stat", folder)
    assert gone.returncode == 3 and "no such file" in gone.stderr, gone.stdout + gone.stderr


def test_dragging_a_folder_from_the_explorer_uploads_it_into_an_hdfs_folder(workbench, workspace, user):
    """Both views in sight, as a user arranges them (View: Move View puts HDFS under the Explorer): a
    folder dragged from the Explorer onto an HDFS folder is uploaded into it, files and all."""
    code = f"/{getpass.getuser()}/{the_job()}"
    (workspace / "labels").mkdir()
    (workspace / "labels" / "train.csv").write_text("id,label\n1,cat\n")
    (workspace / "labels" / "test.csv").write_text("id,label\n2,dog\n")
    workbench.clear_notifications()
    workbench.command("View: Move View")
    workbench.pick("HDFS")
    workbench.pick("Explorer, Side Bar")
    try:
        workbench.command("File: Focus on Files Explorer")
        for folder in ("/", code.rsplit("/", 1)[0], code):
            expand(workbench, folder, view="PAI: HDFS")
        source = workbench.explorer_row("labels")
        source.wait_for(state="visible")
        source.drag_to(hdfs_row(workbench, code, view="PAI: HDFS").first)
        workbench.wait_for(lambda: f"Info: Uploaded 2 files to {code}" in workbench.toasts(), "the upload to finish")
        # The HDFS pane under the Explorer is small: its list shows the rows scrolled to (the folder's new ones are below).
        hdfs_row(workbench, code, view="PAI: HDFS").first.hover()
        workbench.wait_for(lambda: workbench.page.mouse.wheel(0, 300) or hdfs_row(workbench, f"{code}/labels", view="PAI: HDFS").count(),
                           "labels in the HDFS view")
        workbench.screenshot("dragged-to-hdfs")
        for name in ("train.csv", "test.csv"):
            uploaded = user.pai("hdfs", "cat", f"{code}/labels/{name}")
            assert uploaded.returncode == 0 and uploaded.stdout == (workspace / "labels" / name).read_text(), uploaded.stderr
    finally:
        workbench.command("View: Reset View Locations")


LONG_TRAIN = """import time

loss = 2.3
for step in range(1, 1201):
    loss *= 0.995
    print(f"step {step}/1200 loss={loss:.4f}", flush=True)
    time.sleep(0.5)
"""


def test_a_running_job_streams_its_log_and_stops_on_request(workbench, workspace, user):
    (workspace / "long_train.py").write_text(LONG_TRAIN)
    config = (workspace / "mnist.pai.json").read_text().replace('"jobName": "mnist"', '"jobName": "long_train"').replace(
        "python3 train.py --epochs 3 --out $PAI_OUTPUT_DIR", "python3 long_train.py")
    (workspace / "long_train.pai.json").write_text(config)
    editor = workbench.open_file("long_train.pai.json")
    workbench.context_menu(editor.locator(".view-lines"), "Run Job Locally")  # the editor's own context menu
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: long_train_"), "the job's Output channel")
    job = workbench.output_channel().removeprefix("PAI: ")
    workbench.command("PAI: Focus on Jobs View")
    workbench.wait_for(lambda: job_row(workbench, job, "RUNNING").count(), f"{job} RUNNING in the Jobs view")
    status = workbench.page.locator(".statusbar-item").filter(has_text="PAI: 1 running")
    workbench.wait_for(lambda: status.count(), "'PAI: 1 running' in the status bar")
    # Live: new lines keep arriving while the job runs.
    seen = workbench.wait_for(lambda: steps(workbench.output_text()) >= 3 and steps(workbench.output_text()), "a few steps")
    workbench.wait_for(lambda: steps(workbench.output_text()) > seen + 2, "more steps while it runs")
    workbench.clear_notifications()
    workbench.screenshot("job-running", docs="vscode-job-log.png")

    # The daemon dies (killed, as a crash would): the log goes on, no line lost or repeated.
    (daemon,) = [p for p in user.leftovers() if "pai_lsp daemon serve" in " ".join(p.cmdline())]
    daemon.kill()
    before = steps(workbench.output_text())
    workbench.wait_for(lambda: steps(workbench.output_text()) > before + 4, "the log to go on after the daemon died")
    # The lines on screen (the editor renders only those) span the moment it died and run on without a gap.
    numbers = [int(line.split()[1].split("/")[0]) for line in workbench.output_text().splitlines() if line.startswith("step ")]
    assert numbers[0] <= before < numbers[-1] and numbers == list(range(numbers[0], numbers[0] + len(numbers))), numbers

    workbench.context_menu(job_row(workbench, job).first, "Stop Job")
    assert job in workbench.dialog("Stop Job")
    workbench.wait_for(lambda: job_row(workbench, job, "STOPPED").count(), f"{job} STOPPED in the Jobs view")
    workbench.wait_for(lambda: not status.count(), "the status bar item to go")
    assert steps(workbench.output_text()) < 1200  # stopped long before it would have ended


def steps(text: str) -> int:
    """The last training step the log shows."""
    return max((int(line.split()[1].split("/")[0]) for line in text.splitlines() if line.startswith("step ")), default=0)


def test_a_job_of_several_tasks(workbench, workspace):
    """Two tasks: each log line says which task wrote it; Show Tasks lists both with their labelled
    ports; Copy SSH Command asks which task and copies its command."""
    (workspace / "long_train.py").write_text(LONG_TRAIN)
    config = json.loads((workspace / "mnist.pai.json").read_text())
    config["jobName"] = "pair"
    config["taskRoles"][0].update(taskNumber=2, memoryMB=512, command="cd $PAI_JOB_NAME && python3 long_train.py", portList=[
        {"label": "ssh", "beginAt": 0, "portNumber": 1}, {"label": "jupyter", "beginAt": 0, "portNumber": 1}])
    (workspace / "pair.pai.json").write_text(json.dumps(config, indent=2))
    workbench.command("File: Focus on Files Explorer")
    workbench.context_menu(workbench.explorer_row("pair.pai.json"), "Run Job Locally")
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: pair_"), "the job's Output channel")
    job = workbench.output_channel().removeprefix("PAI: ")
    workbench.wait_for(lambda: all(f"[train:{i}] step 2/1200" in workbench.output_text() for i in (0, 1)), "both tasks' logs")
    lines = [line for line in workbench.output_text().splitlines() if line.strip()]
    assert all(re.match(r"\[train:[01]\] step \d+/1200 loss=", line) for line in lines), lines

    workbench.command("PAI: Focus on Jobs View")
    workbench.wait_for(lambda: job_row(workbench, job, "RUNNING").count(), f"{job} RUNNING in the Jobs view")
    workbench.context_menu(job_row(workbench, job).first, "Show Tasks")
    def running_tasks() -> list[str]:  # (the mnist job's task, shown above, has ended)
        rows = [t for t in workbench.view_texts("Jobs") if t.startswith("train:") and "RUNNING" in t]
        return rows if len(rows) == 2 and all("ssh" in t and "jupyter" in t for t in rows) else []

    tasks = workbench.wait_for(running_tasks, "both tasks with their ports")
    port = re.search(r"ssh (\d+)", tasks[1]).group(1)
    assert re.match(r"train:1 RUNNING · (CPU [^·]+ · mem [^·]+ · )?127\.0\.0\.1 · ssh ", tasks[1]), tasks  # (its figures once sampled)
    workbench.screenshot("job-tasks")
    workbench.context_menu(job_row(workbench, job).first, "Copy SSH Command")
    workbench.pick("train:1")
    command = f"ssh -p {port} root@127.0.0.1"
    workbench.wait_for(lambda: f"Info: Copied: {command}" in workbench.toasts(), "the command copied")
    assert workbench.page.evaluate("navigator.clipboard.readText()") == command

    workbench.context_menu(job_row(workbench, job).first, "Stop Job")
    assert job in workbench.dialog("Stop Job")
    workbench.wait_for(lambda: job_row(workbench, job, "STOPPED").count(), f"{job} STOPPED in the Jobs view")


def test_running_a_config_with_a_mistake_says_why_and_submits_nothing(workbench, workspace):
    bad = (workspace / "mnist.pai.json").read_text().replace('"memoryMB"', '"memoryMb"').replace('"jobName": "mnist"', '"jobName": "broken"')
    (workspace / "broken.pai.json").write_text(bad)
    workbench.clear_notifications()
    workbench.command("File: Focus on Files Explorer")
    workbench.context_menu(workbench.explorer_row("broken.pai.json"), "Run Job Locally")
    errors = workbench.wait_for(lambda: workbench.error_toasts(), "an error notification", errors=False)
    # The file as the Explorer names it, then the reason: what the collapsed notification shows.
    assert len(errors) == 1 and errors[0].startswith('Error: broken.pai.json:11:7: Unknown key "memoryMb"'), errors
    workbench.screenshot("run-refused")
    # Nothing is left in progress: the "Running … locally" notification closes with the refusal.
    workbench.wait_for(lambda: not [t for t in workbench.toasts() if "Running broken.pai.json locally" in t],
                       "the progress notification to close", timeout=15, errors=False)
    workbench.command("PAI: Focus on Jobs View")
    assert not job_row(workbench, "broken").count()


PADDLE_TRAIN = """import os
print("trainer", os.environ["PADDLE_INIT_TRAINER_ID"], "pservers", os.environ["PADDLE_INIT_PSERVERS"], flush=True)
"""


def test_a_paddle_job_file_runs_like_a_pai_config(workbench, workspace):
    """A PaddlePaddle Cloud job file (*.paddle.json): the same menu runs it on the local cluster's
    PaddlePaddle Cloud API, its workers' logs fill its channel, and Open Config shows it as a job file."""
    (workspace / "paddle_train.py").write_text(PADDLE_TRAIN)
    job_file = {"name": "fit-a-line", "parallelism": 2, "pservers": 1, "memory": "256Mi", "psmemory": "256Mi",
                "entry": "python3 paddle_train.py"}
    (workspace / "fit.paddle.json").write_text(json.dumps(job_file, indent=2))
    workbench.clear_notifications()
    workbench.command("File: Focus on Files Explorer")
    workbench.context_menu(workbench.explorer_row("fit.paddle.json"), "Run Job Locally")
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: fit-a-line-"), "the job's Output channel")
    job = workbench.output_channel().removeprefix("PAI: ")
    workbench.wait_for(lambda: all(f"] trainer {i} pservers " in workbench.output_text() for i in (0, 1)), "both trainers' lines")
    workbench.command("PAI: Focus on Jobs View")

    def succeeded() -> int:
        # local-paddle's rows are the last of the view, below the fold of a pane that shares the side bar with
        # HDFS, Storages and Clusters (only the rows in sight are on the page): End brings them into sight
        workbench.page.keyboard.press("End")
        return job_row(workbench, job, "SUCCEEDED").count()

    workbench.wait_for(succeeded, f"{job} SUCCEEDED in the Jobs view")
    rows = workbench.view_texts("Jobs")
    assert rows.index(next(r for r in rows if r.startswith("local-paddle"))) < rows.index(next(r for r in rows if r.startswith(job)))
    workbench.context_menu(job_row(workbench, job).first, "Open Config")
    workbench.editor(f"{job}.paddle.json", scheme="pai-job:").wait_for(state="visible")
    workbench.wait_for(lambda: '"entry": "python3 paddle_train.py"' in workbench.editor_text(f"{job}.paddle.json"), "the job file")



def test_a_v2_job_file_runs_locally_like_a_pai_config(workbench):
    """examples/mnist/mnist.pai.yaml, the same job in protocol v2: Run Job Locally from the explorer, its
    code uploaded to extras.codeDir and run, its log in its Output channel, SUCCEEDED in the Jobs view."""
    workbench.clear_notifications()
    workbench.command("File: Focus on Files Explorer")
    workbench.context_menu(workbench.explorer_row("mnist.pai.yaml"), "Run Job Locally")
    workbench.wait_for(lambda: (channel := workbench.output_channel()).startswith("PAI: mnist_") and channel != f"PAI: {the_job()}",
                       "the new job's Output channel")
    job = workbench.output_channel().removeprefix("PAI: ")
    workbench.wait_for(lambda: "epoch 3/3" in workbench.output_text() and "done" in workbench.output_text(), "the whole log")
    assert [line for line in workbench.output_text().splitlines() if line.startswith("epoch")] == [
        "epoch 1/3 loss=1.3800", "epoch 2/3 loss=0.8280", "epoch 3/3 loss=0.4968"]
    workbench.command("PAI: Focus on Jobs View")
    workbench.wait_for(lambda: job_row(workbench, job, "SUCCEEDED").count(), f"{job} SUCCEEDED in the Jobs view")
