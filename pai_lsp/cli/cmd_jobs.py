"""`pai submit|run|jobs|status|logs|stop|outputs|cluster|daemon`: thin clients of the daemon, which
runs `service.jobs`.

Every failure is one line on stderr and a non-zero exit; never a traceback.
"""

from __future__ import annotations

import argparse
import getpass
import os
import posixpath
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import api
from ..clusters.kinds import BY_NAME as CLUSTER_KINDS
from ..clusters.profiles import LOCAL, LOCALS
from ..core.messages import message
from ..core.openpai_rest import FINAL, describe_exit
from ..daemon import client as daemon
from ..daemon import settings as daemon_settings
from ..errors import ConfigError, InvalidInput, NotFound, PaiError, Unreachable
from . import complete
from .args import command, group, password
from .cmd_records import COMMANDS as RECORD_COMMANDS
from .cmd_records import add_commands as add_record_commands
from .cmd_why import add_command as add_why
from .cmd_why import cmd_why, failure_line
from .follow import follow_logs as _follow
from .output import add_output_option, console, human_size, print_json, print_row, state_style, visible, visible_lines

WATCH_SECONDS = 2.0  # how often --watch asks again
STDOUT_PIECE = 1 << 20  # bytes of a file asked for at a time when it goes to standard output


CLUSTER_HELP = "cluster profile (default: the default profile, else local; see `pai cluster list`)"


def _cluster_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cluster", metavar="PROFILE", help=CLUSTER_HELP).completer = complete.profiles  # type: ignore[attr-defined]


def _job_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("job", metavar="JOB", help="the job's name, as `pai jobs` lists it").completer = complete.jobs  # type: ignore[attr-defined]


def _hdfs_path(parser: argparse.ArgumentParser, name: str, help: str, **kwargs) -> None:
    parser.add_argument(name, help=help, **kwargs).completer = complete.hdfs_paths  # type: ignore[attr-defined]


HDFS_PATH = "an HDFS path: relative to /user/<you> (on PFS: your home there), or absolute"


