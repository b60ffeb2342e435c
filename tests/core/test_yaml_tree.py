"""The YAML reader of v2 job files (pai_lsp/core/yaml/tree.py), in process: exact str offsets,
one error per mistake with the rest of the tree usable, aliases and merge keys with their
anchors' positions, bounds on what aliases expand to, several documents, edits of a large file."""

from __future__ import annotations

import json
import random

import pytest

from pai_lsp.core.jsonc import find, node_at
from pai_lsp.core.yaml.tree import MAX_ALIAS_NODES, MAX_DEPTH, SPLIT_LINES, parse

JOB = """\
protocolVersion: 2
name: 训练_job  # a comment
type: job
prerequisites:
  - name: img
    type: dockerimage
    uri: "openpai/standard:python_3.6-pytorch_1.2.0-gpu"
taskRoles:
  worker:
    instances: 2
    dockerImage: img
    resourcePerInstance: {cpu: 4, memoryMB: 8192, gpu: 1}
    commands:
      - echo "héllo 🚀" $PAI_TASK_INDEX
      - >-
        python train.py
        --lr 0.1
"""


def span(text: str, node) -> str:
    return text[node.start:node.end]


def codes(doc) -> list[str]:
    return [e.code for e in doc.errors]


# -- positions --------------------------------------------------------------------------------

def test_keys_and_values_have_exact_str_offsets_past_non_ascii_text():
    doc = parse(JOB)
    assert doc.errors == []
    assert doc.comments and JOB[doc.comments[0][0]:doc.comments[0][1]] == "# a comment"
    name = doc.root.get_property("name")
    assert span(JOB, name.key) == "name" and span(JOB, name.value_node) == "训练_job"
    worker = find(doc.root, ["taskRoles", "worker"])
    assert span(JOB, worker.get_property("dockerImage").key) == "dockerImage"
    cpu = find(doc.root, ["taskRoles", "worker", "resourcePerInstance", "cpu"])
    assert span(JOB, cpu) == "4" and cpu.value == 4 and cpu.type == "number"
    commands = find(doc.root, ["taskRoles", "worker", "commands"])
    first, folded = commands.children
    assert span(JOB, first) == 'echo "héllo 🚀" $PAI_TASK_INDEX' and first.value == span(JOB, first)
    assert folded.value == "python train.py --lr 0.1"
    assert find(doc.root, ["prerequisites", 0, "uri"]).value == "openpai/standard:python_3.6-pytorch_1.2.0-gpu"
    # Offsets after the emoji (4 bytes in UTF-8, one str character) are still right.
    assert span(JOB, folded) .startswith(">-") and JOB[folded.end - 3 : folded.end] == "0.1"


def test_the_tree_is_the_one_the_json_tools_walk():
    doc = parse(JOB)
    worker = find(doc.root, ["taskRoles", "worker"])
    assert worker.path() == ["taskRoles", "worker"]
    assert find(doc.root, ["taskRoles", "worker", "commands", 1]).path() == ["taskRoles", "worker", "commands", 1]
    offset = JOB.index("8192")
    assert node_at(doc.root, offset).value == 8192
    prop = worker.get_property("instances")
    assert prop.type == "property" and prop.colon == JOB.index(":", JOB.index("instances"))
    assert doc.root.value["taskRoles"]["worker"]["resourcePerInstance"] == {"cpu": 4, "memoryMB": 8192, "gpu": 1}


def test_a_key_with_no_value_is_null_and_a_typed_value_is_read_as_js_yaml_does():
    text = "a:\nb: yes\nc: 0o17\nd: 012\ne: .inf\nf: ~\ng: 2001-12-14\n"
    doc = parse(text)
    value = doc.root.value
    assert value["a"] is None and value["b"] == "yes" and value["c"] == "0o17" and value["d"] == 10
    assert value["e"] == float("inf") and value["f"] is None and str(value["g"]) == "2001-12-14"
    a = doc.root.get("a")
    assert a.type == "null" and a.start == a.end == text.index(":") + 1  # where the value would be typed
    assert doc.root.get("g").type == "timestamp"


