"""Logs as whole lines, in-process: pieces cut anywhere give the same lines, a log opened mid-line
drops only its cut first line, a last line without a newline comes at the end, and the filter by
role, index and pattern."""

from __future__ import annotations

import re

import pytest

from pai_lsp.core.log_lines import Lines, LogFilter

TEXT = b"alpha\nbeta gamma\n\xe4\xb8\xad\xe6\x96\x87 loss=0.5\nno newline at the end"


@pytest.mark.parametrize("size", [1, 2, 3, 7, 100])
def test_pieces_of_any_size_give_the_same_whole_lines(size):
    lines = Lines()
    got = [line for at in range(0, len(TEXT), size) for line in lines.feed("w:0", at, TEXT[at:at + size])]
    assert got == [b"alpha\n", b"beta gamma\n", "中文 loss=0.5\n".encode()]
    assert list(lines.end()) == [("w:0", b"no newline at the end")]


def test_a_log_opened_mid_line_starts_at_its_first_whole_line():
    lines = Lines()
    assert list(lines.feed("w:0", 3, TEXT[3:])) == [b"beta gamma\n", "中文 loss=0.5\n".encode()]
    only_part = Lines()
    assert list(only_part.feed("w:1", 8, b"partial")) == [] and list(only_part.end()) == []


def test_the_filter_by_role_index_and_pattern():
    shown = LogFilter.of(["worker"], [1], r"loss=\d")
    assert shown.wants("worker:1", b"loss=3\n") and not shown.wants("worker:0", b"loss=3\n")
    assert not shown.wants("ps:1", b"loss=3\n") and not shown.wants("worker:1", b"accuracy\n")
    assert LogFilter.of(text="A.B", regex=False, ignore_case=True).wants("x:0", b"a.b") is True
    assert LogFilter.of(text="A.B", regex=False).wants("x:0", b"AxB") is False
    assert LogFilter().wants("anything:9", b"")
    with pytest.raises(re.error):
        LogFilter.of(text="(")
