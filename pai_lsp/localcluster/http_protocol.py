"""The HTTP/1.1 protocol the local cluster serves with: uvicorn's httptools protocol, its request
heads bounded and its request bodies handed on without copies.

Why httptools: its C parser hands a body on as it arrives, where h11 copies every byte of it four or
five times in Python: receiving a big upload costs the cluster about half the CPU (bench/uploads.py
big; the figures are in docs/benchmarks.md).

Why the bound: httptools keeps any URL or header whole, however long it is (h11 had
`h11_max_incomplete_event_size`). A head whose line and headers pass MAX_HEAD_BYTES is answered
400 and its connection closed, having cost at most that plus one read of the socket.

Why no copies: uvicorn appends every piece of a body to a buffer and copies the buffer out to the
app, two copies of every byte of an upload, each into fresh memory (a page fault every 4 KiB). A
piece that is alone in the buffer (one read of a body sent with a Content-Length) is handed on as
it came, and pieces that arrived together (a chunked body's) are joined once: less CPU and far
fewer page faults for a big upload (bench/uploads.py big; docs/benchmarks.md).
"""

from __future__ import annotations

from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# A request's line and headers, at most: Node's default (--max-http-header-size, 16 KiB since Node 12.18),
# the REST server's; clients here send well under 1 KiB.
MAX_HEAD_BYTES = 16 * 1024
TOO_LARGE = "Request head too large."


class HeadTooLarge(Exception):
    """Raised inside a parser callback: httptools makes it an HttpParserError, which uvicorn answers 400."""


class Gathered:
    """Pieces of a body that arrived before the app asked for them (a chunked body's pieces, several
    to a read), joined into one `bytes` when it does: one copy, where a growing buffer made two."""

    __slots__ = ("pieces", "size")

    def __init__(self, *pieces: bytes | bytearray):
        self.pieces, self.size = list(pieces), sum(map(len, pieces))

    def add(self, piece: bytes) -> None:
        self.pieces.append(piece)
        self.size += len(piece)

    def __len__(self) -> int:
        return self.size

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces)


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    _in_head = False  # from a request's first byte until its headers are complete
    _head_read = 0  # bytes read while its head was incomplete (a head spread over several reads)
    _head_parsed = 0  # bytes of its URL and headers the parser has handed on (a head read at once)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head, self._head_read, self._head_parsed = True, 0, 0

    def on_url(self, url: bytes) -> None:
        self._parsed(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._parsed(len(name) + len(value) + 4)  # ": " and CRLF
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        """uvicorn's, with the buffer its `receive` turns into `bytes` (and then empties) being the
        piece itself when it arrives alone (`bytes(b) is b`), or the pieces that arrived together,
        joined once (`Gathered`)."""
        cycle = self.cycle
        if (self.parser.should_upgrade() and self._should_upgrade()) or cycle.response_complete:
            return
        if not cycle.body:
            cycle.body = body  # type: ignore[assignment]  # any buffer `bytes()` takes, as said above
        elif isinstance(cycle.body, Gathered):
            cycle.body.add(body)
        else:
            cycle.body = Gathered(cycle.body, body)  # type: ignore[assignment]
        if len(cycle.body) > HIGH_WATER_LIMIT:
            self.flow.pause_reading()
        cycle.message_event.set()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._in_head and not self.transport.is_closing():
            self._head_read += len(data)
            if self._head_read > MAX_HEAD_BYTES:
                self.send_400_response(TOO_LARGE)

    def _parsed(self, size: int) -> None:
        self._head_parsed += size
        if self._head_parsed > MAX_HEAD_BYTES:
            raise HeadTooLarge(TOO_LARGE)
