"""Files only the user may read, where files have no modes (Windows): a per-user ACL instead of mode 600.

A private file is written with a protected DACL — the user, SYSTEM and the administrators, nothing
inherited — so it stays private in any folder (also one `XDG_CONFIG_HOME` points to on a shared
drive), as Jupyter does with its connection files. A secret is read from a file (the daemon's
endpoint) only if its owner and its DACL let nobody else in, as `st_uid` and `st_mode & 077` say on
POSIX. The decision is made on the descriptor's SDDL, the OS's own text form, by `strangers`:
plain code, tested on any OS; only reading and writing the descriptor needs Windows (pywin32).
"""

from __future__ import annotations

import errno
import functools
import re
import sys

from ..core.messages import Message, message

SYSTEM, ADMINISTRATORS, OWNER_RIGHTS = "S-1-5-18", "S-1-5-32-544", "S-1-3-4"
ALIASES = {"SY": SYSTEM, "BA": ADMINISTRATORS, "OW": OWNER_RIGHTS, "WD": "S-1-1-0", "AU": "S-1-5-11",
           "BU": "S-1-5-32-545", "BG": "S-1-5-32-546", "IU": "S-1-5-4", "AN": "S-1-5-7", "NU": "S-1-5-2",
           "CO": "S-1-3-0", "CG": "S-1-3-1", "PS": "S-1-5-10"}
# The well-known accounts by the names Windows itself gives them (its Security tab shows them so, in
# every language of Windows): names, not words to translate.
NAMES = {"S-1-1-0": "Everyone", "S-1-5-11": "Authenticated Users", "S-1-5-32-545": "Users", "S-1-5-32-546": "Guests",
         "S-1-5-4": "INTERACTIVE", "S-1-5-7": "ANONYMOUS LOGON", "S-1-5-2": "NETWORK"}
_GRANTS = {"A", "OA", "XA", "ZA"}  # the ACE types that allow (deny, audit and label ACEs give nobody anything)
_OWNER = re.compile(r"O:(.*?)(?=[GDS]:|$)")


def private_sddl(me: str) -> str:
    """The DACL a private file gets: full control for `me` (a SID string), SYSTEM and the
    administrators, protected from what its folder would pass on."""
    return f"D:P(A;;FA;;;{me})(A;;FA;;;SY)(A;;FA;;;BA)"


def _aces(dacl: str) -> list[list[str]]:
    """The ACEs of a DACL's SDDL (after `D:` and its flags), each split into its fields; a conditional
    ACE's own parentheses stay inside it."""
    aces, depth, start = [], 0, 0
    for i, c in enumerate(dacl):
        if c == "(":
            depth, start = depth + 1, (i + 1 if depth == 0 else start)
        elif c == ")" and depth:
            depth -= 1
            if depth == 0:
                aces.append(dacl[start:i].split(";"))
    return aces


def strangers(sddl: str, me: str) -> list[str | Message]:
    """Who besides `me`, SYSTEM and the administrators owns the object `sddl` describes (its owner and
    DACL in the SDDL form Windows prints) or may do anything to it; [] for a private file. An account
    is its name; what is more than a name (its owner, a file with no access list) a message."""
    trusted = {me, SYSTEM, ADMINISTRATORS, OWNER_RIGHTS}  # the owner's rights: the owner is checked first
    aliases = {**ALIASES, **({"LA": me} if me.endswith("-500") else {})}  # the built-in Administrator account

    def sid(text: str) -> str:
        return aliases.get(text, text)

    found: list[str | Message] = []
    owner = _OWNER.search(sddl)
    if owner is None or sid(owner.group(1)) not in trusted:
        found.append(message("daemon.endpoint-owner-other", name=NAMES.get(sid(owner.group(1)), owner.group(1)) if owner else "?"))
    start = sddl.find("D:")
    if start < 0 or sddl.startswith("NO_ACCESS_CONTROL", start + 2):
        return [*found, message("daemon.endpoint-no-acl")]
    end = min((i for i in (sddl.find("S:", start), sddl.find("O:", start), sddl.find("G:", start)) if i > start),
              default=len(sddl))
    for fields in _aces(sddl[start + 2:end]):
        if len(fields) < 6 or fields[0] not in _GRANTS or "IO" in fields[1] or fields[2] in ("", "0x0", "0"):
            continue  # not a grant, or one only for what would be created inside it
        who = sid(fields[5])
        if who not in trusted and (name := NAMES.get(who, who)) not in found:
            found.append(name)
    return found


def listed(found: list[str | Message]) -> str | Message:
    """`strangers` as one argument of a message, each said in the reader's language ("A, B, C")."""
    return functools.reduce(lambda first, then: message("daemon.endpoint-more", first=first, then=then), found)


if sys.platform == "win32":
    from pathlib import Path

    @functools.cache
    def current_user() -> str:
        """This process's user, as a SID string."""
        import win32api
        import win32security

        token = win32security.OpenProcessToken(win32api.GetCurrentProcess(), win32security.TOKEN_QUERY)
        return win32security.ConvertSidToStringSid(win32security.GetTokenInformation(token, win32security.TokenUser)[0])

    def restrict(path: Path) -> None:
        """Make `path` private (before anything secret is written into it). OSError where it cannot be
        (a drive without ACLs: FAT, some network shares): a secret is then not written at all."""
        import pywintypes
        import win32security

        try:
            descriptor = win32security.ConvertStringSecurityDescriptorToSecurityDescriptor(private_sddl(current_user()),
                                                                                            win32security.SDDL_REVISION_1)
            win32security.SetNamedSecurityInfo(
                str(path), win32security.SE_FILE_OBJECT,
                win32security.DACL_SECURITY_INFORMATION | win32security.PROTECTED_DACL_SECURITY_INFORMATION,
                None, None, descriptor.GetSecurityDescriptorDacl(), None)
        except pywintypes.error as exc:
            raise PermissionError(errno.EACCES, message("daemon.endpoint-acl-unset", why=exc.strerror), str(path)) from None

    def others(fd: int) -> list[str | Message]:
        """`strangers` of the file open as `fd` (the very file read, not what its name means now);
        OSError when its ACL cannot be read."""
        import msvcrt

        import pywintypes
        import win32security

        wanted = win32security.OWNER_SECURITY_INFORMATION | win32security.DACL_SECURITY_INFORMATION
        try:
            descriptor = win32security.GetSecurityInfo(msvcrt.get_osfhandle(fd), win32security.SE_FILE_OBJECT, wanted)
            sddl = win32security.ConvertSecurityDescriptorToStringSecurityDescriptor(descriptor, win32security.SDDL_REVISION_1,
                                                                                     wanted)
        except pywintypes.error as exc:
            raise PermissionError(errno.EACCES, message("daemon.endpoint-acl-unknown", why=exc.strerror)) from None
        return strangers(sddl, current_user())
