"""Why a task failed, from its facts: what the platform says (exit code, exit spec, a stop, an OOM
kill), what a signal says, the Python traceback that ended it, and the log lines the rules know.

The order is the order of certainty: a stop or a platform failure needs no log; a signal ends the
program whatever it printed before; a traceback says what the program itself hit (and the lines
near it say whether that was a consequence, e.g. of the GPU's memory); then the log's last lines by
rule; then the exit code alone. Nothing ends in silence: the last meaningful lines and the exit code
in words are always there.
"""

from __future__ import annotations

import dataclasses
import re
import string
from collections.abc import Mapping, Sequence

from . import catalogue as cat
from . import specs
from .logtext import Log, meaningful, shown
from .result import Evidence, Explanation, PythonException, Text, Traceback
from .rules import RULES, Details, Hit, Rule, check_text, hits, scan
from .task_facts import COMPLETION_STOP_CODES, USER_STOP_CODES, CodeLayout, JobFacts, TaskFacts
from .tracebacks import deciding, parse

LAST_LINES = 8
EVIDENCE = 3  # matched lines kept per rule
NEAR_TRACEBACK = 16 * 1024  # a decisive line this close before a traceback explains it
MAX_DIAGNOSTICS = 64 * 1024

# Platform codes that say it all (Kubernetes and YARN eras) and are one of our classes.
PLATFORM_KINDS = {-1200: "host-oom", -1300: "host-oom", 196: "host-oom", -7121: "host-oom", -7122: "host-oom"}
# Codes the runtime gives for a log pattern it matched: our class for them when our rules find no line.
SPEC_KINDS: dict[int, tuple[str, str, Details]] = {
    220: ("command-not-found", "unnamed", {}), 221: ("cuda-oom", "", {}), 226: ("cuda-oom", "", {}),
    222: ("signal", "", {"signal": "SIGSEGV"}), 234: ("signal", "", {"signal": "SIGSEGV"}), 223: ("gpu-ecc", "", {}),
    224: ("gpu-unavailable", "version", {}), 225: ("gpu-unavailable", "version", {}), 232: ("missing-module", "other", {}),
}
DECISIVE_RULES = tuple(r for r in RULES if r.decisive)
# What explains a signal: a decisive cause, a collective that gave up (NCCL's watchdog aborts the
# process), the signal said in words. (SIGKILL leaves out the network: what kills so is the memory limit.)
SIGNAL_RULES = DECISIVE_RULES + tuple(r for r in RULES if r.kind == "distributed") + tuple(r for r in RULES if r.kind == "signal")
KILL_RULES = DECISIVE_RULES + tuple(r for r in RULES if r.kind == "signal")
CONSEQUENCES = ("distributed", "exit-nonzero", "unknown", "user-stop")  # classes that usually follow another task's failure

# Import names whose package on PyPI is called otherwise (pip install <package>).
PACKAGES = {
    "cv2": "opencv-python", "sklearn": "scikit-learn", "PIL": "Pillow", "yaml": "PyYAML", "skimage": "scikit-image",
    "bs4": "beautifulsoup4", "dateutil": "python-dateutil", "Crypto": "pycryptodome", "attr": "attrs", "jwt": "PyJWT",
    "dotenv": "python-dotenv", "serial": "pyserial", "zmq": "pyzmq", "MySQLdb": "mysqlclient", "fitz": "PyMuPDF",
    "docx": "python-docx", "OpenSSL": "pyOpenSSL", "paddle": "paddlepaddle", "google.protobuf": "protobuf",
    "faiss": "faiss-cpu", "Levenshtein": "python-Levenshtein", "magic": "python-magic", "gi": "PyGObject",
}


def explain_task(facts: TaskFacts) -> Explanation:
    """Why the task failed (or was stopped), in both languages, with the evidence."""
    return _Explainer(facts).explain()