# -- recovery ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, key", [
    ("taskRoles:\n  w:\n    instances: 1\n    dock\n    commands:\n      - x\nname: n\n", "dock"),  # inside
    ("taskRoles:\n  w:\n    instances: 1\n    dock", "dock"),  # at the end of the file
    ("taskRoles:\n  w:\n    dock\n    instances: 1\nname: n\n", "dock"),  # above a key: no multi-line key
    ("name: n\nty", "ty"),  # at the top level
    ("taskRoles:\n  w:\n    resourcePerInstance:\n      gpu: 1\n    dock\n      cpu: 4\n    instances: 1\nname: n\n", "dock"),  # above a block
])
def test_a_key_typed_without_its_colon_is_one_error_and_the_rest_stays(text, key):
    doc = parse(text)
    assert codes(doc) == ["syntax.missing-colon"]
    at = text.index(key) + len(key)
    assert (doc.errors[0].start, doc.errors[0].end) == (at, at)
    typed = node_at(doc.root, at)
    assert typed.value == key and typed.parent.type == "property" and typed.parent.value_node is None
    if "instances" in text:
        assert find(doc.root, ["taskRoles", "w", "instances"]).value == 1
    if "name: n" in text:
        assert doc.root.get("name").value == "n"


def test_a_dangling_dash_is_a_null_item_and_no_error():
    text = "commands:\n  - \n  - python x.py\nname: n\n"
    doc = parse(text)
    assert doc.errors == []
    assert doc.root.value == {"commands": [None, "python x.py"], "name": "n"}
    dangling = find(doc.root, ["commands", 0])
    assert dangling.start == text.index("-") + 1


@pytest.mark.parametrize("text, code, at", [
    ("a: {x: 1\nb: 2\n", "syntax.unclosed-object", "{"),
    ("a: [1, 2\nb: 2\n", "syntax.unclosed-array", "["),
    ('a: "abc\nb: 2\n', "syntax.yaml-unclosed-quote", '"'),
    ("a:\n  x: 1\n   y: 2\nb: 2\n", "syntax.yaml-indentation", "y: 2"),
    ("a:\n\tx: 1\nb: 2\n", "syntax.yaml-tab", "\t"),
    ("a: 1\nb: 2\nb: 3\n", "syntax.yaml-duplicate-key", "b: 3"),
])
def test_one_mistake_is_one_error_at_its_place_and_later_keys_survive(text, code, at):
    doc = parse(text)
    assert codes(doc) == [code]
    assert doc.errors[0].start == text.index(at)
    assert doc.root.get("b").value in (2, 3)


ROLE_FILE = """\
protocolVersion: 2
name: demo
type: job
prerequisites:
  - name: img
    type: dockerimage
    uri: ubuntu
taskRoles:
  worker:
    instances: 2
    completion:
      minFailedInstances: 1
    dockerImage: img
    resourcePerInstance:
      gpu: 1
      cpu: 4
    commands:
      - echo hi
      - python train.py
extras:
  com.microsoft.pai.runtimeplugin:
    - plugin: ssh
      parameters:
        jobssh: true
"""


