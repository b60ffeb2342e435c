"""Editing a v2 job file, in-process through the format registry: completion in half-typed YAML (keys
as snippets with the right indentation, values, whole roles and prerequisites, names the job
defines, template members, `$PAI_…` variables), hover, definition / references / rename, outline and
folding. `|` in a text marks the cursor."""

from __future__ import annotations

from dataclasses import asdict
from types import SimpleNamespace

import pytest

from pai_lsp.core.formats import format_for
from pai_lsp.core.job_format import RenameError
from pai_lsp.core.model import Settings

from ..helpers.configs import V2_JOB as JOB

V2 = format_for("job.pai.yaml")


def at(text: str, locale: str | None = None) -> dict:
    """Completion items by label at the `|` of `text`, each with the text it replaces."""
    offset = text.index("|")
    text = text.replace("|", "", 1)
    items = V2.complete(V2.parse(text), offset, Settings(locale=locale))
    assert all(0 <= item.start <= item.end <= len(text) for item in items)
    return {item.label: SimpleNamespace(**asdict(item), replaced=text[item.start:item.end]) for item in items}


def insert(text: str, label: str) -> str:
    """The text with the item `label` accepted, its snippet placeholders filled with their defaults."""
    import re

    offset = text.index("|")
    item = at(text)[label]
    plain = text.replace("|", "", 1)
    snippet = re.sub(r"\$\{\d+\|([^,|]*)[^}]*\}", r"\1", item.insert)
    snippet = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", snippet)
    snippet = re.sub(r"\$\{?\d+\}?", "", snippet).replace("\\$", "$")
    assert item.end >= offset
    return plain[:item.start] + snippet + plain[item.end:]


def test_keys_of_a_role_are_snippets_at_the_right_indentation():
    text = JOB.replace("    instances: 2\n", "    instances: 2\n    extraC|\n")
    items = at(text)
    assert "dockerImage" not in items and "instances" not in items  # already there
    assert items["extraContainerOptions"].replaced == "extraC"
    done = insert(text, "extraContainerOptions")
    assert "    extraContainerOptions:\n      \n" in done
    text = JOB.replace("      cpu: 1\n", "      |\n")
    assert insert(text, "cpu").count("      cpu: 4\n") == 1  # the schema's example
    assert at(JOB.replace("    dockerImage: img\n", "    |\n"))["dockerImage"].insert == "dockerImage: ${1|img|}"


def test_a_value_completes_with_what_fits():
    assert list(at(JOB.replace("dockerImage: img", "dockerImage: |"))) == ["img"]
    assert set(at(JOB.replace("type: job", "type: |"))) == {"job"}
    assert {"true", "false"} <= set(at(JOB + "extras:\n  gangAllocation: |\n"))
    text = JOB + "deployments:\n  - name: prod\n    taskRoles:\n      worker: {preCommands: [echo]}\n"
    assert list(at(text.replace("  virtualCluster: default\n", "  virtualCluster: default\n  deployment: |\n"))) == ["prod"]


def test_whole_roles_prerequisites_deployments_and_plugins():
    text = JOB.replace("taskRoles:\n", "taskRoles:\n  |\n")
    done = insert(text, "task role")
    assert "  taskrole:\n    instances: 1\n    dockerImage: img\n    resourcePerInstance:\n      cpu: 1\n" in done
    assert V2.diagnose(V2.parse(done), Settings()) == []
    text = JOB.replace("    uri: ubuntu:18.04\n", "    uri: ubuntu:18.04\n  - |\n")
    done = insert(text, "data prerequisite")
    assert "  - name: data_0\n    type: data\n    uri:\n      - hdfs://\n" in done
    assert V2.diagnose(V2.parse(done), Settings()) == []
    text = JOB + "deployments:\n  - |\n"
    done = insert(text, "deployment")
    assert "  - name: prod\n    taskRoles:\n      worker:\n        preCommands:\n          - echo start\n" in done
    assert V2.diagnose(V2.parse(done), Settings()) == []
    text = JOB + "extras:\n  com.microsoft.pai.runtimeplugin:\n    - |\n"
    assert set(at(text)) == {"ssh", "tensorboard", "teamwise_storage", "cmd"}
    done = insert(text, "ssh")
    assert done.endswith("    - plugin: ssh\n      parameters:\n        jobssh: true\n")
    assert V2.diagnose(V2.parse(done), Settings()) == []


def test_an_empty_file_gets_a_whole_job():
    done = insert("|", "OpenPAI v2 job")
    assert V2.diagnose(V2.parse(done), Settings()) == []


def test_role_names_where_roles_are_named():
    text = JOB + "deployments:\n  - name: prod\n    taskRoles:\n      |\n"
    assert list(at(text)) == ["worker"]
    assert list(at(JOB + "extras:\n  hivedScheduler:\n    taskRoles:\n      |\n")) == ["worker"]


def test_plugin_parameters_and_extras_keys():
    text = JOB + "extras:\n  com.microsoft.pai.runtimeplugin:\n    - plugin: ssh\n      parameters:\n        |\n"
    assert {"jobssh", "sshbarrier", "sshbarrierTimeout", "userssh"} == set(at(text))
    items = at(JOB + "extras:\n  |\n", "zh-CN")
    assert {"gangAllocation", "hivedScheduler", "com.microsoft.pai.runtimeplugin"} <= set(items)
    assert "成组" in items["gangAllocation"].documentation or "所有实例" in items["gangAllocation"].documentation


