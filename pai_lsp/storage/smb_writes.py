"""How a Samba storage sends a file's bytes through smbprotocol with few round trips and little
Python work per file: a small file is one related compound request (CREATE, WRITE, CLOSE: one round
trip where smbclient's file object makes three), a big one is written in 1 MiB pieces, eight of them
in flight (the server stores one while the next arrives), where a file object waits for each write's
answer before it sends the next.

smbprotocol still connects, logs in (its keys sign here), keeps the credit window, and receives every
answer; what it does per message in Python was the upload's bottleneck (measured on 127.0.0.1: 1.5 to
2 ms of its Python per 10 KB file against smbd's 1 ms; a 1 MiB write copied about seven times). So
these three requests are packed here with `struct` (their layouts are fixed by MS-SMB2 2.2.1.2,
2.2.13, 2.2.21, 2.2.15), signed in place as smbprotocol signs, sent with one `sendall`, and registered
with its connection under message ids taken from its window; a message made only of successful
answers to them is checked and handed over here (`_answers_read_here`), anything else goes to
smbprotocol's receiving thread as before. An encrypted or DFS share goes through smbprotocol's own
sending. This leans on smbprotocol's connection internals (its window, request table, socket lock),
so pyproject.toml pins smbprotocol to the minor version tested, and the storage suite
(tests/test_storage_protocols.py) runs every write path against a real smbd.

A failure is raised as smbclient raises it (`SMBOSError` of the server's status, with the file's
path), so the storage says it the same way whichever path a write took.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from cryptography.hazmat.primitives import cmac
from cryptography.hazmat.primitives.ciphers import aead, algorithms
from smbclient._pool import get_smb_tree
from smbprotocol import Dialects
from smbprotocol.connection import Request, SigningAlgorithms
from smbprotocol.exceptions import SMBException, SMBOSError, SMBResponseException
from smbprotocol.header import Commands
from smbprotocol.open import (
    CreateDisposition,
    CreateOptions,
    FileAttributes,
    FilePipePrinterAccessMask,
    ImpersonationLevel,
    Open,
)

from ..core.messages import Message, message

SMALL = 1 << 20  # bytes a file may have to go as one compound request
PIECE = 1 << 20  # bytes per write of a big file (at most the negotiated write size)
IN_FLIGHT = 8  # writes of one file sent before the first of them must be answered
CREDITS = 512  # the credit window asked for once per connection: 8 threads of compound requests and 8 pieces in flight fit
CREDIT = 1 << 16  # bytes one SMB2 credit pays for
CREDIT_WAIT = 60  # seconds a request waits for credits held by others in flight
WRITE_ACCESS = (FilePipePrinterAccessMask.FILE_WRITE_DATA | FilePipePrinterAccessMask.FILE_WRITE_ATTRIBUTES
                | FilePipePrinterAccessMask.FILE_WRITE_EA)
RELATED = b"\xff" * 16  # "the file the CREATE before me in this compound opened" (MS-SMB2 3.2.4.1.4)
HEADER = 64  # bytes of the SMB2 header before a request's body
CREATE = struct.Struct("<HBBIQQIIIIIHHII")  # MS-SMB2 2.2.13, without the name
WRITE = struct.Struct("<HHIQ16sIIHHI")  # 2.2.21, without the data
CLOSE = struct.Struct("<HHI16s")  # 2.2.15
SYNC = struct.Struct("<4sHHIHHIIQIIQ16s")  # the SMB2 header of a request (2.2.1.2)
ANSWER = struct.Struct("<4sHHIHHIIQIIQ16s")  # the header of an answer: the same fields, Status where a request has none
SIGNED, CHAINED, ASYNC = 0x8, 0x4, 0x2  # header flags: signed; related to the request before it; an async answer

_widened: weakref.WeakSet = weakref.WeakSet()  # connections whose credit window was widened
_widening = threading.Lock()


class _Value:
    def __init__(self, value: int):
        self.value = value

    def get_value(self) -> int:
        return self.value


class Packed:
    """A request body packed here, in the shape smbprotocol's connection sends a message in: its
    command, its bytes (the fixed part, then the data, kept apart so that a big write's data is
    copied once, into the message), and (for the credits a write costs) its payload's length."""

    def __init__(self, command: int, fixed: bytes, data: bytes = b"", payload: int = 0):
        self.COMMAND, self.fixed, self.data, self.payload = command, fixed, data, payload

    def pack(self) -> bytes:
        return self.fixed + self.data

    def __len__(self) -> int:
        return len(self.fixed) + len(self.data)

    def __getitem__(self, field: str) -> _Value:
        return _Value(self.payload if field == "length" else 0)


