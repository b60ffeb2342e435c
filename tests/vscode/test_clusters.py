"""Clusters in a real VS Code: opening the PAI views on a fresh machine, and adding a second cluster with
a password that goes to the OS keyring (gnome-keyring here) — the CLI then sees the same profile, and no
file anywhere under the user's dirs holds the password."""

from __future__ import annotations

import os
import shutil
from urllib.parse import urlsplit

import pytest

from .harness import SlowLink
from .workbench import texts

pytestmark = pytest.mark.timeout(600)

PASSWORD = "alice-Secret-9f3c1e"  # the lab cluster's password for alice: must end up in the keyring only


def processes(user, module: str) -> list[str]:
    return [line for line in user.command_lines() if f"pai_lsp {module}" in line]


def test_opening_the_views_starts_one_daemon_and_one_local_cluster(workbench, user):
    workbench.command("View: Show PAI")  # Jobs, HDFS and Clusters load at once
    workbench.wait_for(lambda: any(text.startswith("local") for text in workbench.view_texts("Clusters")), "the local cluster listed")
    workbench.wait_for(lambda: any(label.startswith("local") for label in workbench.view_labels("Jobs")), "the Jobs view")
    workbench.wait_for(lambda: any(label.startswith("/,") for label in workbench.view_labels("HDFS")), "the HDFS view")
    assert len(processes(user, "daemon serve")) == 1, processes(user, "daemon")
    assert len(processes(user, "local-cluster")) <= 1, processes(user, "local-cluster")


def test_add_cluster_with_a_password(workbench, user, artifacts):
    url = user.start_local_cluster("lab", "alice", PASSWORD, artifacts)
    workbench.command("PAI: Add Cluster…")
    for prompt, answer in (("Cluster name", "lab"), ("REST server URL", url), ("WebHDFS URL", url), ("Your user name", "alice")):
        workbench.type_into_input(answer, prompt)
    workbench.pick("openpai")
    password_box = workbench.page.locator(".quick-input-widget .quick-input-box input[type='password']")
    password_box.wait_for(state="visible")  # typed into a password box: never shown on screen
    # A mistyped password is refused: the password box asks again, saying why; the other answers are kept.
    workbench.type_into_input("mistyped-" + PASSWORD, "Password of alice on lab")
    problem = workbench.input_problem()
    assert problem.startswith("cluster lab was not added: login to") and "Password is incorrect" in problem, problem
    workbench.type_into_input(PASSWORD)
    workbench.wait_for(lambda: any("Added cluster lab and logged in as alice." in t for t in workbench.toasts()), "the cluster added")
    workbench.wait_for(lambda: "lab default · logged in" in workbench.view_texts("Clusters"), "lab in the Clusters view, logged in")
    # The other views follow: lab (now the default, as the first cluster added) in Jobs, its HDFS home as alice's.
    workbench.wait_for(lambda: any(text.startswith("lab") for text in workbench.view_texts("Jobs")), "lab in the Jobs view")
    workbench.wait_for(lambda: any("/user/alice" in text for text in workbench.view_texts("HDFS")), "alice's home in the HDFS view")
    workbench.screenshot("clusters")

    # The CLI, in the same user's environment, sees the profile and can use it (the secret is in the keyring).
    listed = user.pai("cluster", "list")
    lab_line = [line for line in listed.stdout.splitlines() if line.lstrip("* ").startswith("lab ")]
    assert listed.returncode == 0 and lab_line and url in lab_line[0] and "alice" in lab_line[0], listed.stdout + listed.stderr
    used = user.pai("hdfs", "--cluster", "lab", "ls", "/")
    assert used.returncode == 0, used.stdout + used.stderr

    # No file under the user's home, config, state, data or VS Code dirs holds the password.
    holders = [str(p) for p in user.root.rglob("*") if p.is_file() and not p.is_symlink() and PASSWORD.encode() in p.read_bytes()]
    assert holders == []


