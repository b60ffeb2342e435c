"""Why a job failed, and where: the failure's class (an OpenPAI exit-spec phrase, or one of ours),
one sentence in English and Simplified Chinese saying what happened and what to do, the log lines
that show it, and the Python traceback's frames mapped back to the workspace files they were
uploaded from. Pure: the daemon gathers the facts (job detail, the log's last 1 MB, the upload
manifest) and sends the result (`Explanation.to_json`) to the editors and the CLI.
"""

from .explain import exit_words, explain_job, explain_task, with_note
from .result import Evidence, Explanation, Frame, PythonException, Text, Traceback
from .specs import ExitSpec
from .task_facts import CodeLayout, JobFacts, TaskFacts

__all__ = ["CodeLayout", "Evidence", "ExitSpec", "Explanation", "Frame", "JobFacts", "PythonException", "TaskFacts", "Text",
           "Traceback", "exit_words", "explain_job", "explain_task", "with_note"]
