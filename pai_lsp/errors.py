"""Every failure a user can meet, as one class each: the one line they read and the exit code `pai`
returns. The CLI prints `pai <command>: <message>` and exits with `exit_code`; the language server
shows the message once; the daemon sends it to its clients, which raise the same class again.

One wire form for a failure, everywhere it travels (`to_wire` / `from_wire`): its one line beside
`{kind, code?, args?}` — the class by `kind`, and the catalogue's `code` with its `args`
(core/messages.py) so that whoever shows it says it in its reader's language (`render`): the CLI in
the terminal's, the language server in the editor's. The daemon serves both at once, so it says
codes (and the line in English, for logs and readers that know no code), never one language. The
daemon sends it as JSON-RPC's error `{code, message, data: {kind, code?, args?}}`; the language
server answers a failed command `{ok: false, kind, message}`, the message already in the editor's
language (server/jobs.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

from .core.messages import Message


class PaiError(Exception):
    """Base of the errors below; also what an unknown `kind` from the daemon becomes. `said` is a
    catalogue `Message` (translated where it is shown) or, for a text we do not own (a server's
    answer), a plain string."""

    kind: ClassVar[str] = "server"
    exit_code: ClassVar[int] = 6

    def __init__(self, said: str | Message):
        self.said = said
        self.message = str(said)  # English
        super().__init__(self.message)

    def render(self, locale: str | None) -> str:
        """The one line, in the reader's language."""
        return self.said.render(locale) if isinstance(self.said, Message) else self.said

    def replaced(self, old: str, new: str) -> PaiError:
        """The same failure said of `new` where it said `old` (a temporary name the user never gave)."""
        return type(self)(self.said.replaced(old, new) if isinstance(self.said, Message) else self.said.replace(old, new))

    def to_wire(self) -> dict[str, Any]:
        """What travels beside the one line (`message`): `{kind, code?, args?}`."""
        return {"kind": self.kind, **(self.said.to_json() if isinstance(self.said, Message) else {})}

    @staticmethod
    def from_wire(data: Any, message: str) -> PaiError:
        """The failure `to_wire` sent with `message`: said again from its code when this side knows it."""
        data = data if isinstance(data, dict) else {}
        return ERROR_CLASSES.get(str(data.get("kind") or ""), ServerError)(Message.from_json(data) or message)


def as_pai_error(exc: BaseException) -> PaiError:
    """Any failure of a call to the daemon as one of ours: a broken connection is `Unreachable` (said
    by its message where pai made it with one: `ConnectionError(message(…))`)."""
    if isinstance(exc, PaiError):
        return exc
    said = next((a for a in exc.args if isinstance(a, Message)), None)
    return Unreachable(said if said is not None else str(exc))


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


class Cancelled(Interrupted):
    """The user stopped it (in the editor: cancelled a submit's progress) before anything was done."""

    kind = "cancelled"
    exit_code = 130


ERROR_CLASSES: dict[str, type[PaiError]] = {cls.kind: cls for cls in (
    InvalidInput, NameTaken, ConfigError, NotFound, AuthFailed, PermissionDenied, Unreachable, ServerError, Interrupted, Cancelled)}


class Exists(InvalidInput):
    """Something is already where a transfer would write: replaced only when asked (`-f`, or the
    editor's "Replace")."""

    kind = "exists"


ERROR_CLASSES[Exists.kind] = Exists
