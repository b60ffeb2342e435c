"""What an upload would send, as facts the editor shows on `codeDir`: counted elsewhere (the core
reads no files), turned into hover text and warnings here.

The OpenPAI manual says codeDir "should not contain any data and should be less than
200MB": files that look like data are named, and going over the limits is a warning as you type
(and a refused submit, unless forced).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .jsonc import Document, Node
from .messages import Message, message, render, severity
from .model import Diagnostic, Settings
from .settings_check import GlobFacts

BIG_FILE = 50 * 1024 * 1024  # a file this big in the code folder is almost surely data
# Suffixes of datasets, arrays, checkpoints and model weights.
DATA_SUFFIXES = (".tfrecord", ".tfrecords", ".h5", ".hdf5", ".ckpt", ".npy", ".npz", ".pt", ".pth", ".pkl", ".pickle",
                 ".safetensors", ".parquet", ".arrow", ".feather", ".onnx", ".mdb", ".mat")
SHOWN = 10  # largest files listed


# The end of a data file's name, on one line of newline-joined paths (TensorFlow also writes
# `x.ckpt.index`, `x.ckpt.data-00000-of-00001`, `train.tfrecord-00001-of-00010`). Matched at the end
# of a line only, so a scan costs a few steps per "." rather than per character.
DATA_END = re.compile("(?:" + "|".join(re.escape(s) for s in DATA_SUFFIXES) + r"|\.ckpt\.[^/\n]*|\.tfrecords?-[^/\n]*)$",
                      re.M | re.I)


def data_like(rels: list[str], sizes: list[int]) -> list[tuple[str, int]]:
    """The files (of `rels`, with their `sizes`) that look like data, largest first: one scan for
    the names, one pass for the sizes."""
    text = "\n".join(rels)
    named = {text[text.rfind("\n", 0, m.start()) + 1:m.end()] for m in DATA_END.finditer(text)}
    found = [(rel, size) for rel, size in zip(rels, sizes, strict=True) if size > BIG_FILE or rel in named]
    found.sort(key=lambda p: (-p[1], p[0]))
    return found


def size_text(n: float) -> str:
    """Bytes for people (binary units, as the upload progress shows them)."""
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"


@dataclass(frozen=True)
class UploadFacts:
    """The files an upload would send from a workspace, and the limits they are held to."""

    files: int
    bytes: int
    largest: tuple[tuple[str, int], ...]  # (path relative to the workspace, size), largest first
    data_like: tuple[tuple[str, int], ...]  # files that look like data, largest first
    max_files: int
    max_bytes: int
    problems: tuple[Message, ...] = ()  # lines of .paiignore / .gitignore that could not be read
    globs: GlobFacts | None = None  # how each include glob fares (counted for .vscode/settings.json only)

    @property
    def over_files(self) -> bool:
        return self.files > self.max_files

    @property
    def over_bytes(self) -> bool:
        return self.bytes > self.max_bytes

    def over(self) -> Message | None:
        """What is over the limits, to be said in the reader's language; None when nothing is."""
        files = message("upload.over-files", files=self.files, limit=self.max_files) if self.over_files else None
        size = message("upload.over-bytes", size=size_text(self.bytes), limit=size_text(self.max_bytes)) if self.over_bytes else None
        if files and size:
            return message("upload.over-both", files=files, bytes=size)
        return files or size

    def over_limits(self, locale: str | None = None) -> str | None:
        """What is over the limits, in words; None when nothing is."""
        over = self.over()
        return over.render(locale) if over else None


def listing(files: tuple[tuple[str, int], ...], limit: int = SHOWN, total: int | None = None) -> str | Message:
    """The first `limit` of `files`, and how many more there are of the `total` they were taken
    from (the largest 10 of 34 files: "…, … (+29 more)", said in the reader's language)."""
    total = len(files) if total is None else total
    shown = ", ".join(f"{rel} ({size_text(size)})" for rel, size in files[:limit])
    more = total - min(limit, len(files))
    return message("upload.listing-more", files=shown, more=more) if more > 0 else shown


def code_dir(doc: Document) -> Node | None:
    """The `codeDir` property of a job config, if it names one."""
    root = doc.root
    if root is None or root.type != "object":
        return None
    prop = root.get_property("codeDir")
    return prop if prop is not None and prop.key is not None else None


def on_code_dir(doc: Document, offset: int) -> Node | None:
    """The `codeDir` property when `offset` is on it (its key or its value)."""
    prop = code_dir(doc)
    return prop if prop is not None and prop.start <= offset < prop.end else None


def hover_markdown(facts: UploadFacts | None, locale: str | None) -> str:
    """What the hover on `codeDir` adds: what an upload sends from this workspace."""
    if facts is None:
        return render("upload.counting", locale)
    lines = [render("upload.hover", locale, files=facts.files, size=size_text(facts.bytes))]
    if facts.largest:
        lines += ["", render("upload.largest", locale)]
        lines += [f"- `{rel}` {size_text(size)}" for rel, size in facts.largest]
    over = facts.over_limits(locale)
    if over:
        lines += ["", render("upload.hover-over", locale, over=over)]
    if facts.data_like:
        lines += ["", render("upload.hover-data", locale, files=listing(facts.data_like))]
    for problem in facts.problems:
        lines += ["", f"⚠ {problem.render(locale)}"]
    return "\n".join(lines)


def upload_diagnostics(doc: Document, facts: UploadFacts | None, settings: Settings) -> list[Diagnostic]:
    """Warnings on `codeDir` when what it would receive is over the limits or looks like data."""
    prop = code_dir(doc) if facts is not None and settings.upload_enabled else None
    if prop is None or facts is None:
        return []
    key = prop.key
    locale = settings.locale
    found = []
    over = facts.over_limits(locale)
    if over:
        found.append(("upload.over-limit", {"over": over, "largest": listing(facts.largest, 5, facts.files)}))
    if facts.data_like:
        found.append(("upload.data-files", {"count": len(facts.data_like), "files": listing(facts.data_like, 5)}))
    for problem in facts.problems:
        found.append(("upload.ignore-file", {"problem": problem}))
    return [Diagnostic(key.start, key.end, code, severity(code), render(code, locale, **args)) for code, args in found]
