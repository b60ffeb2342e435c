"""A v2 job (`*.pai.yaml`) as a v1 config, for a YARN-era cluster that takes v1 jobs only: where v1
can express the job, the same job; where it cannot, one refusal naming everything it cannot express.

What carries over: the rendered commands (templates filled in, the default deployment merged: what
the v2 server would run), run with the v2 runtime's `set -o errexit -o nounset -o pipefail`; each
role's instances, resources, ports, shared memory (v2's default 512 MB, at most the memory) and completion counts (v2's
-1 is v1's null; v2's null or 0 is the scheduler's default); `jobRetryCount`, the virtual cluster;
`extras.codeDir` / `dataDir` / `outputDir` / `gpuType` as v1's fields of those names (what pai's own
v1 → v2 conversion, core/v1/to_v2.py, puts there); other `extras` as v1's `extras`.

What v1 cannot express (refused): task roles in different Docker images (v1 has one image per job),
a private registry login (v1 takes only an `authFile` on HDFS), secrets used by commands (a YARN-era
server stores the command as written, and shows job configs to anyone), per-instance retries with
gang allocation off, InfiniBand, prerequisites run by a runtime plugin, runtime plugins other than
`ssh`, storage mounts, and HiveD's scheduling choices.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..job_format import Unsendable
from ..messages import Message, message
from .render import PREREQUISITE_FIELDS, V2_DIRS, entrypoint, prerequisites_by_type, render, unrunnable
from .templates import find_templates

ERREXIT = "set -o errexit -o nounset -o pipefail"  # how the v2 runtime runs a role's commands (user.sh)
V1_FIELDS = (*V2_DIRS, "gpuType")  # extras v1 has fields for


@dataclass
class NotExpressible(Unsendable):
    """What a v1 config cannot express of the job, each named."""

    reasons: list[Message]

    def __str__(self) -> str:
        return str(self.what)

    @property
    def what(self) -> Message:
        """The reasons as one message, said in its reader's language."""
        said = self.reasons[0]
        for reason in self.reasons[1:]:
            said = message("v1-only.and", first=said, second=reason)
        return said

    def said(self, cluster: str) -> Message:
        return message("jobs.v1-only", cluster=cluster, what=self.what)


def to_v1(job: dict) -> dict:
    """The v1 config of a checked v2 job (its name as it is), or NotExpressible."""
    reasons = _not_expressible(job)
    if reasons:
        raise NotExpressible(reasons)
    rendered = render(job).job
    by_type = prerequisites_by_type(job)
    roles = rendered["taskRoles"]
    extras = dict(rendered.get("extras") or {})
    image = by_type["dockerimage"][str(next(iter(roles.values()))["dockerImage"])]["uri"]
    config: dict = {"jobName": job["name"], "image": image}
    for field in V1_FIELDS:
        if isinstance(extras.get(field), str):
            config[field] = extras.pop(field)
    config["virtualCluster"] = str((rendered.get("defaults") or {}).get("virtualCluster") or "default")
    config["retryCount"] = rendered.get("jobRetryCount") or 0
    config["taskRoles"] = [_role(name, role) for name, role in roles.items()]
    for key in ("gangAllocation", "com.microsoft.pai.runtimeplugin"):  # v1 has them built in
        extras.pop(key, None)
    if extras:
        config["extras"] = extras
    return config


def _role(name: str, role: dict) -> dict:
    resources = role["resourcePerInstance"]
    completion = role.get("completion") or {}
    instances = role.get("instances", 1)
    min_failed, min_succeeded = completion.get("minFailedInstances"), completion.get("minSucceededInstances")
    return {
        "name": name,
        "taskNumber": instances,
        "cpuNumber": resources["cpu"],
        "memoryMB": resources["memoryMB"],
        "gpuNumber": resources["gpu"],
        # v2's default 512 MB, no more than the memory (v1 refuses more; one given above it is refused before)
        "shmMB": min((role.get("extraContainerOptions") or {}).get("shmMB", 512), resources["memoryMB"]),
        "portList": [{"label": label, "beginAt": 0, "portNumber": count} for label, count in (resources.get("ports") or {}).items()],
        "command": "\n".join([ERREXIT, *role["commands"]]),
        # the scheduler reads `minFailedInstances || 1`, `minSucceededInstances || instances`; -1 turns a rule off
        "minFailedTaskCount": None if min_failed == -1 else (min_failed or 1),
        "minSucceededTaskCount": None if min_succeeded in (-1, None, 0) else min_succeeded,
    }


def _not_expressible(job: dict) -> list[Message]:
    reasons: list[Message] = []
    roles = job.get("taskRoles")
    cannot_run = unrunnable(job)
    if cannot_run is not None:  # no cluster runs it: said as the scheduler says it
        return [cannot_run]
    by_type = prerequisites_by_type(job)
    images = {str(r.get("dockerImage")): by_type["dockerimage"].get(str(r.get("dockerImage")), {}).get("uri") for r in roles.values()}
    if len(set(images.values())) > 1:
        reasons.append(message("v1-only.images", images=", ".join(sorted(map(str, images.values())))))
    for name, image in by_type["dockerimage"].items():
        if name in images and "auth" in image:
            reasons.append(message("v1-only.registry-login", image=name))
    for name in roles:
        used = sorted({tag.expr for tag in find_templates(entrypoint(job, name))
                       if tag.filled and tag.expr.startswith("$secrets")})
        if used:
            reasons.append(message("v1-only.secrets", role=name, secrets=", ".join(used)))
    extras = job.get("extras") if isinstance(job.get("extras"), dict) else {}
    for name, role in roles.items():
        if extras.get("gangAllocation") is False and (role.get("taskRetryCount") or 0) > 0:
            reasons.append(message("v1-only.task-retry", role=name))
        shm, memory = (role.get("extraContainerOptions") or {}).get("shmMB"), role["resourcePerInstance"].get("memoryMB")
        if isinstance(shm, int) and isinstance(memory, int) and shm > memory:
            reasons.append(message("v1-only.shm", role=name, shm=shm, memory=memory))
        if (role.get("extraContainerOptions") or {}).get("infiniband"):
            reasons.append(message("v1-only.infiniband", role=name))
        for field in ("prerequisites", *PREREQUISITE_FIELDS):
            for prerequisite in _named(role.get(field)):
                found = next((p for p in by_type.values() if prerequisite in p), {}).get(prerequisite, {})
                if found.get("plugin"):
                    reasons.append(message("v1-only.plugin-prerequisite", name=prerequisite, plugin=str(found["plugin"])))
    plugins = [p.get("plugin") for p in extras.get("com.microsoft.pai.runtimeplugin") or [] if isinstance(p, dict)]
    others = sorted({str(p) for p in plugins if p != "ssh"})
    if others:
        reasons.append(message("v1-only.plugins", count=len(others), plugins=", ".join(others)))
    if extras.get("storages"):
        reasons.append(message("v1-only.storages"))
    if extras.get("hivedScheduler"):
        reasons.append(message("v1-only.hived"))
    return list({str(reason): reason for reason in reasons}.values())  # each once


def _named(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)] if value is not None else []
