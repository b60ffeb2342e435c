"""core/v2/render.py (on core/v2/templates.py): a v2 job as the server will see it. The commands are rendered as the real server
renders them (mustache 2.3 with `<%` `%>`, compared with the server's own code in tests/oracle/render.js
on the corpus and on generated templates), deployments are merged, defaults applied, secrets masked
unless asked for, and the text written reads back (js-yaml's reading) to the same job."""

from __future__ import annotations

import random

import pytest

from pai_lsp.core.v2.render import MASK, entrypoint, render
from pai_lsp.core.v2.templates import TemplateError, fill, find_templates
from pai_lsp.core.yaml.tree import parse

from ..helpers.paths import shared
from ..helpers.yaml_oracle import server_render

JOB = """\
protocolVersion: 2
name: demo
type: job
prerequisites:
  - {name: img, type: dockerimage, uri: "ubuntu:18.04", auth: {username: bob, password: "<% $secrets.registry %>"}}
  - {name: code, type: script, uri: "https://x/y.git"}
  - {name: mnist, type: data, uri: ["http://d/1.gz", "http://d/2.gz"]}
parameters: {epochs: 3, lr: 0.10, tags: [a, b]}
secrets: {token: s3cr3t, registry: hunter2}
deployments:
  - name: prod
    taskRoles:
      worker: {preCommands: ["  pip install -r req.txt"], postCommands: [echo done]}
defaults: {deployment: prod, virtualCluster: vc1}
taskRoles:
  worker:
    dockerImage: img
    script: code
    data: mnist
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands:
      - git clone <% $script.uri %> code
      - wget <% $data.uri[1] %>
      - python train.py --epochs <% $parameters.epochs %> --lr <%$parameters.lr%> --tags <% $parameters.tags %>
      - curl -H "token <% $secrets.token %>" <% $parameters.missing %>
  ps:
    instances: 2
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands: [echo ps <% $data.name %>]
"""


def job(text: str = JOB) -> dict:
    doc = parse(text)
    assert not doc.errors, doc.errors
    return doc.root.value


def test_commands_are_the_lines_the_server_runs_with_the_deployment_merged_and_secrets_masked():
    out = render(job())
    assert out.job["taskRoles"]["worker"]["commands"] == [
        "pip install -r req.txt",
        "git clone https://x/y.git code",
        "wget http://d/2.gz",
        "python train.py --epochs 3 --lr 0.1 --tags a,b",
        f'curl -H "token {MASK}" <% $parameters.missing %>',
        "echo done",
    ]
    assert out.job["taskRoles"]["ps"]["commands"] == ["echo ps <% $data.name %>"]  # ps selects no data
    assert out.job["secrets"] == MASK
    assert out.job["prerequisites"][0]["auth"]["password"] == MASK
    assert "s3cr3t" not in out.text() and "hunter2" not in out.text()
    assert "deployments" not in out.job and out.job["defaults"] == {"virtualCluster": "vc1"}
    assert out.deployment == "prod" and "deployment 'prod' merged" in out.text()


def test_secrets_are_shown_only_when_asked_for():
    out = render(job(), show_secrets=True)
    assert 'curl -H "token s3cr3t"' in out.job["taskRoles"]["worker"]["commands"][4]
    assert out.job["secrets"] == {"token": "s3cr3t", "registry": "hunter2"}
    assert out.job["prerequisites"][0]["auth"]["password"] == "hunter2"


def test_the_schema_defaults_are_applied_where_a_field_is_left_out():
    out = render(job()).job
    worker, ps = out["taskRoles"]["worker"], out["taskRoles"]["ps"]
    assert worker["instances"] == 1 and ps["instances"] == 2
    assert worker["completion"] == {"minFailedInstances": 1, "minSucceededInstances": None}
    assert worker["extraContainerOptions"] == {"shmMB": 512} and worker["taskRetryCount"] == 0
    assert out["jobRetryCount"] == 0 and out["extras"] == {"gangAllocation": True}
    assert "protocolVersion" not in worker  # a $ref's default is no field the scheduler fills in


def test_the_text_reads_back_to_the_rendered_job():
    out = render(job(JOB.replace("epochs: 3", "epochs: '1e3'")))
    back = parse(out.text())
    assert not back.errors
    assert back.root.value == out.job
    assert "'1e3'" in out.text()  # js-yaml would read a plain 1e3 as a number


@pytest.mark.parametrize(("template", "message"), [
    ("echo <% $parameters.x", "Unclosed tag at 21"),
    ("a\n<%# s %>b", 'Unclosed section "s" at 11'),
    ("<%/ s %>", 'Unopened section "s" at 0'),
    ("<%# a %><%/ b %>", 'Unclosed section "a" at 8'),
])
def test_the_parser_fails_where_the_server_fails(template, message):
    with pytest.raises(TemplateError) as caught:
        fill(template, {})
    assert str(caught.value) == message


def test_sections_comments_and_unescaped_tags_are_dropped_and_their_lines_too():
    text = "a\n  <%# sec %>  \nhidden <% $parameters.x %>\n<%/ sec %>\nb <%& raw %><%{ raw }%> <%! note %>c"
    assert fill(text, {"$parameters": {"x": 1}}) == "a\nb  c"
    assert [t.kind for t in find_templates("x <% y %><%# s %><%/ s %>")] == ["name", "#", "/"]


def test_a_role_that_fails_to_render_says_so_like_the_server():
    broken = JOB.replace("echo ps <% $data.name %>", "echo <% unclosed")
    with pytest.raises(TemplateError) as caught:
        entrypoint(job(broken), "ps")
    assert str(caught.value) == "Unclosed tag at 16"