@pytest.mark.parametrize("old, new, code, at", [
    ("    instances: 2", "   instances: 2", "syntax.yaml-indentation", "instances: 2"),  # one space short
    ("    dockerImage: img", "     dockerImage: img", "syntax.yaml-indentation", "dockerImage: img"),  # one too many
    ("      gpu: 1\n      cpu: 4", "     gpu: 1\n      cpu: 4\n      memoryMB: 8", "syntax.yaml-indentation", "gpu: 1"),
    ("      gpu: 1\n      cpu: 4", "      gpu: 1\n       cpu: 4", "syntax.yaml-indentation", "cpu: 4"),
    ("    - plugin: ssh", "    - plugin ssh", "syntax.missing-colon", " ssh"),
    ("    dockerImage: img", "    dockerImage img", "syntax.missing-colon", "dockerImage img"),
    ("      - echo hi", "      - echo hi\n      newkey", "syntax.yaml-unexpected", "newkey"),
    ("taskRoles:", "taskRoles", "syntax.missing-colon", "\n  worker"),
    ("    resourcePerInstance:", "    , resourcePerInstance:", "syntax.yaml-unexpected", ", resourcePerInstance"),  # a stray ','
    ("      - echo hi\n      - python train.py", "      - |\n           # header\n          echo hi\n          python train.py",
     "syntax.yaml-indentation", "# header"),  # a block scalar's first line indented more than the rest
    ("    commands:", "    commands:\n  - stray", "syntax.yaml-unexpected", "- stray"),
])
def test_a_mistake_in_a_line_is_one_error_on_that_line(old, new, code, at):
    text = ROLE_FILE.replace(old, new, 1)
    doc = parse(text)
    assert [(e.code, text.count("\n", 0, e.start)) for e in doc.errors] == [(code, text.count("\n", 0, text.index(at)))]
    assert doc.root.get("extras") is not None and doc.root.get("name").value == "demo"
    # What the mended line holds, and what comes after it, is where the text has it.
    moved = find(doc.root, ["taskRoles", "worker", at.split(":")[0].strip()]) if ": " in at else None
    if moved is not None:
        assert span(text, moved) == at.split(": ")[1] and span(text, moved.parent.key) == at.split(":")[0]
    jobssh = find(doc.root, ["extras", "com.microsoft.pai.runtimeplugin", 0, "parameters", "jobssh"])
    assert span(text, jobssh) == "true" and jobssh.start == text.index("true")
    assert span(text, doc.root.get_property("extras").key) == "extras"


def test_random_edits_never_raise_and_always_leave_a_document():
    text = JOB
    for cut in range(0, len(JOB), 7):
        for broken in (text[:cut], text[:cut] + "\n  x", text[:cut] + ": [" + text[cut:], text[:cut] + "\t" + text[cut:]):
            doc = parse(broken)
            for error in doc.errors:
                assert 0 <= error.start <= error.end <= len(broken)
            if doc.root is not None:
                json.dumps(doc.root.value, default=str)


# -- anchors, aliases, merge keys ---------------------------------------------------------------

MERGED = """\
defaults: &res
  cpu: 4
  gpu: 1
taskRoles:
  a:
    resourcePerInstance: *res
  b:
    resourcePerInstance:
      <<: *res
      gpu: 2
"""


def test_a_value_reached_through_an_alias_is_its_anchors_node():
    doc = parse(MERGED)
    assert doc.errors == []
    anchor = doc.root.get("defaults")
    through = find(doc.root, ["taskRoles", "a", "resourcePerInstance"])
    assert through is anchor and span(MERGED, through).startswith("cpu: 4")
    assert find(doc.root, ["taskRoles", "a", "resourcePerInstance", "cpu"]).start == MERGED.index("cpu: 4") + 5
    name, start, end, target = doc.aliases[0]
    assert (name, MERGED[start:end], target) == ("res", "*res", anchor)
    assert doc.anchors == [anchor] and anchor.anchor == "res"


def test_merge_keys_merge_as_js_yaml_does_and_point_at_the_anchor():
    doc = parse(MERGED)
    b = find(doc.root, ["taskRoles", "b", "resourcePerInstance"])
    assert b.value == {"cpu": 4, "gpu": 2}  # its own keys win
    assert b.get("cpu") is find(doc.root, ["defaults", "cpu"])  # a merged key: the anchor's node
    assert [p.key.value for p in b.properties()] == ["gpu"]  # `<<` is no key of its own
    assert [p.key.value for p in b.children] == ["<<", "gpu"]


def test_bad_aliases_are_one_error_each_and_read_as_null():
    doc = parse("a: *nope\nb: &x [1, *x]\n")
    assert codes(doc) == ["syntax.yaml-unknown-alias", "syntax.yaml-recursive-alias"]
    assert doc.root.value == {"a": None, "b": [1, None]}
    assert codes(parse("a: {<<: 1}\n")) == ["syntax.yaml-bad-merge"]


@pytest.mark.timeout(60)  # expanded, it would never end
def test_a_yaml_bomb_is_one_error_not_a_hang():
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    text = "\n".join(levels) + "\n"  # 10**10 values once expanded
    doc = parse(text)
    # The value is bounded by the limit (the rest reads as null): a few bytes per node, not 10**10 of them.
    assert len(json.dumps(doc.root.value)) < 8 * MAX_ALIAS_NODES
    assert codes(doc) == ["syntax.yaml-alias-limit"]
    assert doc.errors[0].args == {"limit": MAX_ALIAS_NODES}


