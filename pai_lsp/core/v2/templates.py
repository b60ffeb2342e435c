"""`<% … %>` templates of the OpenPAI v2 job protocol, found and filled in as the server does.

The server (rest-server `middlewares/v2/protocol.js`, `render`) parses a role's commands (its
deployment's preCommands and postCommands around them, each line trimmed, joined with "\\n") and a
Docker image's `auth` values with mustache 2.3's parser and the tags `<%` `%>`. Only plain name tags
are filled in: `a[0]` is read as `a.0`, a name that finds a value becomes JavaScript's `String` of
it, one that finds nothing (or null) stays as `<% name %>` (so that `$secrets`, which the server
leaves for the runtime, survive); every other kind of tag (`<% #x %>` sections with what they hold,
`<% !x %>`, `<% &x %>`, `<% >x %>`) is dropped. The result is trimmed. A text mustache cannot parse
(an unclosed tag or section) makes the server answer 500 with mustache's message, "Unclosed tag at 17".
A line holding nothing but section or comment tags and white space is dropped whole, as mustache
strips it.

`find_templates` gives every tag with its place (and raises `TemplateError` where the server would);
`render` fills them in. Pure: the language server, `pai submit --dry-run` and the local cluster use
the same two functions.

Filling in is bounded: a parameter of 90 KB used 3,000 times would fill a role's commands with
270 MB. What one job's rendering produces (`one_job`; one `fill` alone when none is open) may reach
`MAX_RENDERED` characters and `MAX_FILLED_TAGS` filled tags (the steps of the work, counted rather
than timed so the same job is refused on every machine); past either, `RenderTooLarge`, a
`TemplateError`, so every caller that says the server's template errors says this one too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..job_format import Unsendable
from ..messages import Message, message
from ..yaml.scalars import js_string

# What one job's templates may fill in to: no cluster runs commands this long (a Kubernetes object is
# at most 1.5 MB), and the largest job file pai reads (64 MB) renders within it unless it repeats itself.
MAX_RENDERED = 16 * 1024 * 1024  # characters
MAX_FILLED_TAGS = 1_000_000

OPEN, CLOSE = "<%", "%>"
NAME = "name"  # the one kind of tag the server fills in
# mustache's regular expressions (mustache.js 2.3 `parseTemplate`); JavaScript's \s is Unicode white space.
_JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_SPACE_CHARS = "\t\n\x0b\x0c\r \xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"
_WHITE = re.compile(f"[{_JS_SPACE}]*")
_EQUALS = re.compile(f"[{_JS_SPACE}]*=")
_CURLY = re.compile(f"[{_JS_SPACE}]*}}")
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


class TemplateError(Unsendable):
    """A text the server's template parser refuses (500): `message` in mustache's words, and where:
    `start`..`end` in the text (the unclosed `<%`, the section tag), `at` the position mustache names."""

    def __init__(self, message: str | Message, start: int, end: int, at: int):
        super().__init__(str(message))
        self.message, self.start, self.end, self.at = message, start, end, at

    def said(self, cluster: str) -> Message | str:
        return self.message


class RenderTooLarge(TemplateError):
    """The job's templates fill in to more than pai renders (`MAX_RENDERED`, `MAX_FILLED_TAGS`):
    refused where it is rendered, in the catalogue's words (`message` is a `Message`)."""

    def __init__(self, said: Message):
        super().__init__(said, 0, 0, 0)


class _Budget:
    """What is left to fill in."""

    def __init__(self) -> None:
        self.chars, self.tags = MAX_RENDERED, MAX_FILLED_TAGS


_budget: ContextVar[_Budget | None] = ContextVar("rendering_budget", default=None)


@contextmanager
def one_job() -> Iterator[None]:
    """Every `fill` inside counts against one budget: what rendering one job may produce (nested,
    the outer one counts)."""
    if _budget.get() is not None:
        yield
        return
    token = _budget.set(_Budget())
    try:
        yield
    finally:
        _budget.reset(token)


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
    return list(_parse(text)[0]) if OPEN in text else []


