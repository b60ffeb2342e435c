"""Typing into one long line keeps the memory of the document layer and the analysis bounded:
what the analysis remembers by a text (a task role's, a property's value, a command's templates)
is bounded in characters as well as in count, so the memory kept grows neither with the
keystrokes nor with the line's length. Measured with tracemalloc over the server's document
store and the format's checks, in-process (the server over stdio: bench/typing_memory.py)."""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from lsprotocol import types

from pai_lsp.core.formats import format_for
from pai_lsp.core.model import Settings
from pai_lsp.server.documents import Documents

from ..helpers.configs import TYPING_V1 as V1
from ..helpers.configs import TYPING_V2 as V2
from ..helpers.configs import TYPING_WORDS as WORDS
from ..helpers.configs import typing_start

MB = 1 << 20
LINE = 20_000  # characters on the line before the typing measured
WARM = 100  # keystrokes that fill the bounded caches before the measure starts


class Typist:
    """A document open in the server's store, typed into at `|` (a long line already), and checked
    after every keystroke as the server checks it."""

    def __init__(self, name: str, template: str):
        text, self.line, self.column = typing_start(template, LINE)
        self.uri = f"file:///typing/{name}"
        self.format = format_for(self.uri)
        self.store = Documents()
        self.store.open(self.uri, text, 1)
        self.typed = 0
        self.check()

    def check(self) -> list:
        return self.format.diagnose(self.store.get(self.uri).parsed, Settings())

    def type(self, count: int) -> None:
        for _ in range(count):
            at = types.Position(self.line, self.column + self.typed)
            change = types.TextDocumentContentChangePartial(range=types.Range(at, at), text=WORDS[self.typed % len(WORDS)])
            self.typed += 1
            self.store.change(self.uri, [change], self.typed + 1)
            self.check()


# Keystrokes measured (fewer for v2, whose checks tracemalloc slows most): every version of the line
# kept, as caches bounded by count alone kept them, is 12 MB for v1 (two copies of each) and 17 MB
# for v2 (a template parse of each); bounded in characters, 2 MB and 1 MB.
@pytest.mark.slow  # a search over many edits: the full suite runs it, `-m unit` stays quick
@pytest.mark.parametrize("name, template, typed", [("job.pai.json", V1, 300), ("job.pai.yaml", V2, 120)])
def test_typing_into_one_long_line_keeps_memory_bounded(name, template, typed):
    typist = Typist(name, template)
    typist.type(WARM)
    gc.collect()
    tracemalloc.start()
    try:
        typist.type(typed)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]  # what the typing allocated and still holds
    finally:
        tracemalloc.stop()
    assert kept < 4 * MB, f"{kept / MB:.1f} MB kept after {typed} keystrokes into a line of {LINE:,} characters"
    # The typing landed where it was meant to: no finding, and the line holds what was typed.
    text = typist.store.get(typist.uri).text
    assert typist.check() == []
    assert (WORDS * 20)[: WARM + typed] in text.splitlines()[typist.line][LINE:]
