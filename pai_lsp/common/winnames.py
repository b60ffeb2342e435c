"""Which file names this OS (or, with PAI_LSP_WINDOWS_NAMES=1, Windows) can hold as the very file
named: checked before any file work, so a name from a request or an archive never lands elsewhere."""

from __future__ import annotations

from . import portable

_DEVICES = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", *(f"{port}{n}" for port in ("COM", "LPT") for n in "0123456789¹²³")}


def unfit_on_windows(name: str) -> str | None:
    """Why Windows cannot hold a file named `name` (one path component) as that very file, or None.
    There a `\\` separates folders (`..\\x` leaves the folder), `c:x` names another drive, `a:b` a
    hidden stream of `a`, a trailing dot or space is dropped (`a.` is `a`) and `nul.txt` is a device."""
    if any(c in '<>:"/\\|?*' or ord(c) < 32 for c in name):
        return 'it holds one of \\ / : * ? " < > | or a control character, which Windows keeps out of names'
    if name != name.rstrip(". "):
        return "it ends with a dot or a space, which Windows drops"
    if name.split(".", 1)[0].rstrip(" ").upper() in _DEVICES:
        return "it is the name of a device on Windows"
    return None


def unfit_name(name: str) -> str | None:
    """`unfit_on_windows` where names must suit Windows (portable.windows_names); None elsewhere,
    where only `/` and NUL are kept out of names (callers refuse those, `.` and `..` themselves)."""
    return unfit_on_windows(name) if portable.windows_names() else None
