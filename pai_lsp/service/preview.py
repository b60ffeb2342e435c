"""What a submit would do, without doing it: `pai submit|run --dry-run` and the editor's "Preview
Upload". The job's name and its config after substitution, and the files the upload would send
(service/selection.py: the same ones `submit` sends), with how many the last upload there already has.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.messages import pick
from ..core.upload import size_text
from .jobs import job_settings, prepare
from .selection import choose

if TYPE_CHECKING:
    from ..clusters.backend import Backend


def preview(backend: Backend, config_path: Path, settings: dict | None = None, locale: str | None = None,
            shown: str | None = None, list_files: bool = False) -> dict:
    """Everything a submit of `config_path` would do, without doing it: the job's name and final
    config, the files it would upload (and how many of them the last upload there already has)."""
    config_path = Path(config_path)
    chosen_settings = job_settings(config_path, settings, locale)
    prepared = prepare(config_path, chosen_settings, backend, shown)
    upload: dict[str, Any] | None = None
    if prepared.code_dir:
        chosen = choose(prepared.workspace, chosen_settings)
        summary = chosen.facts(chosen_settings)
        upload = {"workspace": str(prepared.workspace), "remote": prepared.code_dir, "files": summary.files,
                  "bytes": summary.bytes, "largest": [list(p) for p in summary.largest],
                  "dataLike": [list(p) for p in summary.data_like],
                  "unchanged": backend.unchanged(chosen.files, prepared.code_dir),
                  "maxFiles": summary.max_files, "maxBytes": summary.max_bytes,
                  "overLimits": summary.over_limits(chosen_settings.locale), "problems": list(summary.problems)}
        if list_files:
            upload["entries"] = [[f.rel, size] for f, size in zip(chosen.files, chosen.sizes, strict=True)]
    result = {"job": prepared.name, "cluster": backend.profile.name, "user": backend.profile.user,
              "file": shown or str(config_path), "generatedName": chosen_settings.generate_job_name,
              "upload": upload, "config": prepared.config}
    result["text"] = render(result, chosen_settings.locale)
    return result


def render(result: dict, locale: str | None) -> str:
    """The preview as people read it (the CLI prints it, editors show it as a document)."""
    def t(en: str, zh: str) -> str:
        return pick(locale, en, zh)

    lines = [t(f"Dry run of {result['file']}: nothing was sent.", f"{result['file']} 的试运行：未发送任何内容。"), ""]
    drawn = t(" (a new name is drawn at submit)", "（提交时会重新生成名称）") if result["generatedName"] else ""
    lines.append(t("job name: ", "作业名称：") + result["job"] + drawn)
    lines.append(t("cluster:  ", "集群：    ") + f"{result['cluster']} ({t('as', '用户')} {result['user']})")
    up = result["upload"]
    if up is None:
        lines.append(t("upload:   none (no codeDir, or pai.job.upload.enabled is false)",
                       "上传：    无（没有 codeDir，或 pai.job.upload.enabled 为 false）"))
    else:
        lines.append(t(f"upload:   {up['files']:,} file{'s' * (up['files'] != 1)}, {size_text(up['bytes'])} from {up['workspace']} "
                       f"to {up['remote']}",
                       f"上传：    {up['files']:,} 个文件，共 {size_text(up['bytes'])}，从 {up['workspace']} 到 {up['remote']}"))
        lines.append(t(f"          {up['unchanged']:,} unchanged since the last upload there (skipped), "
                       f"{up['files'] - up['unchanged']:,} to send",
                       f"          {up['unchanged']:,} 个自上次上传后未改变（跳过），{up['files'] - up['unchanged']:,} 个需发送"))
        if up["largest"]:
            lines += ["", t("largest files:", "最大的文件：")]
            lines += [f"  {size_text(size):>10}  {rel}" for rel, size in up["largest"]]
        if up["overLimits"]:
            lines += ["", t(f"! over the limit: {up['overLimits']}: submit refuses it (unless --force)",
                            f"! 超出上限：{up['overLimits']}：提交会被拒绝（除非使用 --force）")]
        if up["dataLike"]:
            lines += ["", t(f"! {len(up['dataLike'])} file(s) look like data (codeDir should hold code only):",
                            f"! {len(up['dataLike'])} 个文件看起来像数据（codeDir 只应包含代码）：")]
            lines += [f"  {size_text(size):>10}  {rel}" for rel, size in up["dataLike"]]
        for problem in up["problems"]:
            lines += ["", f"! {problem}"]
        if "entries" in up:
            lines += ["", t("files:", "文件：")]
            lines += [f"  {size_text(size):>10}  {rel}" for rel, size in up["entries"]]
    lines += ["", t("config after substitution:", "替换变量后的配置：")]
    lines += json.dumps(result["config"], indent=2, ensure_ascii=False).splitlines()
    return "\n".join(lines) + "\n"