def explain_job(job: JobFacts, tasks: Sequence[Explanation] = ()) -> Explanation:
    """Why the job failed: the task that ended it (a cause rather than a consequence, when another
    task has one), and whether every retry was used. `tasks` are its failed tasks' explanations."""
    if job.stopped_by_user or job.exit_code in USER_STOP_CODES or (job.exit_spec is not None and job.exit_spec.type == "USER_STOP"):
        return explain_task(TaskFacts(exit_code=job.exit_code, exit_spec=job.exit_spec, stopped_by_user=True))
    trigger = next((t for t in tasks if (t.role, t.index) == (job.trigger_role, job.trigger_index)), None)
    causes = [t for t in tasks if t.kind not in CONSEQUENCES]
    if trigger is not None and (trigger.kind not in CONSEQUENCES or not causes):
        cause = trigger
    elif causes or tasks:
        cause = (causes or list(tasks))[0]
    else:
        cause = explain_task(TaskFacts(exit_code=job.exit_code, exit_spec=job.exit_spec, diagnostics=job.diagnostics))
    cause = dataclasses.replace(cause, retries=job.retries, retries_allowed=job.retries_allowed)
    if not job.retries_allowed or job.retries < job.retries_allowed:
        return cause
    return dataclasses.replace(
        cause, kind="retries-exhausted", title=cat.title("retries-exhausted", cause=cause.title),
        message=cat.message("retries-exhausted", allowed=job.retries_allowed, cause=Text(cause.message.en + " ", cause.message.zh)),
        cause=cause)


def with_note(explanation: Explanation, key: str, **args: object) -> Explanation:
    """The explanation with one of the catalogue's notes added to its sentence (what the daemon
    learns later: whether a missing path exists on HDFS now, whether a file changed since upload)."""
    note, text = cat.message(key, **args), explanation.message
    return dataclasses.replace(explanation, message=Text(f"{text.en} {note.en}", f"{text.zh}{note.zh}"))


def exit_words(exit_code: int | None, user_code: int | None = None, platform: specs.ExitSpec | None = None,
               era: str | None = None) -> Text | None:
    """How a task ended, in words: the command's code first (with its signal), then the cluster's
    code when it is another one (with its exit-spec phrase)."""
    parts: list[Text] = []
    code = user_code if user_code is not None else command_code(exit_code)
    if code is not None:
        number = specs.signal_of(code)
        if number:
            words = cat.SIGNAL_WORDS.get(specs.signal_name(number), cat.OTHER_SIGNAL)[0]
            parts.append(cat.fill(cat.EXIT_SIGNAL, code=code, signal=specs.signal_name(number), words=Text(*words)))
        else:
            parts.append(cat.fill(cat.EXIT_CODES.get(code, cat.EXIT_CODE), code=code))
    if exit_code is not None and exit_code != code:
        spec = platform if platform is not None and platform.code == exit_code else specs.lookup(exit_code, era)
        parts.append(cat.fill(cat.CLUSTER_CODE, code=exit_code, phrase=spec.phrase if spec else "?"))
    return Text("; ".join(p.en for p in parts), "；".join(p.zh for p in parts)) if parts else None


def command_code(code: int | None) -> int | None:
    """The platform's code when it is the command's own: both eras keep 128+n for a signal (and
    other backends pass 1…127 on); they replace the rest with codes of their own (154, 193…255)."""
    return code if code is not None and 0 <= code < 128 + 65 and code not in (154,) else None


def spec_matching(line: str) -> specs.ExitSpec | None:
    """The first Kubernetes-era spec (in the spec's order, as the runtime tries them) whose runtime
    log pattern matches one short line."""
    line = line[:1000]
    for spec in specs.table("k8s").values():
        for pattern in spec.user_log_patterns:
            try:
                if re.search(pattern, line):
                    return spec
            except re.error:  # Go's RE2 syntax that Python's re does not take
                continue
    return None


