"""The OpenPAI v2 server's own readers, for comparing with ours (run by Node.js; `cd tests/oracle && npm ci`):
js-yaml 3.13.1 (tests/oracle/yaml.js) and its Ajv 6 schema verdict (tests/oracle/v2.js); and the form
values are compared in (what JSON can carry, with js-yaml's numbers, dates and string keys)."""

from __future__ import annotations

import datetime
import json
import math
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pai_lsp.core.yaml.scalars import js_number, js_string

ORACLE = Path(__file__).resolve().parents[1] / "oracle"  # tests/oracle
MAX_SAFE = 2**53 - 1


def js_yaml(texts: list[str]) -> list[dict]:
    """js-yaml 3.13.1's reading of each text: {"ok": True, "value": …} or {"ok": False, "message": …}.
    Skips without Node.js or the oracle's packages, except in CI (`CI` set), where it fails."""
    return _run("yaml.js", "js-yaml", texts)


def as_js(value: Any) -> Any:
    """A Python value in the form yaml.js writes js-yaml's: non-finite and unsafe numbers and dates
    tagged, keys as JavaScript's strings, bytes as a Buffer's indices."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if abs(value) <= MAX_SAFE else {"$number": js_number(float(value))}
    if isinstance(value, float):
        if math.isinf(value) or math.isnan(value):
            return {"$number": js_number(value)}
        if value == int(value) and abs(value) > MAX_SAFE:
            return {"$number": js_number(value)}
        return int(value) if value == int(value) else value
    if isinstance(value, datetime.datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=datetime.timezone.utc)
        moment = moment.astimezone(datetime.timezone.utc)
        return {"$date": moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"}
    if isinstance(value, datetime.date):
        return {"$date": value.strftime("%Y-%m-%dT00:00:00.000Z")}
    if isinstance(value, bytes):
        return {str(i): b for i, b in enumerate(value)}
    if isinstance(value, (list, tuple)):
        return [as_js(v) for v in value]
    if isinstance(value, dict):
        return {js_string(k): as_js(v) for k, v in value.items()}
    if isinstance(value, set):
        return {js_string(k): None for k in value}
    return value


def server_schema(texts: list[str]) -> list[dict]:
    """The v2 server's schema verdict on each YAML text: Ajv 6.12.3 with the server's protocol schema
    (tests/oracle/v2.js): {"ok": bool, "errors": [{"keyword", "dataPath"}]}. Skips as `js_yaml` does."""
    return _run("v2.js", "ajv", texts)


def _run(script: str, package: str, texts: list[str]) -> list[dict]:
    if shutil.which("node") is None or not (ORACLE / "node_modules" / package).is_dir():
        message = f"{package} is not installed: cd tests/oracle && npm ci"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    lines = "".join(json.dumps({"text": t}) + "\n" for t in texts)
    out = subprocess.run(["node", str(ORACLE / script)], input=lines, capture_output=True, text=True, check=True,
                         timeout=60).stdout
    return [json.loads(line) for line in out.split("\n") if line]  # not splitlines: U+2028 is no line end here


def server_render(texts: list[str]) -> list[dict]:
    """The v2 server's rendering of each job's commands with mustache 2.3 (tests/oracle/render.js):
    {"ok": True, "entrypoints": {role: text}, "auth": {image: {...}}} or {"ok": False, "error": message}.
    Skips as `js_yaml` does."""
    return _run("render.js", "mustache", texts)


def server_verdict(texts: list[str]) -> list[dict]:
    """The v2 server's whole verdict on each submitted YAML text before its scheduler sees it
    (tests/oracle/protocol.js: js-yaml, Ajv 6, its cross-reference checks, mustache's render):
    {"status": 202 | 400 | 500, "message": …}. Skips as `js_yaml` does."""
    return _run("protocol.js", "mustache", texts)
