"""What a job-file format is: the one interface every caller of the core goes through.

A format recognises its files (name patterns, and for files whose name says nothing, their content),
parses them into the shared node tree (`jsonc.Node`: types, values and exact offsets; the document
also writes text of its own syntax for quick fixes), names its schema and the dialects it is checked
in, and answers diagnostics, completion, hover, outline and formatting; for submit, it says what of a
job its cluster's server fills in, where its code goes, what the server is sent (converted for a
server that reads another of OpenPAI's job protocols) and sees (templates filled in), and what
others may read of it (secrets masked). The language server, `pai check`, submit, the records and
the backends pick a format in `formats.py` and ask it; none of them switches on file names,
dialects or a job's content.

The defaults here serve a JSON format checked by a JSON Schema and submitted as it is written; a
format overrides what differs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import ClassVar

from . import jsonc
from . import schema_completion as completion
from . import schema_hover as hover
from . import schema_outline as outline
from .jsonc import Document
from .messages import Message
from .model import Completion, Diagnostic, Edit, Hover, NewFile, Settings
from .route_rules import ClusterFacts, candidates
from .schema_outline import Symbol


class RenameError(ValueError):
    """A new name the file cannot take: why, as a catalogue message the server says in the editor's language."""

    def __init__(self, message: Message):
        super().__init__(str(message))
        self.message = message


class Unsendable(ValueError):
    """A job its cluster's server cannot be given: a template its parser refuses, what the protocol the
    server reads cannot express. `said(cluster)` is what the user is told."""

    def said(self, cluster: str) -> Message | str:
        raise NotImplementedError


@dataclass(frozen=True)
class Sent:
    """A job as its cluster's server is sent it: as data (JSON), or as text (OpenPAI's v2 route reads YAML)."""

    data: dict | None = None
    text: str | None = None


