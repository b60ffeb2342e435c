"""`extras.jobStatusChangeNotification` in a job file, in-process through the format registry: its five
flags complete (as keys, then true/false) and hover, in a v2 job and in an OpenPAI v1 config (whose
extras reach a Kubernetes-era server's v2 job as written), with the note that the cluster only
e-mails, every 120 s, where its admin set that up. `|` marks the cursor."""

from __future__ import annotations

import json

from pai_lsp.core.formats import format_for
from pai_lsp.core.model import Settings

from ..helpers.configs import V2_JOB

FLAGS = {"running", "succeeded", "stopped", "failed", "retried"}


def _at(name: str, text: str, locale: str | None = None) -> tuple[object, object, int]:
    job_format = format_for(name)
    offset = text.index("|")
    return job_format, job_format.parse(text.replace("|", "", 1)), offset


def complete(name: str, text: str, locale: str | None = None) -> dict:
    job_format, doc, offset = _at(name, text)
    return {c.label: c for c in job_format.complete(doc, offset, Settings(locale=locale))}


def hover(name: str, text: str, locale: str | None = None) -> str:
    job_format, doc, offset = _at(name, text)
    found = job_format.hover(doc, offset, Settings(locale=locale))
    assert found is not None, text
    return found.markdown


def test_v2_its_flags_complete_as_keys_then_booleans():
    items = complete("job.pai.yaml", V2_JOB + "extras:\n  jobStatusChangeNotification:\n    |\n")
    assert set(items) == FLAGS
    assert items["failed"].insert.startswith("failed: ") and "120" in items["failed"].documentation
    taken = complete("job.pai.yaml", V2_JOB + "extras:\n  jobStatusChangeNotification:\n    failed: true\n    |\n")
    assert set(taken) == FLAGS - {"failed"}
    assert {"true", "false"} <= set(complete("job.pai.yaml", V2_JOB + "extras:\n  jobStatusChangeNotification:\n    failed: |\n"))


def test_v2_hover_says_the_cluster_only_emails_every_120_s_where_its_admin_set_it_up():
    text = V2_JOB + "extras:\n  jobStatusChangeNotification:\n    failed: true\n"
    on_key = hover("job.pai.yaml", text.replace("jobStatusChange", "|jobStatusChange"))
    assert on_key.startswith("**jobStatusChangeNotification** `object`")
    assert "e-mails" in on_key and "120 s" in on_key and "admin" in on_key and "notices.json" in on_key
    on_flag = hover("job.pai.yaml", text.replace("failed: true", "fa|iled: true"))
    assert on_flag.startswith("**failed** `boolean`") and "E-mail when the job fails." in on_flag and "`false`" in on_flag
    chinese = hover("job.pai.yaml", text.replace("failed: true", "fa|iled: true"), "zh-CN")
    assert "作业失败时发邮件" in chinese and "120 秒" in chinese


def test_v1_openpai_config_completes_and_hovers_them_too():
    config = {"jobName": "j", "image": "i", "taskRoles": [{"name": "a", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100,
                                                           "command": "c"}],
              "extras": {"jobStatusChangeNotification": {"failed": True, "x": 1}}}
    text = json.dumps(config, indent=2)
    items = complete("job.pai.json", text.replace('"x": 1', '"|'))
    assert FLAGS - {"failed"} <= set(items)
    on_flag = hover("job.pai.json", text.replace('"failed"', '"fa|iled"'))
    assert "E-mail when the job fails." in on_flag and "120 s" in on_flag
    on_key = hover("job.pai.json", text.replace('"jobStatusChange', '"|jobStatusChange'))
    assert "e-mails" in on_key and "admin" in on_key
