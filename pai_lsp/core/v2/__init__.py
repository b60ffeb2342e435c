"""The OpenPAI v2 job protocol (`*.pai.yaml`, `*.pai.yml`, or any YAML whose top level says
`protocolVersion: 2`) as a job-file format: read as the server's js-yaml 3 reads it (core/yaml/tree.py),
checked as its Ajv schema and its own checks do, with what the web portal, HiveD and the scheduler
refuse as warnings (`checks.py`); completion (`completion.py`), hover (`hover.py`), navigation
(`navigate.py`) and outline (`outline.py`) built on what the job defines (`job.py`). Its `<% … %>`
templates as the server fills them (`templates.py`); a job as the server will see it, its secrets
masked (`render.py`); and as a v1 config for a server that reads only protocol v1 (`to_v1.py`)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Collection

from ..job_format import JobFormat, Sent
from ..model import Completion, Diagnostic, Edit, Hover, Settings
from ..route_rules import ClusterFacts
from ..schema_outline import Symbol
from ..yaml.tree import Document, parse
from . import checks, facts, outline  # completion, hover and navigation load at their first use, not at the open

_PLAIN = re.compile(r"[\w@%+=:,./~-]+")  # a path the shell reads as it is (`~` only after its start)

# `protocolVersion: 2` at the top level (column 0), the value plain or quoted, a comment after it.
_SNIFF = re.compile(r"""^protocolVersion[ \t]*:[ \t]*(?:2|'2'|"2")[ \t]*(?:#.*)?\r?$""", re.M)


class PaiV2(JobFormat):
    name = "pai-v2"
    title = ("OpenPAI job (protocol v2)", "OpenPAI 作业（v2 协议）")
    patterns = ("*.pai.yaml", "*.pai.yml")
    syntax = "yaml"
    dialects = (facts.DIALECT,)
    name_key = "name"
    code_dir_key = "extras.codeDir"
    mounts_storages = True

    def sniff(self, text: str) -> bool:
        return "protocolVersion" in text and _SNIFF.search(text) is not None

    def schema(self, dialect: str) -> dict:
        return facts.schema()

    def parse(self, text: str) -> Document:  # type: ignore[override]
        return parse(text)

    def diagnose(self, doc: Document, settings: Settings) -> list[Diagnostic]:  # type: ignore[override]
        return checks.diagnose(doc, settings)

    def complete(self, doc: Document, offset: int, settings: Settings) -> list[Completion]:  # type: ignore[override]
        from . import completion

        return completion.complete(doc, offset, settings)

    def hover(self, doc: Document, offset: int, settings: Settings) -> Hover | None:  # type: ignore[override]
        from . import hover as explain

        return explain.hover(doc, offset, settings)

    def symbols(self, doc: Document) -> list[Symbol]:  # type: ignore[override]
        return outline.symbols(doc)

    def folding_ranges(self, doc: Document) -> list[tuple[int, int, str]]:  # type: ignore[override]
        return outline.folding_ranges(doc)

    def format_text(self, doc: Document, indent: str = "  ") -> str | None:  # type: ignore[override]
        return None  # YAML is laid out by hand: nothing here rewrites it

    def definition(self, doc: Document, offset: int) -> list[tuple[int, int]]:  # type: ignore[override]
        from . import navigate

        return navigate.definition(doc, offset)

    def references(self, doc: Document, offset: int, include_declaration: bool = True) -> list[tuple[int, int]]:  # type: ignore[override]
        from . import navigate

        return navigate.references(doc, offset, include_declaration)

    def prepare_rename(self, doc: Document, offset: int) -> tuple[int, int] | None:  # type: ignore[override]
        from . import navigate

        return navigate.prepare_rename(doc, offset)

    def rename(self, doc: Document, offset: int, new_name: str) -> list[Edit]:  # type: ignore[override]
        from . import navigate

        return navigate.rename(doc, offset, new_name)

    # -- what the cluster holds -----------------------------------------------------------
    def cluster_diagnostics(self, doc: Document, facts: ClusterFacts, settings: Settings,  # type: ignore[override]
                            exists: frozenset[str]) -> list[Diagnostic]:
        from . import storage_checks

        found = storage_checks.storage_diagnostics(doc, facts, settings) + storage_checks.route_diagnostics(doc, facts, settings, exists)
        return sorted(found, key=lambda d: d.start)

    def workspace_paths(self, doc: Document) -> frozenset[str]:  # type: ignore[override]
        from . import storage_checks

        return storage_checks.workspace_paths(doc)

    def cluster_complete(self, doc: Document, offset: int, facts: ClusterFacts,  # type: ignore[override]
                         settings: Settings) -> list[Completion]:
        from . import storage_checks

        return storage_checks.complete(doc, offset, facts, settings)

    def cluster_hover(self, doc: Document, offset: int, facts: ClusterFacts,  # type: ignore[override]
                      settings: Settings) -> Hover | None:
        from . import storage_checks

        return storage_checks.hover(doc, offset, facts, settings)

    # -- submitting ----------------------------------------------------------------------
    def claims(self, job: dict) -> bool:
        """`protocolVersion` 2 (a v1 config has none)."""
        return isinstance(job, dict) and str(job.get("protocolVersion")) == "2"

    def fill_in(self, job: dict, fill: Callable[[str], str]) -> None:
        """The v1 folders kept in `extras` (its commands are left as written: at run time $PAI_JOB_NAME is the platform's)."""
        from . import render  # (PyYAML loads for what is submitted, not for what is edited)

        extras = job.get("extras") if isinstance(job.get("extras"), dict) else {}
        for field in render.V2_DIRS:
            if isinstance(extras.get(field), str):
                extras[field] = fill(extras[field])

    def folder(self, job: dict, name: str) -> str | None:
        """In `extras`, where pai keeps the folders v1 has and v2 lacks."""
        extras = job.get("extras") if isinstance(job.get("extras"), dict) else {}
        return extras[name] if isinstance(extras.get(name), str) else None

    def commands(self, job: dict) -> list[str]:
        roles = job.get("taskRoles") if isinstance(job.get("taskRoles"), dict) else {}
        return [c for role in roles.values() if isinstance(role, dict) and isinstance(role.get("commands"), list)
                for c in role["commands"] if isinstance(c, str)]

    def task_roles(self, job: dict) -> list[tuple[str, int]]:
        roles = job.get("taskRoles") if isinstance(job.get("taskRoles"), dict) else {}
        return [(name, role.get("instances", 1) if isinstance(role.get("instances", 1), int) else 1)
                for name, role in roles.items() if isinstance(role, dict)]

    def role_commands(self, job: dict, role: str) -> list[str]:
        commands = job["taskRoles"][role].get("commands")
        return [c for c in commands if isinstance(c, str)] if isinstance(commands, list) else []

    def set_role_commands(self, job: dict, role: str, commands: list[str]) -> None:
        job["taskRoles"][role]["commands"] = list(commands)

    def add_ports(self, job: dict, role: str, label: str, count: int) -> None:
        """`resourcePerInstance.ports.<label>`."""
        resources = job["taskRoles"][role].setdefault("resourcePerInstance", {})
        ports = resources.get("ports") if isinstance(resources.get("ports"), dict) else {}
        resources["ports"] = ports
        if not isinstance(ports.get(label), int) or ports[label] < count:
            ports[label] = count

    def ssh_keys(self, job: dict) -> tuple[str, ...] | None:
        """The `userssh.value` lines of its ssh runtime plugin entries."""
        keys: list[str] = []
        for entry in _ssh_plugins(job):
            userssh = entry.get("parameters", {}).get("userssh") if isinstance(entry.get("parameters"), dict) else None
            if isinstance(userssh, dict) and isinstance(userssh.get("value"), str):
                keys += [line.strip() for line in userssh["value"].splitlines() if line.strip()]
        return tuple(keys)

    def add_ssh_key(self, job: dict, roles: list[str], public_key: str) -> None:
        """The key as `userssh` (`{type: custom, value: <key>}`, as the portal's "Enable User SSH" writes
        it) of the first ssh plugin entry, its `taskroles` (when it lists some) taking `roles` too; else a
        new entry `{plugin: ssh, parameters: {userssh: …}}` at the end of the plugin list."""
        userssh = {"type": "custom", "value": public_key}
        entry = next(iter(_ssh_plugins(job)), None)
        if entry is None:
            extras = job.get("extras") if isinstance(job.get("extras"), dict) else {}
            job["extras"] = extras
            plugins = extras.get(facts.RUNTIME_PLUGIN_KEY)
            if not isinstance(plugins, list):
                plugins = extras[facts.RUNTIME_PLUGIN_KEY] = []
            plugins.append({"plugin": "ssh", "parameters": {"userssh": userssh}})
            return
        if not isinstance(entry.get("parameters"), dict):
            entry["parameters"] = {}
        entry["parameters"]["userssh"] = userssh
        if isinstance(entry.get("taskroles"), list):
            entry["taskroles"] += [r for r in roles if r not in entry["taskroles"]]

    def mount_code(self, job: dict, storage: str, folder: str) -> str | None:
        """An `extras.storages` entry for `storage` (none added when the job lists it already, or
        lists `[]`, the defaults, which it is one of), and `cd <mount path>/<folder>` as each role's
        first command: the job's commands then find the code where they expect it, the workspace's
        layout, with no edit of the file on disk. The mount path is the entry's `mountPath`, else
        the server's default `/mnt/<storage>`."""
        extras = job.setdefault("extras", {}) if isinstance(job.get("extras", {}), dict) else None
        if extras is None:
            return None
        listed = extras.get("storages")
        entry = next((e for e in listed if isinstance(e, dict) and e.get("name") == storage), None) \
            if isinstance(listed, list) else None
        if not isinstance(listed, list):
            extras["storages"] = [{"name": storage}]
        elif listed and entry is None:
            listed.append({"name": storage})
        mount = entry.get("mountPath") if entry is not None and isinstance(entry.get("mountPath"), str) else f"/mnt/{storage}"
        where = f"{mount.rstrip('/')}/{folder}"
        for role in (job.get("taskRoles") or {}).values():
            if isinstance(role, dict) and isinstance(role.get("commands"), list):
                role["commands"] = [f"cd {where if _PLAIN.fullmatch(where) else shlex.quote(where)}", *role["commands"]]
        return where

    def converted(self, job: dict, protocols: Collection[int]) -> dict | None:
        """Its v1 config, for a server that reads v1 only (NotExpressible naming what v1 cannot say)."""
        if not protocols or 2 in protocols:
            return None
        from .to_v1 import to_v1

        return to_v1(job)

    def sent(self, job: dict, protocols: Collection[int]) -> Sent:
        from . import render

        v1 = self.converted(job, protocols)
        return Sent(text=render.dump(job)) if v1 is None else Sent(data=v1)

    def rendered(self, job: dict, show_secrets: bool = False) -> str | None:
        from . import render

        return render.render(job, show_secrets=show_secrets).text()

    def masked(self, job: dict) -> dict:
        from . import render

        return render.secrets_masked(job)

    def secrets_lost(self, job: dict) -> bool:
        from . import render

        return job.get("secrets") == render.MASK


FORMAT = PaiV2()


def _ssh_plugins(job: dict) -> list[dict]:
    """The job's ssh runtime plugin entries (`extras["com.microsoft.pai.runtimeplugin"]`)."""
    extras = job.get("extras")
    plugins = extras.get(facts.RUNTIME_PLUGIN_KEY) if isinstance(extras, dict) else None
    return [p for p in plugins if isinstance(p, dict) and p.get("plugin") == "ssh"] if isinstance(plugins, list) else []
