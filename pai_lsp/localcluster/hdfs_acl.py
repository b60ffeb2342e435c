"""HDFS permissions and ACLs as Hadoop decides them (FSPermissionChecker, AclTransformation).

Pure functions over an inode's owner, group, mode bits and extended ACL entries; the store
(`hdfs_store.py`) keeps those in its metadata table and asks here whether a user may act.
As in Hadoop, when an inode has extended ACL entries its mode's group bits hold the mask and
the unnamed group's permission lives among the entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

READ, WRITE, EXECUTE = 4, 2, 1
ALL = 7
READ_EXECUTE = READ | EXECUTE
ACTION_NAMES = {0: "NONE", 1: "EXECUTE", 2: "WRITE", 3: "WRITE_EXECUTE", 4: "READ", 5: "READ_EXECUTE",
                6: "READ_WRITE", 7: "ALL"}
SYMBOLS = ["---", "--x", "-w-", "-wx", "r--", "r-x", "rw-", "rwx"]
STICKY = 0o1000
ENTRY_TYPES = ("user", "group", "mask", "other")


class AclSpecError(ValueError):
    """A malformed ACL spec: Hadoop's HadoopIllegalArgumentException (HTTP 400)."""


class AclError(Exception):
    """A well-formed spec that makes an invalid ACL: Hadoop's AclException (HTTP 403)."""


@dataclass(frozen=True)
class AclEntry:
    default: bool
    kind: str  # user | group | mask | other
    name: str  # "" for the owner, owning group, mask and other
    perm: int | None  # None in a removal spec

    def key(self) -> tuple[bool, str, str]:
        return (self.default, self.kind, self.name)

    def with_perm(self, perm: int) -> AclEntry:
        return AclEntry(self.default, self.kind, self.name, perm)

    def __str__(self) -> str:
        text = f"{'default:' if self.default else ''}{self.kind}:{self.name}"
        return text if self.perm is None else f"{text}:{SYMBOLS[self.perm]}"


def sort_key(entry: AclEntry) -> tuple:
    """Hadoop's order: access before default; user, group, mask, other; unnamed before named."""
    return (entry.default, ENTRY_TYPES.index(entry.kind), entry.name != "", entry.name)


def parse_spec(spec: str, with_perm: bool = True) -> list[AclEntry]:
    """`[default:]type:name[:perm],…` as AclEntry.parseAclSpec reads it."""
    out = []
    for text in spec.split(","):
        parts = text.split(":")
        while parts and parts[-1] == "":  # Java's String.split drops trailing empty strings
            parts.pop()
        index, default = 0, False
        if parts and parts[0] == "default":
            index, default = 1, True
        if len(parts) <= index:
            raise AclSpecError(f"Invalid <aclSpec> : {text}")
        kind = parts[index].lower()
        if kind not in ENTRY_TYPES:
            raise AclSpecError(f"Invalid type of acl in <aclSpec> :{text}")
        index += 1
        name = ""
        if len(parts) > index:
            name = parts[index]
            index += 1
        perm = None
        if with_perm:
            if len(parts) <= index:
                raise AclSpecError(f"Invalid <aclSpec> : {text}")
            if parts[index] not in SYMBOLS:
                raise AclSpecError(f"Invalid permission in <aclSpec> : {text}")
            perm = SYMBOLS.index(parts[index])
            index += 1
        if len(parts) > index:
            raise AclSpecError(f"Invalid <aclSpec> : {text}")
        out.append(AclEntry(default, kind, name, perm))
    return out


