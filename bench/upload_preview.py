"""Knowing what you send: what the preview costs, and how soon the editor learns.

1. The upload preview (the files an upload sends after the globs, the default excludes,
   `.paiignore` and `.gitignore`, with their sizes, the largest and the data-looking ones: what
   `pai submit --dry-run` and the hover on `codeDir` show) of 1k / 10k / 100k-file workspaces,
   against a bare `os.scandir` walk of the same tree in the same run (target ≤ 1.5×, medians).
2. The time from a large file landing in the workspace to the language server publishing the
   Warning on `codeDir` (target ≤ 1 s), watched by watchdog (a client without dynamic
   registration) and by the client (`workspace/didChangeWatchedFiles`, as VS Code does).

    .venv/bin/python bench/upload_preview.py [N ...]     (default: 1000 10000 100000)
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import print_table  # noqa: E402
from bench.trees import scandir_walk  # noqa: E402
from pai_lsp.core.model import Settings  # noqa: E402
from pai_lsp.service.selection import choose  # noqa: E402

EXAMPLE = ROOT / "examples" / "mnist"
RUNS = 7
SERVER = [sys.executable, "-m", "pai_lsp", "lsp"]
# What users write: everything, and the default (Python sources only).
SETTINGS = {"everything": ["**/*"], "**/*.py": ["**/*.py"]}
BIG = 300 * 1024 * 1024  # over the 200 MB default limit (a sparse file: costs no disk)


def make_workspace(root: Path, files: int) -> None:
    """A repository-like tree: sources, configs, notebooks, a few data files, and what the default
    excludes and a .gitignore leave out (.git, .venv, node_modules, __pycache__, logs) — a fifth
    of the files each."""
    kinds = ["py", "py", "txt", "sh", "json", "md", "py", "yaml", "ipynb", "csv"]
    for i in range(files):
        top = ["src", "configs", ".git/objects", ".venv/lib", "logs"][i % 5] if i % 3 else "src"
        folder = root / top / f"m{i % 97}" / ("__pycache__" if i % 11 == 0 else f"p{i % 13}")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.{kinds[i % 10]}").write_bytes(b"x" * (i % 4096))
    (root / ".gitignore").write_text("logs/\n*.tmp\n")
    (root / ".paiignore").write_text("configs/m1/\n")
    shutil.copy(EXAMPLE / "mnist.pai.json", root / "mnist.pai.json")


def bench_preview(root: Path, files: int) -> list[tuple[str, str]]:
    """The preview (`choose` + its facts: what `--dry-run` and the hover compute) against a bare
    walk, and against the physical limit of its output: the bare walk plus one `lstat` per chosen
    file (a walk learns no sizes; the limits and the largest files need them)."""
    rows = []
    for label, include in SETTINGS.items():
        settings = Settings(upload_include=tuple(include))
        walks, previews, stats = [], [], []
        for _ in range(RUNS):
            t0 = time.perf_counter()
            walked = scandir_walk(root)
            walks.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            chosen = choose(root, settings)
            found = chosen.facts(settings)
            previews.append(time.perf_counter() - t0)
            paths = [os.path.join(root, f.rel) for f in chosen.files]
            t0 = time.perf_counter()
            for path in paths:
                os.lstat(path)
            stats.append(time.perf_counter() - t0)
        walk, preview, floor = statistics.median(walks), statistics.median(previews), statistics.median(walks) + statistics.median(stats)
        rows.append((f"{files:,} files, include {label}: preview vs bare scandir walk; vs walk + lstat of the chosen files",
                     f"{preview * 1000:.0f} ms vs {walk * 1000:.0f} ms = {preview / walk:.2f}×; vs {floor * 1000:.0f} ms = "
                     f"{preview / floor:.2f}× ({found.files:,} of {walked:,} files chosen)"))
    return rows


async def bench_warning(root: Path, files: int, client_watches: bool, rounds: int = 5) -> tuple[str, str]:
    """A 300 MB file lands; the time until the over-limit Warning (200 MB) arrives. It goes again
    before the next round (its removal is waited for too, not timed). The file-count limit is raised:
    the 100k workspace would be over it from the start."""
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    (root / ".vscode").mkdir(exist_ok=True)
    (root / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.include": ["**/*"],
                                                                    "pai.job.upload.maxFiles": 1_000_000}))
    config = root / "mnist.pai.json"
    uri = config.as_uri()
    client = LanguageClient("bench", "1")
    warned: dict[bool, float] = {}
    state = {"over": None}
    changed = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri:
            over = any(d.code == "upload.over-limit" for d in params.diagnostics)
            if over != state["over"]:
                state["over"] = over
                warned[over] = time.perf_counter()
                changed.set()

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: types.RegistrationParams) -> None:
        return None

    watched = types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True) if client_watches else None
    await client.start_io(*SERVER)
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(did_change_watched_files=watched))))
    client.initialized(types.InitializedParams())
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "json", 1, config.read_text())))

    async def until(over: bool) -> float:
        while state["over"] is not over:
            changed.clear()
            await asyncio.wait_for(changed.wait(), 60)
        return warned[over]

    # The first count (it starts the worker process) has no file event to time.
    await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 0)))
    await asyncio.sleep(2 + files / 20_000)
    await until(False)
    delays = []
    big = root / "checkpoint.bin"
    for _ in range(rounds):
        t0 = time.perf_counter()
        with open(big, "wb") as f:
            f.truncate(BIG)
        if client_watches:
            client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                [types.FileEvent(big.as_uri(), types.FileChangeType.Created)]))
        delays.append(await until(True) - t0)
        big.unlink()
        if client_watches:
            client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                [types.FileEvent(big.as_uri(), types.FileChangeType.Deleted)]))
        await until(False)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    how = "the client watches (didChangeWatchedFiles)" if client_watches else "watchdog"
    return (f"{files:,} files, {how}: large file lands → Warning published, median / max of {rounds} (target ≤ 1 s)",
            f"{statistics.median(delays) * 1000:.0f} ms / {max(delays) * 1000:.0f} ms")


def main() -> int:
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 10_000, 100_000]
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(XDG_CONFIG_HOME=f"{tmp}/config", XDG_STATE_HOME=f"{tmp}/state",
                          PAI_LOCAL_CLUSTER_DIR=f"{tmp}/local")
        for files in sizes:
            root = Path(tmp) / f"ws{files}"
            make_workspace(root, files)
            found = bench_preview(root, files) + [asyncio.run(bench_warning(root, files, client_watches))
                                                  for client_watches in (False, True)]
            for name, value in found:
                print(f"{name}: {value}", file=sys.stderr)  # as it goes: a long run shows progress
            rows += found
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
