"""How a Samba storage sends a file's bytes through smbprotocol with few round trips: a small file is
one related compound request (CREATE, WRITE, CLOSE: one round trip where smbclient's file object
makes three), a big one is written in pieces of up to the negotiated write size with several of them
in flight (the server stores one while the next arrives), where a file object waits for each write's
answer before it sends the next.

Only smbprotocol's own messages and its connection's sending, credits and signing are used; a failure
is raised as smbclient raises it (`SMBOSError` of the server's status, with the file's path), so the
storage says it the same way whichever path a write took.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from smbclient._pool import get_smb_tree
from smbprotocol.connection import SMB2Echo
from smbprotocol.exceptions import SMBOSError, SMBResponseException
from smbprotocol.open import (
    CreateDisposition,
    CreateOptions,
    FileAttributes,
    FilePipePrinterAccessMask,
    ImpersonationLevel,
    Open,
)

SMALL = 1 << 20  # bytes a file may have to go as one compound request
PIECE = 1 << 20  # bytes per write of a big file (at most the negotiated write size)
IN_FLIGHT = 8  # writes of one file sent before the first of them must be answered
CREDITS = 512  # the credit window asked for once per connection: 8 threads of compound requests and 8 pieces in flight fit
CREDIT = 1 << 16  # bytes one SMB2 credit pays for
WRITE_ACCESS = (FilePipePrinterAccessMask.FILE_WRITE_DATA | FilePipePrinterAccessMask.FILE_WRITE_ATTRIBUTES
                | FilePipePrinterAccessMask.FILE_WRITE_EA)

_widened: weakref.WeakSet = weakref.WeakSet()  # connections whose credit window was widened
_widening = threading.Lock()


def opened_tree(unc: str, session: dict[str, Any]) -> tuple[Any, str]:
    """The share's tree connection (from the storage's own connection cache) and the path in it."""
    tree, name = get_smb_tree(unc, **session)
    _widen(tree)
    return tree, name


def write_whole(tree: Any, name: str, unc: str, data: bytes) -> None:
    """`data` as the whole file `name`, created or replaced, in one round trip."""
    fd = Open(tree, name)
    steps = [_create(fd)]
    if data:
        steps.append(fd.write(data, 0, send=False))
    steps.append(fd.close(send=False))
    connection, session = tree.session.connection, tree.session.session_id
    requests = connection.send_compound([m for m, _ in steps], session, tree.tree_connect_id, related=True)
    failure = None
    for (_, answer), request in zip(steps, requests, strict=True):  # every answer is taken, or the connection keeps it
        try:
            answer(request)
        except SMBResponseException as exc:
            failure = failure or exc
    if failure is not None:
        raise SMBOSError(failure.status, unc)


def write_pieces(tree: Any, name: str, unc: str, pieces: Iterable[bytes], written: Callable[[int], None] | None) -> None:
    """The pieces as the whole file `name` (created or replaced), several writes in flight; `written`
    is told the bytes the server has acknowledged so far."""
    connection = tree.session.connection
    fd = Open(tree, name)
    try:
        fd.create(*_create_args())
    except SMBResponseException as exc:
        raise SMBOSError(exc.status, unc) from None
    pending: deque[tuple[Any, Callable, int]] = deque()
    offset = done = 0

    def settle() -> None:
        nonlocal done
        request, answer, size = pending.popleft()
        answer(request)
        done += size
        if written is not None:
            written(done)

    try:
        for piece in pieces:
            charge = (len(piece) - 1) // CREDIT + 1
            while pending and (len(pending) >= IN_FLIGHT or _credits(connection) < charge):
                settle()
            message, answer = fd.write(piece, offset, send=False)
            request = connection.send(message, sid=tree.session.session_id, tid=tree.tree_connect_id, credit_request=charge)
            pending.append((request, answer, len(piece)))
            offset += len(piece)
        while pending:
            settle()
    except SMBResponseException as exc:
        raise SMBOSError(exc.status, unc) from None
    finally:
        for request, answer, _ in pending:  # a stop part-way: the answers still due are taken before the close
            try:
                answer(request)
            except Exception:  # noqa: BLE001 - the first failure is the one raised
                pass
        try:
            fd.close()
        except SMBResponseException:
            pass


def piece_size(tree: Any) -> int:
    return min(PIECE, tree.session.connection.max_write_size)


def small_limit(tree: Any) -> int:
    return min(SMALL, tree.session.connection.max_write_size)


def _create_args() -> tuple:
    return (ImpersonationLevel.Impersonation, WRITE_ACCESS, FileAttributes.FILE_ATTRIBUTE_NORMAL, 0,
            CreateDisposition.FILE_OVERWRITE_IF, CreateOptions.FILE_NON_DIRECTORY_FILE)


def _create(fd: Open) -> tuple[Any, Callable]:
    return fd.create(*_create_args(), send=False)


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
            request = connection.send(SMB2Echo(), sid=tree.session.session_id, credit_request=wanted)
            connection.receive(request)
        _widened.add(connection)