@dataclass
class Acl:
    """An inode's mode bits (with the sticky bit) and its stored ACL entries (Hadoop's AclFeature):
    named users, the unnamed group and named groups of the access ACL, and the whole default ACL."""

    mode: int
    entries: list[AclEntry] = field(default_factory=list)

    @property
    def extended(self) -> bool:
        return any(not e.default for e in self.entries)

    def full(self) -> list[AclEntry]:
        """Every entry, the base ones included (what `getfacl` shows)."""
        user, group_bits, other = (self.mode >> 6) & 7, (self.mode >> 3) & 7, self.mode & 7
        access = [e for e in self.entries if not e.default]
        base = [AclEntry(False, "user", "", user), AclEntry(False, "other", "", other)]
        if access:
            base.append(AclEntry(False, "mask", "", group_bits))
        else:
            base.append(AclEntry(False, "group", "", group_bits))
        return sorted(base + self.entries, key=sort_key)

    @classmethod
    def from_full(cls, entries: list[AclEntry], sticky: int, is_dir: bool) -> Acl:
        """Back to mode bits and stored entries, checking what AclTransformation checks."""
        seen = set()
        for e in entries:
            if e.key() in seen:
                raise AclError("Invalid ACL: multiple entries with same scope, type and name.")
            seen.add(e.key())
            if e.name and e.kind in ("mask", "other"):
                raise AclError(f"Invalid ACL: this entry type must not have a name: {e}.")
        if any(e.default for e in entries) and not is_dir:
            raise AclError("Invalid ACL: only directories may have a default ACL.")
        by_key = {e.key(): e for e in entries}
        for default in (False, True):
            if default and not any(e.default for e in entries):
                continue
            if any((default, kind, "") not in by_key for kind in ("user", "group", "other")):
                raise AclError(f"Invalid {'default ' if default else ''}ACL: the user, group and other entries are required.")
        user = by_key[(False, "user", "")].perm or 0
        other = by_key[(False, "other", "")].perm or 0
        mask = by_key.get((False, "mask", ""))
        stored = [e for e in entries if e.default or (e.kind in ("user", "group") and e.name)]
        if mask is not None:
            stored.append(by_key[(False, "group", "")])
            group_bits = mask.perm or 0
        else:
            group_bits = by_key[(False, "group", "")].perm or 0
        return cls(sticky | user << 6 | group_bits << 3 | other, sorted(stored, key=sort_key))


def _calculate_masks(entries: list[AclEntry], provided: dict[bool, AclEntry], mask_dirty: set[bool],
                     scope_dirty: set[bool]) -> list[AclEntry]:
    """AclTransformation.calculateMasks: a mask the caller gave, or an unchanged scope's mask, is kept;
    otherwise a scope with named entries (or that had a mask) gets the union of its group class."""
    out = list(entries)
    for default in sorted({e.default for e in entries}):
        scope = [e for e in entries if e.default == default]
        union = 0
        for e in scope:
            if e.kind == "group" or e.name:
                union |= e.perm or 0
        needed = any(e.name for e in scope)
        if default not in provided and needed and default in mask_dirty:
            raise AclError("Invalid ACL: mask is required and cannot be deleted if ACL contains named entries.")
        if default in provided and (default not in scope_dirty or default in mask_dirty):
            out.append(provided[default])
        elif needed or default in provided:
            out.append(AclEntry(default, "mask", "", union))
    return out


def _copy_defaults(entries: list[AclEntry]) -> list[AclEntry]:
    """A default ACL that lacks its user, group or other entry copies it from the access ACL."""
    if not any(e.default for e in entries):
        return entries
    keys = {e.key(): e for e in entries}
    copied = [AclEntry(True, kind, "", keys[(False, kind, "")].perm) for kind in ("user", "group", "other")
              if (True, kind, "") not in keys and (False, kind, "") in keys]
    return entries + copied


def _rebuild(acl: Acl, builder: list[AclEntry], provided: dict[bool, AclEntry], mask_dirty: set[bool],
             scope_dirty: set[bool], is_dir: bool) -> Acl:
    entries = _calculate_masks(_copy_defaults(builder), provided, mask_dirty, scope_dirty)
    return Acl.from_full(entries, acl.mode & STICKY, is_dir)


def _validated(spec: list[AclEntry]) -> list[AclEntry]:
    """AclTransformation.ValidatedAclSpec: a spec may name each entry once."""
    if len({e.key() for e in spec}) != len(spec):
        raise AclError("Invalid ACL: multiple entries with same scope, type and name.")
    return spec


def modify(acl: Acl, spec: list[AclEntry], is_dir: bool) -> Acl:
    """MODIFYACLENTRIES (AclTransformation.mergeAclEntries)."""
    wanted = {e.key(): e for e in _validated(spec)}
    builder: list[AclEntry] = []
    provided: dict[bool, AclEntry] = {}
    mask_dirty: set[bool] = set()
    scope_dirty: set[bool] = set()

    def take(entry: AclEntry, from_spec: bool) -> None:
        if from_spec:
            scope_dirty.add(entry.default)
        if entry.kind != "mask":
            builder.append(entry)
            return
        provided[entry.default] = entry
        if from_spec:
            mask_dirty.add(entry.default)

    for existing in acl.full():
        given = wanted.pop(existing.key(), None)
        take(given or existing, from_spec=given is not None)
    for given in wanted.values():
        take(given, from_spec=True)
    return _rebuild(acl, builder, provided, mask_dirty, scope_dirty, is_dir)


