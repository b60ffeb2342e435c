"""The OpenPAI v1 job config (`*.pai.json`, JSON with comments) as a job-file format, in the dialects
"openpai" and "scm" (`pai.cluster.kind`, or the kind of the cluster a job goes to). Its checks are
`validate.py` with `semantic.py`; completion, hover and outline are the schema-driven defaults."""

from __future__ import annotations

from .job_format import JobFormat
from .jsonc import Document
from .model import Diagnostic, Settings
from .schema import DIALECTS, job_schema
from .validate import diagnose


class PaiV1(JobFormat):
    name = "pai-v1"
    title = ("OpenPAI job config", "OpenPAI 作业配置")
    patterns = ("*.pai.json",)
    dialects = DIALECTS
    name_key = "jobName"
    code_dir = True

    def schema(self, dialect: str) -> dict:
        return job_schema(dialect)

    def diagnose(self, doc: Document, settings: Settings) -> list[Diagnostic]:
        return diagnose(doc, self.checked(settings))


FORMAT = PaiV1()
