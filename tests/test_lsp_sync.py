"""Document sync as editors do it: the server's copy never drifts from the editor's.

Each test edits documents incrementally and compares what the server publishes with what the
core finds in the editor's text (kept by the test, with LSP's own line and column rules), in
each position encoding a client may agree on.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from pai_lsp.core.model import Settings
from pai_lsp.core.validate import validate

from .helpers.lsp import SERVER, Editor, apply_edit, position_of

pytestmark = pytest.mark.subprocess  # the language server over stdio

ENCODINGS = ["utf-16", "utf-8", "utf-32"]
# Characters `str.splitlines` treats as line ends, which LSP does not.
NOT_LINE_ENDS = ["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c"]
NEWLINES = ["\n", "\r\n", "\r"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=ENCODINGS)
async def encoded(lsp_client: LanguageClient, request):
    """A client that agreed on one position encoding with the server."""
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(general=types.GeneralClientCapabilities(position_encodings=[request.param])),
        locale="en",
    ))
    assert result.capabilities.position_encoding == request.param
    lsp_client.encoding = request.param
    yield
    await lsp_client.shutdown_session()


class EncodedEditor(Editor):
    """An `Editor` that counts columns in the client's encoding and sends each edit as it is
    given (ranges may run backwards: the server must read them as the editor's text model does)."""

    def __init__(self, client: LanguageClient, path):
        super().__init__(client, path)
        self.encoding = getattr(client, "encoding", "utf-16")

    def at(self, offset: int) -> types.Position:
        return position_of(self.text, offset, self.encoding)

    async def send(self, edits: list[types.TextEdit]) -> list[types.Diagnostic]:
        self.version += 1
        for e in edits:
            self.text = apply_edit(self.text, e, self.encoding)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(self.version, self.uri),
            [types.TextDocumentContentChangePartial(range=e.range, text=e.new_text) for e in edits]))
        return await self.diagnostics()

    def expected(self) -> list[tuple]:
        """What the server must publish for the editor's text: the core's findings, placed by the
        test's own position rules."""
        _, found = validate(self.text, Settings(locale="en"))
        return sorted((self.at(d.start).line, self.at(d.start).character, self.at(d.end).line, self.at(d.end).character,
                       d.code, d.message) for d in found)


