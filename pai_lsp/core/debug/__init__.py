"""Debugging a job's tasks from the editor, the pure part: which tasks (`selector.py`), the job
rewritten so that they run their Python command under debugpy waiting for a client (`rewrite.py`,
through the job-file format's interface; the launcher each wrapped command starts, `debugpy_launcher.py`),
and, once a task says where it waits (a line of its log), the path mappings that make breakpoints
set in the workspace's files bind in the container (`targets.py`)."""

from __future__ import annotations

from .rewrite import DebugPlan, DebugRefused, Options, debugged, rewrite
from .selector import Selection, select
from .targets import Listening, listening_lines, path_mappings

__all__ = ["DebugPlan", "DebugRefused", "Listening", "Options", "Selection", "debugged", "listening_lines", "path_mappings",
           "rewrite", "select"]
