"""What a submit would do, without doing it: `pai submit|run --dry-run` and the editor's "Preview
Upload" and rendered preview. The job's name and its config after substitution (and, where its
format renders it, as the server will see it: a v2 job), and the files the upload would send
(service/selection.py: the same ones `submit` sends), with how many the last upload there already has.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..api import DebugOptions, PreviewResult, UploadPreview
from ..core.job_format import Unsendable
from ..core.messages import message
from ..core.messages import render as text
from ..core.upload_facts import size_text
from ..errors import InvalidInput
from .jobs import Prepared, SessionKey, job_settings, left_out, prepare
from .mounted_storages import opened
from .selection import choose

if TYPE_CHECKING:
    from ..clusters.backend import Backend


def preview(backend: Backend, config_path: Path, settings: dict | None = None, locale: str | None = None,
            shown: str | None = None, list_files: bool = False, show_secrets: bool = False,
            debug: DebugOptions | None = None, ssh_key: str | None = None) -> PreviewResult:
    """Everything a submit of `config_path` would do, without doing it: the job's name and final
    config, the files it would upload (and how many of them the last upload there already has).
    `rendered`: the job as the server will see it (a v2 job's YAML, its secrets masked unless
    `show_secrets`; a v1 config's JSON); `converted`: the v1 config a v1-only cluster gets instead.
    `ssh_key`: the public key a Debug Job through ssh would give a job that names none of its own."""
    config_path = Path(config_path)
    chosen_settings = job_settings(config_path, settings, locale)
    prepared = prepare(config_path, chosen_settings, backend, shown, debug=debug,
                       session_key=SessionKey(ssh_key) if ssh_key else None)
    upload: UploadPreview | None = None
    if prepared.code_dir or prepared.route:
        chosen = choose(prepared.workspace, chosen_settings)
        left_out(prepared, {f.rel for f in chosen.files}, chosen_settings, shown or str(config_path))  # refused as submit is
        summary = chosen.facts(chosen_settings)
        remote = prepared.code_dir or f"{prepared.route.storage}:{prepared.route.path}"
        upload = UploadPreview(workspace=str(prepared.workspace), remote=remote, files=summary.files,
                               bytes=summary.bytes, largest=[list(p) for p in summary.largest],
                               data_like=[list(p) for p in summary.data_like],
                               unchanged=_unchanged(backend, prepared, chosen.files),
                               max_files=summary.max_files, max_bytes=summary.max_bytes,
                               over_limits=summary.over_limits(chosen_settings.locale), problems=[p.render(chosen_settings.locale) for p in summary.problems],
                               entries=[[f.rel, size] for f, size in zip(chosen.files, chosen.sizes, strict=True)]
                               if list_files else None)
    if prepared.rendered is None:
        rendered = json.dumps(prepared.config, indent=2, ensure_ascii=False) + "\n"
    else:
        try:  # the secrets filled in may make it larger than what one job may render
            rendered = prepared.job_format.rendered(prepared.config, show_secrets=True) if show_secrets else prepared.rendered
        except Unsendable as exc:
            raise InvalidInput(message("error.at-file", file=shown or str(config_path),
                                       reason=exc.said(backend.profile.name))) from None
    config = prepared.config
    if prepared.rendered is not None and not show_secrets:
        config = prepared.job_format.masked(config)  # shown nowhere in plain text unless asked for
    result = PreviewResult(job=prepared.name, cluster=backend.profile.name, user=backend.profile.user,
                           file=shown or str(config_path), generated_name=chosen_settings.generate_job_name,
                           upload=upload, config=_json(config), rendered=rendered, v2=prepared.rendered is not None,
                           converted=_json(prepared.converted), text="", code_storage=prepared.code_storage())
    return replace(result, text=render(result, chosen_settings.locale))


def _unchanged(backend: Backend, prepared: Prepared, files: list) -> int:
    """How many of `files` the last upload to where this one goes already holds."""
    if prepared.code_dir:
        return backend.unchanged(files, prepared.code_dir)
    assert prepared.route is not None
    from ..storage.upload import unchanged_files

    with opened(backend, prepared.route.storage) as storage:
        return unchanged_files(storage, files, prepared.route.path)


def _json(value: Any) -> Any:
    """A config as JSON carries it (a v2 job's YAML may hold dates)."""
    return json.loads(json.dumps(value, default=str, ensure_ascii=False))


def render(result: PreviewResult, locale: str | None) -> str:
    """The preview as people read it (the CLI prints it, editors show it as a document)."""
    def t(code: str, **args: object) -> str:
        return text(code, locale, **args)

    lines = [t("preview.title", file=result.file), ""]
    drawn = t("preview.name-drawn") if result.generated_name else ""
    lines.append(t("preview.job-name") + result.job + drawn)
    lines.append(t("preview.cluster", cluster=result.cluster, user=result.user))
    up = result.upload
    if up is None:
        lines.append(t("preview.no-upload"))
    else:
        lines.append(t("preview.upload", files=up.files,
                       size=size_text(up.bytes), workspace=up.workspace, remote=up.remote))
        lines.append(t("preview.unchanged", unchanged=up.unchanged, send=up.files - up.unchanged))
        if up.largest:
            lines += ["", t("preview.largest")]
            lines += [f"  {size_text(size):>10}  {rel}" for rel, size in up.largest]
        if up.over_limits:
            lines += ["", t("preview.over", over=up.over_limits)]
        if up.data_like:
            lines += ["", t("preview.data", count=len(up.data_like))]
            lines += [f"  {size_text(size):>10}  {rel}" for rel, size in up.data_like]
        if result.code_storage is not None:
            to = result.code_storage
            lines += ["", t("preview.code-storage", storage=to.storage, mount=to.mount_path, folder=to.job_folder)]
            if to.chosen_by:
                lines.append(t(f"preview.code-storage-{to.chosen_by}", cluster=result.cluster))
        for problem in up.problems:
            lines += ["", f"! {problem}"]
        if up.entries is not None:
            lines += ["", t("preview.files")]
            lines += [f"  {size_text(size):>10}  {rel}" for rel, size in up.entries]
    lines += ["", t("preview.rendered" if result.v2 else "preview.config")]
    lines += result.rendered.splitlines()
    if result.converted is not None:
        lines += ["", t("preview.converted", cluster=result.cluster)]
        lines += json.dumps(result.converted, indent=2, ensure_ascii=False).splitlines()
    return "\n".join(lines) + "\n"
