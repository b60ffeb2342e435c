"""A workspace whose job fails the way real code does: a package three modules deep (train.py ->
pkg/data.py -> pkg/ops.py) uploaded to codeDir, and a KeyError raised at pkg/ops.py line 3."""

from __future__ import annotations

import json
from pathlib import Path

TRAIN = "from pkg.data import load\n\n\ndef main():\n    load('train')\n\n\nmain()\n"
DATA = "from pkg.ops import scale\n\n\ndef load(split):\n    return scale([1, 2, 3], split)\n"
OPS = "def scale(values, split):\n    factor = {'test': 2}\n    return [v * factor[split] for v in values]\n"
RUN = "cd $PAI_JOB_NAME && python3 train.py"


def failing_workspace(ws: Path, name: str, command: str = RUN, **role) -> Path:
    """The workspace at `ws` with `<name>.pai.json` running `command` (default: train.py)."""
    (ws / "pkg").mkdir(parents=True)
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "settings.json").write_text(json.dumps({"pai.job.upload.include": ["**/*.py"]}))
    (ws / "train.py").write_text(TRAIN)
    (ws / "pkg" / "__init__.py").write_text("")
    (ws / "pkg" / "data.py").write_text(DATA)
    (ws / "pkg" / "ops.py").write_text(OPS)
    config = {"jobName": name, "image": "python:3.11", "codeDir": "$PAI_DEFAULT_FS_URI/$PAI_USER_NAME/$PAI_JOB_NAME",
              "taskRoles": [{"name": "train", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
                             "command": command, **role}]}
    (ws / f"{name}.pai.json").write_text(json.dumps(config, indent=2) + "\n")
    return ws