def add_commands(sub) -> None:
    for name, helptext, examples in (
            ("submit", "submit a job file, v1 JSON or v2 YAML (uploading its code first)", [
                ("pai submit mnist.pai.json", "to the default cluster profile"),
                ("pai submit mnist.pai.json --cluster prod --follow", "to prod, then print its log until it ends"),
                ("pai submit mnist.pai.json --dry-run --list", "what would be uploaded and submitted; nothing is sent")]),
            ("run", "submit a job file to the local cluster", [
                ("pai run mnist.pai.json -f", "run it on this machine and print its log until it ends"),
                ("pai run mnist.pai.json --dry-run", "what would be uploaded and submitted; nothing is sent")])):
        p = command(sub, name, helptext, examples)
        p.add_argument("file", metavar="FILE", help="the job file (*.pai.json, *.pai.yaml, *.paddle.json)")
        if name == "submit":
            _cluster_option(p)
        p.add_argument("--follow", "-f", action="store_true", help="stream the logs until the job ends")
        p.add_argument("--dry-run", action="store_true",
                       help="show what would be uploaded and submitted (files, job name, final config); send nothing")
        p.add_argument("--list", action="store_true", help="with --dry-run: list every file that would be uploaded")
        p.add_argument("--show-secrets", action="store_true",
                       help="with --dry-run: a v2 job's secrets in plain text in the rendered job (masked otherwise)")
        p.add_argument("--force", action="store_true",
                       help="upload even when over pai.job.upload.maxBytes / maxFiles (or .paiignore has a bad line)")
    p = command(sub, "jobs", "list your jobs", [
        ("pai jobs", "on the default cluster, newest first"),
        ("pai jobs --cluster prod -o json", "as JSON, for scripts"),
        ("pai jobs --watch", "kept current until Ctrl-C")])
    _cluster_option(p)
    p.add_argument("-w", "--watch", action="store_true", help="print the list again whenever a job changes, until Ctrl-C")
    add_output_option(p)
    p = command(sub, "status", "show a job's state and tasks", [
        ("pai status mnist_1a2b3c4d", "its state, why it ended, each task"),
        ("pai status mnist_1a2b3c4d --watch", "kept current until the job ends"),
        ("pai status mnist_1a2b3c4d -o json", "as JSON")])
    _job_argument(p)
    _cluster_option(p)
    p.add_argument("-w", "--watch", action="store_true", help="print the status again whenever it changes, until the job ends")
    add_output_option(p)
    add_why(sub)
    p = command(sub, "logs", "print a job's logs", [
        ("pai logs mnist_1a2b3c4d", "every task's log so far"),
        ("pai logs mnist_1a2b3c4d --task worker:1 -f", "one task's, until the job ends")])
    _job_argument(p)
    _cluster_option(p)
    p.add_argument("--task", metavar="ROLE:IDX", help="one task only, e.g. worker:0 (on PaddlePaddle Cloud also a "
                   "worker's name; `pai status JOB` lists them)").completer = complete.tasks  # type: ignore[attr-defined]
    p.add_argument("-f", "--follow", action="store_true", help="keep printing until the job ends")
    p = command(sub, "stop", "stop a job", [("pai stop mnist_1a2b3c4d", "stop it (an error if it has ended already)")])
    _job_argument(p)
    _cluster_option(p)
    p = command(sub, "ssh", "how to reach a task: SSH and its labelled ports (Jupyter, TensorBoard, …)", [
        ("pai ssh mnist_1a2b3c4d", "each running task's ssh command and URLs"),
        ("pai ssh mnist_1a2b3c4d --task worker:0 --connect", "open ssh to that task")])
    _job_argument(p)
    p.add_argument("--task", metavar="ROLE:IDX", help="one task only, e.g. worker:0").completer = complete.tasks  # type: ignore[attr-defined]
    _cluster_option(p)
    p.add_argument("--connect", action="store_true", help="run ssh to the task (needs an ssh client and the job's key)")
    p = command(sub, "outputs", "download a job's outputDir", [
        ("pai outputs mnist_1a2b3c4d", "into ./<last part of its outputDir>"),
        ("pai outputs mnist_1a2b3c4d results/ -f", "into results/, replacing what is there")])
    _job_argument(p)
    p.add_argument("dest", nargs="?", default=".", metavar="DEST", help="the local folder to download into (default: .)")
    _cluster_option(p)
    p.add_argument("-f", "--force", action="store_true", help="replace files that are there already")
    _add_cluster(sub)
    _add_hdfs(sub)
    p = command(sub, "quota", "what you may use on a PaddlePaddle Cloud cluster, and use now", [
        ("pai quota --cluster paddle", "limits and use")])
    _cluster_option(p)
    add_output_option(p)
    r = command(sub, "registry", "image registry secrets on a PaddlePaddle Cloud cluster", [
        ("pai registry list --cluster paddle", "the registry secrets there")])
    _cluster_option(r)
    rsub = group(r, "registry_command")
    add_output_option(command(rsub, "list", "list registry secrets", [("pai registry list", "names and when made")]))
    radd = command(rsub, "add", "add a registry secret (the password on standard input or asked)", [
        ("pai registry add hub --username me --server registry.example.com --password-stdin < pw", "")])
    radd.add_argument("name", metavar="NAME", help="the secret's name (pcloud-registry- is added in front)")
    radd.add_argument("--username", required=True, help="the user name at the registry")
    radd.add_argument("--server", required=True, help="the registry, e.g. registry.example.com")
    radd.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    rrm = command(rsub, "remove", "remove a registry secret", [("pai registry remove hub", "")])
    rrm.add_argument("name", metavar="NAME", help="the secret's name, as `pai registry list` shows it")
    d = command(sub, "daemon", "the background job daemon (started on demand)", [
        ("pai daemon status", "is it running, and what does it watch"), ("pai daemon stop", "stop it")])
    dsub = group(d, "daemon_command")
    command(dsub, "status", "is it running, and what does it watch", [("pai daemon status", "")])
    command(dsub, "stop", "stop it (the next command starts it again)", [("pai daemon stop", "")])
    command(dsub, "serve", "run it in the foreground", [("pai daemon serve", "what `pai` starts in the background")])
    add_record_commands(sub)


