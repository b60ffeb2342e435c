"""The base protocol over raw stdio: a message with a malformed header is logged and the server
reads on — that message (its JSON body found by its brackets) and every one after it are served."""

from __future__ import annotations

import json

import pytest

from .helpers.configs import VALID
from .helpers.lsp import RawServer

BAD_HEADERS = {
    "letters": b"Content-Length: abc\r\n\r\n",
    "negative": b"Content-Length: -5\r\n\r\n",
    "missing": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
    "too short": b"Content-Length: 9\r\n\r\n",
}


def framed(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def symbols(request_id: str, uri: str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": uri}}}


@pytest.fixture
def server(tmp_path, starts_processes):
    started = RawServer(tmp_path)
    yield started
    started.close()


@pytest.mark.parametrize("header", BAD_HEADERS.values(), ids=list(BAD_HEADERS))
def test_a_malformed_header_is_logged_and_the_conversation_goes_on(server, tmp_path, header):
    server.initialize()
    job = tmp_path / "job.pai.json"
    server.open(job, VALID)
    # The bad message and a good one right behind it, in one write (as a pipe delivers them).
    server.write(header + json.dumps(symbols("bad", job.as_uri())).encode() + framed(symbols("after", job.as_uri())))
    answers = [server.wait_for(lambda m: m.get("id") in ("bad", "after"), timeout=15) for _ in range(2)]
    assert sorted(a["id"] for a in answers) == ["after", "bad"]
    assert all(a["result"][0]["name"] == "mnist" for a in answers)
    assert any("message header" in line for line in server.stderr), server.stderr


def test_bytes_that_are_no_message_are_skipped_to_the_next_header(server, tmp_path):
    server.initialize()
    server.write(b"Content-Length: abc\r\n\r\nthis is not JSON " + framed(symbols("after", (tmp_path / "job.pai.json").as_uri())))
    assert server.wait_for(lambda m: m.get("id") == "after", timeout=15)["result"] == []
    assert any("no JSON body" in line for line in server.stderr), server.stderr


def test_the_first_message_may_have_a_bad_header_too(server):
    body = json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"capabilities": {}}}).encode()
    server.write(b"Content-Length: -1\r\n\r\n" + body)
    assert "capabilities" in server.wait_for(lambda m: m.get("id") == "init", timeout=15)["result"]


def test_lower_case_names_and_bare_line_feeds_are_read(server, tmp_path):
    server.initialize()
    body = json.dumps(symbols("lenient", (tmp_path / "job.pai.json").as_uri())).encode()
    server.write(b"content-length: %d\n\n" % len(body) + body)
    assert server.wait_for(lambda m: m.get("id") == "lenient", timeout=15)["result"] == []


# The reader alone, in-process: where a body found by its brackets ends.
def read_all(data: bytes) -> list[bytes]:
    import io

    from pai_lsp.server.framing import FrameReader

    reader = FrameReader(io.BufferedReader(io.BytesIO(data)))  # type: ignore[arg-type]
    out = []
    while (body := reader.next()) is not None:
        out.append(body)
    return out


def test_brackets_and_quotes_inside_strings_do_not_end_a_body_early():
    tricky = json.dumps({"jsonrpc": "2.0", "method": "x", "params": {"text": 'a "}" b \\" ] { \\\\'}}).encode()
    after = framed({"jsonrpc": "2.0", "method": "y"})
    assert read_all(b"Content-Length: abc\r\n\r\n  " + tricky + after) == [tricky, after.split(b"\r\n\r\n", 1)[1]]


def test_a_header_line_without_end_is_skipped_in_pieces():
    after = framed({"jsonrpc": "2.0", "method": "y"})
    assert read_all(b"X" * 100_000 + b"\r\n\r\n" + after) == [after.split(b"\r\n\r\n", 1)[1]]


def test_a_body_cut_by_the_end_of_the_stream_is_not_served():
    assert read_all(b"Content-Length: 50\r\n\r\n{\"jsonrpc\"") == []
    assert read_all(b"Content-Length: x\r\n\r\n{\"jsonrpc\"") == []
