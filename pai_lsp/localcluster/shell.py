"""The bash that runs job commands on the host. A job's command is POSIX shell (`cd $PAI_JOB_NAME &&
python3 train.py`), as on the platform, whose containers run it with bash: here too, on every OS.

Linux and macOS have one (`/bin/bash`). On Windows it is Git for Windows' or MSYS2's, found where
VS Code's terminal finds Git Bash: `PAI_LSP_BASH`, the installation of the `git` on PATH (`git
--exec-path` is `<root>\\mingw64\\libexec\\git-core`, the bash `<root>\\bin\\bash.exe`), the usual
install folders, then PATH. Never `%SystemRoot%\\System32\\bash.exe` nor the `WindowsApps` alias:
those start WSL, a Linux machine of its own whose file system and processes are not the cluster's
(it would not see the task's folder as its working folder, nor could the cluster stop what it starts).

Discovery takes the platform, the environment and a file probe as arguments, so every OS's layout is
tested here (`PureWindowsPath`s).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import PurePath, PurePosixPath, PureWindowsPath

ENV = "PAI_LSP_BASH"
INSTALL = "Git for Windows (https://git-scm.com/download/win) or MSYS2 (https://www.msys2.org)"


def find_bash(platform: str = sys.platform, environ: Mapping[str, str] = os.environ,
              is_file: Callable[[str], bool] = os.path.isfile,
              git_exec_path: Callable[[], str | None] | None = None) -> str | None:
    """The bash to run job commands with on `platform` (a `sys.platform` value), or None. `is_file`
    and `git_exec_path` (what `git --exec-path` prints, None without git) look at the machine."""
    if explicit := environ.get(ENV):
        return explicit if is_file(explicit) else None  # a choice that does not exist is no reason to pick another
    candidates = _windows(environ, git_exec_path or _git_exec_path) if platform == "win32" else _posix(environ)
    return next((str(c) for c in candidates if is_file(str(c))), None)


def _posix(environ: Mapping[str, str]) -> Iterator[PurePath]:
    yield PurePosixPath("/bin/bash")
    for folder in environ.get("PATH", "").split(":"):
        if folder:
            yield PurePosixPath(folder, "bash")


def _windows(environ: Mapping[str, str], git_exec_path: Callable[[], str | None]) -> Iterator[PurePath]:
    env = {k.upper(): v for k, v in environ.items()}  # Windows' variables ignore case
    if exec_path := git_exec_path():
        for root in list(PureWindowsPath(exec_path).parents)[:3]:  # libexec, mingw64, the root
            yield root / "bin" / "bash.exe"
            yield root / "usr" / "bin" / "bash.exe"
    for base in ("PROGRAMW6432", "PROGRAMFILES", "PROGRAMFILES(X86)"):
        if env.get(base):
            yield PureWindowsPath(env[base], "Git", "bin", "bash.exe")
    if env.get("LOCALAPPDATA"):  # Git for Windows installed for this user only
        yield PureWindowsPath(env["LOCALAPPDATA"], "Programs", "Git", "bin", "bash.exe")
    if env.get("USERPROFILE"):
        yield PureWindowsPath(env["USERPROFILE"], "scoop", "apps", "git", "current", "bin", "bash.exe")
    drive = env.get("SYSTEMDRIVE", "C:")
    yield PureWindowsPath(drive + "\\", "msys64", "usr", "bin", "bash.exe")  # MSYS2's installer's default
    windows = PureWindowsPath(env.get("SYSTEMROOT", drive + "\\Windows"))
    for folder in env.get("PATH", "").split(";"):
        candidate = PureWindowsPath(folder.strip('"'), "bash.exe")
        if folder and not candidate.is_relative_to(windows) and "windowsapps" not in (p.lower() for p in candidate.parts):
            yield candidate  # not WSL's


def _git_exec_path() -> str | None:
    try:
        result = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, timeout=10,
                                creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    return result.stdout.strip() or None


def missing(environ: Mapping[str, str] = os.environ) -> str:
    """The one line a job gets when no bash is found."""
    if explicit := environ.get(ENV):
        return f"{ENV} names {explicit}, which does not exist: the local cluster runs job commands with bash."
    return (f"The local cluster runs job commands with bash and found none on this machine: install {INSTALL}, "
            f"or set {ENV} to its bash.exe (WSL's bash in System32 cannot run them: it works in a file system of its own).")


def search_path(bash: str, path: str, platform: str = sys.platform) -> str:
    """The PATH a task gets: on Windows, the bash's own folder at the end (for MSYS2's `usr\\bin\\bash.exe`,
    where `sleep`, `ls` and the rest live; Git's `bin\\bash.exe` adds them itself), after the user's own
    programs (their Python stays first)."""
    if platform != "win32":
        return path
    folder = str(PureWindowsPath(bash).parent)
    folders = [f for f in path.split(";") if f]
    return path if any(PureWindowsPath(f) == PureWindowsPath(folder) for f in folders) else ";".join([*folders, folder])