def _add_cluster(sub) -> None:
    cluster = command(sub, "cluster", "manage cluster profiles", [
        ("pai cluster list", "the profiles; * marks the default"),
        ("pai cluster add prod --rest http://pai.example.com/rest-server --webhdfs http://pai.example.com:50070", "")])
    csub = group(cluster, "cluster_command")
    add = command(csub, "add", "add a cluster profile", [
        ("pai cluster add prod --rest http://pai.example.com/rest-server --webhdfs http://pai.example.com:50070 "
         "--password-stdin < pw", "an OpenPAI cluster, logged in"),
        ("pai cluster add dc1 --kind paddlecloud --rest http://cloud.example.com --user me", "PaddlePaddle Cloud")])
    add.add_argument("name", metavar="NAME", help="the profile's name (letters, digits, '.', '_', '-')")
    add.add_argument("--rest", required=True, help="REST server URI, e.g. http://pai.example.com/rest-server "
                     "(PaddlePaddle Cloud: its endpoint, e.g. http://cloud.paddlepaddle.org)")
    add.add_argument("--webhdfs", "--pfs", dest="webhdfs", help="WebHDFS URI, e.g. http://pai.example.com:50070 (required for "
                     "OpenPAI); PaddlePaddle Cloud: its PFS base (default <rest>/api/v1/pfs)")
    add.add_argument("--user", default=getpass.getuser(), help="your user name there (default: this machine's)")
    add.add_argument("--kind", choices=list(CLUSTER_KINDS), default="openpai", help="what kind of cluster it is (default: openpai)")
    add.add_argument("--datacenter", help="PaddlePaddle Cloud: the datacenter's name, the <dc> of /pfs/<dc>/… (default: NAME)")
    add.add_argument("--protocol", type=int, choices=[1, 2], help="job protocol (default: detected from the server)")
    add.add_argument("--password-stdin", action="store_true", help="read the password from standard input, store it and log in")
    add.add_argument("--default", action="store_true", help="make it the default profile (the first one added becomes it anyway)")
    imp = command(csub, "import-paddle", "a profile for each datacenter of the paddlecloud client's ~/.paddle/config", [
        ("pai cluster import-paddle", "profiles and passwords from ~/.paddle/config; the file is left as it is"),
        ("pai cluster import-paddle --remove-passwords", "and take the passwords out of the file")])
    imp.add_argument("--config", metavar="PATH", help="the config file (default: ~/.paddle/config)")
    imp.add_argument("--remove-passwords", action="store_true",
                     help="also remove the passwords from the file once stored (the paddlecloud client then asks for them)")
    imp.add_argument("--keep-file", action="store_true", help="leave the file as it is (the default; kept for old scripts)")
    add_output_option(command(csub, "list", "list cluster profiles", [
        ("pai cluster list", "* marks the default"), ("pai cluster list -o json", "as JSON")]))
    rm = command(csub, "remove", "remove a cluster profile (and its stored password and token)", [("pai cluster remove prod", "")])
    rm.add_argument("name", metavar="NAME", help="the profile, as `pai cluster list` shows it").completer = complete.profiles  # type: ignore[attr-defined]
    login = command(csub, "login", "store a cluster password in the keyring (and log in with it)", [
        ("pai cluster login prod", "asked on the terminal"), ("pai cluster login prod --password-stdin < pw", "")])
    login.add_argument("name", metavar="NAME", help="the profile").completer = complete.profiles  # type: ignore[attr-defined]
    login.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    default = command(csub, "default", "make a profile the default one (`local` for the embedded cluster)", [
        ("pai cluster default prod", "jobs, submit, hdfs … go to prod unless --cluster says")])
    default.add_argument("name", metavar="NAME", help="the profile").completer = complete.profiles  # type: ignore[attr-defined]
    command(csub, "stop-local", "stop the embedded local cluster if it runs", [("pai cluster stop-local", "")])


