"""Which file names this OS (or, with PAI_LSP_WINDOWS_NAMES=1, Windows) can hold as the very file
named: checked before any file work, so a name from a request or an archive never lands elsewhere."""

from __future__ import annotations

from ..core.messages import Message, message
from . import portable

_DEVICES = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", *(f"{port}{n}" for port in ("COM", "LPT") for n in "0123456789¹²³")}


def unfit_on_windows(name: str) -> Message | None:
    """Why Windows cannot hold a file named `name` (one path component) as that very file, or None.
    There a `\\` separates folders (`..\\x` leaves the folder), `c:x` names another drive, `a:b` a
    hidden stream of `a`, a trailing dot or space is dropped (`a.` is `a`) and `nul.txt` is a device."""
    if any(c in '<>:"/\\|?*' or ord(c) < 32 for c in name):
        return message("names.windows-characters")
    if name != name.rstrip(". "):
        return message("names.windows-trailing")
    if name.split(".", 1)[0].rstrip(" ").upper() in _DEVICES:
        return message("names.windows-device")
    return None


def unfit_name(name: str) -> Message | None:
    """`unfit_on_windows` where names must suit Windows (portable.windows_names); None elsewhere,
    where only `/` and NUL are kept out of names (callers refuse those, `.` and `..` themselves)."""
    return unfit_on_windows(name) if portable.windows_names() else None
