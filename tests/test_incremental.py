"""Reading only what changed gives what reading everything gives: random edits applied to a parse
(and diagnosed through the per-role cache) against a fresh parse diagnosed with nothing remembered."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pai_lsp.core import role_cache
from pai_lsp.core.jsonc import parse
from pai_lsp.core.model import Settings
from pai_lsp.core.validate import diagnose

from .helpers.paths import config_texts
from .helpers.tiers import examples

ROLES = json.dumps({
    "jobName": "j", "image": "i", "codeDir": "$PAI_DEFAULT_FS_URI/x",
    "taskRoles": [{"name": f"w{i}", "taskNumber": 2, "memoryMB": 64, "shmMB": 64 * i,
                   "portList": [{"label": "tb", "beginAt": 0, "portNumber": 1}],
                   "command": f"run $PAI_HOST_IP_w{(i + 1) % 6}_1 $PAI_TB_{i}"} for i in range(6)],
}, indent=1)
PIECES = st.sampled_from(['"', ",", "1", "9", "w", " ", "\n", "{", "}", "[", "]", ":", "\\", "\\ud800", "é", "$PAI_", "_1", "//"])


def findings(doc) -> list[tuple]:
    return [(d.start, d.end, d.code, d.message, [[(e.start, e.end, e.text) for e in f.edits] for f in d.fixes])
            for d in diagnose(doc, Settings(locale="en"))]


@settings(max_examples=examples(150), deadline=None)
@given(st.sampled_from([ROLES, *config_texts()]), st.data())
def test_an_edited_parse_equals_a_fresh_one(text, data):
    doc = parse(text)
    findings(doc)
    for _ in range(data.draw(st.integers(1, 6))):
        a = data.draw(st.integers(0, len(text)))
        b = data.draw(st.integers(a, min(len(text), a + 8)))
        new = "".join(data.draw(st.lists(PIECES, max_size=3)))
        text = text[:a] + new + text[b:]
        doc = doc.edit(a, b, new)
        assert doc.text == text
        mine = findings(doc)
        role_cache.clear()
        fresh = parse(text)
        assert (doc.root.value if doc.root else None) == (fresh.root.value if fresh.root else None)
        assert [(e.code, e.start, e.end) for e in doc.errors] == [(e.code, e.start, e.end) for e in fresh.errors]
        assert doc.comments == fresh.comments
        assert mine == findings(fresh)
