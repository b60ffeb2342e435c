"""`<% … %>` templates of the OpenPAI v2 job protocol, found and filled in as the server does.

The server (rest-server `middlewares/v2/protocol.js`, `render`) parses a role's commands (its
deployment's preCommands and postCommands around them, each line trimmed, joined with "\\n") and a
Docker image's `auth` values with mustache 2.3's parser and the tags `<%` `%>`. Only plain name tags
are filled in: `a[0]` is read as `a.0`, a name that finds a value becomes JavaScript's `String` of
it, one that finds nothing (or null) stays as `<% name %>` (so that `$secrets`, which the server
leaves for the runtime, survive); every other kind of tag (`<% #x %>` sections with what they hold,
`<% !x %>`, `<% &x %>`, `<% >x %>`) is dropped. The result is trimmed. A text mustache cannot parse
(an unclosed tag or section) makes the server answer 500 with mustache's message, "Unclosed tag at 17".
(Not reproduced: mustache also drops the white space of a line that holds nothing but a dropped tag.)

`find_templates` gives every tag with its place (and raises `TemplateError` where the server would);
`render` fills them in. Pure: the language server, `pai submit --dry-run` and the local cluster use
the same two functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .yaml_scalars import js_string

OPEN, CLOSE = "<%", "%>"
NAME = "name"  # the one kind of tag the server fills in
# mustache's regular expressions (mustache.js 2.3 `parseTemplate`); JavaScript's \s is Unicode white space.
_JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WHITE = re.compile(f"[{_JS_SPACE}]*")
_SPACES = re.compile(f"[{_JS_SPACE}]+")
_TAG_TYPE = re.compile(r"[#^/>{&=!]")
_INDEX = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True, slots=True)
class Template:
    """One tag: `start`..`end` in the text (`<%` to just after `%>`), its kind (mustache's: "name",
    "#", "^", "/", "!", "&", ">", "=") and `expr`, the name as the server looks it up (`a[0]` read as
    `a.0`; for other kinds, the tag's text)."""

    start: int
    end: int
    expr: str
    kind: str = NAME

    @property
    def filled(self) -> bool:
        """Whether the server fills this tag in (the others are dropped)."""
        return self.kind == NAME

    @property
    def parts(self) -> list[str]:
        """The name's parts: `$parameters.lr` → ["$parameters", "lr"]."""
        return self.expr.split(".") if self.filled and self.expr else []


class TemplateError(ValueError):
    """A text the server's template parser refuses (500): `message` in mustache's words, and where:
    `start`..`end` in the text (the unclosed `<%`, the section tag), `at` the position mustache names."""

    def __init__(self, message: str, start: int, end: int, at: int):
        super().__init__(message)
        self.message, self.start, self.end, self.at = message, start, end, at


def _compile(tags: list[str], at: int, start: int) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    if len(tags) != 2:
        raise TemplateError("Invalid tags: " + ",".join(tags), start, at, at)
    white = f"[{_JS_SPACE}]*"
    return (re.compile(re.escape(tags[0]) + white), re.compile(white + re.escape(tags[1])),
            re.compile(white + re.escape("}" + tags[1])))


def find_templates(text: str) -> list[Template]:
    """Every tag of `text`, in order (those inside a section too), as mustache 2.3 parses it with the
    tags `<%` `%>`. Raises `TemplateError` where mustache throws: an unclosed tag, an unclosed or
    unopened section, invalid tags set by `<% = … = %>`."""
    if OPEN not in text:
        return []
    opening, closing, closing_curly = _compile([OPEN, CLOSE], 0, 0)
    found: list[Template] = []
    sections: list[Template] = []
    pos = 0
    while pos < len(text):
        match = opening.search(text, pos)
        if match is None:
            break
        start = match.start()
        pos = match.end()
        kind_match = _TAG_TYPE.match(text, pos)
        kind = NAME
        if kind_match is not None:
            kind, pos = kind_match.group(), kind_match.end()
        pos = _WHITE.match(text, pos).end()  # type: ignore[union-attr]
        if kind == "=":
            equals = re.compile(f"[{_JS_SPACE}]*=").search(text, pos)
            value_end = equals.start() if equals else len(text)
            value, pos = text[pos:value_end], equals.end() if equals else len(text)
            until = closing.search(text, pos)
            pos = until.start() if until else len(text)
        elif kind == "{":
            until = closing_curly.search(text, pos)
            value_end = until.start() if until else len(text)
            value = text[pos:value_end]
            pos = value_end
            curly = re.compile(f"[{_JS_SPACE}]*}}").match(text, pos)
            if curly is not None:
                pos = curly.end()
            until = closing.search(text, pos)
            pos = until.start() if until else len(text)
            kind = "&"
        else:
            until = closing.search(text, pos)
            value_end = until.start() if until else len(text)
            value, pos = text[pos:value_end], value_end
        close = closing.match(text, pos)
        if close is None:
            raise TemplateError(f"Unclosed tag at {pos}", start, min(start + len(OPEN), len(text)), pos)
        pos = close.end()
        tag = Template(start, pos, _INDEX.sub(r".\1", value) if kind == NAME else value, kind)
        found.append(tag)
        if kind in ("#", "^"):
            sections.append(tag)
        elif kind == "/":
            if not sections:
                raise TemplateError(f'Unopened section "{value}" at {start}', start, pos, start)
            opened = sections.pop()
            if opened.expr != value:
                raise TemplateError(f'Unclosed section "{opened.expr}" at {start}', opened.start, opened.end, start)
        elif kind == "=":
            opening, closing, closing_curly = _compile(_SPACES.split(value, 2)[:2] if value else [], pos, start)
    if sections:
        opened = sections[-1]
        raise TemplateError(f'Unclosed section "{opened.expr}" at {len(text)}', opened.start, opened.end, len(text))
    return found


def lookup(context: dict[str, Any], expr: str) -> Any:
    """What a name finds in the context, as mustache's `Context.lookup` (None when nothing): dotted
    names walk mappings, list indices, and a list's or string's `length`."""
    if "." not in expr or expr.startswith("."):
        return context.get(expr)
    value: Any = context
    for part in expr.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, (list, str)):
            if part == "length":
                value = len(value)
            elif part.isascii() and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                return None
        else:
            return None
        if value is None:
            return None
    return value


