"""Completion, hover, quick fixes, outline and formatting of the pure core, in-process, for each job-file
format (the language server maps them to LSP: tests/test_lsp_features.py)."""

from __future__ import annotations

from pai_lsp.core.model import Settings

from ..helpers.configs import PADDLE_JOB, VALID
from ..helpers.core import Buffer, fixes_of


def test_completion_in_half_typed_text():
    buffer = Buffer('{"taskRoles": [{"na')
    items = buffer.complete('"na', 3)
    assert "name" in items and "command" in items and "jobName" not in items
    name = items["name"]
    assert buffer.text[name.start:name.end] == '"na' and name.insert.startswith('"name": "') and name.kind == "property"


def test_completion_offers_only_missing_keys_with_docs():
    buffer = Buffer(VALID.replace('"taskNumber": 2,', '"taskNumber": 2,\n      '))
    items = buffer.complete('"taskNumber": 2,\n      ', len('"taskNumber": 2,\n      '))
    assert {"cpuNumber", "gpuNumber", "shmMB", "portList"} <= set(items)
    assert not set(items) & {"name", "taskNumber", "memoryMB", "command", "jobName"}
    assert items["gpuNumber"].insert == '"gpuNumber": ${1:0}' and "GPU" in items["gpuNumber"].documentation


def test_completion_of_values_and_whole_entries():
    buffer = Buffer('{"jobEnvs": {"isDebug": }, "taskRoles": [], "x": [{"name": "w", "portList": []}]}')
    assert set(buffer.complete('"isDebug": ', len('"isDebug": '))) == {"true", "false"}
    roles = buffer.complete('"taskRoles": [', len('"taskRoles": ['))
    assert list(roles) == ["task role"] and '"command"' in roles["task role"].insert


def test_completion_of_pai_variables_from_this_config():
    buffer = Buffer(VALID.replace("--hosts $PAI_TASK_ROLE_worker_HOST_LIST", "--host $PAI_HO"))
    items = buffer.complete("$PAI_HO", len("$PAI_HO"))
    assert "PAI_HOST_IP_worker_0" in items and "PAI_HOST_IP_worker_1" in items
    assert "PAI_HOST_IP_worker_2" not in items  # taskNumber is 2
    assert "PAI_CONTAINER_HOST_ssh_PORT_LIST" in items
    item = items["PAI_HOST_IP_worker_0"]
    assert buffer.text[item.start:item.end] == "$PAI_HO" and item.insert == "$PAI_HOST_IP_worker_0"


def test_hover_on_field_variable_and_role():
    for locale, words in (("en", ("Memory for each task", "Default: `100`")), ("zh-CN", ("每个任务分配的内存", "默认值: `100`"))):
        found = Buffer(VALID, settings=Settings(locale=locale)).hover('"memoryMB"', 3)
        assert all(w in found.markdown for w in words)
    buffer = Buffer(VALID)
    variable = buffer.hover("$PAI_TASK_ROLE_worker", 5)
    assert "`ip:httpPort` of every task of role worker" in variable.markdown
    assert buffer.text[variable.start:variable.end] == "$PAI_TASK_ROLE_worker_HOST_LIST"
    assert "2 tasks × (1 CPU, 8 GB, 0 GPU) = 2 CPU, 16 GB, 0 GPU" in buffer.hover('"worker"', 2).markdown


def test_quick_fix_for_a_misspelled_key():
    buffer = Buffer(VALID.replace('"memoryMB"', '"memoryMb"'))
    (diagnostic,) = buffer.diagnostics()
    assert list(fixes_of(diagnostic)) == ['Replace with "memoryMB"']
    assert buffer.apply(diagnostic.fixes[0]) == [] and buffer.text == VALID


def test_quick_fix_inserts_missing_required_fields_in_the_layout_there():
    buffer = Buffer(VALID.replace('  "image": "openpai/pai.example.tensorflow",\n', ""))
    (diagnostic,) = buffer.diagnostics()
    (fix,) = diagnostic.fixes
    assert fix.title == 'Add "image"'
    after = buffer.apply(fix)
    assert buffer.text.startswith('{\n  "image": "",\n  "jobName": "mnist",')
    # The placeholder is there to be filled in: it is flagged until it is.
    assert [(d.code, buffer.text[d.start:d.end]) for d in after] == [("schema.min-length", '""')]
    one_line = Buffer('{"image": "x", "taskRoles": [{"name": "w", "command": "c"}]}')
    (missing,) = one_line.diagnostics()
    one_line.apply(missing.fixes[0])
    assert one_line.text == '{"jobName": "", "image": "x", "taskRoles": [{"name": "w", "command": "c"}]}'


