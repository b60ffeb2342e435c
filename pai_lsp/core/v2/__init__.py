"""The OpenPAI v2 job protocol (`*.pai.yaml`, `*.pai.yml`, or any YAML whose top level says
`protocolVersion: 2`) as a job-file format: read as the server's js-yaml 3 reads it (core/yaml/tree.py),
checked as its Ajv schema and its own checks do, with what the web portal, HiveD and the scheduler
refuse as warnings (`checks.py`); completion (`completion.py`), hover (`hover.py`), navigation
(`navigate.py`) and outline (`outline.py`) built on what the job defines (`job.py`)."""

from __future__ import annotations

import re

from ..job_format import JobFormat
from ..model import Completion, Diagnostic, Edit, Hover, Settings
from ..schema_outline import Symbol
from ..yaml.tree import Document, parse
from . import checks, completion, facts, navigate, outline
from . import hover as explain

# `protocolVersion: 2` at the top level (column 0), the value plain or quoted, a comment after it.
_SNIFF = re.compile(r"""^protocolVersion[ \t]*:[ \t]*(?:2|'2'|"2")[ \t]*(?:#.*)?\r?$""", re.M)


class PaiV2(JobFormat):
    name = "pai-v2"
    title = ("OpenPAI job (protocol v2)", "OpenPAI 作业（v2 协议）")
    patterns = ("*.pai.yaml", "*.pai.yml")
    syntax = "yaml"
    dialects = (facts.DIALECT,)
    name_key = "name"

    def sniff(self, text: str) -> bool:
        return "protocolVersion" in text and _SNIFF.search(text) is not None

    def schema(self, dialect: str) -> dict:
        return facts.schema()

    def parse(self, text: str) -> Document:  # type: ignore[override]
        return parse(text)

    def diagnose(self, doc: Document, settings: Settings) -> list[Diagnostic]:  # type: ignore[override]
        return checks.diagnose(doc, settings)

    def complete(self, doc: Document, offset: int, settings: Settings) -> list[Completion]:  # type: ignore[override]
        return completion.complete(doc, offset, settings)

    def hover(self, doc: Document, offset: int, settings: Settings) -> Hover | None:  # type: ignore[override]
        return explain.hover(doc, offset, settings)

    def symbols(self, doc: Document) -> list[Symbol]:  # type: ignore[override]
        return outline.symbols(doc)

    def folding_ranges(self, doc: Document) -> list[tuple[int, int, str]]:  # type: ignore[override]
        return outline.folding_ranges(doc)

    def format_text(self, doc: Document, indent: str = "  ") -> str | None:  # type: ignore[override]
        return None  # YAML is laid out by hand: nothing here rewrites it

    def definition(self, doc: Document, offset: int) -> list[tuple[int, int]]:  # type: ignore[override]
        return navigate.definition(doc, offset)

    def references(self, doc: Document, offset: int, include_declaration: bool = True) -> list[tuple[int, int]]:  # type: ignore[override]
        return navigate.references(doc, offset, include_declaration)

    def prepare_rename(self, doc: Document, offset: int) -> tuple[int, int] | None:  # type: ignore[override]
        return navigate.prepare_rename(doc, offset)

    def rename(self, doc: Document, offset: int, new_name: str) -> list[Edit]:  # type: ignore[override]
        return navigate.rename(doc, offset, new_name)


FORMAT = PaiV2()