def test_submit_to_the_added_cluster_from_the_code_lens(workbench):
    """lab is now the default: the code lens submits there, and the job runs and logs like a local one."""
    editor = workbench.open_file("mnist.pai.json")
    lens = editor.locator(".codelens-decoration a").filter(has_text="Submit Job to PAI Cluster")
    workbench.wait_for(lambda: lens.count(), "the code lens")
    lens.first.click()
    workbench.wait_for(lambda: workbench.output_channel().startswith("PAI: mnist_"), "the job's Output channel")
    job = workbench.output_channel().removeprefix("PAI: ")
    workbench.wait_for(lambda: "epoch 3/3" in workbench.output_text(), "the job's log")
    workbench.command("PAI: Focus on Jobs View")
    workbench.wait_for(lambda: any(job in text and "SUCCEEDED" in text for text in workbench.view_texts("Jobs")), f"{job} SUCCEEDED")
    rows = workbench.view_texts("Jobs")  # the job is listed under lab, not under local
    lab, here = next(i for i, t in enumerate(rows) if t.startswith("lab")), next(i for i, t in enumerate(rows) if job in t)
    assert lab < here and not any(t.startswith("local") for t in rows[lab:here]), rows
    workbench.screenshot("submitted-to-lab")


def test_open_in_web_portal(workbench, user):
    """A job on a real cluster's profile opens its page in the cluster's web portal, in a new tab (lab is
    on 127.0.0.1, which VS Code opens without asking)."""
    rows = workbench.view_rows("Jobs")
    job = next(t.split()[0] for t in workbench.view_texts("Jobs") if t.startswith("mnist_"))
    with workbench.page.context.expect_page(timeout=60_000) as opened:
        workbench.context_menu(rows.filter(has_text=job).first, "Open in Web Portal")
    lab = user.pai("cluster", "list").stdout.split("lab", 1)[1].split()[0]
    # (code-server shows a page of this machine through its own /proxy/PORT/, as for a remote user)
    assert opened.value.url.endswith(f"{urlsplit(lab).port}/job-detail.html?username=alice&jobName={job}"), opened.value.url
    opened.value.close()


def test_an_unreachable_cluster_is_one_clear_error(workbench, user):
    url = user.pai("cluster", "list").stdout.split("lab", 1)[1].split()[0]
    link = SlowLink((urlsplit(url).hostname, urlsplit(url).port), rate=None)  # the way to the cluster, until it breaks
    gone = f"http://127.0.0.1:{link.port}"
    added = user.pai("cluster", "add", "gone", "--rest", gone, "--webhdfs", gone, "--user", "alice", "--password-stdin",
                     input=PASSWORD + "\n")
    assert added.returncode == 0 and user.pai("cluster", "default", "gone").returncode == 0, added.stderr
    link.close()
    try:
        workbench.clear_notifications()
        workbench.command("File: Focus on Files Explorer")
        workbench.context_menu(workbench.explorer_row("mnist.pai.json"), "Submit Job to PAI Cluster")
        errors = workbench.wait_for(lambda: workbench.error_toasts(), "an error notification", errors=False)
        assert len(errors) == 1 and errors[0].startswith("Error: cannot reach ") and gone in errors[0], errors
    finally:
        user.pai("cluster", "default", "lab")
        user.pai("cluster", "remove", "gone")


def test_submit_can_be_cancelled_while_it_uploads(workbench, workspace, user):
    """On a slow link (lab's WebHDFS behind a relay passing 128 KB/s per connection) the upload of 80
    files of 256 KB takes long enough for the user to press Cancel on the progress notification: the
    upload stops, nothing is submitted and nothing is left on HDFS."""
    url = user.pai("cluster", "list").stdout.split("lab", 1)[1].split()[0]
    link = SlowLink((urlsplit(url).hostname, urlsplit(url).port), rate=128 * 1024)
    shards = workspace / "shards"
    shards.mkdir()
    for i in range(80):  # code the upload takes (pai.job.upload.include: **/*.py)
        (shards / f"shard_{i:02d}.py").write_text("# " + os.urandom(128 * 1024).hex() + "\n")
    added = user.pai("cluster", "add", "slow", "--rest", url, "--webhdfs", f"http://127.0.0.1:{link.port}", "--user", "alice",
                     "--password-stdin", input=PASSWORD + "\n")
    assert added.returncode == 0 and user.pai("cluster", "default", "slow").returncode == 0, added.stderr
    jobs_before = mnist_jobs(user)
    folders_before = user.pai("hdfs", "--cluster", "lab", "ls", "/alice").stdout
    try:
        workbench.clear_notifications()
        workbench.command("File: Focus on Files Explorer")
        workbench.context_menu(workbench.explorer_row("mnist.pai.json"), "Submit Job to PAI Cluster")
        progress = workbench.page.locator(".notification-toast").filter(has_text="Submitting mnist.pai.json")
        workbench.wait_for(lambda: "uploading" in " ".join(texts(progress)), "the upload under way")
        workbench.screenshot("uploading")
        progress.locator(".monaco-button").filter(has_text="Cancel").click()
        workbench.wait_for(lambda: "Info: Submit cancelled: nothing was submitted." in workbench.toasts(), "the cancel said")
        workbench.wait_for(lambda: not progress.count(), "the progress notification to close", errors=False)
        # The half-done upload is cleaned away (after the files in flight), and no job was submitted.
        workbench.wait_for(lambda: user.pai("hdfs", "--cluster", "lab", "ls", "/alice").stdout == folders_before,
                           "HDFS as it was before the submit")
        assert mnist_jobs(user) == jobs_before
    finally:
        user.pai("cluster", "default", "lab")
        user.pai("cluster", "remove", "slow")
        link.close()
        shutil.rmtree(shards)


