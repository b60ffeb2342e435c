"""Which fields the Neovim client reads from what the server sends, found in its Lua source: the
callback of a command (a call whose first argument names a command and which passes a
`function(result)`), a notification handler (`client.on("pai/jobLog", function(p)`), and from
there what those values flow into — `result.a.b`, `for _, x in ipairs(result.list)`, `pairs`,
`local x = result.a`, and a local function of the same file called with the value. Each read is
checked against the protocol's JSON Schema (tests/test_protocol_schema.py). A light reader of Lua,
not a parser: it knows comments, strings and blocks, which is all the client's idioms need."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOKEN = re.compile(r"""
    (?P<comment>--\[(?P<eq>=*)\[.*?\](?P=eq)\]|--[^\n]*)
  | (?P<long>\[(?P<eq2>=*)\[.*?\](?P=eq2)\])
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>\d[\w.]*)
  | (?P<op>\.\.\.|\.\.|==|~=|<=|>=|::|[^\s\w])
""", re.S | re.X)
OPENERS, CLOSERS = {"function", "if", "do", "repeat"}, {"end", "until"}
COMMON = {"ok", "message", "kind"}  # every command's answer (a failure's too, for `on_error`)


@dataclass
class Tok:
    kind: str  # name | string | number | op
    text: str
    line: int


def tokens(source: str) -> list[Tok]:
    out, line, at = [], 1, 0
    for m in TOKEN.finditer(source):
        line += source.count("\n", at, m.start())
        at = m.end()
        kind = m.lastgroup if m.lastgroup in ("name", "number", "op") else "string" if m.group("string") or m.group("long") else None
        if kind == "string":
            raw = m.group("string")
            text = raw[1:-1] if raw else ""
        else:
            text = m.group(0)
        if kind is not None:
            out.append(Tok(kind, text, line))
        line += m.group(0).count("\n")
    return out


def block_end(toks: list[Tok], start: int) -> int:
    """The index of the `end` closing the block opened at `start`."""
    depth = 0
    for i in range(start, len(toks)):
        t = toks[i]
        if t.kind == "name" and t.text in OPENERS:
            depth += 1
        elif t.kind == "name" and t.text in CLOSERS:
            depth -= 1
            if depth == 0:
                return i
    return len(toks)


def close_paren(toks: list[Tok], start: int) -> int:
    depth = 0
    for i in range(start, len(toks)):
        if toks[i].text in "({[" and toks[i].kind == "op":
            depth += 1
        elif toks[i].text in ")}]" and toks[i].kind == "op":
            depth -= 1
            if depth == 0:
                return i
    return len(toks)


class Schema:
    def __init__(self, doc: dict):
        self.doc = doc

    def resolve(self, s: Any) -> dict:
        while isinstance(s, dict) and "$ref" in s:
            s = self.doc["$defs"][s["$ref"].rsplit("/", 1)[1]]
        if isinstance(s, dict) and "anyOf" in s:  # `X | null`: the object
            objects = [self.resolve(o) for o in s["anyOf"] if self.resolve(o).get("type") != "null"]
            return objects[0] if len(objects) == 1 else {}
        return s if isinstance(s, dict) else {}

    def field(self, s: dict, name: str) -> tuple[bool, dict]:
        """(whether `s` has the field, its schema); objects without listed properties have any."""
        s = self.resolve(s)
        if "properties" not in s:
            return True, self.resolve(s.get("additionalProperties", {}))
        if name in s["properties"]:
            return True, self.resolve(s["properties"][name])
        return name in s.get("extra", ()), {}

    def item(self, s: dict, pairs: bool) -> dict:
        s = self.resolve(s)
        return self.resolve(s.get("additionalProperties" if pairs else "items", {}))


@dataclass
class Read:
    file: str
    line: int
    what: str  # "pai.jobs.list: result.jobs[].nmae"


class Reader:
    def __init__(self, schema: dict):
        self.schema = Schema(schema)
        self.roots: dict[str, dict] = {}
        for name, c in schema["commands"].items():
            result = dict(self.schema.resolve(c["result"]))
            result["extra"] = COMMON
            self.roots[name] = result
        for name, ref in schema["notifications"].items():
            self.roots[name] = self.schema.resolve(ref)
        self.arguments = {name: self.schema.resolve(c["argument"]) for name, c in schema["commands"].items()}

    def check(self, path: Path) -> Iterator[Read]:
        toks = tokens(path.read_text(encoding="utf-8"))
        functions = self._local_functions(toks)
        # `local command = local_run and "pai.runLocally" or "pai.submitJob"`: a name standing for a command
        named = {toks[k + 1].text: next(x.text for x in toks[k + 3:] if x.line == toks[k].line and x.text in self.roots)
                 for k in range(len(toks) - 3) if toks[k].text == "local" and toks[k + 2].text == "="
                 and any(x.line == toks[k].line and x.kind == "string" and x.text in self.roots for x in toks[k + 3:k + 12])}
        for i, t in enumerate(toks):
            if t.kind == "name" and t.text in named and i > 0 and toks[i - 1].text == "(":
                t = Tok("string", named[t.text], t.line)
            if t.kind != "string" or t.text not in self.roots or i == 0 or toks[i - 1].text != "(":
                continue
            end = close_paren(toks, i - 1)
            yield from self._arguments(path, toks, i, end)
            for j in range(i, end):
                if toks[j].text == "function" and toks[j + 1].text == "(" and toks[j + 2].kind == "name":
                    body = block_end(toks, j)
                    yield from self._walk(path, toks, j, body, {toks[j + 2].text: (self.roots[t.text], t.text)}, functions, set())
                    break
            if toks[i - 2].text == "execute_sync" and i >= 5 and toks[i - 4].text == "=" and toks[i - 5].kind == "name":
                yield from self._walk(path, toks, end, self._scope_end(toks, end),
                                      {toks[i - 5].text: (self.roots[t.text], t.text)}, functions, set())

    def _arguments(self, path: Path, toks: list[Tok], i: int, end: int) -> Iterator[Read]:
        """`client.execute("cmd", { { key = … } }`: each key is one the command's argument has."""
        command = toks[i].text if toks[i].kind == "string" else ""
        if command not in self.arguments or toks[i + 1].text != "," or toks[i + 2].text != "{" or toks[i + 3].text != "{":
            return
        start, stop = i + 3, close_paren(toks, i + 3)
        depth = 0
        for k in range(start, stop):
            t = toks[k]
            depth += t.text in "({[" and t.kind == "op"
            depth -= t.text in ")}]" and t.kind == "op"
            key = None
            if depth == 1 and t.kind == "name" and toks[k + 1].text == "=" and toks[k - 1].text in ("{", ","):
                key = t.text
            elif depth == 2 and t.kind == "string" and toks[k - 1].text == "[" and toks[k + 2].text == "=" and toks[k - 2].text in ("{", ","):
                key = t.text
            if key is not None and key not in self.arguments[command].get("properties", {}):
                yield Read(path.name, t.line, f"{command}: argument key {key}")

    def _scope_end(self, toks: list[Tok], start: int) -> int:
        depth = 0
        for k in range(start, len(toks)):
            if toks[k].kind == "name" and toks[k].text in OPENERS:
                depth += 1
            elif toks[k].kind == "name" and toks[k].text in CLOSERS:
                depth -= 1
                if depth < 0:
                    return k
        return len(toks)

    @staticmethod
    def _local_functions(toks: list[Tok]) -> dict[str, tuple[list[str], int, int]]:
        out = {}
        for k in range(len(toks) - 3):
            if toks[k].text == "local" and toks[k + 1].text == "function" and toks[k + 2].kind == "name":
                params, m = [], k + 4
                while toks[m].text != ")":
                    if toks[m].kind == "name":
                        params.append(toks[m].text)
                    m += 1
                out[toks[k + 2].text] = (params, k + 1, block_end(toks, k + 1))
        return out

    def _chain(self, toks: list[Tok], k: int, schema: dict, label: str, path: Path) -> tuple[int, dict | None, list[Read], str]:
        """Follow `.a.b` / `["a"]` from token k (the name): (index after it, its schema, bad reads, its label)."""
        bad, current, m = [], schema, k + 1
        while m + 1 < len(toks):
            if toks[m].text == "." and toks[m + 1].kind == "name" and (m + 2 >= len(toks) or toks[m + 2].text != "("):
                name, step = toks[m + 1].text, 2
            elif toks[m].text == "[" and toks[m + 1].kind == "string" and toks[m + 2].text == "]":
                name, step = toks[m + 1].text, 3
            else:
                break
            has, inner = self.schema.field(current, name)
            label += "." + name
            if not has and toks[m + step].text != "=":  # `x.a = …` sets a field of the client's own
                bad.append(Read(path.name, toks[m].line, label))
                return m + step, None, bad, label
            current, m = inner, m + step
        return m, current, bad, label

    def _walk(self, path: Path, toks: list[Tok], start: int, end: int, bound: dict[str, tuple[dict, str]],
              functions: dict[str, tuple[list[str], int, int]], seen: set) -> Iterator[Read]:
        bound = dict(bound)
        k = start
        while k < end:
            t = toks[k]
            if t.kind == "name" and t.text in bound and toks[k - 1].text not in (".", ":"):
                schema, label = bound[t.text]
                after, found, bad, label = self._chain(toks, k, schema, label, path)
                yield from bad
                if toks[k - 1].text == "(" and toks[k - 2].text in ("ipairs", "pairs") and found is not None:
                    # for _, x in ipairs(value.list) do
                    names = [toks[m].text for m in range(k - 8, k - 3) if toks[m].kind == "name" and toks[m - 1].text in ("for", ",")]
                    if names:
                        bound[names[-1]] = (self.schema.item(found, toks[k - 2].text == "pairs"),
                                            label + ("[]" if toks[k - 2].text == "ipairs" else "{}"))
                elif toks[k - 1].text == "=" and toks[k - 3].text == "local" and found is not None and after > k + 1:
                    bound[toks[k - 2].text] = (found, label)
                elif toks[k - 1].text in ("(", ",") and toks[after].text in (")", ",") and found is not None:
                    yield from self._call(path, toks, k, (found, label), functions, seen)
                k = after
                continue
            k += 1

    def _call(self, path: Path, toks: list[Tok], k: int, value: tuple[dict, str],
              functions: dict[str, tuple[list[str], int, int]], seen: set) -> Iterator[Read]:
        """A bound value passed to a local function of the file: its reads there."""
        depth, m, position = 0, k - 1, 0
        while m > 0:
            if toks[m].text in ")}]" and toks[m].kind == "op":
                depth += 1
            elif toks[m].text in "({[" and toks[m].kind == "op":
                if depth == 0:
                    break
                depth -= 1
            elif toks[m].text == "," and depth == 0:
                position += 1
            m -= 1
        name = toks[m - 1].text if toks[m].text == "(" and toks[m - 2].text not in (".", ":") else None
        if name in functions and (name, position, value[1]) not in seen:
            params, start, end = functions[name]
            if position < len(params):
                seen.add((name, position, value[1]))
                yield from self._walk(path, toks, start, end, {params[position]: value}, functions, seen)
