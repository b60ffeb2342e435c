"""YAML scalars as the OpenPAI v2 server reads them: js-yaml 3.13.1 (`safeLoad`, DEFAULT_SAFE_SCHEMA).

`yaml.tree` finds where each scalar is (tree-sitter); this module says what it means. The folding
of multi-line scalars and the block-scalar reader are ports of js-yaml's `readPlainScalar`,
`read*QuotedScalar` and `readBlockScalar` (lib/js-yaml/loader.js), quirks included (a quoted
scalar keeps the spaces before a line break; an escaped line break swallows the empty lines after
it); the implicit types are js-yaml's: YAML 1.2 core (`yes`/`on` stay strings, `0o17` too; `012` is
octal, `1_000` and `1:30` (base 60) are integers, `.inf` a number) plus timestamps and `<<`.
Values are those of `jsyaml.load` (PyYAML-based; timestamps as `datetime`), except that mapping
keys are strings, as JavaScript makes them.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import math
import re
from typing import Any

from ..jsonc import _odd_backslashes  # whether a closing quote is escaped: the same in both

_NULL = re.compile(r"(?:~|null|Null|NULL|)\Z")
_BOOL = re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")
_FLOAT = re.compile(r"""(?:[-+]?(?:0|[1-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?
    |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))\Z""", re.X)
_SEXAGESIMAL = re.compile(r"(?::[0-5]?[0-9])+\Z")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_TIMESTAMP = re.compile(r"""([0-9]{4})-([0-9][0-9]?)-([0-9][0-9]?)
    (?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?
    (?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9]{2}))?))?\Z""", re.X)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

CORE = "tag:yaml.org,2002:"
_MAYBE_TYPED = frozenset("~nNtTfF-+.0123456789_<")  # how a null, boolean, number or timestamp starts
# js-yaml's simpleEscapeMap (`\` + TAB is a tab too).
_ESCAPES = {"0": "\x00", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n", "v": "\x0b", "f": "\x0c",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
_HEX_LENGTH = {"x": 2, "u": 4, "U": 8}


class ScalarError(ValueError):
    """A scalar js-yaml refuses: `code` names the message, `offset` is where in the scalar's text."""

    def __init__(self, code: str, offset: int = 0, **args: Any):
        super().__init__(code)
        self.code = code
        self.offset = offset
        self.args_ = args


# -- implicit types ---------------------------------------------------------------------------

def is_int(text: str) -> bool:
    """js-yaml's resolveYamlInteger, step by step (binary, hexadecimal, octal after a leading 0,
    decimal with '_', base 60 after ':'; never a trailing '_')."""
    i = 1 if text[:1] in ("-", "+") else 0
    body = text[i:]
    if not body:
        return False
    if body[0] == "0":
        if len(body) == 1:
            return True
        digits, rest = ("01", body[2:]) if body[1] == "b" else ("0123456789abcdefABCDEF", body[2:]) if body[1] == "x" \
            else ("01234567", body[1:])
        return any(c != "_" for c in rest) and all(c == "_" or c in digits for c in rest) and rest[-1] != "_"
    if body[0] == "_":
        return False
    head, colon, tail = body.partition(":")
    if not any(c.isdigit() for c in head) or not all(c == "_" or c in "0123456789" for c in head):
        return False
    if not colon:
        return head[-1] != "_"
    return _SEXAGESIMAL.match(":" + tail) is not None


def is_float(text: str) -> bool:
    return bool(_FLOAT.match(text)) and not text.endswith("_")


def to_int(text: str) -> int:
    text = text.replace("_", "")
    sign = -1 if text.startswith("-") else 1
    text = text.lstrip("+-")
    if text == "0":
        return 0
    if text.startswith("0b"):
        return sign * int(text[2:], 2)
    if text.startswith("0x"):
        return sign * int(text[2:], 16)
    if text.startswith("0"):
        return sign * int(text, 8)
    if ":" in text:
        return sign * _base60(text, int)
    return sign * int(text)


def to_float(text: str) -> float:
    text = text.replace("_", "").lower()
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == ".inf":
        return sign * math.inf
    if body == ".nan":
        return math.nan
    if ":" in body:
        return sign * _base60(body, float)
    return sign * float(body)


def _base60(text: str, number: type) -> Any:
    """`1:30` → 90 (YAML 1.1's sexagesimal numbers, which js-yaml 3 still reads)."""
    value = number(0)
    for part in text.split(":"):
        value = value * 60 + number(part)
    return value