@lru_cache(maxsize=256)
def _parse(text: str) -> tuple[tuple[Template, ...], tuple[str | Template, ...]]:
    """mustache 2.3's `parseTemplate`: every tag, and what the server writes (text and the name tags
    outside sections; a line holding only section or comment tags and white space dropped whole, as
    mustache strips it). Kept as mustache's Writer keeps them: a thousand roles with the same commands
    cost one parse."""
    opening, closing, closing_curly = _compile([OPEN, CLOSE], 0, 0)
    found: list[Template] = []
    tokens: list[str | Template | None] = []  # one character of text, or a tag; None: stripped
    sections: list[Template] = []
    spaces: list[int] = []  # the white-space tokens of the current line
    has_tag = non_space = False
    pos, end = 0, len(text)
    while pos < end:
        match = opening.search(text, pos)
        stop = match.start() if match else end
        for ch in text[pos:stop]:
            if ch in _JS_SPACE_CHARS:
                spaces.append(len(tokens))
            else:
                non_space = True
            tokens.append(ch)
            if ch == "\n":
                if has_tag and not non_space:
                    for index in spaces:
                        tokens[index] = None
                spaces, has_tag, non_space = [], False, False
        if match is None:
            break
        start, pos, has_tag = stop, match.end(), True
        kind_match = _TAG_TYPE.match(text, pos)
        kind = NAME
        if kind_match is not None:
            kind, pos = kind_match.group(), kind_match.end()
        pos = _WHITE.match(text, pos).end()  # type: ignore[union-attr]
        if kind == "=":
            equals = _EQUALS.search(text, pos)
            value_end = equals.start() if equals else len(text)
            value, pos = text[pos:value_end], equals.end() if equals else len(text)
            until = closing.search(text, pos)
            pos = until.start() if until else len(text)
        elif kind == "{":
            until = closing_curly.search(text, pos)
            value_end = until.start() if until else len(text)
            value = text[pos:value_end]
            pos = value_end
            curly = _CURLY.match(text, pos)
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
        tokens.append(tag)
        if kind in ("#", "^"):
            sections.append(tag)
        elif kind == "/":
            if not sections:
                raise TemplateError(f'Unopened section "{value}" at {start}', start, pos, start)
            opened = sections.pop()
            if opened.expr != value:
                raise TemplateError(f'Unclosed section "{opened.expr}" at {start}', opened.start, opened.end, start)
        elif kind in (NAME, "&"):
            non_space = True
        elif kind == "=":
            opening, closing, closing_curly = _compile(_SPACES.split(value, 2)[:2] if value else [], pos, start)
    if sections:
        opened = sections[-1]
        raise TemplateError(f'Unclosed section "{opened.expr}" at {len(text)}', opened.start, opened.end, len(text))
    written: list[str | Template] = []
    depth = 0  # inside a section: dropped with it
    for token in tokens:
        if isinstance(token, Template):
            depth += 1 if token.kind in ("#", "^") else -1 if token.kind == "/" else 0
            if depth == 0 and token.kind == NAME:
                written.append(token)
        elif token is not None and depth == 0:
            written.append(token)
    return tuple(found), tuple(written)


def _property(value: Any, name: str) -> Any:
    """`value[name]` as JavaScript reads it from js-yaml's values (None: undefined or null)."""
    if isinstance(value, dict):
        if name in value:
            return value[name]
        return next((v for k, v in value.items() if not isinstance(k, str) and js_string(k) == name), None)
    if isinstance(value, (list, str)):
        if name == "length":
            return len(value)
        if name.isascii() and name.isdigit() and str(int(name)) == name and int(name) < len(value):
            return value[int(name)]
    return None


def lookup(context: dict[str, Any], expr: str) -> Any:
    """What a name finds in the context, as mustache's `Context.lookup` (None when nothing or null):
    dotted names walk mappings, list indices, and a list's or string's `length`."""
    if expr.find(".") > 0:
        value: Any = context
        for part in expr.split("."):
            if value is None:
                break
            value = _property(value, part)
        return value
    return _property(context, expr)


def js_trim(text: str) -> str:
    """String.prototype.trim: JavaScript's white space, not Python's."""
    return text.strip(_JS_SPACE_CHARS)


def fill(text: str, context: dict[str, Any]) -> str:
    """`text` with its name tags filled in from `context` (names such as "$parameters" at its top)
    and its other tags dropped, trimmed: the server's `render`. Raises `TemplateError`."""
    budget = _budget.get() or _Budget()
    if OPEN not in text:
        _spend(budget, len(text), 0)
        return js_trim(text)
    out = []
    size = tags = 0
    for token in _parse(text)[1]:
        if isinstance(token, Template):
            value = lookup(context, token.expr)
            piece = f"{OPEN} {token.expr} {CLOSE}" if value is None else js_string(value)
            size, tags = size + len(piece), tags + 1
            if size > budget.chars or tags > budget.tags:
                _spend(budget, size, tags)
            out.append(piece)
        else:
            size += 1  # one character
            out.append(token)
    _spend(budget, size, tags)
    return js_trim("".join(out))


def _spend(budget: _Budget, chars: int, tags: int) -> None:
    budget.chars -= chars
    budget.tags -= tags
    if budget.chars < 0:
        raise RenderTooLarge(message("v2.render-too-large", limit=f"{MAX_RENDERED // (1024 * 1024)} MB"))
    if budget.tags < 0:
        raise RenderTooLarge(message("v2.render-too-many-tags", limit=f"{MAX_FILLED_TAGS:,}"))


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
    return "\n".join(js_trim(line) for line in commands)