def _add_hdfs(sub) -> None:
    h = command(sub, "hdfs", "browse and move files on the cluster's HDFS", [
        ("pai hdfs ls", "your home, /user/<you>"),
        ("pai hdfs put model.pt models/", "upload into the folder models (made if missing)"),
        ("pai hdfs get models/model.pt -", "to standard output")],
        epilog="Options of `pai hdfs` (--cluster) go before or after the subcommand.")
    _cluster_option(h)
    hsub = group(h, "hdfs_command")
    human = {"action": "store_true", "help": "sizes as 4.9 K, 1.2 G (as hdfs dfs -h)"}
    p = command(hsub, "ls", "list a folder", [
        ("pai hdfs ls", "your home"), ("pai hdfs ls -R -h code", "everything under code, sizes as 1.2 M"),
        ("pai hdfs ls / -o json", "as JSON")], add_help=False)
    p.add_argument("--help", action="help", help="show this help and exit")
    _hdfs_path(p, "path", HDFS_PATH + " (default: your home)", nargs="?", metavar="PATH")
    p.add_argument("-R", "--recursive", action="store_true", help="everything under the folder too")
    p.add_argument("-h", "--human-readable", **human)
    add_output_option(p)
    p = command(hsub, "stat", "show one entry", [("pai hdfs stat code/train.py", ""), ("pai hdfs stat code -o json", "")])
    _hdfs_path(p, "path", HDFS_PATH, metavar="PATH")
    add_output_option(p)
    p = command(hsub, "du", "how much a file or folder holds", [
        ("pai hdfs du -h", "each entry of your home, sizes as 1.2 G"), ("pai hdfs du -s code", "one total for code")],
        add_help=False)
    p.add_argument("--help", action="help", help="show this help and exit")
    _hdfs_path(p, "path", HDFS_PATH + " (default: your home)", nargs="?", metavar="PATH")
    p.add_argument("-s", "--summary", action="store_true", help="one total for PATH rather than a line for each entry in it")
    p.add_argument("-h", "--human-readable", **human)
    add_output_option(p)
    for op, helptext, example in (("mkdir", "make a folder (and parents)", "pai hdfs mkdir data/raw"),
                                  ("cat", "print a file", "pai hdfs cat code/train.py"),
                                  ("tail", "print the end of a file", "pai hdfs tail -c 4096 logs/run.log")):
        p = command(hsub, op, helptext, [(example, "")])
        _hdfs_path(p, "path", HDFS_PATH, metavar="PATH")
        if op == "tail":
            p.add_argument("-c", "--bytes", type=int, default=1024, help="how many bytes from the end (default: 1024)")
    p = command(hsub, "rm", "remove a file (a folder with -r)", [("pai hdfs rm -r old-code", "a folder and all in it")])
    _hdfs_path(p, "path", HDFS_PATH, metavar="PATH")
    p.add_argument("-r", "--recursive", action="store_true", help="remove a folder with everything in it")
    p = command(hsub, "mv", "move or rename", [("pai hdfs mv code code-v1", "")])
    _hdfs_path(p, "src", "what to move: " + HDFS_PATH, metavar="SRC")
    _hdfs_path(p, "dst", "where to: a new name, or a folder to move it into", metavar="DST")
    p = command(hsub, "put", "upload a file or folder", [
        ("pai hdfs put data.csv data/", "into the folder data (made if missing)"),
        ("pai hdfs put -f data.csv data/data.csv", "replacing the file there"),
        ("tar c src | pai hdfs put - src.tar", "standard input as a file")])
    p.add_argument("local", metavar="LOCAL", help="a local file or folder; - reads standard input")
    _hdfs_path(p, "remote", "where to: " + HDFS_PATH + "; into it when it is a folder or ends with /", metavar="REMOTE")
    p.add_argument("-f", "--force", action="store_true", help="replace what is there already (as hdfs dfs -put -f)")
    p = command(hsub, "get", "download a file or folder", [
        ("pai hdfs get data/data.csv", "into the current folder"),
        ("pai hdfs get -f code ./backup/", "into the folder backup (made if missing), replacing what is there"),
        ("pai hdfs get data/data.csv - | head", "to standard output")])
    _hdfs_path(p, "remote", "what to download: " + HDFS_PATH, metavar="REMOTE")
    p.add_argument("local", nargs="?", default=".", metavar="LOCAL",
                   help="where to (default: .): into it when it is a folder or ends with /; - writes standard output")
    p.add_argument("-f", "--force", action="store_true", help="replace what is there already (as hdfs dfs -get -f)")


def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    if args.command not in ("daemon",) and not (args.command == "cluster" and args.cluster_command == "stop-local"):
        restart_if_stale()
    return COMMANDS[args.command](args)


def restart_if_stale() -> None:
    """A daemon started under other settings (PAI_LSP_SECRETS, where profiles or the local cluster
    live) would read secrets and profiles other than this command's: it is stopped, with one line,
    and the call below starts one with this command's settings."""
    try:
        info = daemon.call_sync(api.Ping(), start=False)
    except PaiError:
        return  # none runs (or it cannot be asked): the next call starts one with these settings
    theirs, ours = info.get("settings"), daemon_settings()
    if theirs is None or theirs == ours:
        return
    changed = ", ".join(f"{key} ({theirs.get(key) or 'unset'} → {ours.get(key) or 'unset'})" for key in ours
                        if theirs.get(key) != ours.get(key))
    print(f"pai: restarting the pai daemon, which runs with other settings: {changed}", file=sys.stderr)
    daemon.restart()


def _progress():
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    return Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                    transient=True, disable=not sys.stderr.isatty())


def _local(path: str) -> str:
    """A local path as the daemon gets it: absolute, its symbolic links and its trailing `/` kept
    (the daemon says what is wrong with either: a link that loops, a folder meant)."""
    absolute = os.path.abspath(path)
    return absolute + os.sep if path.endswith(("/", os.sep)) and not absolute.endswith(os.sep) else absolute