def test_an_hdfs_upload_can_be_cancelled_and_a_replace_is_asked_first(workbench, workspace, user):
    """Cancel on an HDFS upload's progress notification is Ctrl-C of `pai hdfs put`: the daemon stops
    the transfer (on a link passing 128 KB/s, a 4 MB file is mid-way), nothing arrives and nothing is
    left in part. Uploading onto a file that is there asks first, as VS Code's own Explorer does."""
    url = user.pai("cluster", "list").stdout.split("lab", 1)[1].split()[0]
    link = SlowLink((urlsplit(url).hostname, urlsplit(url).port), rate=128 * 1024)
    added = user.pai("cluster", "add", "slow", "--rest", url, "--webhdfs", f"http://127.0.0.1:{link.port}", "--user", "alice",
                     "--password-stdin", input=PASSWORD + "\n")
    assert added.returncode == 0 and user.pai("cluster", "default", "slow").returncode == 0, added.stderr
    home = "/user/alice"
    big = workspace.parent / "big.bin"
    big.write_bytes(os.urandom(4 << 20))
    notes = workspace.parent / "notes.txt"
    try:
        workbench.command("PAI: Focus on HDFS View")
        row = workbench.view_rows("HDFS").and_(workbench.page.locator(f"[aria-label^='{home},']"))
        workbench.wait_for(lambda: row.count(), f"{home} in the HDFS view")
        workbench.clear_notifications()
        workbench.context_menu(row.first, "Upload File…")
        workbench.file_dialog(big, "Upload to")
        progress = workbench.page.locator(".notification-toast").filter(has_text="Uploading big.bin")
        workbench.wait_for(lambda: "uploading" in " ".join(texts(progress)), "the upload under way")
        progress.locator(".monaco-button").filter(has_text="Cancel").click()
        workbench.wait_for(lambda: f"Info: cancelled: nothing was written to {home}/big.bin" in workbench.toasts(), "the cancel said")
        listed = user.pai("hdfs", "--cluster", "lab", "ls", home)
        assert listed.returncode == 0 and "big.bin" not in listed.stdout, listed.stdout + listed.stderr  # nor in part

        notes.write_text("first\n")
        assert user.pai("hdfs", "--cluster", "lab", "put", str(notes), f"{home}/notes.txt").returncode == 0
        notes.write_text("second\n")
        workbench.clear_notifications()
        workbench.context_menu(row.first, "Upload File…")
        workbench.file_dialog(notes, "Upload to")
        asked = workbench.dialog("Replace")
        assert f"{home}/notes.txt exists already. Replace it?" in asked, asked
        workbench.wait_for(lambda: user.pai("hdfs", "--cluster", "lab", "cat", f"{home}/notes.txt").stdout == "second\n",
                           "notes.txt replaced")
    finally:
        user.pai("hdfs", "--cluster", "lab", "rm", f"{home}/notes.txt")
        user.pai("cluster", "default", "lab")
        user.pai("cluster", "remove", "slow")
        link.close()
        big.unlink(missing_ok=True)


def mnist_jobs(user) -> list[str]:
    listed = user.pai("jobs", "--cluster", "lab")
    assert listed.returncode == 0, listed.stderr
    return [line.split()[0] for line in listed.stdout.splitlines() if line.startswith("mnist_")]