def test_template_members_in_commands():
    text = JOB.replace("<% $parameters.epochs %>", "<% $|")
    items = at(text)
    assert items["$parameters.epochs"].insert == "\\$parameters.epochs %>" and items["$parameters.epochs"].replaced == "$"
    assert "$secrets." in items
    items = at(JOB.replace("<% $parameters.epochs %>", "<% $parameters.ep| %>"))
    assert items["epochs"].insert == "epochs" and items["epochs"].replaced == "ep" and items["epochs"].detail == "= 10"


def test_variables_from_this_jobs_roles_and_ports():
    items = at(JOB.replace("echo $PAI_TASK_ROLE_worker_HOST_LIST", "echo $PAI_|"))
    assert {"PAI_TASK_ROLE_worker_HOST_LIST", "PAI_PORT_LIST_worker_1_tb", "PAI_CURRENT_TASK_ROLE_NAME"} <= set(items)
    assert "PAI_DATA_DIR" not in items and "PAI_PORT_LIST_worker_2_tb" not in items  # YARN only; 2 instances
    assert items["PAI_TASK_ROLE_worker_HOST_LIST"].replaced == "$PAI_"


def test_hover_explains_keys_roles_templates_and_variables():
    doc = V2.parse(JOB)
    english = V2.hover(doc, JOB.index("memoryMB"), Settings(locale="en"))
    assert "Memory per instance" in english.markdown
    chinese = V2.hover(doc, JOB.index("memoryMB"), Settings(locale="zh-CN"))
    assert "每个实例的内存" in chinese.markdown
    role = V2.hover(doc, JOB.index("worker:"), Settings())
    assert "2 instances × (1 CPU, 1 GB, 0 GPU)" in role.markdown and "Shared memory (/dev/shm): 512 MB" in role.markdown
    text = JOB.replace("    instances: 2\n", "    instances: 2\n    extraContainerOptions:\n      shmMB: 64\n")
    shm = V2.hover(V2.parse(text), text.index("shmMB"), Settings())
    assert "Default: `512`" in shm.markdown
    template = V2.hover(doc, JOB.index("$parameters.epochs"), Settings())
    assert "`<% $parameters.epochs %>` → `10`" in template.markdown and "python train.py --epochs 10" in template.markdown
    assert JOB[template.start:template.end] == "<% $parameters.epochs %>"
    variable = V2.hover(doc, JOB.index("PAI_TASK_ROLE_worker"), Settings())
    assert "every task of role worker" in variable.markdown
    image = V2.hover(doc, JOB.index("dockerImage: img") + 14, Settings())
    assert "ubuntu:18.04" in image.markdown


DEPLOYED = JOB + """\
deployments:
  - name: prod
    taskRoles:
      worker:
        preCommands: [echo $PAI_TASK_ROLE_worker_HOST_LIST]
extras:
  hivedScheduler:
    taskRoles:
      worker: {skuType: K80}
"""


def test_definition_and_references():
    doc = V2.parse(DEPLOYED)
    use = DEPLOYED.index("dockerImage: img") + 14
    (definition,) = V2.definition(doc, use)
    assert DEPLOYED[definition[0]:definition[1]] == "img" and definition[0] == DEPLOYED.index("name: img") + 6
    assert len(V2.references(doc, use)) == 2 and len(V2.references(doc, use, include_declaration=False)) == 1
    role = DEPLOYED.index("worker:")
    places = V2.references(doc, role)
    assert len(places) == 6 and {DEPLOYED[a:b] for a, b in places} == {"worker"}
    (parameter,) = V2.definition(doc, DEPLOYED.index("$parameters.epochs") + 13)
    assert DEPLOYED[parameter[0]:parameter[1]] == "epochs" and parameter[0] == DEPLOYED.index("epochs: 10")


def test_renaming_a_role_renames_it_everywhere():
    doc = V2.parse(DEPLOYED)
    offset = DEPLOYED.index("worker:") + 2
    assert V2.prepare_rename(doc, offset) == (DEPLOYED.index("worker:"), DEPLOYED.index("worker:") + 6)
    text = DEPLOYED
    for edit in sorted(V2.rename(doc, offset, "trainer"), key=lambda e: e.start, reverse=True):
        text = text[:edit.start] + edit.text + text[edit.end:]
    assert "worker" not in text and text.count("trainer") == 6
    assert V2.diagnose(V2.parse(text), Settings()) == []
    with pytest.raises(RenameError):
        V2.rename(doc, offset, "2-bad")


def test_renaming_a_prerequisite_and_a_parameter():
    doc = V2.parse(JOB)
    text = JOB
    for edit in sorted(V2.rename(doc, JOB.index("name: img") + 7, "base"), key=lambda e: e.start, reverse=True):
        text = text[:edit.start] + edit.text + text[edit.end:]
    assert "name: base" in text and "dockerImage: base" in text and V2.diagnose(V2.parse(text), Settings()) == []
    text = JOB
    for edit in sorted(V2.rename(V2.parse(text), JOB.index("epochs: 10"), "n_epochs"), key=lambda e: e.start, reverse=True):
        text = text[:edit.start] + edit.text + text[edit.end:]
    assert "n_epochs: 10" in text and "<% $parameters.n_epochs %>" in text


def test_outline_and_folding():
    doc = V2.parse(DEPLOYED)
    (job,) = V2.symbols(doc)
    assert job.name == "demo_job"
    assert [(s.kind, s.name) for s in job.children] == [("prerequisite", "img"), ("role", "worker"), ("deployment", "prod"),
                                                        ("parameter", "epochs")]
    assert [p.name for p in job.children[1].children] == ["tb"]
    lines = {(DEPLOYED.count("\n", 0, a), DEPLOYED.count("\n", 0, b)) for a, b, _ in V2.folding_ranges(doc)}
    assert (10, 22) in lines  # taskRoles: to its last command
    assert V2.format_text(doc) is None  # YAML is not rewritten