def cmd_submit(args: argparse.Namespace) -> int:
    cluster = "local" if args.command == "run" else args.cluster
    if args.list and not args.dry_run:
        raise InvalidInput(message("cli.list-needs-dry-run"))
    if args.dry_run:
        from ..settings import terminal_locale

        shown = daemon.call_sync(api.Preview(file=str(Path(args.file).resolve()), shown=args.file, cluster=cluster,
                                                  list_files=args.list, locale=terminal_locale(),
                                                  show_secrets=args.show_secrets))
        sys.stdout.write(visible_lines(shown["text"]))
        upload = shown.get("upload") or {}
        refused = (upload.get("overLimits") or any(upload.get("problems") or [])) and not args.force
        return 1 if refused else 0
    with _progress() as bar:
        task = bar.add_task("uploading code", total=None)

        def on_progress(event: api.Event) -> None:
            if isinstance(event, api.UploadProgress):
                bar.update(task, completed=event.bytes, total=event.total_bytes)

        def on_restart() -> None:
            bar.update(task, completed=0)
            print(f"pai {args.command}: the pai daemon stopped while submitting; a new one takes over where it "
                  "stopped (the job is submitted once)", file=sys.stderr)

        # The request id lets a new daemon finish what one that died started, without submitting twice.
        result = daemon.call_sync(api.Submit(file=str(Path(args.file).resolve()), shown=args.file, cluster=cluster,
                                                  force=args.force, progress_token="cli", request_id=secrets.token_hex(16)),
                                  on_progress, on_restart=on_restart)
    if result["upload"]:
        print(_upload_line(result["upload"]), file=sys.stderr)
    if result.code_storage is not None:
        to, up = result.code_storage, result.upload
        files = (up.sent_files + up.unchanged_files) if up is not None else 0
        from ..core.messages import render
        from ..settings import terminal_locale

        print(visible(render("cli.code-storage", terminal_locale(), files=files, storage=to.storage, path=to.path,
                             mount=to.mount_path, folder=to.job_folder)), file=sys.stderr)
    for warning in result.get("warnings") or []:
        print(f"warning: {visible(warning)}", file=sys.stderr)
    print(visible(f"submitted {result['job']} to {result['cluster']}"))
    if not args.follow:
        return 0
    return _follow(result["cluster"], result["job"], None)


def _upload_line(up: dict) -> str:
    """What an upload did, in one line (and one more per unfinished earlier upload it removed)."""
    lines = [f"removed an unfinished earlier upload to {up['remote']} ({path})" for path in up.get("cleaned") or []]
    if not up["sent_files"] and not up["removed_files"]:
        lines.append(f"code at {up['remote']} is up to date ({up['unchanged_files']} file(s) unchanged)")
        return "\n".join(map(visible, lines))
    # What was sent, and why; what was kept there without being sent; what was removed.
    counts = [f"{up.get('changed_files', up['sent_files'])} new or changed"]
    if up.get("resent_files"):
        counts.append(f"{up['resent_files']} unchanged but sent again")
    counts.append(f"{up['unchanged_files']} unchanged kept")
    if up["removed_files"]:
        counts.append(f"{up['removed_files']} removed")
    lines.append(f"uploaded {up['sent_files']} file(s), {up['sent_bytes']:,} bytes to {up['remote']} "
                 f"({', '.join(counts)}) in {up['seconds']:.2f} s")
    return "\n".join(map(visible, lines))


def _watch(fetch: Callable[[], Any], show: Callable[[Any], None], done: Callable[[Any], bool] = lambda _: False,
           interval: float = WATCH_SECONDS) -> Any:
    """`show` what `fetch` gets, and again each time it changes, until `done` says so (or Ctrl-C,
    which ends a watch quietly). On a terminal the screen is redrawn; piped, each change is printed
    below the last, as `kubectl get -w` does."""
    shown: Any = None
    out = console()
    try:
        while True:
            now = fetch()
            if now != shown:
                if out.is_terminal and shown is not None:
                    out.clear()
                show(now)
                shown = now
            if done(now):
                return now
            time.sleep(interval)
    except KeyboardInterrupt:
        return shown


def cmd_jobs(args: argparse.Namespace) -> int:
    def fetch() -> Any:
        return daemon.call_sync(api.Jobs(cluster=args.cluster))

    if args.watch:
        _watch(fetch, lambda answer: _show_jobs(answer, args.output))
        return 0
    _show_jobs(fetch(), args.output)
    return 0


def _show_jobs(answer: Any, output: str) -> None:
    if output == "json":
        print_json(answer)
        return
    rows, cluster = answer["jobs"], answer["cluster"]
    out = console()
    out.print(f"{'NAME':32} {'STATE':10} {'STARTED':19} {'DURATION':>9}  CLUSTER")
    for job in rows:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(job["created"] / 1000)) if job.get("created") else "-"
        end = job.get("completed") or time.time() * 1000
        duration = _duration((end - job["created"]) / 1000) if job.get("created") else "-"
        print_row([(f"{job['name']:32} ", None), (f"{job['state']:10}", state_style(job["state"])),
                   (f" {started:19} {duration:>9}  {cluster}", None)], out)


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def cmd_status(args: argparse.Namespace) -> int:
    def fetch() -> Any:
        return daemon.call_sync(api.Status(job=args.job, cluster=args.cluster))

    if not args.watch:
        _show_status(fetch(), args.output, args.cluster)
        return 0
    last = _watch(fetch, lambda status: _show_status(status, args.output, args.cluster), lambda status: status["state"] in FINAL)
    return 1 if last is not None and last["state"] in FINAL and last["state"] != "SUCCEEDED" else 0  # as gh run watch


