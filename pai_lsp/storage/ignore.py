"""What an upload leaves out, beside the `exclude` globs: folders nobody means to ship (`.git/`,
virtual environments, `node_modules/` …), the workspace's `.paiignore`, and its `.gitignore` files.

Patterns are gitignore syntax, turned into regular expressions by `pathspec`; decisions follow git:
the last pattern that names a path decides, and nothing inside an ignored folder comes back
(ignored folders are not walked at all). Layers
are asked from the most to the least specific and the first with an opinion decides: `.paiignore`,
then `.gitignore` files from the deepest up, then the defaults — so `!venv/` in `.paiignore`
ships a `venv/` folder again. An include glob that names a default folder itself
(`node_modules/mylib/**`) still wins over the defaults for the files it matches.

Speed: the patterns of all layers are also joined into one regular expression that finds, in one
scan, the few paths any pattern could match; only those are asked of each pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.messages import Message, message
from .upload import glob_regex

if TYPE_CHECKING:
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

DEFAULT_EXCLUDES = (".git/", ".hg/", ".svn/", "__pycache__/", ".venv/", "venv/", "node_modules/",
                    ".ipynb_checkpoints/", ".DS_Store")
PAIIGNORE = ".paiignore"
GITIGNORE = ".gitignore"
_DEFAULT_NAMES = frozenset(p.rstrip("/") for p in DEFAULT_EXCLUDES)
_NAME_PREFIX = "^(?:.+/)?"  # how pathspec starts a pattern without a slash: the name at any depth


@dataclass
class Layer:
    """The patterns of one ignore file (or the defaults), relative to the folder `base` ("" or "a/b/")."""

    source: str  # as messages name it: "defaults", ".paiignore", "sub/.gitignore"
    base: str
    patterns: list[GitIgnoreSpecPattern]
    default: bool = False

    def verdict(self, path: str, folder: bool = False) -> bool | None:
        """True: ignored; False: taken back by a `!pattern`; None: no pattern here names `path`
        (a folder's path ends with "/"). As in git, the last pattern that names the path itself
        decides; what a pattern says of a folder above it was decided when that folder was walked."""
        if not path.startswith(self.base):
            return None
        rel = path[len(self.base):]
        for pattern in reversed(self.patterns):
            # a pattern without `^` (`**/`) may match above the path first, and at the path after
            if any(_names(m, len(rel), folder) for m in pattern.regex.finditer(rel)):
                return pattern.include
        return None


def _names(m: re.Match, length: int, folder: bool) -> bool:
    """Whether a pathspec match names the path itself rather than a folder above it. pathspec marks
    the slash after a folder a pattern named (`ps_d`); a pattern such as `data/**` matches what is
    inside `data/` (up to its slash), not the folder `data` itself."""
    group = m.re.groupindex.get("ps_d")
    slash = m.end(group) if group is not None else -1
    if slash >= 0:
        return folder and slash == length
    return not folder or m.end() < length


@dataclass
class Problem:
    """A line of an ignore file that says nothing to the upload, and why (said in the reader's language)."""

    source: str
    line: int
    message: Message

    def said(self) -> Message:
        """`.paiignore:3: …`, as the editor and `pai` show it."""
        return message("ignore.problem", source=self.source, line=self.line, problem=self.message)

    def __str__(self) -> str:
        return str(self.said())


def read_patterns(text: str, source: str) -> tuple[list[GitIgnoreSpecPattern], list[Problem]]:
    """The patterns of an ignore file; a line pathspec cannot read is a problem, not a failure.
    (pathspec loads here, with the first ignore file: a workspace without one never needs it.)"""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    patterns, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            pattern = GitIgnoreSpecPattern(line)
        except ValueError as exc:  # pathspec's GitIgnorePatternError is one
            problems.append(Problem(source, number, message("ignore.not-pattern", pattern=line.strip(), why=str(exc))))
            continue
        if pattern.include is not None and pattern.regex is not None:
            patterns.append(pattern)
    return patterns, problems


@dataclass(frozen=True)
class NamePattern:
    """A gitignore pattern that is a plain name (`node_modules/`, `.DS_Store`) as pathspec reads it
    (the same `include` and `regex`), made without loading pathspec: a workspace without ignore
    files needs only the defaults, which are all such names."""

    include: bool
    regex: re.Pattern


@cache
def default_patterns() -> list[GitIgnoreSpecPattern]:
    """DEFAULT_EXCLUDES as pathspec reads them (tests/test_upload_preview.py holds the two equal)."""
    return [NamePattern(True, re.compile(_NAME_PREFIX + re.escape(name.rstrip("/")) + (_FOLDER_TAIL if name.endswith("/") else _ANY_TAIL)))
            for name in DEFAULT_EXCLUDES]  # type: ignore[misc]  (what Layer reads of a pattern: include, regex)


@dataclass
class IgnoreRules:
    """The ignore layers of one workspace, and the include globs that name default folders."""

    root: Path
    respect_gitignore: bool = True
    explicit: re.Pattern | None = None  # include globs naming a default folder: their files skip the defaults
    explicit_names: frozenset[str] = frozenset()  # the default folders they name (walked after all)
    layers: list[Layer] = field(default_factory=list)  # most specific first
    problems: list[Problem] = field(default_factory=list)
    _unions: tuple[re.Pattern, ...] = ()
    _stale: bool = True

    @classmethod
    def load(cls, root: Path, respect_gitignore: bool = True, include: list[str] | tuple[str, ...] = ()) -> IgnoreRules:
        named = [g for g in include if not g.startswith("!") and _DEFAULT_NAMES & set(g.strip("/").split("/"))]
        rules = cls(root, respect_gitignore, _globs(named), frozenset(_DEFAULT_NAMES & set().union(*(g.strip("/").split("/") for g in named))))
        rules.layers.append(Layer("defaults", "", default_patterns(), default=True))
        if respect_gitignore:
            rules._add(root / GITIGNORE, "")
        rules._add(root / PAIIGNORE, "", pai=True)
        return rules

    def _add(self, path: Path, base: str, pai: bool = False) -> None:
        source = base + path.name
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except UnicodeDecodeError:
            self.problems.append(Problem(source, 1, message("ignore.not-utf8")))
            return
        except OSError as exc:
            self.problems.append(Problem(source, 1, message("ignore.unreadable", why=exc.strerror or type(exc).__name__)))
            return
        patterns, problems = read_patterns(text, source)
        self.problems += problems
        if patterns:
            layer = Layer(source, base, patterns)
            # .paiignore first; then deeper .gitignore files before shallower ones; the defaults last.
            at = 0 if pai else next(i for i, known in enumerate(self.layers)
                                    if known.default or (known.source != PAIIGNORE and len(known.base) <= len(base)))
            self.layers.insert(at, layer)
            self._stale = True

    # -- during the walk ---------------------------------------------------------------
    def enter(self, folder: str, prefix: str, names: list[str]) -> None:
        """A folder's files were listed: its own `.gitignore` (below the root) applies from now on."""
        if prefix and self.respect_gitignore and GITIGNORE in names:
            self._add(Path(folder, GITIGNORE), prefix)

    def folder_ignored(self, rel: str, exempt: bool = True) -> bool:
        """Whether the folder `rel` (and so all it holds) is left out. `exempt`: a default folder an
        include glob names is walked (its files are decided one by one)."""
        probe = rel + "/"
        if self.union.search(probe) is None:
            return False
        skip_defaults = exempt and bool(self.explicit_names) and not self.explicit_names.isdisjoint(rel.split("/"))
        for layer in self.layers:
            if skip_defaults and layer.default:
                continue
            verdict = layer.verdict(probe, folder=True)
            if verdict is not None:
                return verdict
        return False

    # -- after the walk ----------------------------------------------------------------
    def keep(self, rels: list[str]) -> list[str]:
        """`rels` (files in folders that were walked) without the ignored ones."""
        if not rels:
            return rels
        text = "\n".join(rels)
        search, find, dropped, pos = self.file_union.search, text.find, set(), 0
        while (m := search(text, pos)) is not None:
            start = text.rfind("\n", 0, m.start()) + 1
            end = find("\n", m.end())
            end = len(text) if end < 0 else end
            path = text[start:end]
            if self.ignored(path):
                dropped.add(path)
            pos = end + 1
        if self.explicit is not None:  # in a default folder walked for an include glob, only its files go
            for path in rels:
                if (not self.explicit_names.isdisjoint(path.split("/")) and self.explicit.match(path) is None
                        and any(self.folder_ignored(path[:i], exempt=False) for i in _slashes(path))):
                    dropped.add(path)
        return [r for r in rels if r not in dropped] if dropped else rels

    def ignored(self, path: str) -> bool:
        skip_defaults = self.explicit is not None and self.explicit.match(path) is not None
        for layer in self.layers:
            if skip_defaults and layer.default:
                continue
            verdict = layer.verdict(path)
            if verdict is not None:
                return verdict
        return False

    @property
    def union(self) -> re.Pattern:
        """One expression that finds every folder (as "path/") any pattern could name."""
        self._compile()
        return self._unions[0]

    @property
    def file_union(self) -> re.Pattern:
        """One expression that finds, on the lines of newline-joined paths, every file any pattern
        could name (patterns only folders can match are left out)."""
        self._compile()
        return self._unions[1]

    def _compile(self) -> None:
        if self._stale or not self._unions:
            regexes = [(p.regex.pattern, layer.base) for layer in self.layers for p in layer.patterns]
            self._unions = (_union(regexes, folders=True), _union(regexes, folders=False))
            self._stale = False


def _slashes(path: str) -> list[int]:
    return [i for i, ch in enumerate(path) if ch == "/"]


_ANY_TAIL = "(?:(?P<ps_d>/)|$)"  # how pathspec ends a pattern that names files and folders alike
_FOLDER_TAIL = "(?P<ps_d>/)"  # and one that names folders only ("logs/")


def _union(regexes: list[tuple[str, str]], folders: bool) -> re.Pattern:
    """The pathspec patterns (regex, base folder) as one multi-line expression that finds, never
    across a line end, each line one of them could match. Patterns of names (the most) share one
    `^(?:.+/)?` prefix, so a line costs one scan, not one per pattern."""
    names, others = [], []
    for regex, base in regexes:
        if not folders:
            if regex.endswith(_FOLDER_TAIL) and not regex.endswith(_ANY_TAIL):
                continue  # names folders only: what lies in one was decided when it was walked
            if regex.endswith(_ANY_TAIL):
                regex = regex[: -len(_ANY_TAIL)] + "$"  # a file is named whole
        regex = re.sub(r"\(\?P<\w+>", "(?:", regex)  # several patterns share group names
        regex = re.sub(r"(?<!\\)\[\^", "[^\n", regex)  # a negated class must not step over a line end
        if not base and regex.startswith(_NAME_PREFIX):
            names.append(regex[len(_NAME_PREFIX):])
        elif regex.startswith("^"):
            others.append("^" + re.escape(base) + "(?:" + regex[1:] + ")")
        else:  # pathspec searches a pattern without `^` anywhere in the path (below its base)
            others.append(("^" + re.escape(base) + "[^\n]*?" if base else "") + "(?:" + regex + ")")
    if names:
        others.insert(0, _NAME_PREFIX + "(?:" + "|".join(names) + ")")
    return re.compile("|".join(others) or "(?!)", re.M)


def is_default_folder(name: str) -> bool:
    """A folder no upload sends unless asked (`.git`, `node_modules` …)."""
    return name in _DEFAULT_NAMES


def _globs(globs: list[str]) -> re.Pattern | None:
    return re.compile("(?:" + "|".join(glob_regex(g.lstrip("/")) for g in globs) + ")$") if globs else None

