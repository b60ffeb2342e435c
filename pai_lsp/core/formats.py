"""The registry of job-file formats: which format a file (or a job given as data) is, and the file
patterns editors are told.

A format's module loads when a file of it is first read (the language server opening a v1 config
reads no YAML machinery), so each line of `REGISTRY` also says the file patterns the format's
`patterns` says (tests/core/test_formats.py holds the two to each other). `FORMATS` and `BY_NAME`
load every format.

Adding a format: its module (a `job_format.JobFormat` named `FORMAT`), and its line in `REGISTRY`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .job_format import JobFormat


class Entry(NamedTuple):
    """A format as the registry knows it before its module loads: what its `name`, `title`,
    `patterns` and `syntax` say, and where its `FORMAT` is (a module under pai_lsp.core)."""

    name: str
    module: str
    title: tuple[str, str]
    patterns: tuple[str, ...]
    syntax: str = "json"

    def load(self) -> JobFormat:
        return importlib.import_module(f"{__package__}.{self.module}").FORMAT


REGISTRY: tuple[Entry, ...] = (
    Entry("pai-v1", "v1", title=("OpenPAI job config", "OpenPAI 作业配置"), patterns=("*.pai.json",)),  # and its SCM dialect
    Entry("paddle", "paddle", title=("PaddlePaddle Cloud job file", "PaddlePaddle Cloud 作业文件"), patterns=("*.paddle.json",)),
    Entry("pai-v2", "v2", title=("OpenPAI job (protocol v2)", "OpenPAI 作业（v2 协议）"), patterns=("*.pai.yaml", "*.pai.yml"),
          syntax="yaml"),  # and any YAML with `protocolVersion: 2` at its top level
)
_DEFAULT = REGISTRY[0]  # what a document no format claims is read as (an editor may send any file of the language)


def __getattr__(name: str) -> Any:
    """`FORMATS` (every format, in registry order), `BY_NAME` and `DEFAULT`, loaded when first asked for."""
    if name == "FORMATS":
        return tuple(line.load() for line in REGISTRY)
    if name == "BY_NAME":
        return {line.name: line.load() for line in REGISTRY}
    if name == "DEFAULT":
        return _DEFAULT.load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def entry(name: str) -> Entry:
    """The registry's line for the format called `name` (KeyError for none)."""
    for line in REGISTRY:
        if line.name == name:
            return line
    raise KeyError(name)


def named(name: str) -> JobFormat:
    """The format called `name` (KeyError for none), its module loaded if it was not."""
    return entry(name).load()


def recognise(file_name: str, text: str | None = None) -> JobFormat | None:
    """The format of a job file by its name (a name, path or URI), else by its content; None when it
    is no job file."""
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    found = next((line for line in REGISTRY if any(fnmatchcase(base, p) for p in line.patterns)), None)
    if found is not None:
        return found.load()
    if text is not None:
        return next((f for f in (line.load() for line in REGISTRY) if f.sniff(text)), None)
    return None


def format_for(file_name: str, text: str | None = None) -> JobFormat:
    """The format a document is read in: its own, or the default one."""
    return recognise(file_name, text) or _DEFAULT.load()


def of_job(job: dict, among: Iterable[str] | None = None) -> JobFormat:
    """The format of a job given as data (read back from a record or a cluster, or placed for submit),
    of the formats named `among` (a cluster kind's; every format when None): the first that claims it
    by its content, else the first of them (the default format of all)."""
    candidates = [named(name) for name in among] if among is not None else [line.load() for line in REGISTRY]
    found = next((f for f in candidates if f.claims(job)), None)
    return found or (candidates[0] if among is not None else _DEFAULT.load())


def patterns() -> list[str]:
    """Every job-file name pattern, in registry order."""
    return [pattern for line in REGISTRY for pattern in line.patterns]