def _js_trim(text: str) -> str:
    return text.strip(_JS_SPACE.replace("\u2000-\u200a", "".join(map(chr, range(0x2000, 0x200B)))))


def fill(text: str, context: dict[str, Any]) -> str:
    """`text` with its name tags filled in from `context` (names such as "$parameters" at its top)
    and its other tags dropped, trimmed: the server's `render`. Raises `TemplateError`."""
    out = []
    pos = 0
    depth = 0  # inside a section: dropped with it
    for tag in find_templates(text):
        if depth == 0:
            out.append(text[pos:tag.start])
        pos = tag.end
        if tag.kind in ("#", "^"):
            depth += 1
        elif tag.kind == "/":
            depth -= 1
        elif tag.kind == NAME and depth == 0:
            value = lookup(context, tag.expr)
            out.append(f"{OPEN} {tag.expr} {CLOSE}" if value is None else js_string(value))
    out.append(text[pos:] if depth == 0 else "")
    return _js_trim("".join(out))


def render(value: str, parameters: dict | None, secrets: dict | None = None, **prerequisites: dict | None) -> str:
    """`value` (a command, or the commands joined) as the server renders it: `$parameters` (and
    `$script`, `$output`, `$data`: the prerequisites a role names, given by keyword) filled in;
    `$secrets` too when given (the server leaves them to the runtime in commands, and fills them in
    a Docker image's `auth`). Raises `TemplateError` for a text the server refuses."""
    context: dict[str, Any] = {}
    if parameters is not None:
        context["$parameters"] = parameters
    if secrets is not None:
        context["$secrets"] = secrets
    for name, prerequisite in prerequisites.items():
        if prerequisite is not None:
            context[f"${name}"] = prerequisite
    return fill(value, context)


def joined_commands(commands: list[str]) -> str:
    """A role's commands as the server renders them: each line trimmed, joined with "\\n"."""
    return "\n".join(_js_trim(line) for line in commands)