def _show_status(status: Any, output: str, cluster: str | None) -> None:
    if output == "json":
        print_json(status)
        return
    out = console()
    how = describe_exit(status["state"], status["exitCode"], status["userExitCode"], status["exitReason"])
    print_row([(f"{status['name']}: ", None), (status["state"], state_style(status["state"])), (f" ({how})" if how else "", None)], out)
    if status["diagnostics"]:
        out.print(f"  {visible(status['diagnostics'])}", markup=False)
    if (why := failure_line(cluster, status["name"], status["state"])) is not None:
        out.print(f"  why: {visible(why)}", markup=False)
    for t in status["tasks"]:
        ports = " ".join(f"{k}={v}" for k, v in t["ports"].items())
        label = f"{t['role']}:{t['index']}"
        if t.get("worker"):  # a PaddlePaddle Cloud worker: its name, phase, start, exit code and message (§A.7)
            started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t["started"] / 1000)) if t.get("started") else "-"
            end = f"exit {t['exitCode']}" + (f": {t['message']}" if t.get("message") else "") if t["exitCode"] is not None else ""
            print_row([(f"  {label:10} {t['worker']:40} ", None), (f"{t['state']:10}", state_style(t["state"])),
                       (f" {started:19} {end}".rstrip(), None)], out)
            continue
        print_row([(f"  {label}  ", None), (f"{t['state']:10}", state_style(t["state"])), (f" {t['ip'] or '-'}  {ports}", None)], out)


def cmd_logs(args: argparse.Namespace) -> int:
    _follow(args.cluster, args.job, args.task, follow=args.follow)
    return 0


def cmd_ssh(args: argparse.Namespace) -> int:
    running = daemon.call_sync(api.Ssh(job=args.job, cluster=args.cluster, task=args.task))["tasks"]
    for t in running:
        print(visible(f"{t['task']}  {t['command'] or 'no ssh port'}"))
        for label, urls in t["urls"].items():
            print(visible(f"    {label}: " + ", ".join(urls)))
    if args.connect:
        import shutil

        t = running[0]
        if shutil.which("ssh") is None:
            raise ConfigError(message("ssh.no-client"))
        if not t["sshPort"]:
            raise NotFound(message("ssh.no-port", task=t["task"], job=args.job))
        os.execvp("ssh", ["ssh", "-p", t["sshPort"], f"root@{t['ip']}"])
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    done = daemon.call_sync(api.Stop(job=args.job, cluster=args.cluster))
    print(visible(f"stopped {done['stopped']}" + (f" (it was {done['state']})" if done.get("state") else "")))
    return 0


def cmd_outputs(args: argparse.Namespace) -> int:
    with _progress() as bar:
        task = bar.add_task("downloading", total=None)
        target = daemon.call_sync(api.Outputs(job=args.job, cluster=args.cluster, dest=_local(args.dest),
                                                   progress_token="cli", overwrite=args.force),
                                  _bar_updater(bar, task))["path"]
    print(visible(f"downloaded outputs of {args.job} to {target}"))
    return 0


def _bar_updater(bar: Any, task: Any) -> Callable[[api.Event], None]:
    def on_progress(event: api.Event) -> None:
        if isinstance(event, api.Progress):
            bar.update(task, completed=event.bytes, total=event.total_bytes or None)

    return on_progress


