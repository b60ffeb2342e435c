"""The parts that differ between Linux, macOS and Windows, run here with each OS's rules as input:
the per-OS folders (today's Linux paths kept exactly, nobody's files moved), the once-per-user locks,
`~/.paddle/config` where the manuals put it, Windows paths and URIs (drive letters, UNC shares,
backslashes) named workspace-relative with `/`, and CRLF files."""

from __future__ import annotations

import getpass
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import PurePosixPath, PureWindowsPath

import pytest

from pai_lsp.clusters.paddle_config import default_path, read
from pai_lsp.common import folders as files
from pai_lsp.common.userlock import held, try_hold
from pai_lsp.common.winacl import listed, private_sddl, strangers
from pai_lsp.core.messages import message
from pai_lsp.server.uris import fs_path, workspace_relative

from .helpers.cli import isolated_env, pai, remote_files, stop_all, workspace


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home folder of its own, no XDG variables."""
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def test_linux_keeps_todays_xdg_folders_exactly(home, monkeypatch):
    assert {kind: files.user_dir(kind, "linux") for kind in ("config", "state", "data")} == {
        "config": home / ".config" / "pai-lsp", "state": home / ".local" / "state" / "pai-lsp",
        "data": home / ".local" / "share" / "pai-lsp"}
    assert files.runtime_dir() == home / ".local" / "state" / "pai-lsp"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home / "run"))
    assert files.runtime_dir() == home / "run" / "pai-lsp"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "elsewhere"))
    assert files.config_dir() == home / "elsewhere" / "pai-lsp"


def test_macos_uses_application_support_unless_an_earlier_pai_lsp_left_files_in_the_xdg_folder(home):
    support = home / "Library" / "Application Support" / "pai-lsp"
    assert {kind: files.user_dir(kind, "darwin") for kind in ("config", "state", "data")} == {
        "config": support, "state": support, "data": support}
    (home / ".config" / "pai-lsp").mkdir(parents=True)  # someone ran pai-lsp here before: kept where it is
    assert files.user_dir("config", "darwin") == home / ".config" / "pai-lsp"
    assert files.user_dir("data", "darwin") == support


def test_windows_uses_local_appdata_and_honours_xdg_when_set(home, monkeypatch):
    monkeypatch.setenv("WIN_PD_OVERRIDE_LOCAL_APPDATA", r"C:\Users\me\AppData\Local")  # platformdirs' own override
    for kind in ("config", "state", "data"):
        assert PureWindowsPath(str(files.user_dir(kind, "win32"))) == PureWindowsPath(r"C:\Users\me\AppData\Local\pai-lsp")
    monkeypatch.setenv("XDG_STATE_HOME", r"D:\isolated\state")
    assert PureWindowsPath(str(files.user_dir("state", "win32"))) == PureWindowsPath(r"D:\isolated\state\pai-lsp")


@pytest.mark.subprocess
def test_a_lock_is_held_once_until_its_descriptor_closes(tmp_path):
    lock = tmp_path / "sub" / "daemon.lock"
    first = try_hold(lock)
    assert first is not None and try_hold(lock) is None  # another descriptor, even in this process
    holder = subprocess.run([sys.executable, "-c", f"from pai_lsp.common.userlock import try_hold; from pathlib import Path; "
                             f"print(try_hold(Path({str(lock)!r})) is None)"], capture_output=True, text=True, timeout=60)
    assert holder.stdout.strip() == "True"  # and in another process
    got = threading.Event()

    def wait_for_it() -> None:
        with held(lock):
            got.set()

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    time.sleep(0.3)
    assert not got.is_set()
    os.close(first)
    waiter.join(timeout=30)
    assert got.is_set()
    again = try_hold(lock)
    assert again is not None
    os.close(again)


def test_paddle_config_is_where_the_manuals_say_on_each_os(home, tmp_path):
    assert default_path("linux") == home / ".paddle" / "config"
    assert default_path("darwin") == home / ".paddle" / "config"
    windows = {"USERPROFILE": r"C:\Users\me", "HOMEDRIVE": "H:", "HOMEPATH": r"\home\me"}
    # none there yet: the manual's `.paddle\config` under the user's folder
    assert PureWindowsPath(str(default_path("win32", windows))) == PureWindowsPath(r"C:\Users\me\.paddle\config")
    assert PureWindowsPath(str(default_path("win32", {"HOMEDRIVE": "C:", "HOMEPATH": r"\Users\me"}))) == \
        PureWindowsPath(r"C:\Users\me\.paddle\config")
    # the paddlecloud client's own home (%HOMEDRIVE%%HOMEPATH%) holds it: that one
    client_home = tmp_path / "mapped-home"
    (client_home / ".paddle").mkdir(parents=True)
    (client_home / ".paddle" / "config").write_text("datacenters: []\n")
    assert default_path("win32", {"USERPROFILE": str(tmp_path / "profile"), "HOMEDRIVE": "",
                                  "HOMEPATH": str(client_home)}) == client_home / ".paddle" / "config"


def test_a_crlf_paddle_config_reads_as_any_other(tmp_path):
    path = tmp_path / "config"
    path.write_bytes(b"datacenters:\r\n- name: dc1\r\n  username: me@example.com\r\n  password: secret\r\n"
                     b"  endpoint: http://cloud.example.org/\r\ncurrent-datacenter: dc1\r\n")
    [dc] = read(path)
    assert (dc.name, dc.username, dc.password, dc.endpoint, dc.active) == ("dc1", "me@example.com", "secret",
                                                                           "http://cloud.example.org", True)


@pytest.mark.parametrize(("uri", "expected"), [
    ("file:///c%3A/Users/me/ws/sub/mnist.pai.json", r"c:\Users\me\ws\sub\mnist.pai.json"),  # VS Code's own form
    ("file:///C:/Users/me/ws/sub/mnist.pai.json", r"c:\Users\me\ws\sub\mnist.pai.json"),
    ("file://server/share/ws/sub/mnist.pai.json", r"\\server\share\ws\sub\mnist.pai.json"),  # a UNC share
    ("file:///c%3A/Users/me/my%20ws/%E8%AE%AD%E7%BB%83.pai.json", r"c:\Users\me\my ws\训练.pai.json"),
])
def test_windows_uris_become_windows_paths(uri, expected):
    assert fs_path(uri, PureWindowsPath) == PureWindowsPath(expected)
    assert fs_path("untitled:Untitled-1", PureWindowsPath) is None


def test_files_are_named_workspace_relative_with_slashes_whatever_the_os():
    roots = [fs_path("file:///c%3A/Users/me/ws", PureWindowsPath), fs_path("file:///c%3A/Users/me/ws/nested", PureWindowsPath)]
    config = fs_path("file:///C:/USERS/ME/WS/jobs/sub/mnist.pai.json", PureWindowsPath)  # Windows ignores case
    assert workspace_relative(config, roots) == "jobs/sub/mnist.pai.json"
    assert workspace_relative(PureWindowsPath(r"c:\Users\me\ws\nested\a.pai.json"), roots) == "a.pai.json"  # the innermost
    share = fs_path("file://server/share/ws", PureWindowsPath)
    assert workspace_relative(PureWindowsPath(r"\\server\share\ws\src\train.py"), [share]) == "src/train.py"
    assert workspace_relative(PureWindowsPath(r"d:\other\a.pai.json"), roots) is None
    assert workspace_relative(PurePosixPath("/home/me/ws/jobs/a.pai.json"), [PurePosixPath("/home/me/ws")]) == "jobs/a.pai.json"


@pytest.mark.subprocess
def test_crlf_job_configs_and_settings_are_checked_and_submitted(tmp_path):
    """A workspace saved with Windows line ends: `pai check` points at the right line and column,
    the settings apply, and the job runs with its code uploaded under `/`-joined names."""
    env = isolated_env(tmp_path / "home")
    try:
        ws = workspace(tmp_path, "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
                       {"pai.job.upload.include": ["**/*.py"], "pai.job.generateJobName.enabled": True})
        (ws / "lib" / "deep").mkdir(parents=True)
        (ws / "lib" / "deep" / "util.py").write_text("X = 1\r\n")
        for name in ("mnist.pai.json", ".vscode/settings.json"):
            text = json.dumps(json.loads((ws / name).read_text()), indent=2)
            (ws / name).write_bytes(text.replace("\n", "\r\n").encode())
        bad = (ws / "mnist.pai.json").read_bytes().replace(b'"taskRoles"', b'"taskRole"', 1)
        (ws / "bad.pai.json").write_bytes(bad)
        line = bad[: bad.index(b'"taskRole"')].count(b"\n") + 1
        col = bad[: bad.index(b'"taskRole"')].rsplit(b"\n", 1)[1].__len__() + 1
        check = pai(env, "check", "bad.pai.json", cwd=ws)
        assert check.returncode == 1 and f"bad.pai.json:{line}:{col}: error schema.unknown-key" in check.stdout, check.stdout
        run = pai(env, "run", "mnist.pai.json", "--follow", cwd=ws)
        assert run.returncode == 0, run.stderr
        job = run.stdout.splitlines()[0].split()[1]
        user = os.environ.get("USER") or getpass.getuser()
        assert remote_files(env, f"/{user}/{job}") == {"train.py", "lib/deep/util.py", ".pai-manifest.json"}
    finally:
        stop_all(env)


ME = "S-1-5-21-1004336348-1177238915-682003330-1001"
PEER = "S-1-5-21-1004336348-1177238915-682003330-1002"  # another user of the same machine


@pytest.mark.parametrize(("sddl", "others"), [
    # the ACL pai-lsp gives a private file (winacl.restrict) on a file of ours, and as Windows prints it back
    (f"O:{ME}" + private_sddl(ME), []),
    (f"O:{ME}G:{ME[:-5]}-513D:P(A;;FA;;;SY)(A;;FA;;;BA)(A;;FA;;;{ME})", []),
    # a file inheriting %LOCALAPPDATA%'s ACL; one an elevated process made (owned by the administrators)
    (f"O:{ME}G:{ME[:-5]}-513D:AI(A;ID;FA;;;SY)(A;ID;FA;;;BA)(A;ID;FA;;;{ME})", []),
    ("O:BAG:SYD:PAI(A;;FA;;;BA)(A;;FA;;;SY)", []),
    # a deny, a grant only for what would be created inside, a grant of nothing
    (f"O:{ME}D:P(A;;FA;;;{ME})(D;;FA;;;WD)(A;OICIIO;GA;;;CO)(A;;0x0;;;BU)", []),
    # a folder under C:\ (XDG_CONFIG_HOME=C:\shared): every signed-in user may read and change it
    (f"O:{ME}D:AI(A;ID;FA;;;BA)(A;ID;FA;;;SY)(A;ID;0x1301bf;;;AU)(A;ID;0x1200a9;;;BU)", ["Authenticated Users", "Users"]),
    (f"O:{ME}D:(A;;FA;;;{ME})(A;;FR;;;WD)", ["Everyone"]),
    (f"O:{ME}D:(A;;FA;;;{ME})(XA;;FR;;;WD;(Member_of {{SID(BA)}}))", ["Everyone"]),  # a conditional grant is a grant
    (f"O:{ME}D:(A;;FA;;;{ME})(A;;FR;;;{PEER})", [PEER]),
    # a file another user made (and let us read), and files without an access list, which let in everyone
    (f"O:{PEER}D:(A;;FA;;;{PEER})(A;;FR;;;{ME})", [f"the owner {PEER}", PEER]),
    (f"O:{ME}D:NO_ACCESS_CONTROL", ["Everyone (the file has no access list)"]),
    (f"O:{ME}G:SY", ["Everyone (the file has no access list)"]),
])
def test_where_files_have_no_modes_a_private_file_is_one_whose_acl_lets_in_no_one_else(sddl, others):
    """What Windows' ACLs say, in SDDL (its own text form), decided as mode 600 and the owner are on POSIX
    (an account by its name, what is more than a name as a message of the catalogue, English here)."""
    assert [str(who) for who in strangers(sddl, ME)] == others


def test_who_else_may_read_a_file_is_said_in_the_readers_language():
    found = strangers(f"O:{PEER}D:(A;;FA;;;{PEER})(A;;FR;;;WD)", ME)
    said = message("daemon.endpoint-others", path="endpoint.json", who=listed(found))
    assert said.render("zh-CN").startswith(f"endpoint.json 可被他人读取或修改（所有者 {PEER}、{PEER}、Everyone）")
    assert f"(the owner {PEER}, {PEER}, Everyone)" in str(said)


def test_the_built_in_administrator_account_is_recognised_by_its_alias():
    administrator = ME[:-4] + "500"
    assert strangers("O:LAD:P(A;;FA;;;LA)(A;;FA;;;SY)", administrator) == []
    assert [str(who) for who in strangers("O:LAD:P(A;;FA;;;LA)", ME)] == ["the owner LA", "LA"]


@pytest.mark.subprocess
def test_files_helpers_need_no_posix_only_module():
    """What Windows lacks is not imported by the modules every `pai` command loads."""
    probe = "import sys; sys.modules['fcntl'] = None; sys.modules['pwd'] = None; sys.modules['grp'] = None; " \
            "import pai_lsp.common.folders, pai_lsp.common.userlock, pai_lsp.daemon.client, pai_lsp.daemon.transport, pai_lsp.cli.cmd_jobs; print('ok')"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "ok", result.stderr
