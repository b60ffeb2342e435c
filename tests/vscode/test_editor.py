"""Editing a job config in a real VS Code: the extension starts, a mistake shows in Problems with our
code and a squiggle, hover explains a field, a quick fix
corrects it, completion offers the right key."""

from __future__ import annotations

import pytest

from .harness import REPO

pytestmark = pytest.mark.timeout(600)

MNIST = (REPO / "examples" / "mnist" / "mnist.pai.json").read_text()


def test_a_mistake_shows_in_problems_with_our_code(workbench):
    workbench.open_file("mnist.pai.json")
    workbench.double_click_word("mnist.pai.json", '"memoryMB"')
    workbench.page.keyboard.type("memoryMb")
    rows = workbench.wait_for(lambda: [r for r in workbench.problems() if "memoryMb" in r], "the mistake in Problems")
    (row,) = rows
    assert 'Unknown key "memoryMb"' in row and "pai schema.unknown-key" in row and "Did you mean \"memoryMB\"?" in row
    workbench.wait_for(lambda: workbench.editor("mnist.pai.json").locator(".squiggly-error").count(), "the squiggle")
    assert "Did you mean" in workbench.hover_text()  # the hover on the squiggle says it too
    workbench.screenshot("editor-diagnostic", docs="vscode-diagnostic.png")
    workbench.quick_fix('Replace with "memoryMB"')
    workbench.wait_for(lambda: '"memoryMB": 1024' in workbench.editor_text("mnist.pai.json"), "the fix in the editor")
    workbench.wait_for(lambda: not [r for r in workbench.problems() if "memoryMb" in r], "Problems to clear")


def test_hover_explains_a_field(workbench, workspace):
    (workspace / "hover.pai.json").write_text(MNIST)
    workbench.open_file("hover.pai.json")
    line = next(i for i, text in enumerate(MNIST.splitlines(), 1) if '"memoryMB"' in text)
    workbench.go_to(line, MNIST.splitlines()[line - 1].index("memoryMB") + 3)
    text = workbench.hover_text()
    assert "Memory for each task" in text, text
    workbench.screenshot("hover")
    workbench.page.keyboard.press("Escape")


def test_completion_offers_memoryMB(workbench, workspace):
    lines = [text for text in MNIST.splitlines() if '"memoryMB"' not in text]
    (workspace / "complete.pai.json").write_text("\n".join(lines) + "\n")
    workbench.open_file("complete.pai.json")
    line = next(i for i, text in enumerate(lines, 1) if '"cpuNumber"' in text)
    workbench.go_to(line, len(lines[line - 1]) + 1)  # end of the cpuNumber line
    workbench.page.keyboard.press("Enter")
    workbench.page.keyboard.type('"mem')
    labels = workbench.completions()
    assert any(label.startswith("memoryMB") for label in labels), labels
    workbench.screenshot("completion")
    workbench.page.keyboard.press("Escape")


def test_format_document_and_the_outline(workbench, workspace):
    """Format Document lays a one-line config out (with the editor's indentation); the Outline shows the
    job and its task roles."""
    import json

    (workspace / "compact.pai.json").write_text(json.dumps(json.loads(MNIST), separators=(",", ":")) + "\n")
    workbench.open_file("compact.pai.json")
    workbench.command("Format Document")
    workbench.wait_for(lambda: '"jobName": "mnist",' in workbench.editor_text("compact.pai.json"), "the config laid out")
    lines = workbench.editor_text("compact.pai.json").splitlines()
    assert lines[:2] == ["{", '    "jobName": "mnist",'] and len(lines) > 10, lines  # VS Code's indent for a new file: 4
    workbench.command("Explorer: Focus on Outline View")
    workbench.wait_for(lambda: workbench.view_texts("Outline") == ["mnist openpai/pai.example.tensorflow", "train × 1"],
                       "the job (with its image) and its role (with its tasks) in the Outline")
    workbench.screenshot("outline")


V2_JOB = """\
protocolVersion: 2
name: demo_job
type: job
prerequisites:
  - name: img
    type: dockerimage
    uri: ubuntu:18.04
taskRoles:
  worker:
    instances: 2
    dockerImage: ubuntu:18.04
    resourcePerInstance:
      cpu: 1
      memoryMB: 1024
      gpu: 0
    commands:
      - python train.py
"""


def test_a_v2_job_in_yaml_gets_problems_and_completion(workbench, workspace):
    """A *.pai.yaml file is a PAI job in its own YAML language: the image written where a prerequisite's
    name goes shows in Problems, and completion offers the keys a task role may have, indented for YAML."""
    (workspace / "job.pai.yaml").write_text(V2_JOB)
    workbench.open_file("job.pai.yaml")
    (row,) = workbench.wait_for(lambda: [r for r in workbench.problems() if "v2.uri-not-prerequisite" in r],
                                "the v2 mistake in Problems")
    assert "dockerImage names a prerequisite, not an image" in row
    workbench.wait_for(lambda: workbench.editor("job.pai.yaml").locator(".squiggly-error").count(), "the squiggle")
    lines = V2_JOB.splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "instances: 2" in text)
    workbench.go_to(line, len(lines[line - 1]) + 1)  # end of the instances line
    workbench.page.keyboard.press("Enter")
    workbench.page.keyboard.type("extraC")
    labels = workbench.completions()
    assert any(label.startswith("extraContainerOptions") for label in labels), labels
    workbench.page.keyboard.press("Enter")
    workbench.wait_for(lambda: "    extraContainerOptions:\n" in workbench.editor_text("job.pai.yaml"), "the key, indented as YAML")
    workbench.screenshot("v2-completion")