def cmd_cluster(args: argparse.Namespace) -> int:
    command = args.cluster_command
    if command == "add":
        secret = password(True, "") if args.password_stdin else None
        added = daemon.call_sync(api.ClustersAdd(name=args.name, rest=args.rest, webhdfs=args.webhdfs, user=args.user,
                                                      kind=args.kind, protocol=args.protocol, password=secret,
                                                      datacenter=args.datacenter, make_default=args.default))
        note = " as given" if added["protocolNote"] == "as given" else "" if added["protocolNote"] == "detected" \
            else f"; {added['protocolNote']}"
        kind = CLUSTER_KINDS[args.kind]
        what = f"job protocol v{added['protocol']}{note}" if kind.protocols else kind.title[0]
        print(f"added cluster {args.name} ({what})" + (f", logged in as {args.user}" if added["loggedIn"] else
                                                         f"; not logged in: log in with `pai cluster login {args.name}`"))
        if added.get("isDefault"):
            print(f"{args.name} is the default cluster now: jobs, submit and hdfs go there unless --cluster says "
                  f"(`pai cluster default local` goes back)")
    elif command == "import-paddle":
        done = daemon.call_sync(api.ClustersImportPaddle(config=args.config, remove_passwords=args.remove_passwords))
        for c in done["clusters"]:
            print(visible(f"added cluster {c['name']} (PaddlePaddle Cloud {c['endpoint']}, datacenter {c['datacenter']}, "
                          f"user {c['user']})" + (", active" if c["active"] else "")))
        stored = [c["name"] for c in done["clusters"] if c["passwordStored"]]
        if stored:
            where = (f"and removed from {done['config']} (the paddlecloud client asks for them now)" if done["passwordsRemoved"]
                     else f"{done['config']} was left as it is")
            print(f"stored the password(s) of {', '.join(stored)} in {done['secretStore']}; {where}")
        print(f"default cluster: {done['default']}")
    elif command == "list":
        answer = daemon.call_sync(api.ClustersList())
        if args.output == "json":
            print_json(answer)
            return 0
        for c in answer["clusters"]:
            mark = "*" if c["default"] else " "
            if c["local"] and c["name"] != LOCAL:  # the embedded cluster's API of another kind
                datacenter = f" (datacenter {c['datacenter']})" if c.get("datacenter") else ""
                where = f" at {c['rest']}{datacenter}" if c["rest"] else " (started on demand)"
                what = f"embedded local cluster, {CLUSTER_KINDS[c['kind']].title[0]} API{where}"
            elif c["local"]:
                what = "embedded local cluster (started on demand)"
            else:
                what = f"{c['rest']}  {c['user']}  {c['kind']}" + (f"  datacenter {c['datacenter']}" if c.get("datacenter") else "")
            print(visible(f"{mark} {c['name']:16} {what}"))
    elif command == "remove":
        daemon.call_sync(api.ClustersRemove(name=args.name))
        print(f"removed cluster {args.name}")
    elif command == "default":
        print(f"default cluster: {daemon.call_sync(api.ClustersSetDefault(name=args.name))['default']}")
    elif command == "login":
        if args.name in LOCALS:
            raise ConfigError(message("clusters.local-no-login"))
        secret = password(args.password_stdin, f"password for {args.name}: ")
        done = daemon.call_sync(api.ClustersLogin(name=args.name, password=secret))
        print(visible(f"logged in to {done['name']} as {done['user']}"))
    elif command == "stop-local":  # in-process: stopping must not start the daemon
        from ..service.clusters import stop_local_cluster

        stopped = stop_local_cluster()["stopped"]
        print("stopped the local cluster" if stopped else "the local cluster was not running")
    return 0


def cmd_hdfs(args: argparse.Namespace) -> int:
    op, cluster = args.hdfs_command, args.cluster
    if op in ("cat", "tail") or (op == "get" and args.local == "-"):
        return _hdfs_to_stdout(args)
    if op == "put" and args.local == "-":
        return _hdfs_put_stdin(args)
    params: api.Params = {
        "ls": lambda: api.HdfsList(path=args.path or "", cluster=cluster, recursive=args.recursive),
        "stat": lambda: api.HdfsStat(path=args.path, cluster=cluster),
        "du": lambda: api.HdfsDu(path=args.path or "", cluster=cluster, summary=args.summary),
        "mkdir": lambda: api.HdfsMkdir(path=args.path, cluster=cluster),
        "rm": lambda: api.HdfsRemove(path=args.path, recursive=args.recursive, cluster=cluster),
        "mv": lambda: api.HdfsMove(source=args.src, target=args.dst, cluster=cluster),
        "put": lambda: api.HdfsPut(local=_local(args.local), remote=args.remote, progress_token="cli",
                                        cluster=cluster, overwrite=args.force),
        "get": lambda: api.HdfsGet(local=_local(args.local), remote=args.remote, progress_token="cli",
                                        cluster=cluster, overwrite=args.force),
    }[op]()
    with _progress() as bar:
        result = daemon.call_sync(params, _bar_updater(bar, bar.add_task("uploading" if op == "put" else "downloading", total=None)))
    if getattr(args, "output", "text") == "json":
        print_json(result)
        return 0
    size = human_size if getattr(args, "human_readable", False) else str
    if op == "ls":
        for e in result["entries"]:
            kind = "d" if e["type"] == "dir" else "-"
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e["modified"] / 1000))
            print(visible(f"{kind}{_mode(e['permission'])} {e['owner']:10} {e['group']:12} {size(e['size']):>12} {when} {e['name']}"))
    elif op == "du":
        for e in result["entries"]:
            print(visible(f"{size(e['bytes']):>12}  {e['path']}"))
    elif op == "stat":
        print(visible(f"{result['path']}: {result['type']}, {result['size']} bytes, {_mode(result['permission'])} "
                      f"{result['owner']}:{result['group']}, modified "
                      f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(result['modified'] / 1000))}"))
    elif op in ("put", "get"):
        print(visible(f"{'uploaded' if op == 'put' else 'downloaded'} {result['files']} file(s), {result['bytes']:,} bytes to "
                      f"{result['path']}"))
    elif op == "mv":
        print(visible(f"moved {result['from']} to {result['to']}"))
    else:
        print(visible(f"{'removed' if op == 'rm' else 'made'} {result['path']}"))
    return 0


