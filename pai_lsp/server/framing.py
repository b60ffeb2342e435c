"""Reading LSP's base protocol (`Content-Length: N` headers, a blank line, N bytes of JSON) from the
editor, so that one malformed message costs that message's framing, never the conversation.

pygls reads headers with a strict pattern: after a header it does not take (`Content-Length: abc`,
`-5`, none at all, a lower-case name, a bare \\n), the body that follows has no line end and runs
into the next message's header, which is then missed too, and so on for good: the server falls
silent. Servers differ here (rust-analyzer and gopls end the connection; clangd logs "expect
protocol errors" and reads on; vscode-jsonrpc reports an error and loses its place). This reader
logs the bad header on stderr (the editor's output panel) and resynchronises: a message body is
one JSON object, which delimits itself, so the value that follows a bad header is found by its
brackets and served as if its header had been right; bytes that are no JSON are skipped up to the
next `Content-Length` header. pygls gets only messages framed anew by this reader (`pygls_compat.ReframedStdin`).
"""

from __future__ import annotations

import logging
import re
from typing import BinaryIO

logger = logging.getLogger(__name__)

MAX_MESSAGE = 1 << 30  # bytes; a larger Content-Length is taken for a broken header (as clangd does)
MAX_HEADER_LINE = 8192
_CHUNK = 1 << 20
_LENGTH = re.compile(rb"\s*(\d+)\s*\Z")
_HEADER_NAME = b"content-length:"


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameReader:
    """Message bodies, one at a time, from a byte stream of LSP base-protocol messages."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        self.buffer = bytearray()
        self.eof = False

    # -- the stream ------------------------------------------------------------------------
    def _fill(self) -> bool:
        """Read what has arrived (at least one byte, unless the stream ended)."""
        if self.eof:
            return False
        chunk = self.stream.read1(_CHUNK) if hasattr(self.stream, "read1") else self.stream.read(_CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buffer += chunk
        return True

    def _line(self) -> bytes | None:
        """The next line, its line end included (or what is left at the end of the stream)."""
        while (end := self.buffer.find(b"\n")) < 0:
            if len(self.buffer) > MAX_HEADER_LINE:  # no header is this long: junk, skipped in pieces
                end = len(self.buffer) - 1
                break
            if not self._fill():
                if not self.buffer:
                    return None
                end = len(self.buffer) - 1
                break
        line = bytes(self.buffer[: end + 1])
        del self.buffer[: end + 1]
        return line

    def _has(self, count: int) -> bool:
        while len(self.buffer) < count:
            if not self._fill():
                return False
        return True

    # -- messages ----------------------------------------------------------------------------
    def next(self) -> bytes | None:
        """The body of the next message, or None once the stream has ended."""
        while True:
            headers = self._headers()
            if headers is None:
                return None
            length = _content_length(headers)
            if length is not None and length > 0:
                if not self._has(length):
                    return None
                if _looks_whole(self.buffer, length):
                    body = bytes(self.buffer[:length])
                    del self.buffer[:length]
                    return body
                problem = f"Content-Length {length} does not end where its JSON body does"
            else:
                problem = "no Content-Length" if length is None else "Content-Length 0"
            shown = b" | ".join(h.strip() for h in headers).decode("ascii", "replace")[:200]
            body = self._json_value()
            if body is not None:
                logger.error("message header %r: %s; the JSON body that follows it was read by its brackets", shown, problem)
                return body
            logger.error("message header %r: %s, and no JSON body follows it: skipped to the next header", shown, problem)

    def _headers(self) -> list[bytes] | None:
        """The header lines of the next message (up to the blank line), or None at the end."""
        headers: list[bytes] = []
        while True:
            line = self._line()
            if line is None:
                return None
            if line.strip() == b"":
                if headers:
                    return headers
                continue  # blank lines between messages
            at = line.lower().find(_HEADER_NAME)
            if at > 0:  # a header after junk (what was left of a broken message): the junk goes
                logger.error("skipped %d bytes that were no message: %r", at, line[:at][:80])
                line = line[at:]
                headers = []
            headers.append(line)

    def _json_value(self) -> bytes | None:
        """The JSON object or array at the start of what comes next (white space first skipped),
        found by its brackets; None (nothing consumed but the white space) when none starts here."""
        while True:
            stripped = self.buffer.lstrip()
            del self.buffer[: len(self.buffer) - len(stripped)]
            if self.buffer or not self._fill():
                break
        if not self.buffer or self.buffer[:1] not in (b"{", b"["):
            return None
        scanner = _ValueEnd()
        scanned = 0
        while (end := scanner.feed(self.buffer, scanned)) is None:
            scanned = len(self.buffer)
            if scanned > MAX_MESSAGE or not self._fill():
                return None
        body = bytes(self.buffer[:end])
        del self.buffer[:end]
        return body


def _content_length(headers: list[bytes]) -> int | None:
    length = None
    for line in headers:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            m = _LENGTH.match(value)
            length = int(m.group(1)) if m and int(m.group(1)) <= MAX_MESSAGE else None
    return length


def _looks_whole(buffer: bytearray, length: int) -> bool:
    """Whether buffer[:length] can be one JSON object or array: it starts with `{` or `[` and its
    last character closes it (a cheap check that catches a Content-Length that is too short)."""
    body = memoryview(buffer)[:length]
    first = bytes(body[:1])
    end = length
    while end > 0 and body[end - 1 : end] in (b" ", b"\t", b"\r", b"\n"):
        end -= 1
    last = bytes(body[end - 1 : end])
    body.release()
    return (first, last) in ((b"{", b"}"), (b"[", b"]"))


class _ValueEnd:
    """Finds where a JSON object or array ends, over a buffer that grows."""

    def __init__(self) -> None:
        self.depth = 0
        self.in_string = False
        self.escaped = False

    def feed(self, buffer: bytearray, start: int) -> int | None:
        """The end offset of the value once buffer[start:] completes it, else None."""
        for i in range(start, len(buffer)):
            c = buffer[i]
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                elif c == 0x5C:  # backslash
                    self.escaped = True
                elif c == 0x22:  # quote
                    self.in_string = False
            elif c == 0x22:
                self.in_string = True
            elif c in (0x7B, 0x5B):  # { [
                self.depth += 1
            elif c in (0x7D, 0x5D):  # } ]
                self.depth -= 1
                if self.depth == 0:
                    return i + 1
        return None
