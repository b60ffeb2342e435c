"""PaddlePaddle Cloud job files (`*.paddle.json`) as a job-file format (`FORMAT`): their schema,
checks, completion and hover, and the facts of the platform both sides share (the name rule,
Kubernetes quantities, the trainer's environment). Pure: the client checks files with it, the local
cluster runs jobs by it.

Sources: paddlecloud-scm.md §A.5.2 (the submit body), §A.17 (names), §A.18 (environment).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

from . import messages as msg
from .envvars import assigned_in
from .job_format import JobFormat
from .jsonc import Document, Node, find, node_at, string_offset
from .messages import pick
from .model import Diagnostic, Edit, Fix, Settings
from .schema import load_schema
from .schema_completion import Completion, _word_start
from .schema_hover import Hover, variable_markdown
from .validate import _reduce, opening_diagnostics, schema_diagnostics

SCHEMA_FILE = "paddle-job.schema.json"
DIALECT = "paddle"  # the `Settings.dialect` of a *.paddle.json file, whatever the workspace's cluster kind
REGISTRY_PREFIX = "pcloud-registry-"
NAME_RULE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
NAME_MAX = 52
_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m|e[0-9]+|E[0-9]+)?$")
_UNITS = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
          "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def quantity_bytes(text: str) -> float | None:
    """A Kubernetes quantity (`1Gi`, `512Mi`, `2G`, `1e9`) in bytes; None when it is not one."""
    match = _QUANTITY.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        return None
    number, suffix = float(match.group(1)), match.group(2) or ""
    if suffix[:1] in ("e", "E") and suffix[1:].isdigit():
        return number * 10 ** int(suffix[1:])
    return number * _UNITS[suffix]


def memory_mb(text: str, default: str = "1Gi") -> int:
    """A memory quantity in whole MiB (at least 1), as the local cluster accounts memory."""
    size = quantity_bytes(text) or quantity_bytes(default) or 2**30
    return max(1, -(-int(size) // 2**20))


def name_problem(name: str) -> msg.Message | None:
    """Why a job name breaks §A.17 (None when it is fine)."""
    if not name:
        return msg.message("paddle.name-empty")
    if "_" in name or "." in name:
        return msg.message("paddle.name-separators")
    if len(name) > NAME_MAX:
        return msg.message("paddle.name-too-long", length=len(name), limit=NAME_MAX)
    if not NAME_RULE.match(name):
        return msg.message("paddle.name-not-dns")
    return None


def registry_name(name: str) -> str:
    """The secret name the cluster knows a registry by (§A.11: the client adds the prefix)."""
    return name if not name or name.startswith(REGISTRY_PREFIX) else REGISTRY_PREFIX + name


# -- the trainer's environment (§A.18) ---------------------------------------------------
VARIABLES: dict[str, tuple[str, str, str]] = {
    # name: (English, 简体中文, example)
    "PADDLE_JOB_NAME": ("The job's name.", "作业名。", "fit-a-line"),
    "TRAINERS": ("Number of trainers (`parallelism`).", "trainer 数量（`parallelism`）。", "2"),
    "PSERVERS": ("Number of parameter servers (`pservers`).", "参数服务器数量（`pservers`）。", "1"),
    "TOPOLOGY": ("The submitted `topology`.", "提交的 `topology`。", ""),
    "ENTRY": ("The submitted `entry`.", "提交的 `entry`。", "python train.py"),
    "TRAINER_PACKAGE": ("The job package, `/pfs/<dc>/home/<user>/jobs/<name>`: the trainer runs there and it is on "
                        "`PYTHONPATH`.", "作业包目录 `/pfs/<dc>/home/<user>/jobs/<name>`：trainer 在此运行，且它在 `PYTHONPATH` 中。",
                        "/pfs/dc1/home/alice/jobs/fit-a-line"),
    "PADDLE_INIT_PORT": ("First port of the parameter servers.", "参数服务器的起始端口。", "7164"),
    "PADDLE_INIT_TRAINER_COUNT": ("Threads or devices per trainer: `gpu` when it is above 0, else `cpu`.",
                                  "每个 trainer 的线程或设备数：`gpu` 大于 0 时为 `gpu`，否则为 `cpu`。", "1"),
    "PADDLE_INIT_PORTS_NUM": ("Dense ports per parameter server.", "每个参数服务器的稠密参数端口数。", "1"),
    "PADDLE_INIT_PORTS_NUM_FOR_SPARSE": ("Sparse ports per parameter server.", "每个参数服务器的稀疏参数端口数。", "1"),
    "PADDLE_INIT_NUM_GRADIENT_SERVERS": ("Number of trainers (`parallelism`): split the data by it.",
                                         "trainer 数量（`parallelism`）：按它切分数据。", "2"),
    "PADDLE_INIT_NUM_PASSES": ("`passes`.", "`passes`。", "1"),
    "PADDLE_INIT_USE_GPU": ("1 when the trainer has GPUs, else 0.", "trainer 有 GPU 时为 1，否则为 0。", "0"),
    "PADDLE_INIT_PSERVERS": ("The parameter servers' addresses, comma-separated.", "参数服务器地址，以逗号分隔。",
                             "172.17.29.47,172.17.37.46"),
    "PADDLE_INIT_TRAINER_ID": ("This trainer's index (0-based) among the running trainers sorted by address; also in "
                               "the file `trainer_id`.", "本 trainer 在按地址排序的运行中 trainer 里的序号（从 0 开始）；也写在文件 `trainer_id` 中。", "0"),
    "PADDLE_CLOUD_CURRENT_DATACENTER": ("The datacenter the job runs in: public data is under `/pfs/<dc>/public/` (read-only).",
                                        "作业所在的数据中心：公共数据在 `/pfs/<dc>/public/`（只读）。", "dc1"),
    "PADDLE_CLOUD_USERNAME": ("The user who submitted the job.", "提交作业的用户。", "alice@example.com"),
    "NAMESPACE": ("The user's Kubernetes namespace.", "用户的 Kubernetes 命名空间。", "alice-example-com"),
    "LD_LIBRARY_PATH": ("`/usr/local/nvidia/lib64` in GPU jobs.", "GPU 作业中为 `/usr/local/nvidia/lib64`。", "/usr/local/nvidia/lib64"),
    "PYTHONPATH": ("Starts with `$TRAINER_PACKAGE`.", "以 `$TRAINER_PACKAGE` 开头。", "/pfs/dc1/home/alice/jobs/fit-a-line"),
}
_VARIABLE = re.compile(r"\$(\{)?([A-Za-z_][A-Za-z0-9_]*)(?(1)\})")


def find_variables(text: str) -> list[tuple[str, int, int]]:
    """(`name`, start, end) of each `$NAME` / `${NAME}` in a string value."""
    return [(m.group(2), m.start(), m.end()) for m in _VARIABLE.finditer(text)]


# -- schema --------------------------------------------------------------------------------
def schema() -> dict:
    return load_schema(SCHEMA_FILE)


@cache
def defaults() -> dict[str, Any]:
    """The server's defaults for the fields of the submit body (§A.5.2), from the schema."""
    return {key: sub["default"] for key, sub in schema()["properties"].items() if "default" in sub}


@lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema())


# -- diagnostics (their texts: core/messages.py, `paddle.*`) ---------------------------------
def _diag(start: int, end: int, code: str, locale: str | None, fixes: list[Fix] | None = None, **args: Any) -> Diagnostic:
    return Diagnostic(start, end, code, msg.severity(code), msg.render(code, locale, **args), fixes or [])


def diagnose(doc: Document, settings: Settings) -> list[Diagnostic]:
    """Syntax, the schema, and the rules the schema cannot say (§A.5.3, §A.11, §A.17)."""
    locale = settings.locale
    out, whole = opening_diagnostics(doc, locale, "job")
    if not whole:
        return out
    config = doc.root.value
    for err in _reduce(_validator().iter_errors(config)):
        if err.kind in ("pattern", "maxLength") and err.path == ("name",):
            continue  # explained below, with the rule
        out.extend(schema_diagnostics(doc, err, settings, schema()))
    out.extend(_rules(doc, config, locale))
    out.sort(key=lambda d: (d.start, d.end))
    return out


def _value_node(doc: Document, key: str) -> Node | None:
    return find(doc.root, [key])


def _rules(doc: Document, config: dict, locale: str | None) -> list[Diagnostic]:
    out = []
    name = _value_node(doc, "name")
    if name is not None and isinstance(name.value, str) and (why := name_problem(name.value)) is not None:
        fixed = re.sub(r"[^a-z0-9-]+", "-", name.value.lower()).strip("-")[:NAME_MAX].strip("-")
        fixes = [Fix(msg.render("fix.rename", locale, name=fixed), (Edit(name.start, name.end, doc.literal(fixed)),))] \
            if fixed and fixed != name.value else []
        out.append(_diag(name.start, name.end, "paddle.name", locale, fixes, value=name.value,
                         why=why))
    for field in ("memory", "psmemory"):
        node = _value_node(doc, field)
        if node is None or not isinstance(node.value, str):
            continue
        size = quantity_bytes(node.value)
        if size is None:
            out.append(_diag(node.start, node.end, "paddle.quantity", locale, value=node.value))
        elif size < 2**20 and re.fullmatch(r"\d+", node.value.strip()):
            suggestion = f"{node.value.strip()}Mi" if int(node.value) >= 64 else f"{node.value.strip()}Gi"
            out.append(_diag(node.start, node.end, "paddle.tiny-memory", locale,
                             [Fix(msg.render("fix.write", locale, value=f'"{suggestion}"'), (Edit(node.start, node.end, doc.literal(suggestion)),))],
                             field=field, value=node.value, size=int(size), suggestion=suggestion))
    entry, topology = config.get("entry"), config.get("topology")
    if not (isinstance(entry, str) and entry.strip()) and not (isinstance(topology, str) and topology.strip()):
        where = _value_node(doc, "entry") or _value_node(doc, "topology")
        start, end = (where.start, where.end) if where is not None else (doc.root.start, doc.root.start + 1)
        fixes = [] if where is not None else [Fix(msg.render("fix.add", locale, name="entry"), (doc.insert_member(doc.root, "entry", "python train.py"),))]
        out.append(_diag(start, end, "paddle.no-entry", locale, fixes))
    registry = _value_node(doc, "registry")
    if registry is not None and isinstance(registry.value, str) and registry.value and not registry.value.startswith(REGISTRY_PREFIX):
        full = registry_name(registry.value)
        out.append(_diag(registry.start, registry.end, "paddle.registry-prefix", locale,
                         [Fix(msg.render("fix.write", locale, value=f'"{full}"'), (Edit(registry.start, registry.end, doc.literal(full)),))],
                         full=full, value=registry.value))
    if entry is not None and (node := _value_node(doc, "entry")) is not None and isinstance(node.value, str):
        assigned = assigned_in(node.value, r"[A-Za-z_][A-Za-z0-9_]*")
        for var, a, b in find_variables(node.value):
            if var.startswith(("PADDLE_", "PSERVERS", "TRAINER")) and var not in VARIABLES and var not in assigned:
                start, end = string_offset(node, doc.text, a), string_offset(node, doc.text, b)
                out.append(_diag(start, end, "paddle.unknown-variable", locale, name=var))
    return out