def replace(acl: Acl, spec: list[AclEntry], is_dir: bool) -> Acl:
    """SETACL (replaceAclEntries): each scope the spec names is replaced; the other scope is kept."""
    builder: list[AclEntry] = []
    provided: dict[bool, AclEntry] = {}
    mask_dirty: set[bool] = set()
    scope_dirty = {e.default for e in _validated(spec)}
    for given in spec:
        if given.kind == "mask":
            provided[given.default] = given
            mask_dirty.add(given.default)
        else:
            builder.append(given)
    for existing in acl.full():
        if existing.default in scope_dirty:
            continue
        if existing.kind == "mask":
            provided[existing.default] = existing
        else:
            builder.append(existing)
    return _rebuild(acl, builder, provided, mask_dirty, scope_dirty, is_dir)


def remove_entries(acl: Acl, spec: list[AclEntry], is_dir: bool) -> Acl:
    """REMOVEACLENTRIES (filterAclEntriesByAclSpec)."""
    doomed = {e.key() for e in _validated(spec)}
    builder: list[AclEntry] = []
    provided: dict[bool, AclEntry] = {}
    mask_dirty: set[bool] = set()
    scope_dirty: set[bool] = set()
    for existing in acl.full():
        if existing.key() in doomed:
            scope_dirty.add(existing.default)
            if existing.kind == "mask":
                mask_dirty.add(existing.default)
        elif existing.kind == "mask":
            provided[existing.default] = existing
        else:
            builder.append(existing)
    return _rebuild(acl, builder, provided, mask_dirty, scope_dirty, is_dir)


def remove_default(acl: Acl) -> Acl:
    """REMOVEDEFAULTACL."""
    return Acl(acl.mode, [e for e in acl.entries if not e.default])


def remove_all(acl: Acl) -> Acl:
    """REMOVEACL: only the mode bits remain; the group bits get the unnamed group's permission back."""
    group = next((e for e in acl.entries if e.key() == (False, "group", "")), None)
    mode = acl.mode if group is None else (acl.mode & ~0o070) | (group.perm or 0) << 3
    return Acl(mode, [])


def inherit(parent: Acl, mode: int, is_dir: bool) -> Acl:
    """A new inode under a folder with a default ACL: that ACL, limited by the create mode (no umask)."""
    defaults = [e for e in parent.entries if e.default]
    if not defaults:
        return Acl(mode)
    access = [AclEntry(False, e.kind, e.name, e.perm) for e in defaults]
    has_mask = any(e.kind == "mask" for e in access)
    limited = []
    for e in access:
        perm = e.perm or 0
        if e.kind == "user" and not e.name:
            perm &= (mode >> 6) & 7
        elif e.kind == "other":
            perm &= mode & 7
        elif (e.kind == "mask") or (e.kind == "group" and not e.name and not has_mask):
            perm &= (mode >> 3) & 7
        limited.append(e.with_perm(perm))
    if is_dir:
        limited += defaults
    return Acl.from_full(limited, mode & STICKY, is_dir)


def permits(acl: Acl, owner: str, group: str, user: str, groups: set[str], access: int) -> bool:
    """FSPermissionChecker.hasPermission: owner bits, then ACL entries (masked), then other."""
    mode = acl.mode
    if user == owner:
        return (mode >> 6) & access == access
    if acl.extended:
        mask = (mode >> 3) & 7
        access_entries = [e for e in acl.entries if not e.default]
        named = next((e for e in access_entries if e.kind == "user" and e.name == user), None)
        if named is not None:
            return (named.perm or 0) & mask & access == access
        matched = False
        for e in access_entries:
            if e.kind == "group" and (e.name or group) in groups:
                matched = True
                if (e.perm or 0) & mask & access == access:
                    return True
        if matched:
            return False
    elif group in groups:
        return (mode >> 3) & access == access
    return mode & access == access


def mode_string(mode: int, is_dir: bool, extended: bool = False) -> str:
    """`drwxr-xr-t+` as Hadoop prints an inode in a permission error."""
    text = SYMBOLS[(mode >> 6) & 7] + SYMBOLS[(mode >> 3) & 7] + SYMBOLS[mode & 7]
    if mode & STICKY:
        text = text[:-1] + ("t" if mode & EXECUTE else "T")
    return ("d" if is_dir else "-") + text + ("+" if extended else "")
