"""Document structure: symbols (job → task roles → ports), folding ranges, formatting."""

from __future__ import annotations

from dataclasses import dataclass, field

from .jsonc import Document, Node, tokens


@dataclass(slots=True)
class Symbol:
    name: str
    kind: str  # "job" | "role" | "port"
    start: int
    end: int
    select_start: int
    select_end: int
    detail: str = ""
    children: list[Symbol] = field(default_factory=list)


def symbols(doc: Document) -> list[Symbol]:
    root = doc.root
    if root is None or root.type != "object":
        return []
    job_name = root.get("jobName")
    name = job_name.value if job_name is not None and isinstance(job_name.value, str) and job_name.value else "job"
    sel = job_name or root
    job = Symbol(name, "job", root.start, root.end, sel.start, sel.end, str(root.get("image").value if root.get("image") else ""))
    roles = root.get("taskRoles")
    for role in roles.children if roles is not None and roles.type == "array" else []:
        if role.type != "object":
            continue
        if role.strict:  # read from its text: no node built for its members
            job.children.append(_strict_role(doc, role.start, role.end, role.value))
            continue
        role_name = role.get("name")
        label = role_name.value if role_name is not None and isinstance(role_name.value, str) else "?"
        tasks = role.get("taskNumber")
        rsel = role_name or role
        symbol = Symbol(label, "role", role.start, role.end, rsel.start, rsel.end, f"× {tasks.value}" if tasks is not None else "")
        ports = role.get("portList")
        for port in ports.children if ports is not None and ports.type == "array" else []:
            port_label = port.get("label") if port.type == "object" else None
            if port_label is not None:
                symbol.children.append(Symbol(str(port_label.value), "port", port.start, port.end, port_label.start, port_label.end))
        job.children.append(symbol)
    return [job]


def _strict_role(doc: Document, start: int, end: int, role: dict) -> Symbol:
    """A role's symbol from a strict-JSON role's text: the same as from its nodes."""
    name = ports = None
    wanted = sum(1 for key in ("name", "portList") if key in role)
    for key, begin, finish, value in doc.strict_members(start, role) if wanted else ():
        if key == "name":
            name = (begin, finish)
        elif key == "portList":
            ports = (begin, value)
        else:
            continue
        wanted -= 1
        if not wanted:
            break
    label = role["name"] if name is not None and isinstance(role["name"], str) else "?"
    select = name or (start, end)
    symbol = Symbol(label, "role", start, end, select[0], select[1], f"× {role['taskNumber']}" if "taskNumber" in role else "")
    if ports is not None and isinstance(ports[1], list):
        for _, port_start, port_end, port in doc.strict_members(*ports):
            if not isinstance(port, dict) or "label" not in port:
                continue
            for key, begin, finish, value in doc.strict_members(port_start, port):
                if key == "label":
                    symbol.children.append(Symbol(str(value), "port", port_start, port_end, begin, finish))
                    break
    return symbol


def folding_ranges(doc: Document) -> list[tuple[int, int, str]]:
    """(start offset, end offset, kind) of each multi-line object, array or block comment."""
    text = doc.text
    out: list[tuple[int, int, str]] = []

    def walk(node: Node) -> None:
        if node.type in ("object", "array"):
            if "\n" in text[node.start : node.end]:
                out.append((node.start, node.end, "region"))
            for child in node.children:
                walk(child)
        elif node.type == "property" and node.value_node is not None:
            walk(node.value_node)

    if doc.root is not None:
        walk(doc.root)
    for start, end in doc.comments:
        if "\n" in text[start:end]:
            out.append((start, end, "comment"))
    return out


def format_text(doc: Document, indent: str = "  ") -> str | None:
    """The document pretty-printed with comments and single blank lines kept; trailing commas
    dropped (the server refuses them). None when the text has syntax errors: formatting must
    never lose or move what the user typed in a way they cannot see."""
    if any(e.code not in ("syntax.comment", "syntax.trailing-comma") for e in doc.errors):
        return None
    tokens = _tokens(doc.text)
    out: list[str] = []
    depth = 0
    pending = False  # a line break is due before the next token
    prev = ""
    for i, (tok, newlines) in enumerate(tokens):
        comment = tok.startswith("/")
        if tok in ("}", "]"):
            depth -= 1
            pending = prev not in ("{", "[")
        if comment and newlines == 0 and out:
            out.append(("" if out[-1].endswith(" ") else " ") + tok)
            pending = pending or tok.startswith("//")
            prev = tok
            continue
        if pending or (comment and out):
            while out and out[-1] == " ":
                out.pop()
            out.append("\n\n" if newlines > 1 else "\n")
            out.append(indent * depth)
            pending = False
        elif prev.startswith("/*") and tok not in (",", ":"):
            out.append(" ")
        out.append(tok)
        nxt = tokens[i + 1][0] if i + 1 < len(tokens) else ""
        if tok in ("{", "["):
            depth += 1
            pending = nxt not in ("}", "]")
        elif tok == ",":
            pending = True
        elif tok == ":":
            out.append(" ")
        elif comment:
            pending = True
        prev = tok
    return "".join(out) + "\n"


def _tokens(text: str) -> list[tuple[str, int]]:
    """(token, newlines before it), trailing commas removed."""
    raw: list[tuple[str, int]] = []
    pos = 0
    for tok, start, end in tokens(text):
        raw.append((tok, text.count("\n", pos, start)))
        pos = end
    out = []
    for i, (tok, newlines) in enumerate(raw):
        if tok == ",":
            following = next((t for t, _ in raw[i + 1 :] if not t.startswith("/")), "")
            if following in ("}", "]", ""):
                continue
        out.append((tok, newlines))
    return out