def published(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    return sorted((d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, d.code, d.message)
                  for d in diagnostics)


def replace(editor: EncodedEditor, old: str, new: str) -> types.TextEdit:
    start = editor.text.index(old)
    return types.TextEdit(types.Range(editor.at(start), editor.at(start + len(old))), new)


async def test_only_lf_crlf_and_cr_end_lines(encoded, tmp_path):
    for n, (newline, char) in enumerate((nl, ch) for nl in NEWLINES for ch in NOT_LINE_ENDS):
        editor = EncodedEditor(encoded, tmp_path / f"job{n}.pai.json")
        text = newline.join(['{"jobName": "a' + char + 'b",', ' "image": "img",', ' "taskRoles": [{"name": "w", "command": "c"}]}'])
        assert published(await editor.open(text)) == editor.expected()
        # Edits after the character, on later lines: they land where the editor put them.
        after = await editor.send([replace(editor, '"img"', '"im😀g"'), replace(editor, '"w"', '"w x"')])
        assert published(after) == editor.expected()
        assert any(d.code == "schema.pattern" and d.range.start.line == 2 for d in after)
        after = await editor.send([replace(editor, char + "b", "b" + char + "\u00e9")])
        assert published(after) == editor.expected()


async def test_a_range_that_runs_backwards_is_read_the_right_way_round_and_logged_once(encoded, tmp_path):
    editor = EncodedEditor(encoded, tmp_path / "job.pai.json")
    await editor.open('{"jobName": "ab",\n"image": "i", "x": 1}')
    for _ in range(12):
        # From the start of line 1 back to the middle of line 0: the editor means line 0's tail.
        edit = types.TextEdit(types.Range(types.Position(1, 0), types.Position(0, 11)), ' "ab",\n')
        assert published(await editor.send([edit])) == editor.expected()
    assert len(editor.text) < 64
    warnings = [m for m in encoded.log_messages if "starts after its end" in m.message]
    assert len(warnings) == 1 and warnings[0].type == types.MessageType.Warning


async def _request_raw(client: LanguageClient, method: str, params: dict):
    """Send a request as a client with an off-by-one bug would, bypassing lsprotocol's checks."""
    protocol = client.protocol
    request_id = f"raw-{id(params)}"
    answer: asyncio.Future = asyncio.get_running_loop().create_future()
    protocol._request_futures[request_id] = answer
    protocol._send_data({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    return await asyncio.wait_for(answer, 10)


@pytest.mark.parametrize("method", ["textDocument/hover", "textDocument/completion", "textDocument/codeAction"])
async def test_requests_with_negative_positions_get_an_error_answer(client, tmp_path, method):
    editor = EncodedEditor(client, tmp_path / "job.pai.json")
    await editor.open('{"jobName": "a"}')
    position = {"line": -1, "character": -5}
    params = {"textDocument": {"uri": editor.uri}, "position": position}
    if method == "textDocument/codeAction":
        params = {"textDocument": {"uri": editor.uri}, "range": {"start": position, "end": position}, "context": {"diagnostics": []}}
    with pytest.raises(Exception, match="position|range|invalid"):
        await _request_raw(client, method, params)
    # And the server goes on answering.
    hover = await client.text_document_hover_async(types.HoverParams(editor.doc(), types.Position(0, 3)))
    assert hover is not None and "jobName" in hover.contents.value


async def test_a_change_with_negative_positions_is_clamped_like_the_editors_text_model(client, tmp_path):
    editor = EncodedEditor(client, tmp_path / "job.pai.json")
    await editor.open('{"jobName": "a",\n "image": 1}')
    client.protocol._send_data({"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_CHANGE, "params": {
        "textDocument": {"uri": editor.uri, "version": 2},
        "contentChanges": [{"range": {"start": {"line": -3, "character": -1}, "end": {"line": 0, "character": 1}}, "text": "{ "}],
    }})
    editor.version, editor.text = 2, "{ " + editor.text[1:]
    assert published(await editor.diagnostics()) == editor.expected()


@st.composite
def edit_batches(draw, text: str) -> list[list[tuple[int, int, int, int, str, bool]]]:
    """Batches of edits as (start, end) offsets into the text as it is when the edit applies,
    text to insert, and whether the range is sent backwards; plus positions past line ends."""
    pieces = st.sampled_from(["\n", "\r\n", "\r", "\r\r\n", *NOT_LINE_ENDS, "😀", "é", "训", "a", '"', ",", " ", "\\ud800"])
    batches = []
    length = len(text)
    for _ in range(draw(st.integers(1, 4))):
        batch = []
        for _ in range(draw(st.integers(1, 3))):
            a = draw(st.integers(0, length))
            b = draw(st.integers(a, min(length, a + 6)))
            new = "".join(draw(st.lists(pieces, max_size=4)))
            batch.append((a, b, new, draw(st.booleans())))
            length += len(new) - (b - a)
        batches.append(batch)
    return batches


BASE = '{"jobName": "a\u2028b",\r "image": "i\u0085m",\r\n "taskRoles": [{"name": "w\x0c", "command": "c"}]}\n'


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=edit_batches(BASE))
async def test_random_edits_keep_the_servers_copy_equal_to_the_editors(encoded, tmp_path, batches):
    editor = EncodedEditor(encoded, tmp_path / "fuzz.pai.json")
    await editor.open(BASE)
    for batch in batches:
        # Each change of a batch applies to the text the previous one left.
        edits, text = [], editor.text
        for a, b, new, backwards in batch:
            a, b = min(a, len(text)), min(b, len(text))
            rng = types.Range(position_of(text, a, editor.encoding), position_of(text, b, editor.encoding))
            if backwards and a != b:
                rng = types.Range(rng.end, rng.start)
            edits.append(types.TextEdit(rng, new))
            text = apply_edit(text, edits[-1], editor.encoding)
        assert published(await editor.send(edits)) == editor.expected()
        assert editor.text == text
    # A position past the end of a line means the line's end.
    far = types.TextEdit(types.Range(types.Position(0, 10_000), types.Position(0, 10_000)), "x")
    assert published(await editor.send([far])) == editor.expected()


def edit_units(text: str, line: int, start: int, end: int, new: str) -> str:
    """The editor's edit, in UTF-16 code units as its own string holds them (a character may be cut
    between its two halves)."""
    lines = text.split("\n")
    units = lines[line].encode("utf-16-le", "surrogatepass")
    lines[line] = (units[: 2 * start] + new.encode("utf-16-le", "surrogatepass") + units[2 * end :]).decode("utf-16-le", "surrogatepass")
    return "\n".join(lines)


async def test_an_emoji_typed_in_halves_or_cut_in_two_checks_as_a_fresh_open_of_the_text(client, tmp_path):
    editor = Editor(client, tmp_path / "job.pai.json")
    await editor.open('{\n  "jobName": "ab",\n  "image": "img\U0001F600x",\n  "taskRoles": [{"name": "w", "command": "c"}]\n}\n')
    steps = [
        (1, 15, 15, "\ud83d"),  # an emoji typed between a and b: its high half first,
        (1, 16, 16, "\ude00"),  # then its low half
        (2, 16, 17, ""),  # the low half of the image's emoji deleted,
        (2, 16, 16, "\ude01"),  # another one typed in its place
        (2, 16, 16, "z"),  # a letter typed between the two halves
        (2, 16, 17, ""),  # and deleted again
    ]
    for n, (line, start, end, new) in enumerate(steps):
        editor.text = edit_units(editor.text, line, start, end, new)
        editor.version += 1
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(editor.version, editor.uri),
            [types.TextDocumentContentChangePartial(range=types.Range(types.Position(line, start), types.Position(line, end)), text=new)]))
        after = published(await editor.diagnostics())
        fresh = published(await Editor(client, tmp_path / f"fresh{n}.pai.json").open(editor.text))
        assert after == fresh, (n, editor.text)
    assert "jobName\": \"a\U0001F600b\"" in editor.text and "img\U0001F601x" in editor.text
