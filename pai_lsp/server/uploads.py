"""What an upload would send, shown on `codeDir` as you type (hover, and a warning when it is over the
limits or looks like data) — computed off the typing path.

The files are counted (service/selection.py: the same files `submit` sends) in a thread, and once a
count has found a big workspace (`LARGE_WORKSPACE` files), in a worker process from then on, so
walking it never competes with typing for the interpreter; a small workspace starts no process.
The editor's diagnostics use the last count, and a new one starts when files change: `workspace/didChangeWatchedFiles` when
the client offers to watch (the server asks for every file of the workspace), else `watchdog`.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import signal
import sys
import threading
from concurrent.futures import BrokenExecutor, Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from ..common import portable
from ..core.model import Diagnostic, Settings
from ..core.settings_check import settings_diagnostics
from ..core.upload_facts import UploadFacts, upload_diagnostics
from ..settings import flatten, is_settings_file, read, workspace_of
from .host import Host

if TYPE_CHECKING:

    from ..core.jsonc import Document


logger = logging.getLogger(__name__)
SETTLE = 0.1  # seconds to let a burst of file events end before counting again
WATCH_ID = "pai-upload-files"
LARGE_WORKSPACE = 5_000  # files an upload would send: from a count that found more, that workspace is counted in a process


@dataclass(frozen=True)
class Key:
    """One count: a workspace under the settings that choose its files."""

    root: Path
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    respect_gitignore: bool
    max_bytes: int
    max_files: int
    globs: bool = False  # also how each include glob fares (for `.vscode/settings.json`)

    @classmethod
    def of(cls, root: Path, settings: Settings, globs: bool = False) -> Key:
        return cls(root, settings.upload_include, settings.upload_exclude, settings.upload_respect_gitignore,
                   settings.upload_max_bytes, settings.upload_max_files, globs)

    def settings(self) -> Settings:
        return Settings(upload_include=self.include, upload_exclude=self.exclude, upload_respect_gitignore=self.respect_gitignore,
                        upload_max_bytes=self.max_bytes, upload_max_files=self.max_files)


@dataclass
class Count:
    facts: UploadFacts | None = None
    running: asyncio.Future | None = None
    again: bool = False  # files changed while counting
    timer: asyncio.TimerHandle | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def end_with_parent() -> None:
    """Run in the worker as it starts: the worker ends when the language server does, however
    that ends (killed, its stdin closed, a crash), instead of waiting forever for counts that
    will never come. A thread waits on the parent's sentinel (multiprocessing's pipe from the
    parent, at end of file once the parent is gone: every platform); on Linux the kernel also
    sends SIGKILL at the parent's death, which works even while the worker holds the GIL (unless
    the portable ways are forced: `portable.py`)."""
    import multiprocessing
    import multiprocessing.connection

    if sys.platform.startswith("linux") and not portable.forced():
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def wait_for_parent() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=wait_for_parent, name="end-with-parent", daemon=True).start()


def count_files(root: Path, settings: Settings, globs: bool) -> UploadFacts:
    """The count, run in a thread or the worker process: the selection code (storage, pathspec)
    loads with the first count, never in the language server's event loop."""
    from ..service.selection import facts

    return facts(root, settings, globs)


