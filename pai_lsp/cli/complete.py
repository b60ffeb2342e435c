"""Shell completion for bash, zsh and fish (argcomplete): commands and options from the parser, and
the names only a running system knows — cluster profiles, job names and tasks (from the pai
daemon), HDFS paths — from the hooks below, asked at the moment the user presses Tab.

Installed by one command: `eval "$(pai completion bash)"` (`pai completion --help`).
"""

from __future__ import annotations

import argparse
import os
import posixpath

TYPE_CHECKING = False  # (not typing's: loading typing would cost every command's start)
if TYPE_CHECKING:
    from typing import Any

ASK_SECONDS = 5.0  # a Tab that would wait longer for the daemon offers nothing instead


def shell_code(shell: str) -> str:
    import argcomplete

    return argcomplete.shellcode(["pai"], shell=shell)


def complete(parser: argparse.ArgumentParser) -> None:
    """When the shell asks (argcomplete's environment): print the completions and exit."""
    if "_ARGCOMPLETE" in os.environ:
        import argcomplete

        argcomplete.autocomplete(parser, always_complete_options=False)  # options once a - is typed, as kubectl


def command_in_line() -> str | None:
    """The command of the line the shell is completing, once its word is typed whole (`pai hdfs l`:
    hdfs; `pai hd`: none, the list of commands answers it)."""
    line = os.environ.get("COMP_LINE", "")
    typed = line[:int(os.environ.get("COMP_POINT") or len(line))]
    words = typed.split() if typed.endswith(" ") else typed.split()[:-1]
    return next((word for word in words[1:] if not word.startswith("-")), None)


def _ask(params: Any) -> Any:
    """One call of the daemon (started if need be), or None when it fails or takes too long."""
    import time

    from ..daemon import client

    started = time.monotonic()
    try:
        answer = client.ask_running(params, ASK_SECONDS)  # the daemon that runs, without loading asyncio
        left = ASK_SECONDS - (time.monotonic() - started)
        if answer is not None or left <= 0:
            return answer
        import asyncio

        return asyncio.run(asyncio.wait_for(client.call(params), left))
    except Exception:  # noqa: BLE001 - a completion that cannot be had is no completion, never an error
        return None


def profiles(prefix: str, **_: Any) -> list[str]:
    """Cluster profile names, read from the profiles file (no daemon needed)."""
    from ..clusters.profiles import LOCALS, Profiles

    try:
        return Profiles().names()
    except Exception:  # noqa: BLE001
        return list(LOCALS)


def jobs(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    from .. import api

    answer = _ask(api.Jobs(cluster=getattr(parsed_args, "cluster", None)))
    return [job.name for job in answer.jobs] if answer else []


def tasks(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    from .. import api

    job = getattr(parsed_args, "job", None)
    if not job:
        return []
    answer = _ask(api.Status(job=job, cluster=getattr(parsed_args, "cluster", None)))
    return [f"{t.role}:{t.index}" for t in answer.tasks] if answer else []


def hdfs_paths(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    """The entries of the folder typed so far (relative to the HDFS home, or absolute); folders end
    with `/`, so the next Tab goes on into them."""
    from .. import api

    folder = posixpath.dirname(prefix)
    answer = _ask(api.HdfsList(path=folder or "", cluster=getattr(parsed_args, "cluster", None)))
    if not answer:
        return []
    return [posixpath.join(folder, e.name) + ("/" if e.type == "dir" else "") for e in answer.entries]