def test_aliases_cannot_nest_values_past_the_depth_limit():
    lines = ["l0: &l0 " + "[" * 40 + "]" * 40]
    lines += [f"l{i}: &l{i} " + "[" * 30 + f"*l{i - 1}" + "]" * 30 for i in range(1, 6)]
    doc = parse("\n".join(lines) + "\n")
    assert "syntax.yaml-alias-limit" in codes(doc)
    json.dumps(doc.root.value)  # no RecursionError anywhere down the tree


def test_deep_nesting_is_one_error_and_no_recursion_error():
    text = "a: " + "[" * 5000 + "]" * 5000 + "\nb: 1\n"
    doc = parse(text)
    assert codes(doc) == ["syntax.too-deep"]
    assert doc.root.get("b").value == 1
    json.dumps(doc.root.value)
    assert MAX_DEPTH == 64


# -- documents ------------------------------------------------------------------------------

def test_a_second_document_is_one_error_and_the_first_is_the_job():
    text = "a: 1\n---\nb: 2\n"
    doc = parse(text)
    assert codes(doc) == ["syntax.yaml-multi-document"] and doc.documents == 2
    assert text[doc.errors[0].start:doc.errors[0].end] == "---"
    assert doc.root.value == {"a": 1}
    for single in ("---\na: 1\n", "a: 1\n...\n", "%YAML 1.2\n---\na: 1\n"):
        assert parse(single).errors == [] and parse(single).root.value == {"a": 1}, single


def test_an_empty_file_says_so():
    for text in ("", "\n\n", "# only a comment\n"):
        doc = parse(text)
        assert doc.root is None and codes(doc) == ["syntax.yaml-empty"]


# -- large files and edits --------------------------------------------------------------------

def big_job(roles: int) -> str:
    out = ["protocolVersion: 2", "name: big", "type: job", "taskRoles:"]
    for i in range(roles):
        out += [f"  worker{i}:", "    instances: 2", "    dockerImage: img",
                "    resourcePerInstance: {cpu: 4, memoryMB: 8192, gpu: 1}", "    commands:",
                f"      - echo {i} 你好", "      - >-", "        python train.py", "        --lr 0.1"]
    return "\n".join(out) + "\ndefaults: {virtualCluster: default}\n"


@pytest.mark.slow  # 36,000 lines on purpose: the full suite runs it, `-m unit` stays quick
def test_a_file_longer_than_tree_sitter_yaml_reads_in_one_go_is_read_whole():
    text = big_job(4000)  # 36,000 lines: tree-sitter-yaml alone stops at 32,768
    assert text.count("\n") > 32_768 > SPLIT_LINES
    doc = parse(text)
    assert doc.errors == []
    roles = doc.root.get("taskRoles")
    assert len(roles.children) == 4000 and roles.path() == ["taskRoles"]
    last = find(doc.root, ["taskRoles", "worker3999", "commands", 0])
    assert span(text, last) == "echo 3999 你好"
    assert doc.root.get("defaults").value == {"virtualCluster": "default"}


def test_an_edit_reads_again_only_what_it_touched_and_equals_a_fresh_parse():
    text = big_job(300)
    doc = parse(text)
    untouched = find(doc.root, ["taskRoles", "worker10", "commands"])
    after = find(doc.root, ["taskRoles", "worker200", "instances"])
    at = text.index("worker150:") + len("worker150:\n")
    typed = text[:at] + "    dock\n" + text[at:]
    edited = doc.edit(at, at, "    dock\n")
    fresh = parse(typed)
    assert edited.root.value == fresh.root.value
    assert [(e.code, e.start, e.end) for e in edited.errors] == [(e.code, e.start, e.end) for e in fresh.errors] \
        == [("syntax.missing-colon", at + 8, at + 8)]
    assert find(edited.root, ["taskRoles", "worker10", "commands"]) is untouched  # reused
    moved = find(edited.root, ["taskRoles", "worker200", "instances"])
    assert moved is after and span(typed, moved) == "2"  # reused and moved
    back = edited.edit(at, at + 9, "")
    assert back.errors == [] and back.root.value == parse(text).root.value