def to_timestamp(text: str) -> datetime.date | datetime.datetime | None:
    """A timestamp as js-yaml builds it (Date.UTC: a day or month past its end rolls over, so
    2002-02-30 is March 2), in PyYAML's types (what `jsyaml.load` gives); None when `text` is none."""
    m = _DATE.match(text) or _TIMESTAMP.match(text)
    if m is None:
        return None
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    try:
        start = datetime.datetime(year, month, 1)
        if m.re is _DATE:
            return (start + datetime.timedelta(days=day - 1)).date()
        fraction = int((m[7] or "0")[:6].ljust(6, "0"))
        moment = start + datetime.timedelta(days=day - 1, hours=int(m[4]), minutes=int(m[5]), seconds=int(m[6]),
                                            microseconds=fraction)
    except (ValueError, OverflowError):
        return None
    if m[9]:
        delta = datetime.timedelta(hours=int(m[10]), minutes=int(m[11] or 0))
        return moment.replace(tzinfo=datetime.timezone(-delta if m[9] == "-" else delta))
    return moment.replace(tzinfo=datetime.timezone.utc) if m[8] else moment


def resolve_plain(text: str) -> tuple[str, Any]:
    """(node type, value) of an untagged plain scalar: js-yaml tries null, bool, int, float,
    timestamp, merge in that order; anything else is a string."""
    first = text[:1]
    if first and first not in _MAYBE_TYPED:
        return "string", text
    if text.isdigit() and text.isascii() and (first != "0" or len(text) == 1):
        return "number", int(text)
    if _NULL.match(text):
        return "null", None
    if first in "tTfF" and _BOOL.match(text):
        return "boolean", text in ("true", "True", "TRUE")
    if first in "-+0123456789._":
        if is_int(text):
            return "number", to_int(text)
        if is_float(text):
            return "number", to_float(text)
    if first in "0123456789" and (stamp := to_timestamp(text)) is not None:
        return "timestamp", stamp
    return "string", text


def resolve_tagged(tag: str, text: str, kind: str) -> tuple[str, Any]:
    """(node type, value) of a scalar with an explicit tag (`!!str 1`); ScalarError when js-yaml
    refuses it. `kind` is "plain" or "quoted"."""
    if tag in ("!", CORE + "str"):
        return "string", text
    if tag == CORE + "null" and _NULL.match(text) and (text or kind == "plain"):  # js-yaml: `!!null ''` is no null
        return "null", None
    if tag == CORE + "bool" and _BOOL.match(text):
        return "boolean", text in ("true", "True", "TRUE")
    if tag == CORE + "int" and is_int(text):
        return "number", to_int(text)
    if tag == CORE + "float" and is_float(text):
        return "number", to_float(text)
    if tag == CORE + "timestamp" and (stamp := to_timestamp(text)) is not None:
        return "timestamp", stamp
    if tag == CORE + "binary":
        try:
            return "binary", base64.b64decode("".join(text.split()), validate=True)
        except (binascii.Error, ValueError):
            pass
    if tag in {CORE + t for t in ("null", "bool", "int", "float", "timestamp", "binary")}:
        raise ScalarError("syntax.yaml-bad-tagged-value", tag=short_tag(tag), text=text)
    raise ScalarError("syntax.yaml-unknown-tag", tag=short_tag(tag))


def expand_tag(tag: str) -> str:
    """`!!int` → `tag:yaml.org,2002:int`, `!<x>` → `x`; other tags as written."""
    if tag.startswith("!<") and tag.endswith(">"):
        return tag[2:-1]
    if tag.startswith("!!"):
        return CORE + tag[2:]
    return tag


def short_tag(tag: str) -> str:
    return "!!" + tag[len(CORE):] if tag.startswith(CORE) else tag


def js_string(value: Any) -> str:
    """`String(value)` as JavaScript writes it: what a mapping key becomes in js-yaml."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 1e21 else js_string(float(value))
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    return str(value)


def js_number(value: float) -> str:
    """A number as JavaScript prints it (Number.prototype.toString): the same shortest digits
    as Python's repr, with JavaScript's choice between plain and exponent notation."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction.rstrip("0")).lstrip("0") if whole == "0" else whole + fraction.rstrip("0")
    point = len(whole) + int(exponent or 0) if whole != "0" else -(len(fraction) - len(fraction.lstrip("0"))) + int(exponent or 0)
    digits = digits.rstrip("0") or "0"
    if len(digits) <= point <= 21:
        return sign + digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    exp = point - 1
    return f"{sign}{digits[0]}{'.' + digits[1:] if len(digits) > 1 else ''}e{'+' if exp >= 0 else '-'}{abs(exp)}"


# -- scalar text --------------------------------------------------------------------------------

def _fold(count: int) -> str:
    """js-yaml's writeFoldedLines: one line break is a space, n are n - 1 newlines."""
    return " " if count == 1 else "\n" * (count - 1)


def _skip_separation(text: str, i: int) -> tuple[int, int]:
    """js-yaml's skipSeparationSpace (no comments): (line breaks passed, index after them)."""
    breaks = 0
    n = len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i < n and text[i] in "\r\n":
            i += 2 if text.startswith("\r\n", i) else 1
            breaks += 1
        else:
            break
    return breaks, i


def plain(raw: str) -> str:
    """A plain scalar's text, its lines folded (trailing spaces of each line dropped)."""
    if "\n" not in raw and "\r" not in raw:
        return raw
    lines = _LINE_BREAK.split(raw)
    out = [lines[0].rstrip(" \t")]
    count = 0
    for line in lines[1:]:
        count += 1
        content = line.strip(" \t")
        if not content:
            continue
        out.append(_fold(count))
        out.append(content)
        count = 0
    return "".join(out)