def test_quick_fix_rewrites_invalid_names():
    buffer = Buffer(VALID.replace('"mnist"', '"alice~mnist"').replace('"name": "worker"', '"name": "ps-0"').replace("_worker_", "_ps_0_"))
    errors = [d for d in buffer.diagnostics() if d.severity == "error"]
    assert len(errors) == 2
    for d in sorted(errors, key=lambda d: d.start, reverse=True):
        (fix,) = d.fixes
        buffer.apply(fix)
    assert buffer.diagnostics() == []
    assert '"alice_mnist"' in buffer.text and '"ps_0"' in buffer.text


def test_quick_fixes_of_a_paddle_job_file():
    buffer = Buffer(PADDLE_JOB, "fit.paddle.json")
    diagnostics = {d.code: d for d in buffer.diagnostics()}
    rename = fixes_of(diagnostics["paddle.name"])['Rename to "fit-a-line"']
    assert buffer.apply(fixes_of(diagnostics["paddle.registry-prefix"])['Write "pcloud-registry-mine"'])
    assert '"registry": "pcloud-registry-mine"' in buffer.text and "paddle.registry-prefix" not in buffer.found()
    buffer.apply(rename)
    assert '"name": "fit-a-line"' in buffer.text and "paddle.name" not in buffer.found()
    no_entry = Buffer(PADDLE_JOB.replace('  "entry": "python train.py --id $PADDLE_INIT_TRAINER_ID",\n', ""), "fit.paddle.json")
    (missing,) = [d for d in no_entry.diagnostics() if d.code == "paddle.no-entry"]
    no_entry.apply(fixes_of(missing)['Add "entry"'])
    assert no_entry.text.startswith('{\n  "entry": "python train.py",\n  // PaddlePaddle Cloud job')


def test_paddle_completion_and_hover():
    buffer = Buffer(PADDLE_JOB, "fit.paddle.json")
    hover = buffer.hover("$PADDLE_INIT_TRAINER_ID", 3)
    assert "sorted by address" in hover.markdown and buffer.text[hover.start:hover.end] == "$PADDLE_INIT_TRAINER_ID"
    field = buffer.hover('"parallelism"', 2)
    assert "trainers" in field.markdown and "`1`" in field.markdown
    typed = Buffer(PADDLE_JOB.replace("$PADDLE_INIT_TRAINER_ID", "$PADDLE_INIT_NUM"), "fit.paddle.json")
    labels = list(typed.complete("$PADDLE_INIT_NUM", 16))
    assert labels and all(label.startswith("PADDLE_INIT_NUM") for label in labels) and "PADDLE_INIT_NUM_GRADIENT_SERVERS" in labels
    keys = Buffer(PADDLE_JOB.replace('  "parallelism": 2,\n', '  "parallelism": 2,\n  "\n'), "fit.paddle.json")
    labels = set(keys.complete('  "\n', 3))
    assert {"pservers", "gpu", "topology", "faulttolerant"} <= labels and "jobName" not in labels and "parallelism" not in labels


def test_outline_and_folding():
    buffer = Buffer(VALID.replace('"taskNumber": 2,', '"taskNumber": 2, "portList": [{"label": "tb"}],'))
    (job,) = buffer.format.symbols(buffer.doc)
    assert job.name == "mnist" and [r.name for r in job.children] == ["worker"]
    assert [p.name for p in job.children[0].children] == ["tb"]
    lines = {(buffer.text.count("\n", 0, a), buffer.text.count("\n", 0, b)) for a, b, _ in buffer.format.folding_ranges(buffer.doc)}
    assert lines >= {(0, 11), (3, 10), (4, 9)}


def test_formatting_keeps_comments_drops_trailing_commas_and_is_stable():
    buffer = Buffer('{"jobName":"mnist", // keep me\n"image":"x","taskRoles":[{"name":"w","command":"c",}]}')
    formatted = buffer.format.format_text(buffer.doc, "  ")
    assert "// keep me" in formatted and '    {\n      "name": "w",' in formatted
    buffer.text = formatted
    assert [d.code for d in buffer.diagnostics()] == ["syntax.comment"]
    assert buffer.format.format_text(buffer.doc, "  ") == formatted
    assert Buffer('{"jobName": "mnist",, }').format.format_text(Buffer('{"jobName": "mnist",, }').doc) is None  # never loses text


def test_the_job_name_key_of_each_format():
    """Where code lenses sit and what submit names the job by."""
    assert Buffer(VALID).format.name_key == "jobName"
    assert Buffer(PADDLE_JOB, "fit.paddle.json").format.name_key == "name"