def test_an_edit_that_unsplits_an_entry_equals_a_fresh_parse():
    """`taskRoles:` read as its own line with its roles after it: an edit that leaves it with no
    value (a character typed at the start of the next line) must not keep the roles it held."""
    text = big_job(115)  # read in pieces
    doc = parse(text)
    at = text.index("  worker0:")
    edited = doc.edit(at, at, "0")
    fresh = parse(text[:at] + "0" + text[at:])
    assert edited.root.value == fresh.root.value and fresh.root.value["taskRoles"] is None
    assert [(e.code, e.start) for e in edited.errors] == [(e.code, e.start) for e in fresh.errors]


@pytest.mark.slow  # a search over many edits: the full suite runs it, `-m unit` stays quick
def test_a_chain_of_edits_always_equals_a_fresh_parse():
    text = big_job(115)  # read in pieces
    doc = parse(text)
    rng = random.Random(20)
    for _ in range(25):
        at = rng.randrange(len(text))
        end = min(len(text), at + rng.choice([0, 0, 1, 3, 40]))
        new = rng.choice(["", "x", ": ", "\n", "\n    dock\n", "  ", "- a\n", "worker9999:\n"])
        text = text[:at] + new + text[end:]
        doc = doc.edit(at, end, new)
        fresh = parse(text)
        assert doc.text == text
        assert [(e.code, e.start, e.end) for e in doc.errors] == [(e.code, e.start, e.end) for e in fresh.errors]
        assert (doc.root.value if doc.root else None) == (fresh.root.value if fresh.root else None)
        for node in (doc.root.get("taskRoles"), doc.root.get("defaults")) if doc.root is not None else ():
            if node is not None:
                assert text[node.start:node.end] == text[fresh.root.get_property(node.parent.key.value).value_node.start:
                                                         fresh.root.get_property(node.parent.key.value).value_node.end]


def test_parses_in_several_threads_at_once_agree():
    """The server parses off its event loop: tree-sitter parsers are per thread."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [big_job(20), JOB, MERGED, ROLE_FILE.replace("    dockerImage: img", "    dockerImage img")] * 4
    expected = [(parse(t).root.value, [(e.code, e.start) for e in parse(t).errors]) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: (parse(t).root.value, [(e.code, e.start) for e in parse(t).errors]), texts))
    assert got == expected


def test_every_error_the_reader_reports_has_its_message_in_english_and_chinese():
    import re as regex
    from pathlib import Path

    from pai_lsp.core import messages

    sources = " ".join(p.read_text(encoding="utf-8") for p in (Path(messages.__file__).parent / "yaml").glob("*.py"))
    codes = set(regex.findall(r"\"(syntax\.[a-z-]+)\"", sources))
    assert len(codes) >= 15
    for code in codes:
        assert messages.severity(code) == messages.ERROR, code
        assert messages.template(code, None) != messages.template(code, "zh-CN"), code


def test_an_error_on_no_node_of_its_own_is_said_once():
    # Found by tests/test_properties_v2.py: tree-sitter says the tree has an error, yet no ERROR or
    # MISSING node holds it.
    text = ("protocolVersion: 2\nname: demo_job\ntype: job\n# the image the roles run in\nprerequisites:\n  - name: img\n"
            "    type: docrimage\n    uri: ubuntu:18.04\nparameters:\n |\n\n]Aes:\n  worker:\n   $,&>:ockerImage: img\n"
            "   rrA-$\n      cpu: 1\n      memoryMB: 1024\n      gpu: 0\n      ports:\n        tb: 1\n    commands:\n"
            "      - python train.py --epochs <% $parameters.epochs %>  # keep me\n"
            "      - echo $PAI_TASK_ROLE_worker_HOST_LIST $PAI_PORT_LIST_worker_0_tb\nde")
    doc = parse(text)
    assert doc.errors and all(0 <= e.start <= e.end <= len(text) for e in doc.errors)