class Uploads:
    def __init__(self, ls: Host):
        self.ls = ls
        self.documents: dict[str, tuple[Key | None, Settings]] = {}  # uri -> its count's key and its settings
        self.counts: dict[Key, Count] = {}
        self.observer = None  # watchdog's, when the client does not watch for us
        self.watched: dict[Path, object] = {}
        self.client_watches = False
        self.shown: dict[str, list[tuple]] = {}  # uri -> what `diagnostics` last gave it
        self._thread: Executor | None = None
        self._process: Executor | None = None  # started for the first large workspace
        self.large: set[Path] = set()  # workspaces counted in the process (a count found them large)

    # -- what the features ask ---------------------------------------------------------
    def diagnostics(self, uri: str, doc: Document) -> list[Diagnostic]:
        """The warnings on `codeDir` from the last count (cheap: nothing is read here); for a
        `.vscode/settings.json`, what is wrong with its `pai.*` keys."""
        if is_settings_file(uri):
            found = self._settings_diagnostics(uri, doc)
        else:
            key, settings = self._document(uri)
            found = upload_diagnostics(doc, self._facts(key), settings)
        self.shown[uri] = _summary(found)
        return found

    def _facts(self, key: Key | None) -> UploadFacts | None:
        count = self.counts.get(key) if key is not None else None
        return count.facts if count is not None else None

    def _settings_diagnostics(self, uri: str, doc: Document) -> list[Diagnostic]:
        """The settings as typed (saved or not) choose the files their globs are checked against."""
        root = doc.root
        settings = read(flatten(root.value) if root is not None and root.type == "object" else {},
                        self.ls.settings_for(uri).locale)
        path = to_fs_path(uri) if uri.startswith("file:") else None
        key = Key.of(Path(path).parent.parent, settings, globs=True) if path and settings.upload_enabled else None
        if uri not in self.documents or self.documents[uri][0] != key:
            self.documents[uri] = (key, settings)
            self._ensure(key)
            self._prune()
        facts = self._facts(key)
        return settings_diagnostics(doc, facts.globs if facts is not None else None, settings.locale)

    async def facts(self, uri: str, wait: float = 1.0) -> UploadFacts | None:
        """The last count for `uri`'s workspace, waiting up to `wait` seconds for a first one."""
        key, _ = self._document(uri)
        if key is None:
            return None
        count = self.counts[key]
        if count.facts is None:
            try:
                await asyncio.wait_for(count.done.wait(), wait)
            except asyncio.TimeoutError:
                return None
        return count.facts

    def applies(self, uri: str) -> bool:
        return self._document(uri)[0] is not None

    # -- what changes ------------------------------------------------------------------
    def closed(self, uri: str) -> None:
        self.documents.pop(uri, None)
        self.shown.pop(uri, None)
        self._prune()

    def settings_changed(self) -> None:
        """The editor's or a workspace's settings changed: which files count may have too."""
        self.documents = {uri: known for uri, known in self.documents.items() if is_settings_file(uri)}
        for uri in list(self.ls.documents):
            if not is_settings_file(uri):
                self._document(uri)
        self._prune()

    def _prune(self) -> None:
        """Stop counting and watching for workspaces no open document needs."""
        used = {key for key, _ in self.documents.values() if key is not None}
        for key in [k for k in self.counts if k not in used]:
            count = self.counts.pop(key)
            if count.timer is not None:
                count.timer.cancel()
        roots = {key.root for key in used}
        for root in [r for r in self.watched if r not in roots]:
            if self.observer is not None:
                self.observer.unschedule(self.watched.pop(root))

    def files_changed(self, paths: list[Path]) -> None:
        """Files changed (created, written, removed, moved): count again where they matter."""
        for path in paths:
            if path.name == "settings.json" and path.parent.name == ".vscode":
                self.settings_changed()
                for uri in list(self.ls.documents):
                    self.ls.publish(uri)
                continue
            for key, count in self.counts.items():
                if _within(path, key.root) and _may_count(path.relative_to(key.root), key):
                    self._schedule(key, count)

    # -- counting ----------------------------------------------------------------------
    def _document(self, uri: str) -> tuple[Key | None, Settings]:
        known = self.documents.get(uri)
        if known is None:
            settings = self.ls.settings_for(uri)
            path = to_fs_path(uri) if uri.startswith("file:") else None
            key = None
            if path and settings.upload_enabled and self.ls.job_format(uri).code_dir:
                key = Key.of(workspace_of(Path(path)), settings)
            known = self.documents[uri] = (key, settings)
            self._ensure(key)
        return known

    def _ensure(self, key: Key | None) -> None:
        """A count for `key`, started (and its workspace watched) in a moment if there was none: the
        editor's first requests about the document are answered first, and a burst of keystrokes in
        settings.json makes one count, not one each."""
        if key is not None and key not in self.counts:
            self._schedule(key, self.counts.setdefault(key, Count()))

    def _schedule(self, key: Key, count: Count) -> None:
        if count.running is not None:
            count.again = True
        elif count.timer is None:
            count.timer = asyncio.get_running_loop().call_later(SETTLE, self._start, key, count)

    def _start(self, key: Key, count: Count) -> None:
        count.timer = None
        count.again = False
        self._watch(key.root)
        count.running = asyncio.ensure_future(self._count(key, count))

    async def _count(self, key: Key, count: Count) -> None:
        try:
            facts = await self._run(key.root, key.settings(), key.globs)
        except Exception as exc:  # noqa: BLE001 - a failed count must not stop the server; it is logged
            logger.warning("counting the files of %s failed: %s", key.root, exc)
            facts = None
        finally:
            count.running = None
        if facts is not None and facts.files > LARGE_WORKSPACE:
            self.large.add(key.root)
        if self.counts.get(key) is not count:
            return  # no open document uses this count any more
        changed = facts != count.facts
        count.facts = facts
        count.done.set()
        if count.again:
            self._schedule(key, count)
        if changed:
            for uri, (known, _) in list(self.documents.items()):
                if known == key and uri in self.ls.documents:
                    self._publish_if_changed(uri)

    def _publish_if_changed(self, uri: str) -> None:
        """Publish again only when the new count changes what this document shows: a publish the
        editor did not ask for could otherwise land between an edit and its own answer."""
        shown = self.shown.get(uri)
        if shown is None or _summary(self.diagnostics(uri, self.ls.analysis(uri).doc)) != shown:
            self.ls.publish(uri)

    async def _run(self, root: Path, settings: Settings, globs: bool) -> UploadFacts:
        loop = asyncio.get_running_loop()
        executor = self._process_pool() if root in self.large else None
        if executor is None:
            if self._thread is None:
                self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="upload-count")
            executor = self._thread
        try:
            return await loop.run_in_executor(executor, count_files, root, settings, globs)
        except BrokenExecutor:  # the worker process died (killed, say): a new one for this count
            if executor is self._thread:
                raise
            self._process = None
            return await self._run(root, settings, globs)

    def _process_pool(self) -> Executor | None:
        """The worker process for large workspaces (started on first use), or None where none can start."""
        if self._process is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            try:
                self._process = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                    initializer=end_with_parent)
            except (OSError, ValueError) as exc:
                logger.warning("no worker process (%s): counting files in a thread", exc)
                self.large.clear()
                return None
        return self._process

    def shutdown(self) -> None:
        for executor in (self._thread, self._process):
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)
        if self.observer is not None:
            self.observer.stop()

    # -- watching ----------------------------------------------------------------------
    def _watch(self, root: Path) -> None:
        if self.client_watches or root in self.watched:
            return
        if self.observer is None:
            from watchdog.observers import Observer

            self.observer = Observer()
            self.observer.daemon = True
            self.observer.start()
        try:
            relay = _Relay(asyncio.get_running_loop(), self.files_changed)
            self.watched[root] = self.observer.schedule(relay, str(root), recursive=True, event_filter=_changes())
        except OSError as exc:  # e.g. the inotify watch limit: the count is then refreshed on save only
            logger.warning("cannot watch %s for changes: %s", root, exc)

    def client_offers_watching(self, capabilities: types.ClientCapabilities) -> bool:
        workspace = capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        return bool(watched is not None and watched.dynamic_registration)

    async def ask_client_to_watch(self) -> None:
        """Have the client report every file change of the workspace (it watches it anyway)."""
        try:
            await self.ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
                id=WATCH_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern="**/*")]))]))
        except Exception as exc:  # noqa: BLE001 - then watchdog watches instead
            logger.warning("the client does not watch files for us (%s): using watchdog", exc)
            return
        self.client_watches = True
        if self.observer is not None:
            self.observer.unschedule_all()
            self.watched.clear()


