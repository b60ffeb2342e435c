"""`pai show|code|rerun|diff`: what a job ran (its submission record), exactly that code, that run
again, and two runs compared. Thin clients of the daemon (`record.*`, service/records.py)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import api
from ..core.messages import message
from ..daemon import client as daemon
from ..errors import InvalidInput
from . import complete
from .args import N_, _, command, ngettext
from .cmd_daemon import restart_if_stale
from .output import add_output_option, visible, visible_lines

# where `pai show` read a record from (the result's `source`), in words
SOURCES = {"cluster": N_("cluster"), "journal": N_("journal")}


def add_commands(sub) -> None:
    def job(parser: argparse.ArgumentParser, name: str = "job", help: str = "the job's name, as `pai jobs` lists it") -> None:
        parser.add_argument(name, metavar=name.upper(), help=help).completer = complete.jobs  # type: ignore[attr-defined]
        parser.add_argument("--cluster", metavar="PROFILE", help="cluster profile (default: the default profile, else local)"
                            ).completer = complete.profiles  # type: ignore[attr-defined]

    p = command(sub, "show", "what a job ran: its submission record (commit, diff, files, final config)", [
        ("pai show mnist_1a2b3c4d", "the record in words"), ("pai show mnist_1a2b3c4d -o json", "the record itself")])
    job(p)
    add_output_option(p)
    p = command(sub, "code", "download exactly the code a job was submitted with", [
        ("pai code mnist_1a2b3c4d", "into ./mnist_1a2b3c4d"), ("pai code mnist_1a2b3c4d old/", "into the folder old")])
    job(p)
    p.add_argument("dest", nargs="?", metavar="DEST", help="a new or empty folder (default: ./JOB)")
    p.add_argument("-f", "--force", action="store_true", help="write into a folder that is not empty")
    p = command(sub, "rerun", "submit a job again with exactly its code and config, under a new name", [
        ("pai rerun mnist_1a2b3c4d", "the same code and config; nothing uploaded while its code folder holds it"),
        ("pai rerun mnist_1a2b3c4d --edit", "change the config first, in $EDITOR"),
        ("pai rerun mnist_1a2b3c4d --follow", "then print its log until it ends"),
        ("pai rerun mnist_1a2b3c4d --dry-run", "the name and config it would submit; nothing is sent")])
    job(p)
    p.add_argument("--edit", action="store_true", help="open the config in $EDITOR first")
    p.add_argument("--follow", "-f", action="store_true", help="stream the logs until the job ends (as `pai submit --follow`)")
    p.add_argument("--dry-run", action="store_true",
                   help="show what would be submitted (job name, code folder, final config); send nothing (as `pai submit --dry-run`)")
    p = command(sub, "diff", "compare two runs: config keys, code, commit and environment", [
        ("pai diff mnist_1a2b3c4d mnist_5e6f7a8b", "what differs, with a unified diff of each changed text file")])
    job(p)
    p.add_argument("other", metavar="OTHER", help="the job to compare it with").completer = complete.jobs  # type: ignore[attr-defined]
    add_output_option(p)


def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    restart_if_stale()
    return COMMANDS[args.command](args)


def _locale() -> str | None:
    """The terminal's language: the daemon says the result's words in it."""
    from .output import terminal_locale

    return terminal_locale()


def _notes(result: api.RecordShowResult | api.RecordCodeResult | api.RecordRerunResult | api.RecordDiffResult) -> None:
    for note in result.notes or []:
        print(_("warning: {warning}").format(warning=visible(note)), file=sys.stderr)


def cmd_show(args: argparse.Namespace) -> int:
    shown = daemon.call_sync(api.RecordShow(job=args.job, cluster=args.cluster, locale=_locale()))
    _notes(shown)
    if args.output == "json":
        print(visible_lines(json.dumps(shown.record.to_json(), indent=2, ensure_ascii=False)))
        return 0
    for line in shown.lines:
        print(visible(line))
    where = shown.location or _("nowhere on the cluster")
    print(visible(_("record     {where} (sha256 {sha256}, read from the {source})").format(where=where, sha256=shown.sha256[:12],
                                                                                         source=_(SOURCES.get(shown.source, shown.source)))))
    git = shown.record.git
    if git is not None and git.dirty and git.diff:
        print("\n" + _("uncommitted changes (git diff HEAD):"))
        sys.stdout.write(visible_lines(git.diff))
    print("\n" + _("final config:"))
    print(visible_lines(json.dumps(shown.record.config, indent=2, ensure_ascii=False)))
    return 0


def cmd_code(args: argparse.Namespace) -> int:
    dest = Path(args.dest or args.job).resolve()
    got = daemon.call_sync(api.RecordCode(job=args.job, cluster=args.cluster, dest=str(dest), force=args.force, locale=_locale()))
    _notes(got)
    print(visible(ngettext("wrote {files} file, {bytes:,} bytes, exactly as {job} was submitted, to {path} ({source})",
                           "wrote {files} files, {bytes:,} bytes, exactly as {job} was submitted, to {path} ({source})", got.files).format(
                               files=got.files, bytes=got.bytes, job=args.job, path=got.path, source=got.said_from)))
    return 0


def _edited(config: dict, name: str) -> dict:
    """The config after the user edited it in $VISUAL / $EDITOR (one clear line when it is no JSON object)."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or ("notepad" if sys.platform == "win32" else "vi")
    with tempfile.TemporaryDirectory(prefix="pai-rerun-") as tmp:
        path = Path(tmp, f"{name}.pai.json")
        path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        done = subprocess.run([*shlex.split(editor, posix=sys.platform != "win32"), str(path)])
        if done.returncode != 0:
            raise InvalidInput(message("records.editor-failed", editor=editor, status=done.returncode))
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise InvalidInput(message("records.edited-not-json", why=str(exc))) from None
    if not isinstance(value, dict):
        raise InvalidInput(message("records.edited-not-object"))
    return value