# -- the same as the server's own code ---------------------------------------------------
def _corpus() -> list[str]:
    folder = shared("corpus", "openpai-examples", "v2")
    return [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.yaml"))]


def test_every_corpus_job_renders_as_the_server_renders_it():
    texts = _corpus() + [JOB]
    for text, real in zip(texts, server_render(texts), strict=True):
        assert real["ok"], real
        doc = job(text)
        for role, expected in real["entrypoints"].items():
            assert entrypoint(doc, role) == expected, (doc["name"], role)


PIECES = ["<% $parameters.a %>", "<%$parameters.b.c%>", "<% $parameters.l[1] %>", "<% $parameters.l.length %>",
          "<% $parameters.s.length %>", "<% $parameters.s.0 %>", "<% $script.uri %>", "<% $data.uri %>",
          "<% $parameters %>", "<% $secrets.x %>", "<%# s %>", "<%/ s %>", "<%^ t %>", "<%/ t %>", "<%! c %>",
          "<%& $parameters.a %>", "<%{ $parameters.a }%>", "<%= {{ }} =%>", "{{ $parameters.a }}", "<%",
          "%>", " ", "  ", "\n", "\t", "\u3000", "x", "echo", "'", '"', "<", "%", "[0]", ".", "$parameters.a"]


def test_generated_templates_render_and_fail_as_the_server_renders_and_fails_them():
    rng = random.Random(20)
    templates = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 9))) for _ in range(600)]
    texts, commands = [], []
    for template in templates:
        command = template.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        commands.append(template)
        texts.append(JOB.replace('commands: [echo ps <% $data.name %>]', f'commands: ["{command}"]')
                     .replace("parameters: {epochs: 3", 'parameters: {a: 7, b: {c: "d"}, l: [x, y], s: str, epochs: 3')
                     .replace("    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n    commands: [",
                              "    dockerImage: img\n    script: code\n    data: mnist\n"
                              "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n    commands: ["))
    verdicts = server_render(texts)
    assert 100 < sum(v["ok"] for v in verdicts) < len(verdicts) - 100  # both kinds, many of each
    for text, template, real in zip(texts, commands, verdicts, strict=True):
        doc = job(text)
        assert doc["taskRoles"]["ps"]["commands"] == [template]
        if real["ok"]:
            assert entrypoint(doc, "ps") == real["entrypoints"]["ps"], repr(template)
        else:
            with pytest.raises(TemplateError) as caught:
                entrypoint(doc, "ps")
            assert str(caught.value) == real["error"], repr(template)


def _repeated(value: str, uses: int, field: str = "parameters") -> dict:
    """A job whose one role uses `$<field>.big` (= `value`) `uses` times."""
    return {"protocolVersion": 2, "name": "huge", "type": "job", field: {"big": value},
            "prerequisites": [{"name": "img", "type": "dockerimage", "uri": "ubuntu:18.04"}],
            "taskRoles": {"main": {"dockerImage": "img", "resourcePerInstance": {"cpu": 1, "memoryMB": 512, "gpu": 0},
                                   "commands": [f"echo <% ${field}.big %>"] * uses}}}


def test_what_rendering_produces_is_bounded():
    """A 90 KB parameter used 3,000 times would fill in to 270 MB: refused once past the bound, with
    the catalogue's words, after producing no more than the bound (a job just under it renders)."""
    from pai_lsp.core.v2.templates import MAX_RENDERED, RenderTooLarge

    with pytest.raises(RenderTooLarge) as refused:
        render(_repeated("x" * 90_000, 3_000))
    assert refused.value.message.code == "v2.render-too-large" and "16 MB" in str(refused.value)
    uses = MAX_RENDERED // 2 // 90_010 - 1  # each role's commands are filled twice (templates, then secrets)
    assert len(render(_repeated("x" * 90_000, uses)).job["taskRoles"]["main"]["commands"]) == uses
    with pytest.raises(RenderTooLarge):  # secrets, filled in only when shown, count as much
        render(_repeated("s" * 90_000, 3_000, "secrets"), show_secrets=True)
    masked = render(_repeated("s" * 90_000, 3_000, "secrets"))  # masked: six characters each
    assert masked.job["taskRoles"]["main"]["commands"][0] == "echo ******"


def test_the_number_of_filled_tags_is_bounded(monkeypatch):
    """The steps of the work are counted (the same job is refused on any machine): here with a bound
    of 1,000 tags rather than a million, whose job takes minutes to write out."""
    from pai_lsp.core.v2 import templates as v2_templates

    monkeypatch.setattr(v2_templates, "MAX_FILLED_TAGS", 1_000)
    assert len(render(_repeated("1", 1_000)).job["taskRoles"]["main"]["commands"]) == 1_000
    with pytest.raises(v2_templates.RenderTooLarge) as refused:
        render(_repeated("1", 1_001))
    assert refused.value.message.code == "v2.render-too-many-tags" and "1,000 tags" in str(refused.value)


def test_one_job_s_budget_is_shared_by_all_its_fills():
    from pai_lsp.core.v2.templates import MAX_RENDERED, RenderTooLarge, one_job

    half = "x" * (MAX_RENDERED // 2 + 1)
    assert len(fill("<% $parameters.v %>", {"$parameters": {"v": half}})) == len(half)  # alone: within
    with one_job(), pytest.raises(RenderTooLarge):
        for _ in range(2):
            fill("<% $parameters.v %>", {"$parameters": {"v": half}})