def _hdfs_to_stdout(args: argparse.Namespace) -> int:
    """`cat`, `tail` and `get REMOTE -`: the file to standard output, piece by piece (memory stays
    flat whatever its size)."""
    import base64

    path = args.path if args.hdfs_command != "get" else args.remote
    if args.hdfs_command == "tail":
        result = daemon.call_sync(api.HdfsTail(path=path, size=args.bytes, cluster=args.cluster))
        sys.stdout.buffer.write(base64.b64decode(result["data"]))
        sys.stdout.flush()
        return 0
    offset = 0
    while True:
        piece = base64.b64decode(daemon.call_sync(api.HdfsCat(path=path, cluster=args.cluster, offset=offset,
                                                                   length=STDOUT_PIECE))["data"])
        sys.stdout.buffer.write(piece)
        sys.stdout.buffer.flush()
        offset += len(piece)
        if len(piece) < STDOUT_PIECE:
            return 0


def _hdfs_put_stdin(args: argparse.Namespace) -> int:
    """`put - REMOTE`: standard input, spooled to a private temporary file (the daemon reads files,
    and a pipe's size is known only at its end), then put as a file named as REMOTE says."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pai-put-") as folder:  # put into a folder (`-` to `data/`) as `stdin`
        spooled = Path(folder) / (posixpath.basename(args.remote) or "stdin")
        with open(spooled, "wb") as out:
            shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
        with _progress() as bar:
            result = daemon.call_sync(api.HdfsPut(local=str(spooled), remote=args.remote, progress_token="cli",
                                                       cluster=args.cluster, overwrite=args.force),
                                      _bar_updater(bar, bar.add_task("uploading", total=None)))
    print(visible(f"uploaded standard input, {result['bytes']:,} bytes to {result['path']}"))
    return 0


def _mode(octal: str) -> str:
    bits = int(octal, 8)
    return "".join(ch if bits & (1 << (8 - i)) else "-" for i, ch in enumerate("rwxrwxrwx"))


def cmd_daemon(args: argparse.Namespace) -> int:
    if args.daemon_command == "serve":
        from ..daemon.server import serve

        return serve()
    try:
        if args.daemon_command == "stop":
            daemon.call_sync(api.StopDaemon(), start=False)
            print("stopped the pai daemon")
        else:
            info = daemon.call_sync(api.Ping(), start=False)
            print(f"the pai daemon runs (pid {info['pid']}, up {_duration(info['uptime'])}, watching {info['watched']} job(s))")
    except Unreachable:
        print("the pai daemon is not running")
        return 0 if args.daemon_command == "stop" else 1
    return 0


def cmd_quota(args: argparse.Namespace) -> int:
    quota = daemon.call_sync(api.Quota(cluster=args.cluster))
    if args.output == "json":
        print_json(quota)
        return 0
    print(f"{'':16} {'CPU':>8} {'MEMORY':>10} {'GPU':>5} {'MAXPARALLELISM':>15}")
    for row in ("limits", "used"):
        q = quota[row]
        print(visible(f"{row:16} {q['cpu'] or '-':>8} {q['memory'] or '-':>10} {q['gpu'] or '-':>5} {q['maxParallelism'] or '-':>15}"))
    return 0


def cmd_registry(args: argparse.Namespace) -> int:
    command, cluster = args.registry_command, args.cluster
    if command == "list":
        answer = daemon.call_sync(api.RegistryList(cluster=cluster))
        if args.output == "json":
            print_json(answer)
            return 0
        for r in answer["registries"]:
            print(visible(f"{r['name']:24} {r['created'] or '-'}"))
    elif command == "add":
        secret = password(args.password_stdin, f"password for {args.server}: ")
        done = daemon.call_sync(api.RegistryAdd(cluster=cluster, name=args.name, username=args.username, password=secret,
                                                     server=args.server))
        print(visible(f"added registry {done['name']} (use \"registry\": \"{done['secret']}\" in a job file)"))
    else:
        done = daemon.call_sync(api.RegistryRemove(cluster=cluster, name=args.name))
        print(visible(f"removed registry {done['name']}"))
    return 0


COMMANDS = {"ssh": cmd_ssh, "submit": cmd_submit, "run": cmd_submit, "jobs": cmd_jobs, "status": cmd_status, "logs": cmd_logs,
            "stop": cmd_stop, "why": cmd_why, "outputs": cmd_outputs, "cluster": cmd_cluster,
            "daemon": cmd_daemon, "hdfs": cmd_hdfs, "quota": cmd_quota, "registry": cmd_registry, **RECORD_COMMANDS}