def cmd_rerun(args: argparse.Namespace) -> int:
    config = name = None
    if args.edit:
        plan = daemon.call_sync(api.RecordRerun(job=args.job, cluster=args.cluster, dry_run=True, locale=_locale()))
        name = plan.job
        config = _edited(plan.config, name)
    if args.dry_run:
        plan = daemon.call_sync(api.RecordRerun(job=args.job, cluster=args.cluster, config=config, name=name, dry_run=True,
                                                   locale=_locale()))
        _notes(plan)
        print(visible((_("would submit {job} (rerun of {rerun}, code folder {folder}); nothing was sent") if plan.code_dir else
                       _("would submit {job} (rerun of {rerun}); nothing was sent")).format(job=plan.job, rerun=args.job,
                                                                                          folder=plan.code_dir)))
        print(visible_lines(json.dumps(plan.config, indent=2, ensure_ascii=False)))
        return 0
    done = daemon.call_sync(api.RecordRerun(job=args.job, cluster=args.cluster, config=config, name=name, locale=_locale()))
    _notes(done)
    print(visible(_("running {code}").format(code=done.code_from)), file=sys.stderr)
    if up := done.upload:
        print(visible(ngettext("uploaded {files} file, {bytes:,} bytes to {remote}", "uploaded {files} files, {bytes:,} bytes to {remote}",
                               up.sent_files).format(files=up.sent_files, bytes=up.sent_bytes, remote=up.remote)), file=sys.stderr)
    for warning in done.warnings or []:
        print(_("warning: {warning}").format(warning=visible(warning)), file=sys.stderr)
    print(visible(_("submitted {job} to {cluster} (rerun of {rerun}, code hash {hash})").format(
        job=done.job, cluster=done.cluster, rerun=args.job, hash=(done.code_hash or "")[:12])))
    if not args.follow:
        return 0
    from .follow import follow_logs  # what `pai submit --follow` does after submitting

    return follow_logs(done.cluster, done.job, None)


def cmd_diff(args: argparse.Namespace) -> int:
    found = daemon.call_sync(api.RecordDiff(job=args.job, other=args.other, cluster=args.cluster, locale=_locale()))
    _notes(found)
    if args.output == "json":
        print(visible_lines(json.dumps(found.to_json(), indent=2, ensure_ascii=False)))
    else:
        sys.stdout.write(visible_lines(found.text))
    return 0


COMMANDS = {"show": cmd_show, "code": cmd_code, "rerun": cmd_rerun, "diff": cmd_diff}
