"""The bash that runs job commands: found on each OS's layout (Windows' given as `PureWindowsPath`s:
Git for Windows, MSYS2, never WSL's), chosen with PAI_LSP_BASH, and a job refused with one line
saying what to install when there is none (accepted, then FAILED with the reason, as the scheduler
of a real cluster fails a job it can never place)."""

from __future__ import annotations

from pathlib import PureWindowsPath

import pytest

from pai_lsp.localcluster.runner import shell_environment
from pai_lsp.localcluster.shell import ENV, find_bash, missing, search_path

from ..helpers.localcluster import detail, finished, job, log, own_cluster, role, submit

WINDOWS = {"SystemDrive": "C:", "SystemRoot": r"C:\Windows", "ProgramFiles": r"C:\Program Files",
           "ProgramW6432": r"C:\Program Files", "ProgramFiles(x86)": r"C:\Program Files (x86)",
           "LOCALAPPDATA": r"C:\Users\me\AppData\Local", "USERPROFILE": r"C:\Users\me",
           "Path": r"C:\WINDOWS\system32;C:\Users\me\AppData\Local\Microsoft\WindowsApps;C:\Python312"}
WSL = (r"C:\Windows\System32\bash.exe", r"C:\Users\me\AppData\Local\Microsoft\WindowsApps\bash.exe")


def on_windows(*files: str, git: str | None = None, **environ: str) -> str | None:
    """What discovery picks on a Windows machine holding `files` (and WSL's bash, always there), whose
    `git --exec-path` prints `git`."""
    present = {PureWindowsPath(f) for f in (*files, *WSL)}  # Windows paths: compared without case
    return find_bash("win32", {**WINDOWS, **environ}, lambda p: PureWindowsPath(p) in present, lambda: git)


def test_git_for_windows_is_found_from_the_git_on_path():
    git = r"D:\Tools\Git\bin\bash.exe"
    assert on_windows(git, git="D:/Tools/Git/mingw64/libexec/git-core") == git
    # MSYS2's git (its mingw64 package) leads to MSYS2's bash.
    msys = r"E:\msys64\usr\bin\bash.exe"
    assert on_windows(msys, git="E:/msys64/mingw64/libexec/git-core") == msys


def test_the_usual_install_folders_without_git_on_path():
    assert on_windows(r"C:\Program Files\Git\bin\bash.exe") == r"C:\Program Files\Git\bin\bash.exe"
    assert on_windows(r"C:\Program Files (x86)\Git\bin\bash.exe") == r"C:\Program Files (x86)\Git\bin\bash.exe"
    mine = r"C:\Users\me\AppData\Local\Programs\Git\bin\bash.exe"  # installed for this user only
    assert on_windows(mine) == mine
    scoop = r"C:\Users\me\scoop\apps\git\current\bin\bash.exe"
    assert on_windows(scoop) == scoop
    assert on_windows(r"C:\msys64\usr\bin\bash.exe") == r"C:\msys64\usr\bin\bash.exe"
    # Git for Windows comes before MSYS2; any bash on PATH (not WSL's) last.
    assert on_windows(r"C:\msys64\usr\bin\bash.exe", r"C:\Program Files\Git\bin\bash.exe") == r"C:\Program Files\Git\bin\bash.exe"
    cygwin = r"C:\cygwin64\bin\bash.exe"
    assert on_windows(cygwin, Path=WINDOWS["Path"] + r";C:\cygwin64\bin") == cygwin


def test_wsl_bash_is_never_taken_and_the_refusal_says_what_to_install():
    assert on_windows() is None  # WSL's bash.exe is in System32 and WindowsApps, both on PATH
    line = missing({})
    assert "\n" not in line and "Git for Windows" in line and "MSYS2" in line and ENV in line and "WSL" in line


def test_pai_lsp_bash_chooses_and_a_missing_choice_is_named():
    assert on_windows(r"C:\Program Files\Git\bin\bash.exe", r"F:\bash.exe", PAI_LSP_BASH=r"F:\bash.exe") == r"F:\bash.exe"
    assert on_windows(r"C:\Program Files\Git\bin\bash.exe", PAI_LSP_BASH=r"F:\gone.exe") is None
    assert missing({ENV: r"F:\gone.exe"}).startswith(r"PAI_LSP_BASH names F:\gone.exe, which does not exist")


def test_linux_and_macos_use_bin_bash_then_path():
    assert find_bash("linux", {"PATH": "/usr/bin"}, lambda p: p in {"/bin/bash", "/usr/bin/bash"}) == "/bin/bash"
    assert find_bash("darwin", {"PATH": "/nix/bin:/usr/bin"}, lambda p: p == "/nix/bin/bash") == "/nix/bin/bash"
    assert find_bash("linux", {"PATH": "/usr/bin"}, lambda p: False) is None


def test_a_task_finds_msys2s_tools_after_the_users_own_programs():
    path = r"C:\Python312;C:\Windows\system32"
    assert search_path(r"C:\msys64\usr\bin\bash.exe", path, "win32") == path + r";C:\msys64\usr\bin"
    assert search_path(r"C:\msys64\usr\bin\bash.exe", path + r";c:\MSYS64\usr\bin", "win32") == path + r";c:\MSYS64\usr\bin"
    assert search_path("/bin/bash", "/usr/bin:/bin", "linux") == "/usr/bin:/bin"


@pytest.mark.subprocess
def test_the_chosen_bash_runs_job_commands_and_without_one_a_job_fails_with_what_to_install(tmp_path):
    chosen = tmp_path / "my-bash"
    chosen.symlink_to("/bin/bash")
    with own_cluster(tmp_path / "chosen", env={ENV: str(chosen)}) as cluster, cluster.client() as c:
        assert submit(c, job("which", role("r", 'echo "run by $0"'))).is_success
        assert finished(c, "which")["jobStatus"]["state"] == "SUCCEEDED"
        assert log(cluster, c, "which", "r").strip() == f"run by {chosen}"
    gone = tmp_path / "no-bash-here"
    with own_cluster(tmp_path / "none", env={ENV: str(gone)}) as cluster, cluster.client() as c:
        answer = submit(c, job("refused", role("r", "echo never")))
        assert answer.status_code == 201, answer.text  # the REST server takes it; it can never run here
        status = detail(c, "refused")["jobStatus"]
        assert (status["state"], status["appExitCode"]) == ("FAILED", -7201)
        assert status["appExitDiagnostics"] == f"{ENV} names {gone}, which does not exist: the local cluster runs job commands with bash."
        assert list((tmp_path / "none" / "jobs").glob("*refused")) and not list((tmp_path / "none" / "jobs").glob("*refused/*/*"))


def test_a_windows_task_keeps_what_windows_programs_need_and_no_secret():
    cluster_env = {"Path": r"C:\Python312", "SystemRoot": r"C:\Windows", "ComSpec": r"C:\Windows\system32\cmd.exe",
                   "TEMP": r"C:\Users\me\AppData\Local\Temp", "USERPROFILE": r"C:\Users\me", "LC_ALL": "C.UTF-8",
                   "PAI_LSP_SECRET": "s3cret", "GITHUB_TOKEN": "t0ken", "AWS_SECRET_ACCESS_KEY": "k3y"}
    assert sorted(shell_environment(cluster_env, "win32")) == ["ComSpec", "LC_ALL", "Path", "SystemRoot", "TEMP", "USERPROFILE"]
    assert shell_environment(cluster_env, "linux") == {"LC_ALL": "C.UTF-8"}  # Linux names are exact: PATH, not Path
