"""Typed arguments of the server's commands (`workspace/executeCommand`), as pygls structures them.

Each command takes one JSON object; its keys are the camelCase of these fields (`workDoneToken`).
`pai.submitJob` / `pai.runLocally` also take a bare config URI, as code lenses and older clients send.
"""

from __future__ import annotations

import re
from typing import Any

import attrs
from cattrs import Converter
from cattrs.gen import make_dict_structure_fn, override
from pygls.protocol import default_converter


@attrs.define
class SubmitArgs:
    uri: str
    cluster: str | None = None
    work_done_token: str | int | None = None  # the client's progress token: uploads are reported (and cancellable) there


@attrs.define
class JobArgs:
    job: str
    cluster: str | None = None


@attrs.define
class JobsListArgs:
    cluster: str | None = None
    offset: int = 0
    limit: int | None = 50


@attrs.define
class FollowArgs:
    job: str
    cluster: str | None = None
    offsets: dict[str, int] = attrs.field(factory=dict)  # bytes of each task's log the client already has


@attrs.define
class SshArgs:
    job: str
    cluster: str | None = None
    task: str | None = None


@attrs.define
class ClusterArgs:
    name: str


@attrs.define
class AddClusterArgs:
    name: str
    rest: str
    webhdfs: str
    user: str
    kind: str = "openpai"
    password: str | None = None
    protocol: int | None = None


@attrs.define
class LoginArgs:
    name: str
    password: str


WIRE = (SubmitArgs, JobArgs, JobsListArgs, FollowArgs, SshArgs, ClusterArgs, AddClusterArgs, LoginArgs)


def camel(name: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)


def converter() -> Converter:
    """pygls.s converter, taught our argument classes (camelCase keys; a bare URI for submits)."""
    conv = default_converter()
    for cls in WIRE:
        renames = {f.name: override(rename=camel(f.name)) for f in attrs.fields(cls) if camel(f.name) != f.name}
        conv.register_structure_hook(cls, make_dict_structure_fn(cls, conv, **renames))
    from_dict = conv.get_structure_hook(SubmitArgs)

    def submit_args(value: Any, cls: type) -> SubmitArgs:
        return from_dict({"uri": value} if isinstance(value, str) else value, cls)

    conv.register_structure_hook(SubmitArgs, submit_args)
    return conv
