"""Clusters in a real VS Code: opening the PAI views on a fresh machine, and adding a second cluster with
a password that goes to the OS keyring (gnome-keyring here) — the CLI then sees the same profile, and no
file anywhere under the user's dirs holds the password."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(600)

PASSWORD = "alice-Secret-9f3c1e"  # the lab cluster's password for alice: must end up in the keyring only


def processes(user, module: str) -> list[str]:
    return [" ".join(p.cmdline()) for p in user.leftovers() if f"pai_lsp {module}" in " ".join(p.cmdline())]


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
    workbench.type_into_input(PASSWORD, "Password of alice on lab")
    workbench.wait_for(lambda: any("Added cluster lab and logged in as alice." in t for t in workbench.toasts()), "the cluster added")
    lab = workbench.view_rows("Clusters").filter(has_text="lab")
    workbench.wait_for(lambda: lab.count() and "logged in" in lab.first.inner_text(), "lab in the Clusters view, logged in")
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


def test_a_wrong_password_is_one_clear_error(workbench, user):
    url = user.pai("cluster", "list").stdout.split("lab", 1)[1].split()[0]
    workbench.clear_notifications()
    workbench.command("PAI: Add Cluster…")
    for prompt, answer in (("Cluster name", "lab2"), ("REST server URL", url), ("WebHDFS URL", url), ("Your user name", "alice")):
        workbench.type_into_input(answer, prompt)
    workbench.pick("openpai")
    workbench.type_into_input("not-the-password", "Password of alice on lab2")
    errors = workbench.wait_for(lambda: workbench.error_toasts(), "an error notification", errors=False)
    assert len(errors) == 1 and "password" in errors[0].lower(), errors
    workbench.screenshot("wrong-password")
    holders = [str(p) for p in user.root.rglob("*") if p.is_file() and not p.is_symlink() and b"not-the-password" in p.read_bytes()]
    assert holders == []
