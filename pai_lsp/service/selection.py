"""The workspace files an upload sends, once for all who need them: `submit` (held to the limits:
`checked_files`), the dry run (service/preview.py) and the facts the editor shows on `codeDir`
(`facts`). They are the files the `include` / `exclude` globs choose, less what the ignore rules of
storage/ignore.py leave out (default excludes, `.paiignore`, `.gitignore`).
"""

from __future__ import annotations

import heapq
import os
from dataclasses import dataclass, replace
from pathlib import Path

from ..core.messages import message
from ..core.model import Settings
from ..core.settings_check import GlobFacts
from ..core.upload_facts import SHOWN, UploadFacts, data_like, listing
from ..errors import InvalidInput
from ..storage.ignore import PAIIGNORE, IgnoreRules
from ..storage.upload import Selected, matcher, select


@dataclass
class Chosen:
    """The workspace files an upload sends, with their sizes, and what the ignore files said."""

    files: list[Selected]
    sizes: list[int]
    rules: IgnoreRules

    def facts(self, settings: Settings) -> UploadFacts:
        rels, sizes = [f.rel for f in self.files], self.sizes
        largest = heapq.nlargest(SHOWN, range(len(sizes)), key=sizes.__getitem__)
        return UploadFacts(files=len(rels), bytes=sum(sizes), largest=tuple((rels[i], sizes[i]) for i in largest),
                           data_like=tuple(data_like(rels, sizes)), max_files=settings.upload_max_files,
                           max_bytes=settings.upload_max_bytes, problems=tuple(p.said() for p in self.rules.problems))


def choose(workspace: Path, settings: Settings) -> Chosen:
    """The files `submit` would upload from `workspace` under `settings`, and their sizes."""
    rules = IgnoreRules.load(workspace, settings.upload_respect_gitignore, settings.upload_include)
    files = select(workspace, list(settings.upload_include), list(settings.upload_exclude), rules)
    base = str(workspace) + os.sep
    lstat = os.lstat
    try:  # one lstat per file is most of a preview's cost (the walk itself learns no sizes)
        return Chosen(files, [lstat(base + f.rel).st_size for f in files], rules)
    except OSError:
        pass  # a file went since the walk: the careful way below
    kept, sizes = [], []
    for f in files:
        try:
            sizes.append(os.lstat(base + f.rel).st_size)
        except OSError:
            continue  # gone since the walk: it would not be sent either
        kept.append(f)
    return Chosen(kept, sizes, rules)


def facts(workspace: Path, settings: Settings, globs: bool = False) -> UploadFacts:
    """What the editor shows on `codeDir` (computed off the typing path); with `globs`, also how
    each include glob fares (for the diagnostics of `.vscode/settings.json`)."""
    chosen = choose(workspace, settings)
    found = chosen.facts(settings)
    return replace(found, globs=glob_facts(workspace, settings, chosen)) if globs else found


def glob_facts(workspace: Path, settings: Settings, chosen: Chosen) -> GlobFacts:
    """Which include globs match no file, and which match only files left out again. Usually every
    glob has a file among those chosen; only when one has not is the workspace walked again,
    without the excludes."""
    positive = [g for g in settings.upload_include if not g.startswith("!")]
    after = "\n".join(f.rel for f in chosen.files)
    kept = {g for g in positive if _finds(g, after)}
    if len(kept) == len(positive) and (chosen.files or not settings.upload_exclude):
        return GlobFacts()
    rules = IgnoreRules.load(workspace, settings.upload_respect_gitignore, settings.upload_include)
    before = "\n".join(f.rel for f in select(workspace, positive, [], rules))
    matched = {g for g in positive if _finds(g, before)}
    return GlobFacts(unmatched=tuple(g for g in positive if g not in matched),
                     hidden=tuple(g for g in positive if g in matched and g not in kept),
                     all_hidden=bool(before) and not chosen.files)


def _finds(glob: str, lines: str) -> bool:
    regex = matcher([glob])[0]
    return regex is not None and regex.search(lines) is not None


def checked_files(workspace: Path, settings: Settings, force: bool = False, shown: str = "") -> list[Selected]:
    """The files to upload, or InvalidInput (nothing sent) when they are over the limits or
    `.paiignore` has a line that is not a pattern — unless `force`."""
    chosen = choose(workspace, settings)
    if force:
        return chosen.files
    bad = [p for p in chosen.rules.problems if p.source == PAIIGNORE]
    if bad:
        raise InvalidInput(message("upload.bad-ignore-line", file=str(workspace / PAIIGNORE), line=bad[0].line,
                                   problem=bad[0].message))
    summary = chosen.facts(settings)
    over = summary.over()
    if over:
        raise InvalidInput(message("upload.refused", at=shown + ": " if shown else "", over=over,
                                   largest=listing(summary.largest, 5, summary.files), ignore=PAIIGNORE))
    return chosen.files
