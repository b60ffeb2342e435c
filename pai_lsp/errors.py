"""Every failure a user can meet, as one class each: the one line they read and the exit code `pai`
returns. The CLI prints `pai <command>: <message>` and exits with `exit_code`; the language server
shows the message once; the daemon sends `kind` and the message, and its clients raise the same
class again (`from_wire`).
"""

from __future__ import annotations

from typing import ClassVar


class PaiError(Exception):
    """Base of the errors below; also what an unknown `kind` from the daemon becomes."""

    kind: ClassVar[str] = "server"
    exit_code: ClassVar[int] = 6

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def to_wire(self) -> dict:
        return {"kind": self.kind}

    @staticmethod
    def from_wire(kind: str | None, message: str) -> PaiError:
        return KINDS.get(kind or "", ServerError)(message)


class InvalidInput(PaiError):
    """A job config, argument or request the user has to correct."""

    kind = "invalid"
    exit_code = 1


class Unsupported(InvalidInput):
    """What the cluster's platform does not have (PaddlePaddle Cloud's PFS cannot rename): a
    refusal by type, sent to the daemon's clients as `invalid`."""


class NameTaken(PaiError):
    """A job of that name exists already."""

    kind = "name-taken"
    exit_code = 1


class ConfigError(PaiError):
    """This machine's set-up: cluster profiles, the keyring, a missing tool."""

    kind = "config"
    exit_code = 2


class NotFound(PaiError):
    kind = "not-found"
    exit_code = 3


class AuthFailed(PaiError):
    """The cluster refused the credentials (or there are none)."""

    kind = "auth"
    exit_code = 4


class PermissionDenied(PaiError):
    kind = "permission"
    exit_code = 4


class Unreachable(PaiError):
    """The cluster, HDFS or the daemon did not answer."""

    kind = "unreachable"
    exit_code = 5


class ServerError(PaiError):
    """The other side failed (a 5xx, an answer we cannot read)."""

    kind = "server"
    exit_code = 6


class Interrupted(PaiError):
    """Work stopped half-way; the message says what did and did not happen."""

    kind = "interrupted"
    exit_code = 7


KINDS: dict[str, type[PaiError]] = {cls.kind: cls for cls in (
    InvalidInput, NameTaken, ConfigError, NotFound, AuthFailed, PermissionDenied, Unreachable, ServerError, Interrupted)}


class Exists(InvalidInput):
    """Something is already where a transfer would write: replaced only when asked (`-f`, or the
    editor's "Replace")."""

    kind = "exists"


class Cancelled(Interrupted):
    """The user stopped the work (Ctrl-C, the editor's Cancel): the message, from whoever did the
    work, says what was and was not done. Exit code 130, as for any Ctrl-C."""

    exit_code = 130


KINDS[Exists.kind] = Exists