# -- completion and hover (the rest comes from the schema, as for *.pai.json) ----------------
def _command_string(doc: Document, node: Node | None, offset: int) -> Node | None:
    """The `entry` / `topology` string the offset is inside of, if any."""
    if node is None or node.type != "string" or node.parent is None or node.parent.type != "property":
        return None
    prop = node.parent
    if prop.value_node is not node or prop.parent is not doc.root or prop.key is None or prop.key.value not in ("entry", "topology"):
        return None
    return node if node.start < offset and (offset < node.end or not doc.text[node.start:node.end].endswith('"')
                                            or node.end - node.start < 2) else None


def complete_variables(doc: Document, offset: int, settings: Settings) -> list | None:
    """Inside `entry` / `topology`: the trainer's variables (§A.18) after `$` or `${`; None elsewhere."""
    node = _command_string(doc, node_at(doc.root, offset), offset)
    if node is None:
        return None
    text = doc.text
    start = _word_start(text, offset)
    while start < offset and text[start] == "$":
        start += 1
    brace = start >= 2 and text[start - 2 : start] == "${"
    if not (start > 0 and text[start - 1] == "$") and not brace:
        return []
    typed = text[start:offset]
    locale = settings.locale
    return [Completion(name, "variable", name + ("}" if brace else ""), start, offset, pick(locale, en, zh), example)
            for name, (en, zh, example) in VARIABLES.items() if name.startswith(typed)]


def hover_variable(doc: Document, node: Node, offset: int, settings: Settings) -> Any:
    """The documentation of the trainer's variable under the cursor in `entry` / `topology`."""
    if _command_string(doc, node, offset) is None:
        return None
    for var, a, b in find_variables(node.value):
        start, end = string_offset(node, doc.text, a), string_offset(node, doc.text, b)
        if start <= offset < end:
            return Hover(variable_doc(var, settings.locale), start, end)
    return None


def variable_doc(name: str, locale: str | None) -> str:
    if name not in VARIABLES:
        return variable_markdown(name, msg.render("paddle.variable-not-set", locale), "", locale)
    en, zh, example = VARIABLES[name]
    return variable_markdown(name, pick(locale, en, zh), example, locale)


class Paddle(JobFormat):
    name = "paddle"
    title = ("PaddlePaddle Cloud job file", "PaddlePaddle Cloud 作业文件")
    patterns = ("*.paddle.json",)
    dialects = (DIALECT,)
    name_key = "name"

    def schema(self, dialect: str) -> dict:
        return schema()

    def diagnose(self, doc: Document, settings: Settings) -> list[Diagnostic]:
        return diagnose(doc, self.checked(settings))

    def complete(self, doc: Document, offset: int, settings: Settings) -> list:
        found = complete_variables(doc, offset, settings)
        return found if found is not None else super().complete(doc, offset, settings)

    def hover(self, doc: Document, offset: int, settings: Settings) -> Hover | None:
        node = node_at(doc.root, offset, include_end=False)
        found = hover_variable(doc, node, offset, settings) if node is not None else None
        return found or super().hover(doc, offset, settings)


FORMAT = Paddle()