# -- one task --------------------------------------------------------------------------------------
class _Explainer:
    def __init__(self, facts: TaskFacts):
        self.facts = facts
        self.log = Log(facts.log, facts.first_line)
        self.diagnostics = Log(facts.diagnostics[-MAX_DIAGNOSTICS:]) if facts.diagnostics else None
        self.platform = facts.exit_spec or specs.lookup(facts.exit_code, facts.era)
        self.user_code = facts.user_exit_code if facts.user_exit_code is not None else command_code(facts.exit_code)
        number = facts.signal or specs.signal_of(self.user_code)
        self.signal = specs.signal_name(number) if number else None

    def explain(self) -> Explanation:
        f, spec = self.facts, self.platform
        if f.stopped_by_user or f.exit_code in USER_STOP_CODES + COMPLETION_STOP_CODES or (spec is not None and spec.type == "USER_STOP"):
            return self._make("user-stop", "completion" if f.exit_code in COMPLETION_STOP_CODES and not f.stopped_by_user else "")
        if spec is not None and self._platform_only(spec):
            kind = PLATFORM_KINDS.get(spec.code, "platform")
            variant = "killed" if kind == "host-oom" else "image" if spec.code == 254 and f.image else ""
            return self._make(kind, variant, hit=self._scan(tuple(r for r in RULES if r.kind == kind)))
        if f.oom_killed:
            return self._make("host-oom", "killed", hit=self._scan(tuple(r for r in RULES if r.kind == "host-oom")))
        tb = parse(self.log, f.layout)
        if self.signal is not None:
            hit = self._scan(KILL_RULES if self.signal == "SIGKILL" else SIGNAL_RULES)
            if hit is not None and hit.rule.kind != "signal":
                return self._from_hit(hit, tb)
            return self._make("signal", "", {"signal": self.signal}, hit=hit, tb=tb)
        if tb is not None:
            return self._traceback(tb)
        hit = self._scan(RULES)
        return self._from_hit(hit) if hit is not None else self._by_code()

    @staticmethod
    def _platform_only(spec: specs.ExitSpec) -> bool:
        """Whether the platform's code tells the story without the log (the platform ended the task)."""
        return spec.specific and (spec.code < 0 or spec.code in (154, 193, 196, 198) or 249 <= spec.code <= 254)

    def _scan(self, rules: tuple[Rule, ...]) -> Hit | None:
        hit = scan(self.log, self.user_code, rules)
        if hit is None and self.diagnostics is not None:
            hit = scan(self.diagnostics, self.user_code, rules)
            if hit is not None:
                hit = dataclasses.replace(hit, details={**hit.details, "_source": "diagnostics"})
        return hit

    def _traceback(self, tb: Traceback) -> Explanation:
        exception = deciding(tb)
        first = exception.message.splitlines()[0] if exception.message else ""
        evidence = [Evidence(exception.log_line, shown(f"{exception.type}: {first}" if first else exception.type))]
        found = check_text(f"{exception.type}: {exception.message}", exit_code=self.user_code)
        launcher = tb.chain[-1]
        if found is None and launcher is not exception:  # what the launcher says of its child: `exitcode: -9`
            found = check_text(f"{launcher.type}: {launcher.message}", exit_code=self.user_code)
        if found is not None and found[0].kind != "signal":
            rule, details = found
            return self._make(rule.kind, rule.variant, details, rule=rule, tb=tb, evidence=evidence, exception=exception)
        # A decisive line near it is the cause it is a consequence of; when a child died of a signal
        # (a launcher's report), a collective that gave up explains that too.
        rules = DECISIVE_RULES if found is None else SIGNAL_RULES
        near = scan(self.log, self.user_code, rules, start=max(0, exception.offset - NEAR_TRACEBACK))
        if near is not None and near.rule.kind != "signal":
            return self._from_hit(near, tb)
        if found is not None:
            rule, details = found
            return self._make(rule.kind, rule.variant, details, rule=rule, tb=tb, evidence=evidence, exception=exception)
        return self._make("python-exception", "", tb=tb, evidence=evidence, exception=exception)

    def _from_hit(self, hit: Hit, tb: Traceback | None = None) -> Explanation:
        return self._make(hit.rule.kind, hit.rule.variant, hit=hit, tb=tb)

    def _by_code(self) -> Explanation:
        code, spec = self.user_code, self.platform
        if spec is not None and spec.code in SPEC_KINDS:
            kind, variant, details = SPEC_KINDS[spec.code]
            return self._make(kind, variant, details)
        if code == 127:
            return self._make("command-not-found", "unnamed")
        if code == 126:
            return self._make("permission-denied", "exec")
        if spec is not None and spec.specific and spec.type in ("PLATFORM_FAILURE", "RESOURCE_ALLOCATION_TIMEOUT"):
            return self._make("platform")
        if code not in (None, 0) or self.facts.exit_code not in (None, 0):
            return self._make("exit-nonzero")
        return self._make("unknown")

    # -- the explanation itself ---------------------------------------------------------------
    def _make(self, kind: str, variant: str = "", details: Details | None = None, *, hit: Hit | None = None,
              rule: Rule | None = None, tb: Traceback | None = None, evidence: list[Evidence] | None = None,
              exception: PythonException | None = None) -> Explanation:
        f = self.facts
        rule = rule or (hit.rule if hit else None)
        details = {**(details or {}), **(hit.details if hit else {})}
        if kind == "signal" and details.get("signal") == "SIGKILL":  # what kills with SIGKILL is nearly always the memory limit
            kind, variant = "host-oom", "likely"
        found = list(evidence or [])
        if hit is not None:
            found += self._evidence(hit)
        elif rule is not None:
            found += [e for h in hits(self.log, rule, EVIDENCE) for e in self._evidence(h)]
        by_line = {(e.source, e.line): e for e in reversed(found)}  # the first one given for a line wins
        ordered = sorted(by_line.values(), key=lambda e: (e.source != "log", e.line))
        phrase = (specs.table("k8s").get(rule.spec) if rule is not None and rule.spec is not None else None) or self._phrase(exception)
        words = _Words(self, kind, variant, details, tb, exception)
        return Explanation(
            kind=kind, title=words.title(), message=words.message(), exit_code=f.exit_code, user_exit_code=self.user_code,
            exit_words=exit_words(f.exit_code, self.user_code, self.platform, f.era),
            phrase=phrase.phrase if phrase else None, spec_code=phrase.code if phrase else None,
            evidence=tuple(ordered[-2 * EVIDENCE:]), last_lines=self._last_lines(), traceback=tb,
            signal=details.get("signal") or (self.signal if kind in ("signal", "host-oom") else None),
            package=words.package, module=details.get("module"), path=details.get("path"), hdfs=bool(details.get("hdfs")),
            command=words.command, image=f.image, role=f.role, index=f.index)

    def _phrase(self, exception: PythonException | None) -> specs.ExitSpec | None:
        """The spec that applies: one whose runtime pattern matches the exception, else the
        platform's own (when it says more than "unknown"), else the exit code's, else the fallback."""
        if exception is not None:
            first = exception.message.splitlines()[0] if exception.message else ""
            found = spec_matching(f"{exception.type}: {first}")
            if found is not None:
                return found
        return self.platform

    def _evidence(self, hit: Hit) -> list[Evidence]:
        if hit.details.get("_source") == "diagnostics" and self.diagnostics is not None:
            return [Evidence(0, shown(self.diagnostics.line(hit.start, hit.end)), "diagnostics")]
        return [Evidence(self.log.number(h.start), shown(self.log.line(h.start, h.end)))
                for h in hits(self.log, hit.rule, EVIDENCE, hit.end + 1)]

    def _last_lines(self) -> tuple[Evidence, ...]:
        log, found = self.log, []
        for s, e in log.lines_before(len(log) + 1, 200):
            line = log.line(s, e)
            if meaningful(line):
                found.append(Evidence(log.number(s), shown(line)))
                if len(found) == LAST_LINES:
                    break
        return tuple(reversed(found))


