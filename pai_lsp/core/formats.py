"""The registry of job-file formats: which format a file is, and the file patterns editors are told.

Adding a format: its module (a `job_format.JobFormat`), and its line in `FORMATS`.
"""

from __future__ import annotations

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


def patterns() -> list[str]:
    """Every job-file name pattern, in registry order."""
    return [pattern for f in FORMATS for pattern in f.patterns]
