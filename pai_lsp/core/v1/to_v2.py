"""A v1 job config (`*.pai.json`) as OpenPAI protocol v2 YAML, for Kubernetes-era clusters: what
submit sends to a v2 cluster (`PaiV1.sent`), and what the editor's "Convert to protocol v2" writes
beside the file (`PaiV1.new_files`).

Field by field what OpenPAI's own converter (rest-server `utils/converter.js`) does: the image
becomes a `dockerimage` prerequisite, each task role keeps its resources, ports, completion
counts and command; v2-only names (role keys, port labels) lose the characters v2 refuses.
Directories and job environment variables, which v2 has no fields for, travel as `extras` and
as exported variables in front of each command, so `$PAI_DATA_DIR` & co. still work.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import yaml

from ..job_format import Unsendable
from ..messages import Message, message
from ..roles import roles_from_v1, to_v2, v2_name


class ConversionError(Unsendable):
    """What v2 cannot express, as a catalogue message (said in the editor's or the terminal's language)."""

    def __init__(self, message: Message):
        super().__init__(str(message))
        self.message = message

    def said(self, cluster: str) -> Message:
        return self.message


def _shell_value(value: str) -> str:
    """Quoted for bash, with $PAI_DEFAULT_FS_URI left to expand (v1 servers replace it in dirs)."""
    return '"${PAI_DEFAULT_FS_URI}"'.join(shlex.quote(part) if part else "" for part in value.split("$PAI_DEFAULT_FS_URI")) or "''"


def job_from_v1(config: dict) -> dict:
    """The v2 job of a checked v1 config, as plain data. Raises ConversionError for what v2 cannot say."""
    if config.get("authFile"):
        raise ConversionError(message("v2.convert.auth-file"))
    name = re.sub(r"[^A-Za-z0-9_-]", "_", config["jobName"])
    exports = {f"PAI_{field[:-3].upper()}_DIR": config[field] for field in ("dataDir", "outputDir", "codeDir") if config.get(field)}
    exports.update({str(k): str(v) for k, v in (config.get("jobEnvs") or {}).items() if re.fullmatch(r"[A-Za-z_]\w*", str(k))})
    prelude = "".join(f"export {k}={_shell_value(v)}\n" for k, v in exports.items())
    roles = {v2_name(role.name): to_v2(role, [prelude + role.command] if prelude else [role.command])
             for role in roles_from_v1(config)}
    return {
        "protocolVersion": 2,
        "name": name,
        "type": "job",
        "prerequisites": [{"name": "image", "type": "dockerimage", "uri": config["image"]}],
        "taskRoles": roles,
        "jobRetryCount": max(int(config.get("retryCount", 0)), 0),
        "defaults": {"virtualCluster": config.get("virtualCluster") or "default"},
        "extras": {"submitFrom": "pai-lsp", **{k: config[k] for k in ("dataDir", "outputDir", "codeDir", "gpuType") if config.get(k)},
                   **(config.get("extras") or {})},
    }


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper writing a multi-line string (a command with its exports) as a literal block."""


def _string(dumper: yaml.SafeDumper, value: str) -> Any:
    block = "\n" in value and not value.startswith((" ", "\t")) and all(line == line.rstrip() for line in value.split("\n"))
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if block else None)


_Dumper.add_representer(str, _string)


def to_v2_yaml(config: dict) -> str:
    """`job_from_v1(config)` as YAML text (keys in the order above). Raises ConversionError."""
    return yaml.dump(job_from_v1(config), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)
