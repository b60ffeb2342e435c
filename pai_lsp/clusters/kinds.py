"""The registry of cluster kinds: what differs between kinds of cluster, in one record each.

A profile's `kind` names its record; connecting, adding and removing a profile, submitting a job file,
the CLI's `--kind` and what editors offer all read it here, and none switches on a kind's name.
Importing this module loads no backend and no job-file format (`pai --help` stays quick): a kind's
backend class is imported when a session is made, the format registry when a file is looked at.

Adding a kind: its backend module (a `backend.Backend`), its line in `KINDS`, and its name in the
`kind` enum of schemas/pai-cluster.schema.json (a test holds the two together).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.messages import message, pick
from ..errors import ConfigError
from .profiles import LOCAL, LOCAL_PADDLE, PFS_PATH, Profile, local_paddle_profile, local_profile, secret_key

if TYPE_CHECKING:
    from .backend import BackendClass


def _openpai() -> BackendClass:
    from .openpai import OpenPai

    return OpenPai


def _paddlecloud() -> BackendClass:
    from .paddlecloud import PaddleCloud

    return PaddleCloud


def profile_token_key(profile: Profile) -> str:
    """A token kept per profile (`<profile>:<user>:token`)."""
    return secret_key(profile, "token")


def endpoint_token_key(profile: Profile) -> str:
    """A token kept per (endpoint, user): PaddlePaddle Cloud's DRF tokens, which every profile of the
    same endpoint and user shares."""
    return f"paddlecloud:{profile.rest_uri.rstrip('/')}:{profile.user}:token"


@dataclass(frozen=True)
class ClusterKind:
    name: str  # a profile's `kind`; `pai cluster add --kind`
    title: tuple[str, str]  # (English, 简体中文): what editors show beside the name
    backend: Callable[[], BackendClass]  # its backend class (imported on first use: an HTTP client loads with it)
    job_format: str  # the job-file format its jobs are written in (core/formats.py)
    dialect: str  # the dialect of that format its server reads
    storage: str  # what its storage URI (`webhdfs_uri`) points at: "WebHDFS" | "PFS"
    default_storage: str | None = None  # that URI's path under the REST URI when none is given (None: it must be given)
    token_key: Callable[[Profile], str] = profile_token_key  # the keyring key of a session's token
    local: str | None = None  # the profile of the embedded local cluster's API of this kind
    local_profile: Callable[[bool], Profile] | None = None  # that profile (`start`: start the local cluster if needed)
    protocols: bool = False  # jobs go in OpenPAI's protocol v1 or v2, detected when a profile is added
    datacenter: bool = False  # a profile names a datacenter (`/pfs/<datacenter>/…`)
    web_portal: bool = False  # the cluster shows each job on a page of its web portal
    record_in_extras: bool = False  # a job's config carries where its submission record is (`extras`, kept by the server)
    name_taken: str = "jobs.name-taken"  # the message that a job's name is taken (whole: a translator sees one sentence)
    other_formats: tuple[str, ...] = ()  # formats it also runs (its backend converts them where its server needs)

    def runs(self, job_format: str) -> bool:
        """Whether its clusters take job files of `job_format` (a format's name)."""
        return job_format == self.job_format or job_format in self.other_formats

    @property
    def job_files(self) -> tuple[str, ...]:
        """The file-name patterns of its job files (its own format's first)."""
        from ..core import formats

        return tuple(p for name in (self.job_format, *self.other_formats) for p in formats.entry(name).patterns)

    def describe(self, locale: str | None = None) -> dict[str, Any]:
        """What editors are told of the kind."""
        return {"name": self.name, "title": pick(locale, *self.title), "jobFormat": self.job_format,
                "jobFiles": list(self.job_files), "storage": self.storage, "storageRequired": self.default_storage is None,
                "local": self.local}


KINDS: tuple[ClusterKind, ...] = (
    ClusterKind("openpai", ("OpenPAI", "OpenPAI"), _openpai, "pai-v1", "openpai", "WebHDFS",
                local=LOCAL, local_profile=local_profile, protocols=True, web_portal=True, record_in_extras=True,
                other_formats=("pai-v2",)),
    ClusterKind("scm", ("SCM (storageGB, tmp, extras.virtualGroup)", "SCM（storageGB、tmp、extras.virtualGroup）"), _openpai,
                "pai-v1", "scm", "WebHDFS", protocols=True, web_portal=True, record_in_extras=True,
                other_formats=("pai-v2",)),
    ClusterKind("paddlecloud", ("PaddlePaddle Cloud", "PaddlePaddle Cloud"), _paddlecloud, "paddle", "paddle", "PFS",
                default_storage=PFS_PATH, token_key=endpoint_token_key, local=LOCAL_PADDLE, local_profile=local_paddle_profile,
                datacenter=True, name_taken="jobs.name-taken-terminating"),  # a finished job's pods may hold its name a while
)
BY_NAME = {kind.name: kind for kind in KINDS}


def kind_named(name: str) -> ClusterKind:
    """The record of a kind by its name, or ConfigError saying which kinds there are."""
    found = BY_NAME.get(name)
    if found is None:
        raise ConfigError(message("clusters.no-kind", name=name, kinds=", ".join(BY_NAME)))
    return found


def kind_of(profile: Profile) -> ClusterKind:
    return kind_named(profile.kind)


def local_kind(name: str) -> ClusterKind | None:
    """The kind whose API the local profile `name` is (None when `name` is no local profile)."""
    return next((kind for kind in KINDS if kind.local == name), None)


def local_for(file_name: str, text: str | None = None) -> str:
    """The local profile that runs a job file: the local API of a kind written in the file's format."""
    from ..core import formats

    job_format = formats.format_for(file_name, text).name
    return next((kind.local for kind in KINDS if kind.local and kind.runs(job_format)), LOCAL)


def catalogue(locale: str | None = None) -> dict[str, Any]:
    """What editors are told: the job-file formats with their file patterns, and the cluster kinds
    (`pai.kinds`, and `pai-lsp --kinds` for a client that needs the patterns before it starts the server)."""
    from ..core import formats

    return {"jobFiles": [{"format": f.name, "title": pick(locale, *f.title), "patterns": list(f.patterns), "syntax": f.syntax}
                         for f in formats.REGISTRY],  # (no format's module loads for this)
            "kinds": [kind.describe(locale) for kind in KINDS]}
