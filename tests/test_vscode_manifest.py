"""The VS Code extension's Settings UI offers every `pai.*` setting the server reads, with the
server's default (core/model.py `Settings`: the one place defaults are defined), in English and
Chinese."""

from __future__ import annotations

import json
from dataclasses import MISSING, fields

from pai_lsp.core.model import Settings

from .helpers.paths import ROOT

EXTENSION = ROOT / "editor-clients" / "vscode"


def _default(field) -> object:
    if field.metadata["key"] == "pai.job.upload.storage":
        return {}  # an object of clusters in the editor, read as (cluster, storage, path) rows
    value = field.default_factory() if field.default is MISSING else field.default
    return list(value) if isinstance(value, tuple) else value


def test_every_server_setting_is_contributed_with_its_default():
    manifest = json.loads((EXTENSION / "package.json").read_text())
    contributed = manifest["contributes"]["configuration"]["properties"]
    english = json.loads((EXTENSION / "package.nls.json").read_text())
    chinese = json.loads((EXTENSION / "package.nls.zh-cn.json").read_text())
    for field in fields(Settings):
        key = field.metadata["key"]
        assert key in contributed, f"{key} is not in package.json contributes.configuration"
        entry = contributed[key]
        if key != "pai.locale":  # the server's None is "the editor's language", the setting's ""
            assert entry["default"] == _default(field), key
        text = (entry.get("markdownDescription") or entry.get("description", "")).strip("%")
        assert english.get(text) and chinese.get(text), f"{key}: no English or Chinese description ({text})"


def test_the_job_files_vscode_is_told_of_are_the_servers():
    """VS Code needs the job-file patterns in the manifest (the languages' file names, activation); the
    extension reads them from there, and they are the registry's (a new format adds its patterns there,
    to the language of its syntax: `pai-job` for JSON, `pai-job-yaml`, coloured by VS Code's YAML grammar,
    for YAML)."""
    from pai_lsp.core.formats import FORMATS, patterns

    manifest = json.loads((EXTENSION / "package.json").read_text())
    languages = {entry["id"]: entry for entry in manifest["contributes"]["languages"]}
    language_of = {"json": "pai-job", "yaml": "pai-job-yaml"}
    for job_format in FORMATS:
        assert set(job_format.patterns) <= set(languages[language_of[job_format.syntax]]["filenamePatterns"]), job_format.name
    assert languages["pai-job"]["filenamePatterns"] + languages["pai-job-yaml"]["filenamePatterns"] == patterns()
    assert [e for e in manifest["activationEvents"] if e.startswith("workspaceContains:")] == [
        f"workspaceContains:**/{pattern}" for pattern in patterns()]
    grammars = {g["language"]: g["path"] for g in manifest["contributes"]["grammars"]}
    yaml_grammar = json.loads((EXTENSION / grammars["pai-job-yaml"]).read_text())
    assert yaml_grammar["patterns"] == [{"include": "source.yaml"}]
    assert "pai.json" not in json.dumps(manifest["contributes"]["menus"])  # menus follow the language, not names


def test_every_job_menu_entry_serves_both_job_languages():
    """Submit, Run Locally and both previews are offered on a `*.pai.yaml` as on a `*.pai.json`: an entry
    naming one job language only would hide it from the other's files."""
    manifest = json.loads((EXTENSION / "package.json").read_text())
    entries = [(place, entry) for place, items in manifest["contributes"]["menus"].items() for entry in items
               if "LangId" in entry.get("when", "")]
    assert {entry["command"] for _, entry in entries} >= {"pai-lsp.submitJob", "pai-lsp.runLocally",
                                                          "pai-lsp.previewUpload", "pai-lsp.previewRendered"}
    for place, entry in entries:
        assert "LangId =~ /^pai-job(-yaml)?$/" in entry["when"], (place, entry)
