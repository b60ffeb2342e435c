"""The protocol described once, by the API's classes (pai_lsp/api.py), and the clients held to it:
the JSON Schema and the VS Code client's types are generated and fresh, the VS Code client compiles
against them (a field it reads that the server does not send fails the build), every field the
Neovim client reads from a command's answer or a notification is one the schema has, and what the
server really sends is what the schema says."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from pai_lsp import api
from tests.helpers.lua_reads import Reader

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "editor-clients" / "vscode"
LUA = ROOT / "editor-clients" / "nvim" / "lua" / "pai_lsp"


@pytest.mark.subprocess
def test_the_generated_schema_types_and_tables_are_fresh():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "protocol-schema"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_schema_is_a_schema_and_names_every_method_command_and_event():
    doc = json.loads((ROOT / "docs" / "protocol.schema.json").read_text())
    Draft202012Validator.check_schema(doc)
    assert set(doc["methods"]) == set(api.METHODS) and set(doc["commands"]) == set(api.COMMANDS)
    assert set(doc["events"]) == set(api.EVENTS) and set(doc["notifications"]) == {"pai/jobLog", "pai/jobLogEnd", "pai/jobStatus",
                                                                                                 "pai/jobEnded"}


def test_the_language_server_has_exactly_the_commands_the_api_names():
    from pai_lsp.server import create_language_server

    server = create_language_server()
    assert set(server.protocol.fm.commands) == set(api.COMMANDS)


def _validator(doc: dict, name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": doc["$defs"]})


def test_what_the_service_layer_returns_is_what_the_schema_says(tmp_path):
    """Results made by the real code, written as the daemon writes them, against the schema."""
    from pai_lsp.service import hdfs as explorer
    from pai_lsp.service import jobs as service
    from tests.helpers.memory import MemoryBackend

    doc = api.schema()
    backend = MemoryBackend(user="alice")
    backend.storage.write("/user/alice/data/a.txt", b"hello\n")
    for value in (explorer.ls(backend.storage, "data"), explorer.stat(backend.storage, "data/a.txt"), explorer.mv(backend.storage, "data/a.txt", "data/b.txt"),
                  explorer.get(backend.storage, "data", tmp_path), service.list_jobs(backend)):
        errors = list(_validator(doc, type(value).__name__).iter_errors(value.to_json()))
        assert not errors, (type(value).__name__, errors[0].message)
    status = api.StatusResult(name="j", cluster="c", web_portal=None, state="RUNNING", created=1, completed=None, exit_code=None,
                              diagnostics="", user_exit_code=None, exit_reason="", tasks=[])
    assert api.StatusResult.from_json(status.to_json()) == status
    assert not list(_validator(doc, "SubmitJob").iter_errors({"uri": "file:///x.pai.json", "workDoneToken": 3}))
    assert list(_validator(doc, "ClustersAdd").iter_errors({"rest": "http://x", "user": "u"}))  # `name` is required


def test_a_required_field_of_the_wire_is_required():
    """(A class method called `name` on the wire's base used to be taken for the default of every
    field called `name`: `clusters.add` without one was accepted.)"""
    from pai_lsp.errors import InvalidInput

    with pytest.raises(InvalidInput, match="clusters.add: `name` is missing"):
        api.ClustersAdd.from_json({"rest": "http://x", "user": "u"})


def test_every_field_the_neovim_client_reads_is_in_the_schema():
    reader = Reader(api.schema())
    found = [read for path in sorted(LUA.glob("*.lua")) for read in reader.check(path)]
    assert not found, "\n".join(f"{r.file}:{r.line}: {r.what}" for r in found)


def test_the_neovim_check_finds_a_field_the_server_does_not_send(tmp_path):
    """The check is no formality: a misspelt field, a wrong key of an argument, a field of a list's
    items, read through a local function, are each found."""
    source = tmp_path / "probe.lua"
    source.write_text('''
local function render(buf, listing)
  for _, e in ipairs(listing.entries or {}) do
    print(e.name, e.sise)
  end
end
client.execute("pai.hdfs.ls", { { path = "/", clutser = "c" } }, function(listing)
  render(0, listing)
  print(listing.path, listing.ok, listing.entires)
end)
client.on("pai/jobLog", function(p) print(p.text, p.taskCount, p.tsk) end)
''')
    found = {r.what for r in Reader(api.schema()).check(source)}
    assert found == {"pai.hdfs.ls: argument key clutser", "pai.hdfs.ls.entries[].sise", "pai.hdfs.ls.entires", "pai/jobLog.tsk"}


@pytest.mark.subprocess  # tsc
@pytest.mark.skipif(not (VSCODE / "node_modules" / "typescript").exists() or shutil.which("node") is None,
                    reason="the VS Code client's packages are not installed (npm ci in editor-clients/vscode)")
def test_the_vscode_client_compiles_against_the_protocol_and_a_wrong_field_would_not(tmp_path):
    tsc = [str(VSCODE / "node_modules" / ".bin" / "tsc")]
    done = subprocess.run([*tsc, "-p", str(VSCODE), "--noEmit"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout
    probe = tmp_path / "probe.ts"
    shutil.copy(VSCODE / "src" / "protocol.ts", tmp_path / "protocol.ts")
    probe.write_text('import { Commands } from "./protocol";\n'
                     'export function f(r: Commands["pai.jobs.list"]["result"]): string { return r.jobs[0].nmae; }\n')
    wrong = subprocess.run([*tsc, "--noEmit", "--strict", str(probe)], capture_output=True, text=True, timeout=300)
    assert wrong.returncode != 0 and "nmae" in wrong.stdout
