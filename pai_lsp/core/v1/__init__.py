"""The OpenPAI v1 job config (`*.pai.json`, JSON with comments) as a job-file format, in the dialects
"openpai" and "scm" (`pai.cluster.kind`, or the kind of the cluster a job goes to). Its checks are
`validate.py` with `semantic.py`; completion, hover and outline are the schema-driven defaults. A
server that reads only OpenPAI's protocol v2 is sent its v2 YAML (`to_v2.py`)."""

from __future__ import annotations

from collections.abc import Callable, Collection

from ..job_format import JobFormat, Sent
from ..jsonc import Document
from ..messages import render
from ..model import Diagnostic, NewFile, Settings
from ..route_rules import ClusterFacts
from ..schema import DIALECTS, job_schema
from ..status_notification import in_extras
from ..validate import diagnose

FILLED_FIELDS = ("codeDir", "dataDir", "outputDir", "authFile")  # a v1 server leaves $PAI_JOB_NAME in these as written


class PaiV1(JobFormat):
    name = "pai-v1"
    title = ("OpenPAI job config", "OpenPAI 作业配置")
    patterns = ("*.pai.json",)
    dialects = DIALECTS
    name_key = "jobName"
    code_dir = True

    def schema(self, dialect: str) -> dict:
        """OpenPAI's (whose extras reach a Kubernetes-era server's v2 job as written) also knows the e-mail flags."""
        return in_extras(job_schema(dialect)) if dialect == "openpai" else job_schema(dialect)

    def diagnose(self, doc: Document, settings: Settings) -> list[Diagnostic]:
        return diagnose(doc, self.checked(settings))

    def new_files(self, doc: Document, file_name: str, settings: Settings) -> list[NewFile]:
        """The job in OpenPAI's v2 protocol, beside the file (`x.pai.json` → `x.pai.yaml`): what submit
        sends a Kubernetes-era cluster, to read and edit. Offered for a config without errors."""
        base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
        stem = base[: -len(".pai.json")] if base.endswith(".pai.json") else base.rsplit(".", 1)[0]
        name = f"{stem}.pai.yaml"
        locale = settings.locale
        title = render("v2.convert.title", locale, name=name)
        if doc.root is None or doc.root.type != "object" or any(d.severity == "error" for d in self.diagnose(doc, settings)):
            return [NewFile(title, name, "", render("v2.convert.fix-first", locale))]
        from .to_v2 import ConversionError, to_v2_yaml  # (YAML loads only for this)

        config = {k: v for k, v in doc.root.value.items() if k != "$schema"}
        try:
            text = to_v2_yaml(config)
        except ConversionError as e:
            return [NewFile(title, name, "", e.message.render(locale))]
        header = render("v2.convert.header", locale, file=base) + "\n"
        return [NewFile(title, name, header + text)]

    def fill_in(self, job: dict, fill: Callable[[str], str]) -> None:
        """Its folders and each task role's command."""
        for field in FILLED_FIELDS:
            if isinstance(job.get(field), str):
                job[field] = fill(job[field])
        for role in job.get("taskRoles", []):
            if isinstance(role.get("command"), str):
                role["command"] = fill(role["command"])

    def folder(self, job: dict, name: str) -> str | None:
        return job.get(name) or None

    def commands(self, job: dict) -> list[str]:
        roles = job.get("taskRoles") if isinstance(job.get("taskRoles"), list) else []
        return [role["command"] for role in roles if isinstance(role, dict) and isinstance(role.get("command"), str)]

    def _role(self, job: dict, role: str) -> dict:
        return next(r for r in job.get("taskRoles", []) if isinstance(r, dict) and r.get("name") == role)

    def task_roles(self, job: dict) -> list[tuple[str, int]]:
        roles = job.get("taskRoles") if isinstance(job.get("taskRoles"), list) else []
        return [(r["name"], r.get("taskNumber", 1) if isinstance(r.get("taskNumber", 1), int) else 1)
                for r in roles if isinstance(r, dict) and isinstance(r.get("name"), str)]

    def role_commands(self, job: dict, role: str) -> list[str]:
        """Its one `command`."""
        command = self._role(job, role).get("command")
        return [command] if isinstance(command, str) else []

    def set_role_commands(self, job: dict, role: str, commands: list[str]) -> None:
        self._role(job, role)["command"] = "\n".join(commands)

    def add_ports(self, job: dict, role: str, label: str, count: int) -> None:
        """A `portList` entry (beginAt 0: any free ports)."""
        ports = self._role(job, role).setdefault("portList", [])
        entry = next((p for p in ports if isinstance(p, dict) and p.get("label") == label), None)
        if entry is None:
            ports.append({"label": label, "beginAt": 0, "portNumber": count})
        elif not isinstance(entry.get("portNumber"), int) or entry["portNumber"] < count:
            entry["portNumber"] = count

    def cluster_diagnostics(self, doc: Document, facts: ClusterFacts, settings: Settings,
                            exists: frozenset[str]) -> list[Diagnostic]:
        from .code_checks import route_diagnostics

        return route_diagnostics(doc, facts, settings, exists)

    def sent(self, job: dict, protocols: Collection[int]) -> Sent:
        """As it is, or its v2 YAML to a server that reads protocol v2 only (ConversionError for what v2 cannot say)."""
        if protocols and 1 not in protocols:
            from .to_v2 import to_v2_yaml

            return Sent(text=to_v2_yaml(job))
        return Sent(data=job)


FORMAT = PaiV1()