class _Words:
    """The title and the sentence of one explanation, in both languages: each class's method
    picks the catalogue's key and fills its fields from the details and the facts."""

    def __init__(self, explainer: _Explainer, kind: str, variant: str, details: Details, tb: Traceback | None,
                 exception: PythonException | None):
        self.x, self.kind, self.variant, self.details, self.tb = explainer, kind, variant, details, tb
        self.exception = exception or (deciding(tb) if tb else None)
        self.key = f"{kind}.{variant}" if variant else kind
        self.package: str | None = None
        self.command: str | None = details.get("command")
        self.args: dict[str, object] = {}
        self.title_args: dict[str, object] = {}
        getattr(self, "_" + kind.replace("-", "_"), lambda: None)()

    def title(self) -> Text:
        fields = [name for _, name, _, _ in string.Formatter().parse(cat.FAILURE_CLASSES[self.kind][0]) if name]
        return cat.title(self.kind, **{name: self.title_args.get(name, "") for name in fields})

    def message(self) -> Text:
        return cat.message(self.key, **self.args)

    # -- shared pieces ------------------------------------------------------------------------------
    def _image(self) -> Text:
        image = self.x.facts.image
        return cat.clause("image", image=image) if image else cat.fill(cat.CLAUSES["no-image"])

    def _code(self) -> Text:
        code = self.x.user_code if self.x.user_code is not None else self.x.facts.exit_code
        return cat.clause("code", code=code) if code is not None else cat.nothing()

    def _first_line(self) -> str:
        e = self.exception
        return (e.message.splitlines()[0] if e and e.message else "")[:200]

    # -- per class ---------------------------------------------------------------------------------
    def _python_exception(self) -> None:
        detail = self._first_line()
        self.key = "python-exception" if detail else "python-exception.bare"
        frame = self.tb.primary if self.tb else None
        where = cat.clause("where", file=frame.workspace or frame.path, line=frame.line) if frame else cat.nothing()
        exception = self.exception.type if self.exception else "?"
        self.args = {"exception": exception, "detail": detail, "where": where}
        self.title_args = {"exception": exception}

    def _missing_module(self) -> None:
        d = self.details
        module = d.get("module", "")
        top = module.split(".")[0]
        uploaded = _own_module(top, self.x.facts.layout.manifest) if top else None
        self.package = None if self.variant == "library" or uploaded else (PACKAGES.get(module) or PACKAGES.get(top) or top or None)
        if uploaded and not self.variant:
            self.key = "missing-module.own"
        elif not module and self.variant in ("", "other"):
            self.key = "missing-module.other"
        self.args = {"module": module, "package": self.package or "", "image": self._image(), "name": d.get("name", ""),
                     "library": d.get("library", ""), "uploaded": uploaded or "", "detail": self._first_line() or "?"}
        self.title_args = {"package": self.package or module or d.get("library", "")}

    def _cuda_oom(self) -> None:
        size, gpu = self.details.get("size"), self.details.get("gpu")
        detail = (cat.clause("oom-size-gpu", size=size, gpu=gpu) if size and gpu else cat.clause("oom-size", size=size) if size
                  else cat.clause("oom-gpu", gpu=gpu) if gpu else cat.nothing())
        self.args = {"detail": detail}

    def _host_oom(self) -> None:
        mb, usage = self.x.facts.memory_mb, self.details.get("usage")
        self.key = f"host-oom.{self.variant or 'likely'}"
        limit = cat.clause("limit", mb=mb) if mb else cat.clause("usage", usage=usage) if usage else cat.nothing()
        self.args = {"limit": limit, "code": self._code()}

    def _shared_memory(self) -> None:
        mb = self.x.facts.shm_mb
        self.args = {"shm": cat.clause("shm", mb=mb) if mb else cat.nothing()}

    def _distributed(self) -> None:
        d = self.details
        detail = d.get("detail") or d.get("reason") or (f"OpType={d['op']}" if d.get("op") else "")
        self.args = {"detail": cat.clause("detail", detail=detail[:200]) if detail else cat.nothing()}

    def _gpu_unavailable(self) -> None:
        self.args = {"image": self._image()}

    def _path_not_found(self) -> None:
        d = self.details
        path = d.get("path")
        if not path:
            self.key = "path-not-found.unnamed"
        elif self.variant != "script":
            self.key = "path-not-found.cd" if d.get("command") == "cd" else "path-not-found.hdfs" if d.get("hdfs") else "path-not-found"
        self.args = {"path": path or ""}
        layout = self.x.facts.layout
        if path and self.variant == "script" and layout.uploaded is False:  # said from what the submit did, not a guess
            self.key = "path-not-found.script-nothing-uploaded"
        elif path and self.variant == "script" and layout.code_folder:
            self.key = "path-not-found.script-in-storage"
            self.args.update(folder=layout.code_folder, place=layout.code_place, files=len(layout.manifest))
        elif path and self.key == "path-not-found.cd" and layout.code_folder:  # the route cds into the code itself
            self.key = "path-not-found.cd-in-storage"
            self.args.update(folder=layout.code_folder, place=layout.code_place)
        elif path and self.variant == "script" and layout.uploaded and layout.code_place:
            sent = _uploaded_as(path, layout)
            self.key = "path-not-found.script-in-code-dir" if sent is None or sent else "path-not-found.script-not-uploaded"
            self.args.update(place=layout.code_place, files=len(layout.manifest))
        self.title_args = {"path": path or ""}
        self.command = None

    def _permission_denied(self) -> None:
        d = self.details
        if d.get("user") and d.get("access"):
            self.key = "permission-denied.hdfs"
        elif self.variant == "exec" or (not d.get("path") and self.x.user_code == 126):
            self.key = "permission-denied.exec"
        elif not d.get("path"):
            self.key = "permission-denied.unnamed"
        self.args = {"path": d.get("path", ""), "user": d.get("user", ""), "access": d.get("access", "")}
        self.command = None

    def _command_not_found(self) -> None:
        d = self.details
        command = d.get("command", "")
        if command.endswith(("\r", "^M")) or self.variant == "crlf":
            self.key = "command-not-found.crlf"
        elif not command:
            self.key = "command-not-found.unnamed"
        command = command.rstrip("\r").removesuffix("^M")
        self.command = command or None
        self.args = {"command": command, "script": d.get("script", ""), "image": self._image()}
        self.title_args = {"command": command}

    def _signal(self) -> None:
        name = self.details.get("signal") or self.x.signal or "?"
        words, advice = cat.SIGNAL_WORDS.get(name, cat.OTHER_SIGNAL)
        self.args = {"signal": name, "words": Text(*words), "advice": Text(*advice), "code": self._code()}
        self.title_args = {"signal": name}

    def _exit_nonzero(self) -> None:
        code = self.x.user_code if self.x.user_code is not None else self.x.facts.exit_code
        self.args = {"code": exit_words(code, code) or "?", "detail": self.details.get("detail", "")}
        self.title_args = {"code": code if code is not None else ""}

    def _user_stop(self) -> None:
        self.args = {"phrase": self.x.platform.phrase if self.x.platform else "StopFrameworkRequested"}

    def _platform(self) -> None:
        spec = self.x.platform
        advice = cat.PLATFORM_ADVICE.get(spec.type if spec else "", cat.PLATFORM_OTHER)
        self.args = {"phrase": spec.phrase if spec else "?", "advice": Text(*advice), "image": self.x.facts.image or ""}
        self.title_args = {"phrase": spec.phrase if spec else ""}

    def _unknown(self) -> None:
        self.key = "unknown" if self.x.log.text.strip() else "unknown.no-log"
        self.args = {"code": self._code()}


def _own_module(top: str, manifest: Mapping[str, str]) -> str | None:
    """The uploaded file that makes `top` importable, if the user uploaded it."""
    for candidate in (f"{top}/__init__.py", f"{top}.py"):
        if candidate in manifest:
            return candidate
    return next((key for key in manifest if key.endswith((f"/{top}/__init__.py", f"/{top}.py"))), None)


def _uploaded_as(path: str, layout: CodeLayout) -> bool | None:
    """Whether the missing script was among the files uploaded to the codeDir: None when the path
    cannot be told relative to the code folder (another absolute folder)."""
    rel = path.removeprefix("./")
    if layout.workdir and rel.startswith(layout.workdir.rstrip("/") + "/"):
        rel = rel[len(layout.workdir.rstrip("/")) + 1:]
    for folder in layout.code_dirs:
        for prefix in (f"{folder}/", f"./{folder}/", "$PAI_JOB_NAME/"):
            if rel.startswith(prefix):
                rel = rel[len(prefix):]
                break
    if rel.startswith("/"):
        return None
    return rel in layout.manifest