def add_cluster(workbench, name: str, url: str, password: str) -> None:
    """Add Cluster… as a user answers it: name, REST and WebHDFS URL, user alice, kind openpai, password."""
    workbench.command("PAI: Add Cluster…")
    for prompt, answer in (("Cluster name", name), ("REST server URL", url), ("WebHDFS URL", url), ("Your user name", "alice")):
        workbench.type_into_input(answer, prompt)
    workbench.pick("openpai")
    workbench.type_into_input(password, f"Password of alice on {name}")


def test_a_refused_password_adds_nothing(workbench, user):
    url = user.pai("cluster", "list").stdout.split("lab", 1)[1].split()[0]
    workbench.clear_notifications()
    add_cluster(workbench, "lab2", url, "not-the-password")
    problem = workbench.input_problem()
    assert problem.startswith("cluster lab2 was not added: ") and "password" in problem.lower(), problem
    workbench.screenshot("wrong-password")
    workbench.page.keyboard.press("Escape")  # the user gives up: nothing was added, nothing is kept
    workbench.page.locator(".quick-input-widget").wait_for(state="hidden")
    listed = user.pai("cluster", "list")
    assert listed.returncode == 0 and "lab2" not in listed.stdout, listed.stdout
    workbench.command("PAI: Focus on Clusters View")
    workbench.command("PAI: Refresh Clusters")
    workbench.wait_for(lambda: any(text.startswith("lab ") for text in workbench.view_texts("Clusters")), "the Clusters view")
    assert not any(text.startswith("lab2") for text in workbench.view_texts("Clusters"))
    assert workbench.error_toasts() == []  # said once, in the password box
    holders = [str(p) for p in user.root.rglob("*") if p.is_file() and not p.is_symlink() and b"not-the-password" in p.read_bytes()]
    assert holders == []


def test_a_cluster_added_without_a_password_says_how_to_log_in(workbench, user):
    url = user.pai("cluster", "list").stdout.split("lab", 1)[1].split()[0]
    add_cluster(workbench, "lab2", url, "")  # empty: log in later
    workbench.wait_for(lambda: "Info: Added cluster lab2, not logged in: use Log In… on it in the Clusters view." in workbench.toasts(),
                       "the cluster added, not logged in")
    workbench.wait_for(lambda: "lab2 not logged in" in workbench.view_texts("Clusters"), "lab2 listed, not logged in")
    assert "lab2" in user.pai("cluster", "list").stdout


def test_log_in_set_default_and_remove(workbench, user):
    """lab2 (added without a password above): Log In…, Set as Default, then Remove."""
    lab2 = workbench.view_rows("Clusters").filter(has_text="lab2")
    workbench.clear_notifications()
    workbench.command("PAI: Focus on Clusters View")
    workbench.context_menu(lab2.first, "Log In…")
    workbench.type_into_input(PASSWORD, "Password of alice on lab2")
    workbench.wait_for(lambda: any("Logged in to lab2 as alice." in t for t in workbench.toasts()), "the login")
    workbench.wait_for(lambda: "lab2 logged in" in workbench.view_texts("Clusters"), "lab2 logged in")

    workbench.context_menu(lab2.first, "Set as Default")
    workbench.wait_for(lambda: "lab2 default · logged in" in workbench.view_texts("Clusters"), "lab2 the default")
    assert any(line.startswith("*") and "lab2" in line for line in user.pai("cluster", "list").stdout.splitlines())

    workbench.context_menu(lab2.first, "Remove Cluster")
    assert "lab2" in workbench.dialog("Remove")
    workbench.wait_for(lambda: not lab2.count(), "lab2 to leave the Clusters view")
    listed = user.pai("cluster", "list")
    assert listed.returncode == 0 and "lab2" not in listed.stdout and "lab " in listed.stdout, listed.stdout


def test_stop_local_cluster(workbench, user):
    local = workbench.view_rows("Clusters").filter(has_text="local")
    workbench.command("PAI: Focus on Clusters View")
    workbench.wait_for(lambda: "local running" in workbench.view_texts("Clusters"), "the local cluster running")
    assert processes(user, "local-cluster")
    workbench.context_menu(local.first, "Stop Local Cluster")
    workbench.wait_for(lambda: "Info: Stopped the local cluster." in workbench.toasts(), "the local cluster stopped")
    workbench.wait_for(lambda: "local stopped" in workbench.view_texts("Clusters"), "'local stopped' in the Clusters view")
    workbench.wait_for(lambda: not processes(user, "local-cluster"), "its process to exit")
