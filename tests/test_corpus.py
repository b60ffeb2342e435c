"""No false alarms on real configs nobody here wrote (`../shared`: the OpenPAI examples and the user
manuals). An extra: skipped without `../shared`, required in CI. `test_configs.py` covers the same
ground with the repository's own configs."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from pai_lsp.core.jsonc import parse
from pai_lsp.core.model import Settings
from pai_lsp.core.validate import validate

from .helpers.paths import shared


def corpus() -> list:
    return sorted(shared("corpus", "openpai-examples", "v1").glob("*.json"))


def seed_configs() -> list[tuple[str, str]]:
    """Every JSON job config in the seed manuals (the manuals indent some of them). Seed 004's
    field overview (`"jobName": String, …`) is a template, not JSON, and is left out."""
    found = []
    for seed in sorted(shared("seeds").glob("*.txt")):
        text = seed.read_text(encoding="utf-8")
        for start in [m.start() for m in re.finditer(r"^\s*\{\s*$", text, re.M)]:
            doc = parse(text[start:])
            is_json = all(e.code == "syntax.comment" for e in doc.errors if e.start < doc.root.end) if doc.root else False
            if is_json and doc.root.type == "object" and "jobName" in doc.root.value:
                found.append((f"{seed.name}@{start}", text[start : start + doc.root.end]))
    return found


def test_the_corpus_and_seeds_are_there():
    assert len(corpus()) >= 20
    assert len(seed_configs()) >= 4


def test_corpus_configs_have_no_error():
    for path in corpus():
        _, diagnostics = validate(path.read_text(encoding="utf-8"))
        assert [d for d in diagnostics if d.severity == "error"] == [], path.name
        # Only what the real server would refuse is left: comments (cntk-mpi.json has some).
        assert {d.code for d in diagnostics} <= {"syntax.comment"}, path.name


def test_seed_configs_have_no_error():
    for name, text in seed_configs():
        # The SCM manual's configs carry SCM keys; they are checked as SCM, the rest as OpenPAI.
        dialect = "scm" if ("storageGB" in text or '"tmp"' in text) else "openpai"
        _, diagnostics = validate(text, Settings(dialect=dialect))
        assert [(d.code, d.message) for d in diagnostics if d.severity == "error"] == [], name


def test_scm_seed_configs_are_flagged_for_plain_openpai():
    scm = [text for _, text in seed_configs() if "storageGB" in text]
    assert scm
    _, diagnostics = validate(scm[0], Settings(dialect="openpai"))
    assert {d.code for d in diagnostics if d.severity == "error"} == {"schema.scm-only"}


def test_every_corpus_value_round_trips():
    for path in corpus():
        text = path.read_text(encoding="utf-8")
        doc = parse(text)
        if not doc.comments:
            assert doc.root.value == json.loads(text)


@pytest.mark.subprocess
def test_pai_check_passes_the_corpus():
    result = subprocess.run([sys.executable, "-m", "pai_lsp", "check", *map(str, corpus())], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stdout
    # Only the comment warnings of cntk-mpi.json are printed.
    assert result.stdout.count("\n") == 3 and "cntk-mpi.json:5:3: warning syntax.comment" in result.stdout



def v2_corpus() -> list:
    return sorted(shared("corpus", "openpai-examples", "v2").glob("*.yaml"))


def test_v2_corpus_files_have_no_finding_at_all():
    """The real v2 examples (OpenPAI's own): not one diagnostic, warnings included, by the format the
    editor and `pai check` read them with (by name as *.pai.yaml, and by content as they are named)."""
    from pai_lsp.core.formats import format_for

    files = v2_corpus()
    assert len(files) >= 30
    for path in files:
        text = path.read_text(encoding="utf-8")
        for name in (path.name.replace(".yaml", ".pai.yaml"), path.name):
            job_format = format_for(name, text)
            assert job_format.name == "pai-v2", name
            found = job_format.diagnose(job_format.parse(text), Settings())
            assert [(d.code, text[d.start:d.end], d.message) for d in found] == [], path.name


def test_every_v1_corpus_config_converts_to_a_v2_job_without_error():
    """The v1 → v2 code action's file (core/v1/to_v2.py) for every real v1 config: a v2 job the
    editor finds no error in."""
    from pai_lsp.core.formats import format_for

    v1, v2 = format_for("x.pai.json"), format_for("x.pai.yaml")
    for path in corpus():
        (new,) = v1.new_files(v1.parse(path.read_text(encoding="utf-8")), str(path), Settings())
        if new.disabled:
            continue
        errors = [(d.code, d.message) for d in v2.diagnose(v2.parse(new.text), Settings()) if d.severity == "error"]
        assert errors == [], path.name
