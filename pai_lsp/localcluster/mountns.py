"""Start a task's command with its storages mounted where the job says (`/mnt/<name>` …), on the host,
where the user may not write `/mnt`: in a mount namespace of the task's own (Linux), made by this
script, which then becomes the command (`exec`: the same process, pid, session and environment, so
everything `processes.py` promises holds as for any task).

    python -I -S mountns.py SPEC COMMAND...  SPEC: {"mounts": [{name, source, target, readOnly}], "stage": DIR}
    python -I -S mountns.py --probe DIR      exit 0 where mounts can be made, else one line on stderr

Run as root it only unshares the mount namespace. Anyone else gets a user namespace with it (their
own uid and gid mapped to themselves, no other): the mounts are made with the capabilities the new
namespace gives until `exec`, which drops them, so the command cannot undo a read-only mount. Inside,
files of other users show as `nobody` and set-uid programs (sudo) do not work: the price of mounting
without being root. Each storage is a bind mount of its folder (read-only when the storage is). A
mount point that does not exist (`/mnt/data`) is made on a tmpfs laid over its nearest existing folder
(`/mnt`), into which that folder's entries are bound again, so the task sees them as they were and
nothing is created outside the namespace (what the task writes beside them there goes with the task,
as a container's would); a mount point whose nearest existing folder is `/` cannot be made.

It imports nothing but the standard library (it runs before every such task: Python with `-I -S`, no
pai_lsp package loaded).
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import tempfile

if sys.platform != "linux":
    raise ImportError("mount namespaces are Linux's: task_mounts.py runs this script only there")

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 0x1, 0x2, 0x4, 0x8, 0x20
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE = 0x400, 0x800, 0x1000, 0x4000, 0x40000
MS_RELATIME, MS_STRICTATIME = 0x200000, 0x1000000
START_FAILED = 254  # a task that could not start, as the cluster reports one
PREFIX = "[PAI local cluster]"


class MountError(Exception):
    """One line: what could not be mounted, and why."""


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.unshare.argtypes = [ctypes.c_int]


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    if _libc.mount(_bytes(source), _bytes(target), _bytes(fstype), flags, _bytes(data)) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


def private_namespace() -> None:
    """This process in a mount namespace of its own (and, unless root, a user namespace that maps only
    the user), every mount in it private, so nothing done here reaches the rest of the machine."""
    uid, gid = os.geteuid(), os.getegid()
    if _libc.unshare(CLONE_NEWNS | (0 if uid == 0 else CLONE_NEWUSER)) != 0:
        number = ctypes.get_errno()
        raise MountError(f"a private mount namespace cannot be made here (unshare: {os.strerror(number)})")
    try:
        if uid != 0:
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w", encoding="ascii") as f:
                    f.write(text)
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
    except OSError as exc:
        raise MountError(f"a private mount namespace cannot be set up here ({exc.strerror or exc})") from None


def _locked_flags(path: str) -> int:
    """The flags of the mount at `path` a remount must keep (a user namespace may not drop them)."""
    flag = os.statvfs(path).f_flag
    out = 0
    for st, ms in ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
                   (os.ST_NODIRATIME, MS_NODIRATIME)):
        if flag & st:
            out |= ms
    if flag & os.ST_NOATIME:
        return out | MS_NOATIME
    return out | (MS_RELATIME if flag & os.ST_RELATIME else MS_STRICTATIME)


def bind(source_fd: int, target: str, read_only: bool) -> None:
    _mount(f"/proc/self/fd/{source_fd}", target, None, MS_BIND)
    if read_only:
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _locked_flags(target))


def _shadow(folder: str, stage: str) -> None:
    """A tmpfs over `folder` holding its entries bound again: the folder looks as before and new mount
    points can be made in it, in this namespace only."""
    os.makedirs(stage, mode=0o700, exist_ok=True)
    keep = tempfile.mkdtemp(dir=stage)
    _mount(folder, keep, None, MS_BIND | MS_REC)
    kept = os.open(keep, os.O_PATH | os.O_DIRECTORY)  # reachable even when `keep` lies below `folder`
    mode = os.stat(folder).st_mode & 0o7777
    _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, f"mode={mode:o}")
    for entry in os.scandir(f"/proc/self/fd/{kept}"):
        there = os.path.join(folder, entry.name)
        try:
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), there)
            elif entry.is_dir():
                os.mkdir(there)
                _mount(entry.path, there, None, MS_BIND | MS_REC)
            else:
                os.close(os.open(there, os.O_CREAT | os.O_WRONLY, 0o600))
                _mount(entry.path, there, None, MS_BIND | MS_REC)
        except OSError:
            continue  # an entry that cannot be shown again (not ours to read): the task does not see it


def mount_point(target: str, stage: str) -> None:
    """Make sure `target` is a folder in this namespace (see `_shadow`)."""
    if os.path.isdir(target):
        return
    if os.path.lexists(target):
        raise MountError(f"{target} exists and is not a folder")
    ancestor = os.path.dirname(target)
    while not os.path.lexists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise MountError(f"{ancestor} is not a folder")
    if ancestor == "/":
        raise MountError(f"the mount point {target} would be a new top-level folder, which cannot be made on the host")
    _shadow(ancestor, stage)
    os.makedirs(target, exist_ok=True)


def mount_all(mounts: list[dict], stage: str) -> None:
    """Each storage's folder at its target, parents before what lies below them."""
    sources = {}
    for m in mounts:  # opened first: a shadowed folder may hide where a source lies
        try:
            sources[id(m)] = os.open(m["source"], os.O_PATH | os.O_DIRECTORY)
        except OSError as exc:
            raise MountError(f"storage {m['name']}: its folder {m['source']} cannot be opened ({exc.strerror})") from None
    for m in sorted(mounts, key=lambda m: m["target"].rstrip("/").count("/")):
        try:
            mount_point(m["target"], stage)
            bind(sources[id(m)], m["target"], m["readOnly"])
        except MountError as exc:
            raise MountError(f"storage {m['name']} cannot be mounted at {m['target']}: {exc}") from None
        except OSError as exc:
            raise MountError(f"storage {m['name']} cannot be mounted at {m['target']}: {exc.strerror or exc}") from None


def main(argv: list[str]) -> int:
    try:
        if argv[1:2] == ["--probe"]:
            private_namespace()
            folder = argv[2]
            fd = os.open(folder, os.O_PATH | os.O_DIRECTORY)
            bind(fd, folder, read_only=True)
            return 0
        spec = json.loads(argv[1])
        cwd = os.getcwd()
        private_namespace()
        mount_all(spec["mounts"], spec["stage"])
    except MountError as exc:
        print(f"{PREFIX} {exc}", file=sys.stderr, flush=True)
        return START_FAILED
    try:
        os.chdir(cwd)  # the same folder, reached through the mounts now in place
    except OSError:
        pass  # a storage mounted over it: the task stays where it was started
    command = argv[2:]
    os.execv(command[0], command)
    return START_FAILED  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv))
