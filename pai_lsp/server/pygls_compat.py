"""Every place this server works around pygls, and only here (pygls is pinned to the minor version
these were written and tested against: pyproject.toml). Each workaround names the pygls behaviour it
works around; tests/test_pygls_compat.py has, for each, a test that runs plain pygls and fails once
pygls behaves — the sign to delete the workaround. docs/pygls-workarounds.md has the reports for
pygls's maintainers.

- `CompatProtocol._execute_handler`: pygls keeps the future of every notification handler for good.
- `CompatProtocol.structure_message` / `handle_message`: pygls drops a request whose params do not
  fit the protocol, without an answer.
- `CompatProtocol`'s `didOpen` / `didChange` / `didClose`: pygls's `TextDocument` splits lines with
  `str.splitlines` (and more: documents.py); the server keeps its own documents instead.
- `ReframedStdin`: pygls's reader takes only `Content-Length: N\\r\\n` headers, and after one it does
  not take, it loses every message that follows.
- `serve`: pygls's `start_io` returns after `exit` without the exit code the protocol asks for.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol, lsp_method

from ..core.model import ENCODINGS
from .documents import Documents, release_memory
from .framing import FrameReader

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

logger = logging.getLogger(__name__)
_UINTEGER_MAX = 2**31 - 1
_RELEASE_ABOVE = 1 << 20  # characters: closing a document this large hands its memory back


def _clamp_positions(value: Any) -> Any:
    """A copy of raw didChange params with every position number brought into 0 .. 2^31-1
    (as the editor's own text model reads out-of-range positions)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("line", "character") and isinstance(item, int) and not isinstance(item, bool):
                item = min(max(item, 0), _UINTEGER_MAX)
            out[key] = _clamp_positions(item)
        return out
    if isinstance(value, list):
        return [_clamp_positions(item) for item in value]
    return value


@dataclass
class _Refused:
    """A request whose parameters could not be read: answered with `error`, not handled."""

    id: Any
    error: JsonRpcException
    jsonrpc: str = "2.0"


class CompatProtocol(LanguageServerProtocol):
    """pygls's protocol with the workarounds above, and this server's own document sync."""

    def __init__(self, server: Any, converter: Any):
        super().__init__(server, converter)
        self.documents = Documents()

    # -- running handlers ---------------------------------------------------------------
    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any, args: Any = None, kwargs: Any = None) -> None:
        """pygls keeps the future of every generator, coroutine or threaded handler in
        `_request_futures` under `msg_id`, and removes it only when it answers a request: for
        notifications (every didChange here: a generator) and for the handlers those generators
        yield to, the id is made up and the future, with the params it holds, stays for good
        (~2 KB per keystroke). So drop it once it is done, whatever it was."""

        def forget(future: Any) -> None:
            if self._request_futures.get(msg_id) is future:
                del self._request_futures[msg_id]
            callback(future)

        super()._execute_handler(msg_id, handler, forget, args, kwargs)

    # -- reading messages --------------------------------------------------------------
    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls drops a request whose params do not fit the protocol (a negative position, say)
        after logging it, and the editor waits for good for an answer: such a request is answered
        with InvalidParams here. A didChange with out-of-range positions is applied with them
        clamped, as the editor's own text model reads them."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method") if isinstance(data, dict) else None
            if method == types.TEXT_DOCUMENT_DID_CHANGE and isinstance(data.get("params"), dict):
                return super().structure_message(dict(data, params=_clamp_positions(data["params"])))
            if method is None or "id" not in data:
                raise
            cause = exc.__cause__
            detail = "; ".join(cattrs.transform_error(cause)) if isinstance(cause, cattrs.BaseValidationError) else str(exc)
            return _Refused(data["id"], JsonRpcInvalidParams(f"invalid params for {method}: {detail}"))

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Refused):
            logger.warning("request %s refused: %s", message.id, message.error)
            self._send_response(message.id, error=message.error.to_response_error())
            return
        super().handle_message(message)

    # -- document sync (documents.py says why the server keeps its own) --------------------
    def _user_handler(self, method: str):
        return self.fm.features.get(method)

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        encoding = str(self.workspace.position_encoding or "utf-16")
        self.documents.encoding = encoding if encoding in ENCODINGS else "utf-16"
        item = params.text_document
        self.documents.open(item.uri, item.text, item.version)
        if (handler := self._user_handler(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        for problem in self.documents.change(uri, params.content_changes, params.text_document.version):
            logger.warning("%s", problem)
            self._server.window_log_message(types.LogMessageParams(types.MessageType.Warning, problem))
        if uri in self.documents and (handler := self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        closed = self.documents.get(params.text_document.uri)
        self.documents.close(params.text_document.uri)
        if (handler := self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None  # the server drops what it derived from the document
        if closed is not None and len(closed.text) > _RELEASE_ABOVE:
            del closed
            release_memory()


class ReframedStdin:
    """The editor's byte stream as pygls reads it (`readline`, `read`), each message framed anew.

    pygls takes a header only when it matches `Content-Length: (\\d+)\\r\\n` exactly: after one it does
    not take (`Content-Length: abc`, `-5`, none at all, a lower-case name, a bare \\n), the body has no
    line end and runs into the next message's header, which is missed too, and so on for good: the
    server falls silent. `framing.FrameReader` reads leniently and resynchronises; what pygls gets
    here is each body it found, behind a header pygls takes."""

    def __init__(self, stream: BinaryIO):
        self.reader = FrameReader(stream)
        self.headers: list[bytes] = []  # of the message being read
        self.body = b""  # handed over whole: a large document's text is not copied again

    def readline(self) -> bytes:
        if not self.headers:
            if self.body:  # read as lines only were pygls ever out of step
                line, sep, self.body = self.body.partition(b"\n")
                return line + sep
            body = self.reader.next()
            if body is None:
                return b""
            self.headers, self.body = [b"Content-Length: %d\r\n" % len(body), b"\r\n"], body
        return self.headers.pop(0)

    def read(self, size: int) -> bytes:
        data, self.body = (self.body, b"") if size >= len(self.body) else (self.body[:size], self.body[size:])
        return data


def serve(server: LanguageServer, shut_down: Callable[[], bool]) -> int:
    """Serve the editor on stdin and stdout; the exit code the protocol asks for once the editor
    says `exit`: 0 after a `shutdown` request, else 1 (`shut_down()` says which). pygls's
    `start_io` returns after `exit` as after a `shutdown`, and the process then ends with 0."""
    server.start_io(ReframedStdin(sys.stdin.buffer), sys.stdout.buffer)  # type: ignore[arg-type]
    return 0 if shut_down() else 1