class _Sent:
    """What smbprotocol's `Request` keeps of a request's header, for matching its answer."""

    def __init__(self, message_id: int, command: int):
        self.fields = {"message_id": _Value(message_id), "command": _Value(command), "reserved": _Value(0)}

    def __getitem__(self, field: str) -> _Value:
        return self.fields[field]


def send(tree: Any, steps: list[Packed], related: bool = False, credit_request: int | None = None) -> list[Any]:
    """`steps` as one compound request (one TCP send), each framed and signed here and registered with
    the connection, whose receiving thread matches the answers as for its own messages."""
    session, connection = tree.session, tree.session.connection
    if session.encrypt_data or tree.encrypt_data or tree.is_dfs_share:  # what only its own sending does
        if len(steps) == 1:
            return [connection.send(steps[0], sid=session.session_id, tid=tree.tree_connect_id, credit_request=credit_request)]
        return connection.send_compound(steps, session.session_id, tree.tree_connect_id, related=related)
    key = session.signing_key if session.signing_required else None
    sizes = [HEADER + len(step) for step in steps]
    sizes = [size + (-size % 8 if i < len(steps) - 1 else 0) for i, size in enumerate(sizes)]  # 8-byte aligned
    out = bytearray(4 + sum(sizes))  # Direct TCP's length first (MS-SMB2 2.1), then the messages
    out[0:4] = (len(out) - 4).to_bytes(4, "big")
    view, at, requests = memoryview(out), 4, []
    for i, (step, size) in enumerate(zip(steps, sizes, strict=True)):
        charge = (max(0, step.payload - 1) // CREDIT + 1) if connection.supports_multi_credit else 0
        message_id = _message_id(connection, charge)
        flags = (SIGNED if key else 0) | (CHAINED if related and i else 0)
        following = size if i < len(steps) - 1 else 0
        SYNC.pack_into(out, at, b"\xfeSMB", HEADER, charge, 0, step.COMMAND, credit_request or charge, flags, following,
                       message_id, 0, tree.tree_connect_id, session.session_id, bytes(16))
        body = at + HEADER
        out[body:body + len(step.fixed)] = step.fixed
        out[body + len(step.fixed):body + len(step)] = step.data
        if key:
            view[at + 48:at + HEADER] = _signature(connection, key, view[at:at + size], message_id)
        request = Request(_Sent(message_id, step.COMMAND), Packed, connection, session_id=session.session_id)
        connection.outstanding_requests[message_id] = request
        requests.append(request)
        at += size
    connection._check_worker_running()
    transport = connection.transport
    with transport._sock_lock:  # the transport's own send would copy the message twice more
        transport._sock.sendall(out)
    return requests


def _signature(connection: Any, key: bytes, message: memoryview, message_id: int) -> bytes:
    """A request's signature (MS-SMB2 3.1.4.1), computed over the message in place (its signature
    field still zero), by the algorithm the connection negotiated, as smbprotocol computes it."""
    if connection.dialect >= Dialects.SMB_3_1_1 and connection.signing_algorithm_id is not None:
        algorithm = connection.signing_algorithm_id
    elif connection.dialect >= Dialects.SMB_3_0_0:
        algorithm = SigningAlgorithms.AES_CMAC
    else:
        algorithm = SigningAlgorithms.HMAC_SHA256
    if algorithm == SigningAlgorithms.AES_GMAC:
        return aead.AESGCM(key).encrypt(message_id.to_bytes(8, "little") + bytes(4), b"", message)
    if algorithm == SigningAlgorithms.AES_CMAC:
        mac = cmac.CMAC(algorithms.AES(key))
        mac.update(message)
        return mac.finalize()
    return hmac.new(key, message, hashlib.sha256).digest()[:16]


class _Answer:
    """An answer read here, in the shape smbprotocol's `Connection.receive` reads one in."""

    def __init__(self, status: int, data: bytes):
        self.fields = {"status": _Value(status), "data": _Value(data)}

    def __getitem__(self, field: str) -> _Value:
        return self.fields[field]


def _answers_read_here(connection: Any, recv: Callable[[float], bytes]) -> Callable[[float], bytes]:
    """The connection's `transport.recv`, wrapped: a message made only of successful answers to
    requests sent by `send` is checked (its signature) and handed to its waiters here; any other (an
    error, a pending or encrypted answer, an answer to smbprotocol's own requests) goes on to
    smbprotocol's receiving thread as before. Its parsing cost more Python work per answer than
    the server took to write the file."""

    def received(timeout: float) -> bytes:
        while True:
            message = recv(timeout)
            if not message or not _handed_over(connection, message):
                return message

    return received


def _handed_over(connection: Any, message: bytes) -> bool:
    """Whether every answer in `message` was one of ours and successful, and is now with its waiter."""
    parts, at = [], 0
    while True:
        if len(message) - at < HEADER or message[at:at + 4] != b"\xfeSMB":
            return False
        (_, _, _, status, command, credits, flags, following, message_id, _, _, session_id, signature) = \
            ANSWER.unpack_from(message, at)
        request = connection.outstanding_requests.get(message_id)
        if status != 0 or flags & ASYNC or request is None or not isinstance(request.message, _Sent):
            return False
        end = at + following if following else len(message)
        part = message[at:end]
        if flags & SIGNED:
            session = connection.session_table.get(session_id)
            key = session.signing_key if session is not None else None
            if not key or connection._generate_signature(part, key, message_id, True, command) != signature:
                return False
        parts.append((request, credits, part))
        if not following:
            break
        at = end
    for request, credits, part in parts:
        if credits == 0 and not connection.supports_multi_credit:
            credits = 1
        with connection.sequence_lock:
            connection.sequence_window["high"] += credits
        with request.response_event_lock:
            request.response = _Answer(0, part[HEADER:])
            request.response_event.set()
    return True


def _message_id(connection: Any, charge: int) -> int:
    """The next message id, its credits taken from the window; while other requests in flight hold
    them, it waits for their answers to give them back (smbprotocol's own sending refuses instead)."""
    deadline = time.monotonic() + CREDIT_WAIT
    while True:
        with connection.sequence_lock:
            window = connection.sequence_window
            left = window["high"] - window["low"]
            if charge <= left:
                message_id = window["low"]
                window["low"] += charge or 1
                return message_id
        if time.monotonic() > deadline:
            raise Refused(message("storage.no-credits", left=left, charge=charge))
        time.sleep(0.001)


def create_request(name: str) -> Packed:
    """Open `name` for writing, created or emptied (what smbclient's `open_file(mode="wb")` asks)."""
    path = name.encode("utf-16-le")
    fixed = CREATE.pack(57, 0, 0, ImpersonationLevel.Impersonation, 0, 0, WRITE_ACCESS, FileAttributes.FILE_ATTRIBUTE_NORMAL,
                        0, CreateDisposition.FILE_OVERWRITE_IF, CreateOptions.FILE_NON_DIRECTORY_FILE,
                        HEADER + CREATE.size, len(path), 0, 0)
    return Packed(Commands.SMB2_CREATE, fixed + (path or b"\0"))


def write_request(file_id: bytes, offset: int, data: bytes) -> Packed:
    fixed = WRITE.pack(49, HEADER + WRITE.size, len(data), offset, file_id, 0, 0, 0, 0, 0)
    return Packed(Commands.SMB2_WRITE, fixed, data, len(data))


def close_request(file_id: bytes) -> Packed:
    return Packed(Commands.SMB2_CLOSE, CLOSE.pack(24, 0, 0, file_id))


def opened_tree(unc: str, session: dict[str, Any]) -> tuple[Any, str]:
    """The share's tree connection (from the storage's own connection cache) and the path in it."""
    tree, name = get_smb_tree(unc, **session)
    _widen(tree)
    return tree, name


def write_whole(tree: Any, name: str, unc: str, data: bytes) -> None:
    """`data` as the whole file `name`, created or replaced, in one round trip."""
    steps = [create_request(name), *([write_request(RELATED, 0, data)] if data else []), close_request(RELATED)]
    connection = tree.session.connection
    requests = send(tree, steps, related=True)
    failure: Exception | None = None
    for step, request in zip(steps, requests, strict=True):  # every answer is taken, or the connection keeps it
        try:
            written = _answer(connection, request, step)
        except SMBResponseException as exc:
            failure = failure or SMBOSError(exc.status, unc)
            continue
        if written is not None and written != len(data):
            failure = failure or _short(written, len(data))
    if failure is not None:
        raise failure


def write_pieces(tree: Any, name: str, unc: str, pieces: Iterable[bytes], written: Callable[[int], None] | None) -> None:
    """The pieces as the whole file `name` (created or replaced), several writes in flight; `written`
    is told the bytes the server has acknowledged so far."""
    connection = tree.session.connection
    fd = Open(tree, name)
    try:
        fd.create(ImpersonationLevel.Impersonation, WRITE_ACCESS, FileAttributes.FILE_ATTRIBUTE_NORMAL, 0,
                  CreateDisposition.FILE_OVERWRITE_IF, CreateOptions.FILE_NON_DIRECTORY_FILE)
    except SMBResponseException as exc:
        raise SMBOSError(exc.status, unc) from None
    pending: deque[tuple[Any, Packed]] = deque()
    offset = done = 0

    def settle() -> None:
        nonlocal done
        request, step = pending.popleft()
        count = _answer(connection, request, step)
        if count != step.payload:
            raise _short(count or 0, step.payload)
        done += step.payload
        if written is not None:
            written(done)

    try:
        for piece in pieces:
            charge = (len(piece) - 1) // CREDIT + 1
            while pending and (len(pending) >= IN_FLIGHT or _credits(connection) < charge):
                settle()
            step = write_request(fd.file_id, offset, piece)
            pending.append((send(tree, [step], credit_request=charge)[0], step))
            offset += len(piece)
        while pending:
            settle()
    except SMBResponseException as exc:
        raise SMBOSError(exc.status, unc) from None
    finally:
        for request, step in pending:  # a stop part-way: the answers still due are taken before the close
            try:
                _answer(connection, request, step)
            except Exception:  # noqa: BLE001 - the first failure is the one raised
                pass
        try:
            fd.close()
        except SMBResponseException:
            pass


def _answer(connection: Any, request: Any, step: Packed) -> int | None:
    """The server's answer to one request (raised when it failed); for a write, the bytes written."""
    response = connection.receive(request, resolve_symlinks=False)
    if step.COMMAND != Commands.SMB2_WRITE:
        return None
    return int.from_bytes(response["data"].get_value()[4:8], "little")


class Refused(SMBException):
    """A write stopped here rather than by the server, its reason in the catalogue's words (`why`)."""

    def __init__(self, why: Message):
        super().__init__(str(why))
        self.why = why


def _short(written: int, size: int) -> Refused:
    return Refused(message("storage.short-write", written=written, size=size))


def piece_size(tree: Any) -> int:
    return min(PIECE, tree.session.connection.max_write_size)


def small_limit(tree: Any) -> int:
    return min(SMALL, tree.session.connection.max_write_size)


def _credits(connection: Any) -> int:
    return connection.sequence_window["high"] - connection.sequence_window["low"]


def _widen(tree: Any) -> None:
    """Ask the server once for a credit window wide enough for the requests this storage keeps in
    flight (smbprotocol refuses to send a request its window cannot pay for, rather than wait)."""
    connection = tree.session.connection
    if connection in _widened or not connection.supports_multi_credit:
        return
    with _widening:
        if connection in _widened:
            return
        wanted = CREDITS - _credits(connection)
        if wanted > 0:
            connection.echo(sid=tree.session.session_id, credit_request=wanted)
        connection.transport.recv = _answers_read_here(connection, connection.transport.recv)
        _widened.add(connection)