def single_quoted(raw: str) -> str:
    """`'it''s'` → `it's`; line breaks folded as js-yaml does. `raw` includes the quotes."""
    inner = raw[1:-1] if len(raw) > 1 and raw.endswith("'") else raw[1:]
    if "\n" not in inner and "\r" not in inner:
        return inner.replace("''", "'")
    out = []
    start = i = 0
    n = len(inner)
    while i < n:
        if inner[i] in "\r\n":
            out.append(inner[start:i].replace("''", "'"))
            count, i = _skip_separation(inner, i)
            out.append(_fold(count))
            start = i
        else:
            i += 1
    out.append(inner[start:].replace("''", "'"))
    return "".join(out)


def double_quoted(raw: str) -> str:
    """A double-quoted scalar's value (escapes, folding); ScalarError at a bad escape."""
    inner = raw[1:-1] if len(raw) > 1 and raw.endswith('"') and not _odd_backslashes(raw) else raw[1:]
    if "\\" not in inner and "\n" not in inner and "\r" not in inner:
        return inner
    out = []
    start = i = 0
    n = len(inner)
    while i < n:
        ch = inner[i]
        if ch == "\\":
            out.append(inner[start:i])
            i += 1
            ch = inner[i] if i < n else ""
            if ch in ("\r", "\n"):
                _, i = _skip_separation(inner, i)
            elif ch in _ESCAPES:
                out.append(_ESCAPES[ch])
                i += 1
            elif ch in _HEX_LENGTH:
                digits = inner[i + 1 : i + 1 + _HEX_LENGTH[ch]]
                if len(digits) != _HEX_LENGTH[ch] or not all(c in "0123456789abcdefABCDEF" for c in digits):
                    raise ScalarError("syntax.invalid-escape", i)
                code = int(digits, 16)
                if code > 0x10FFFF:
                    raise ScalarError("syntax.invalid-escape", i)
                out.append(chr(code))
                i += 1 + len(digits)
            else:
                raise ScalarError("syntax.invalid-escape", i)
            start = i
        elif ch in "\r\n":
            out.append(inner[start:i])
            count, i = _skip_separation(inner, i)
            out.append(_fold(count))
            start = i
        else:
            i += 1
    out.append(inner[start:])
    return "".join(out)


def block(text: str, pos: int, node_indent: int) -> str:
    """The block scalar whose indicator (`|` or `>`) is at `text[pos]`: js-yaml's readBlockScalar.
    `node_indent` is the enclosing block collection's indentation + 1 (0 at the top level)."""
    n = len(text)
    folding = text[pos] == ">"
    chomping = "clip"
    detected = False
    text_indent = node_indent
    empty_lines = 0
    more_indented = False
    did_read = False
    out: list[str] = []
    i = pos + 1
    while i < n:
        ch = text[i]
        if ch in "+-":
            if chomping != "clip":
                raise ScalarError("syntax.yaml-block-header", i - pos)
            chomping = "keep" if ch == "+" else "strip"
        elif ch in "0123456789":
            if ch == "0" or detected:
                raise ScalarError("syntax.yaml-block-header", i - pos)
            text_indent = node_indent + int(ch) - 1
            detected = True
        else:
            break
        i += 1
    i = _line_end(text, i)  # white space and a comment after the header
    while True:
        if i < n:
            i += 2 if text.startswith("\r\n", i) else 1  # the line break
        line_indent = 0
        while i < n and text[i] == " " and (not detected or line_indent < text_indent):
            line_indent += 1
            i += 1
        if not detected and line_indent > text_indent:
            text_indent = line_indent
        ch = text[i] if i < n else ""
        if ch == "\n" or ch == "\r":
            empty_lines += 1
            continue
        if line_indent < text_indent or not ch:  # the end (js-yaml appends a line break to the text)
            if chomping == "keep":
                out.append("\n" * (1 + empty_lines if did_read else empty_lines))
            elif chomping == "clip" and did_read:
                out.append("\n")
            return "".join(out)
        if folding:
            if ch in " \t":
                more_indented = True
                out.append("\n" * (1 + empty_lines if did_read else empty_lines))
            elif more_indented:
                more_indented = False
                out.append("\n" * (empty_lines + 1))
            elif empty_lines == 0:
                if did_read:
                    out.append(" ")
            else:
                out.append("\n" * empty_lines)
        else:
            out.append("\n" * (1 + empty_lines if did_read else empty_lines))
        did_read = detected = True
        empty_lines = 0
        end = _line_end(text, i)
        out.append(text[i:end])
        i = end


def _line_end(text: str, i: int) -> int:
    """Where the line that `i` is on ends: at its line break ("\n", "\r\n" or "\r"), or the text's end."""
    end = text.find("\n", i)
    end = len(text) if end < 0 else end
    cr = text.find("\r", i, end)
    return end if cr < 0 else cr