def _summary(found: list[Diagnostic]) -> list[tuple]:
    return [(d.start, d.end, d.code, d.message) for d in found]


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _may_count(rel: Path, key: Key) -> bool:
    """Whether a change at `rel` can change the count: not inside `.git/` and the other folders
    left out by default (unless an include glob names one)."""
    from ..storage.ignore import GITIGNORE, PAIIGNORE, is_default_folder

    if rel.name in (PAIIGNORE, GITIGNORE):
        return True
    named = {part for glob in key.include for part in glob.split("/")}
    return not any(is_default_folder(part) and part not in named for part in rel.parts[:-1])


def _changes() -> list[type]:
    """The events that can change a count. Never "opened" / "closed without writing": each count
    opens every folder it walks, and on a big workspace those events alone overflow inotify's queue
    (watchdog then re-walks the tree to catch up, opening every folder again, without end)."""
    from watchdog import events

    return [events.FileCreatedEvent, events.FileDeletedEvent, events.FileMovedEvent, events.FileModifiedEvent,
            events.FileClosedEvent, events.DirCreatedEvent, events.DirDeletedEvent, events.DirMovedEvent]


class _Relay:
    """watchdog's events (on its own thread) to `files_changed` on the server's loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, to):
        self.loop, self.to = loop, to

    def dispatch(self, event) -> None:
        if event.is_directory and event.event_type == "modified":
            return
        paths = [Path(event.src_path)] + ([Path(event.dest_path)] if getattr(event, "dest_path", "") else [])
        self.loop.call_soon_threadsafe(self.to, paths)
