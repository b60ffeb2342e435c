"""No false alarms: real configs nobody here wrote get no error."""

from __future__ import annotations

import json
import re

import pytest

from pai_lsp.core.jsonc import parse
from pai_lsp.core.model import Settings
from pai_lsp.core.validate import validate

from .conftest import SHARED

CORPUS = sorted((SHARED / "corpus" / "openpai-examples" / "v1").glob("*.json"))


def seed_configs() -> list[tuple[str, str]]:
    """Every JSON job config in the seed manuals (the manuals indent some of them). Seed 004's
    field overview (`"jobName": String, …`) is a template, not JSON, and is left out."""
    found = []
    for seed in sorted((SHARED / "seeds").glob("*.txt")):
        text = seed.read_text(encoding="utf-8")
        for start in [m.start() for m in re.finditer(r"^\s*\{\s*$", text, re.M)]:
            doc = parse(text[start:])
            is_json = all(e.code == "syntax.comment" for e in doc.errors if e.start < doc.root.end) if doc.root else False
            if is_json and doc.root.type == "object" and "jobName" in doc.root.value:
                found.append((f"{seed.name}@{start}", text[start : start + doc.root.end]))
    return found


SEEDS = seed_configs()


def test_the_corpus_and_seeds_are_there():
    assert len(CORPUS) >= 20
    assert len(SEEDS) >= 4


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_config_has_no_error(path):
    _, diagnostics = validate(path.read_text(encoding="utf-8"))
    assert [d for d in diagnostics if d.severity == "error"] == []
    # Only what the real server would refuse is left: comments (cntk-mpi.json has some).
    assert {d.code for d in diagnostics} <= {"syntax.comment"}


@pytest.mark.parametrize("name,text", SEEDS, ids=[s[0] for s in SEEDS])
def test_seed_config_has_no_error(name, text):
    # The SCM manual's configs carry SCM keys; they are checked as SCM, the rest as OpenPAI.
    dialect = "scm" if ("storageGB" in text or '"tmp"' in text) else "openpai"
    _, diagnostics = validate(text, Settings(dialect=dialect))
    assert [(d.code, d.message) for d in diagnostics if d.severity == "error"] == []


def test_scm_seed_configs_are_flagged_for_plain_openpai():
    scm = [text for _, text in SEEDS if "storageGB" in text]
    assert scm
    _, diagnostics = validate(scm[0], Settings(dialect="openpai"))
    assert {d.code for d in diagnostics if d.severity == "error"} == {"schema.scm-only"}


def test_every_corpus_value_round_trips():
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        doc = parse(text)
        if not doc.comments:
            assert doc.root.value == json.loads(text)
