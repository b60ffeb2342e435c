"""The registry of job-file formats: which format a file (or a job given as data) is, and the file
patterns editors are told.

Adding a format: its module (a `job_format.JobFormat`), and its line in `FORMATS`.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import paddle, v1, v2
from .job_format import JobFormat

FORMATS: tuple[JobFormat, ...] = (
    v1.FORMAT,  # *.pai.json: OpenPAI v1 (and its SCM dialect)
    paddle.FORMAT,  # *.paddle.json: PaddlePaddle Cloud
    v2.FORMAT,  # *.pai.yaml, *.pai.yml, YAML with `protocolVersion: 2`: OpenPAI's v2 job protocol
)
DEFAULT = v1.FORMAT  # what a document no format claims is read as (an editor may send any file of the language)
BY_NAME = {f.name: f for f in FORMATS}


def recognise(file_name: str, text: str | None = None) -> JobFormat | None:
    """The format of a job file by its name (a name, path or URI), else by its content; None when it
    is no job file."""
    found = next((f for f in FORMATS if f.matches(file_name)), None)
    if found is None and text is not None:
        found = next((f for f in FORMATS if f.sniff(text)), None)
    return found


def format_for(file_name: str, text: str | None = None) -> JobFormat:
    """The format a document is read in: its own, or the default one."""
    return recognise(file_name, text) or DEFAULT


def of_job(job: dict, among: Iterable[str] | None = None) -> JobFormat:
    """The format of a job given as data (read back from a record or a cluster, or placed for submit),
    of the formats named `among` (a cluster kind's; every format when None): the first that claims it
    by its content, else the first of them (the default format of all)."""
    candidates = [BY_NAME[name] for name in among] if among is not None else list(FORMATS)
    found = next((f for f in candidates if f.claims(job)), None)
    return found or (candidates[0] if among is not None else DEFAULT)


def patterns() -> list[str]:
    """Every job-file name pattern, in registry order."""
    return [pattern for f in FORMATS for pattern in f.patterns]