class JobFormat:
    name: ClassVar[str]  # "pai-v1", "paddle": how the cluster-kind registry and clients name it
    title: ClassVar[tuple[str, str]]  # (English, 简体中文), as messages name its files
    patterns: ClassVar[tuple[str, ...]]  # file names it is recognised by ("*.pai.json"), the first the usual one
    syntax: ClassVar[str] = "json"  # the text's syntax: "json" (JSON with comments) or "yaml"
    dialects: ClassVar[tuple[str, ...]]  # what `Settings.dialect` may be for its files; the first is the default
    name_key: ClassVar[str]  # the key holding the job's name (code lenses sit on it; submit names the job by it)
    code_dir: ClassVar[bool] = False  # its files name the upload folder in `codeDir` (the editor shows what goes there)
    code_dir_key: ClassVar[str] = "codeDir"  # where a job of it names its code's HDFS folder, as messages say it
    mounts_storages: ClassVar[bool] = False  # its jobs can mount a cluster's storages (`mount_code` makes them)

    # -- recognising files -------------------------------------------------------------
    def matches(self, file_name: str) -> bool:
        """A file of this format by its name alone (`file_name`: a name or a path)."""
        base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
        return any(fnmatchcase(base, pattern) for pattern in self.patterns)

    def sniff(self, text: str) -> bool:
        """A file of this format by its content, for files whose name no format claims (a YAML
        file with `protocolVersion: 2` at its top level, say). Cheap: it runs on every such file."""
        return False

    def file_name(self, job: str) -> str:
        """The usual name of a job file of this format for the job `job`."""
        return self.patterns[0].replace("*", job, 1)

    # -- checking ----------------------------------------------------------------------
    def dialect(self, settings: Settings) -> str:
        """The dialect a file is checked in: the workspace's (or cluster's) if this format has it."""
        return settings.dialect if settings.dialect in self.dialects else self.dialects[0]

    def checked(self, settings: Settings) -> Settings:
        """`settings` with the dialect this format checks its files in."""
        dialect = self.dialect(settings)
        return settings if dialect == settings.dialect else replace(settings, dialect=dialect)

    def schema(self, dialect: str) -> dict:
        """The JSON Schema of its files in `dialect`."""
        raise NotImplementedError

    def parse(self, text: str) -> Document:
        """The document: a root node (or None), syntax errors, comments, and the writer of its syntax."""
        return jsonc.parse(text)

    def diagnose(self, doc: Document, settings: Settings) -> list[Diagnostic]:
        """Every finding (syntax, schema, the checks no schema can say), sorted by position."""
        raise NotImplementedError

    # -- editing -----------------------------------------------------------------------
    def complete(self, doc: Document, offset: int, settings: Settings) -> list[Completion]:
        settings = self.checked(settings)
        return completion.complete(doc, offset, settings, self.schema(settings.dialect))

    def hover(self, doc: Document, offset: int, settings: Settings) -> Hover | None:
        settings = self.checked(settings)
        return hover.hover(doc, offset, settings, self.schema(settings.dialect))

    def symbols(self, doc: Document) -> list[Symbol]:
        return outline.symbols(doc)

    def folding_ranges(self, doc: Document) -> list[tuple[int, int, str]]:
        return outline.folding_ranges(doc)

    def format_text(self, doc: Document, indent: str = "  ") -> str | None:
        """The whole text formatted, or None when it cannot be without losing what the user typed."""
        return outline.format_text(doc, indent)

    # -- names one part of a file gives another (a format whose files have such names says) ----------
    def definition(self, doc: Document, offset: int) -> list[tuple[int, int]]:
        """Where the name at `offset` is defined: (start, end) ranges."""
        return []

    def references(self, doc: Document, offset: int, include_declaration: bool = True) -> list[tuple[int, int]]:
        """Every place the file names what the name at `offset` names."""
        return []

    def prepare_rename(self, doc: Document, offset: int) -> tuple[int, int] | None:
        """The range of the name a rename at `offset` changes; None when nothing there can be renamed."""
        return None

    def rename(self, doc: Document, offset: int, new_name: str) -> list[Edit]:
        """The edits renaming the name at `offset` everywhere; raises RenameError for a name the file cannot take."""
        return []

    def new_files(self, doc: Document, file_name: str, settings: Settings) -> list[NewFile]:
        """Files a code action can write beside this one (a v1 config's v2 equivalent)."""
        return []

    # -- what the cluster a job goes to holds (fetched by the server side, handed in; absent while unknown) --
    def cluster_diagnostics(self, doc: Document, facts: ClusterFacts, settings: Settings,
                            exists: frozenset[str]) -> list[Diagnostic]:
        """What the cluster would refuse or the job would miss (a storage it may not mount, a workspace
        file no upload reaches); `exists`: which of the paths `route_rules.candidates` found in the
        job's commands are files of the workspace."""
        return []

    def workspace_paths(self, doc: Document) -> frozenset[str]:
        """The paths (relative; a folder's ends in `/`) the job's commands may run from the workspace:
        what the server looks up for `cluster_diagnostics`' `exists`."""
        value = doc.root.value if doc.root is not None else None
        if not isinstance(value, dict):
            return frozenset()
        return frozenset(path for c in candidates(self.commands(value)) for path in c.paths)

    def cluster_complete(self, doc: Document, offset: int, facts: ClusterFacts, settings: Settings) -> list[Completion]:
        """Names the cluster gives (its storages) where the job names one."""
        return []

    def cluster_hover(self, doc: Document, offset: int, facts: ClusterFacts, settings: Settings) -> Hover | None:
        """What the cluster says of the name at `offset` (a storage)."""
        return None

    # -- submitting (a job as plain data: the checked file's values, or read back from a record) --------
    def claims(self, job: dict) -> bool:
        """A job of this format by its content, for a job given as data without its file name (a
        record's, a cluster's): `formats.of_job` asks each format it may be."""
        return False

    def fill_in(self, job: dict, fill: Callable[[str], str]) -> None:
        """Apply `fill` (the job's and user's names put in) to every text of `job` its server runs
        with those names but does not fill in itself."""

    def folder(self, job: dict, name: str) -> str | None:
        """A folder the job names (`codeDir`: where its code is uploaded; `outputDir`: what `pai outputs`
        downloads; `dataDir`), as written; None when it names none."""
        return None

    def commands(self, job: dict) -> list[str]:
        """Every command the job runs, as written (what tells whether it runs the workspace's files)."""
        return []

    def mount_code(self, job: dict, storage: str, folder: str) -> str | None:
        """Make the job mount `storage` and run its commands in `folder` of it (where its code is
        uploaded); the folder as the job sees it, or None when the format mounts no storages."""
        return None

    def converted(self, job: dict, protocols: Collection[int]) -> dict | None:
        """The job as the data a server reading only the OpenPAI job `protocols` (versions; empty: a
        cluster of another kind) is given instead, checked before anything is uploaded; None when the
        job is sent as it is (or converted only as it is sent). Unsendable names what cannot be said."""
        return None

    def sent(self, job: dict, protocols: Collection[int]) -> Sent:
        """The job as a server reading the OpenPAI job `protocols` is sent it. Unsendable says why not."""
        return Sent(data=job)

    def rendered(self, job: dict, show_secrets: bool = False) -> str | None:
        """The job as its server will see it, as text, where that differs from what is written
        (templates filled in, defaults applied, secrets masked unless `show_secrets`); None when it
        sees the job as written. Unsendable for a job the server would refuse to render."""
        return None

    def masked(self, job: dict) -> dict:
        """The job as others may read it (a record is read by everyone on the cluster): secrets masked."""
        return job

    def secrets_lost(self, job: dict) -> bool:
        """Whether the job's secrets are masked (read back from a record): it cannot run as it is."""
        return False

    # -- debugging (core/debug: a format whose task roles run shell commands says how to reach them) ----------
    def task_roles(self, job: dict) -> list[tuple[str, int]]:
        """Each task role's name and instance count, in the job's order (none: the format runs no task roles
        pai can debug)."""
        return []

    def role_commands(self, job: dict, role: str) -> list[str]:
        """The shell lines role `role` runs, as written."""
        return []

    def set_role_commands(self, job: dict, role: str, commands: list[str]) -> None:
        """Replace role `role`'s lines with `commands` (as many as `role_commands` gave)."""

    def add_ports(self, job: dict, role: str, label: str, count: int) -> None:
        """Make each task of role `role` hold at least `count` ports labelled `label`."""

    def ssh_keys(self, job: dict) -> tuple[str, ...] | None:
        """The public keys the job's tasks let in over SSH (the ssh runtime plugin's `userssh`); None: the
        format's jobs cannot ask for an sshd in their tasks."""
        return None

    def add_ssh_key(self, job: dict, roles: list[str], public_key: str) -> None:
        """Make the tasks of `roles` start an sshd that lets in `public_key`."""

