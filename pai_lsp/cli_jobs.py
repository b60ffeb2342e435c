"""`pai submit|run|jobs|status|logs|stop|outputs|cluster|daemon`: thin clients of the daemon, which
runs `service.jobs`.

Every failure is one line on stderr and a non-zero exit; never a traceback.
"""

from __future__ import annotations

import argparse
import getpass
import secrets
import sys
import time
from pathlib import Path

from .cli_records import COMMANDS as RECORD_COMMANDS
from .cli_records import add_commands as add_record_commands
from .cli_why import add_command as add_why
from .cli_why import cmd_why, failure_line
from .clusters.kinds import BY_NAME as KINDS
from .clusters.profiles import LOCAL, LOCALS
from .core.messages import message
from .core.openpai import describe_exit
from .daemon import client as daemon
from .daemon import protocol
from .errors import ConfigError, NotFound, PaiError, Unreachable


def add_commands(sub) -> None:
    for name, helptext in (("submit", "submit a job file, v1 JSON or v2 YAML (uploading its code first)"),
                           ("run", "submit a job file to the local cluster")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("file", metavar="FILE")
        if name == "submit":
            p.add_argument("--cluster", help="cluster profile (default: the default profile, else local)")
        p.add_argument("--follow", "-f", action="store_true", help="stream the logs until the job ends")
        p.add_argument("--dry-run", action="store_true",
                       help="show what would be uploaded and submitted (files, job name, final config); send nothing")
        p.add_argument("--list", action="store_true", help="with --dry-run: list every file that would be uploaded")
        p.add_argument("--show-secrets", action="store_true",
                       help="with --dry-run: a v2 job's secrets in plain text in the rendered job (masked otherwise)")
        p.add_argument("--force", action="store_true",
                       help="upload even when over pai.job.upload.maxBytes / maxFiles (or .paiignore has a bad line)")
    p = sub.add_parser("jobs", help="list your jobs")
    p.add_argument("--cluster")
    p = sub.add_parser("status", help="show a job's state and tasks")
    p.add_argument("job")
    p.add_argument("--cluster")
    add_why(sub)
    p = sub.add_parser("logs", help="print a job's logs")
    p.add_argument("job")
    p.add_argument("--cluster")
    p.add_argument("--task", metavar="ROLE:IDX", help="one task only (on PaddlePaddle Cloud also a worker's name)")
    p.add_argument("-f", "--follow", action="store_true", help="keep printing until the job ends")
    p = sub.add_parser("stop", help="stop a job")
    p.add_argument("job")
    p.add_argument("--cluster")
    p = sub.add_parser("ssh", help="how to reach a task: SSH and its labelled ports (Jupyter, TensorBoard, …)")
    p.add_argument("job")
    p.add_argument("--task", metavar="ROLE:IDX")
    p.add_argument("--cluster")
    p.add_argument("--connect", action="store_true", help="run ssh to the task (needs an ssh client and the job's key)")
    p = sub.add_parser("outputs", help="download a job's outputDir")
    p.add_argument("job")
    p.add_argument("dest", nargs="?", default=".")
    p.add_argument("--cluster")
    cluster = sub.add_parser("cluster", help="manage cluster profiles")
    csub = cluster.add_subparsers(dest="cluster_command", metavar="COMMAND", required=True)
    add = csub.add_parser("add", help="add a cluster profile")
    add.add_argument("name")
    add.add_argument("--rest", required=True, help="REST server URI, e.g. http://pai.example.com/rest-server "
                     "(PaddlePaddle Cloud: its endpoint, e.g. http://cloud.paddlepaddle.org)")
    add.add_argument("--webhdfs", "--pfs", dest="webhdfs", help="WebHDFS URI, e.g. http://pai.example.com:50070 (required for "
                     "OpenPAI); PaddlePaddle Cloud: its PFS base (default <rest>/api/v1/pfs)")
    add.add_argument("--user", default=getpass.getuser())
    add.add_argument("--kind", choices=list(KINDS), default="openpai")
    add.add_argument("--datacenter", help="PaddlePaddle Cloud: the datacenter's name, the <dc> of /pfs/<dc>/… (default: NAME)")
    add.add_argument("--protocol", type=int, choices=[1, 2], help="job protocol (default: detected from the server)")
    add.add_argument("--password-stdin", action="store_true", help="read the password from standard input, store it and log in")
    imp = csub.add_parser("import-paddle", help="a profile for each datacenter of the paddlecloud client's ~/.paddle/config")
    imp.add_argument("--config", help="the config file (default: ~/.paddle/config)")
    imp.add_argument("--keep-file", action="store_true",
                     help="leave the file as it is (its passwords are still stored in the keyring)")
    csub.add_parser("list", help="list cluster profiles")
    rm = csub.add_parser("remove", help="remove a cluster profile")
    rm.add_argument("name")
    login = csub.add_parser("login", help="store a cluster password in the keyring")
    login.add_argument("name")
    login.add_argument("--password-stdin", action="store_true")
    default = csub.add_parser("default", help="make a profile the default one (`local` for the embedded cluster)")
    default.add_argument("name")
    csub.add_parser("stop-local", help="stop the embedded local cluster if it runs")
    h = sub.add_parser("hdfs", help="browse and move files on the cluster's HDFS")
    h.add_argument("--cluster")
    hsub = h.add_subparsers(dest="hdfs_command", metavar="COMMAND", required=True)
    for op, helptext in (("ls", "list a folder"), ("stat", "show one entry"), ("mkdir", "make a folder (and parents)"),
                         ("cat", "print a file"), ("tail", "print the end of a file")):
        p = hsub.add_parser(op, help=helptext)
        p.add_argument("path", nargs="?" if op == "ls" else None, default="")
        if op == "tail":
            p.add_argument("-c", "--bytes", type=int, default=1024)
    p = hsub.add_parser("rm", help="remove a file (a folder with -r)")
    p.add_argument("path")
    p.add_argument("-r", "--recursive", action="store_true")
    p = hsub.add_parser("mv", help="move or rename")
    p.add_argument("src")
    p.add_argument("dst")
    p = hsub.add_parser("put", help="upload a file or folder")
    p.add_argument("local")
    p.add_argument("remote")
    p = hsub.add_parser("get", help="download a file or folder")
    p.add_argument("remote")
    p.add_argument("local", nargs="?", default=".")
    for command in hsub.choices.values():  # `pai hdfs ls PATH --cluster C` as well as `pai hdfs --cluster C ls PATH`
        command.add_argument("--cluster", default=argparse.SUPPRESS, help="cluster profile (default: the default profile)")
    p = sub.add_parser("quota", help="what you may use on a PaddlePaddle Cloud cluster, and use now")
    p.add_argument("--cluster")
    r = sub.add_parser("registry", help="image registry secrets on a PaddlePaddle Cloud cluster")
    r.add_argument("--cluster")
    rsub = r.add_subparsers(dest="registry_command", metavar="COMMAND", required=True)
    rsub.add_parser("list", help="list registry secrets")
    radd = rsub.add_parser("add", help="add a registry secret (the password on standard input)")
    radd.add_argument("name")
    radd.add_argument("--username", required=True)
    radd.add_argument("--server", required=True, help="the registry, e.g. registry.example.com")
    radd.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    rrm = rsub.add_parser("remove", help="remove a registry secret")
    rrm.add_argument("name")
    d = sub.add_parser("daemon", help="the background job daemon (started on demand)")
    dsub = d.add_subparsers(dest="daemon_command", metavar="COMMAND", required=True)
    dsub.add_parser("status", help="is it running, and what does it watch")
    dsub.add_parser("stop", help="stop it (the next command starts it again)")
    dsub.add_parser("serve", help="run it in the foreground")
    add_record_commands(sub)


def run(args: argparse.Namespace) -> int:
    try:
        return COMMANDS[args.command](args)
    except PaiError as exc:
        from .settings import terminal_locale

        print(f"pai {args.command}: {exc.render(terminal_locale())}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130


def _progress():
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    return Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                    transient=True, disable=not sys.stderr.isatty())


def cmd_submit(args: argparse.Namespace) -> int:
    cluster = "local" if args.command == "run" else args.cluster
    if args.dry_run:
        from .settings import terminal_locale

        shown = daemon.call_sync(protocol.Preview(file=str(Path(args.file).resolve()), shown=args.file, cluster=cluster,
                                                  list_files=args.list, locale=terminal_locale(),
                                                  show_secrets=args.show_secrets))
        sys.stdout.write(shown["text"])
        return 0
    with _progress() as bar:
        task = bar.add_task("uploading code", total=None)

        def on_progress(event: protocol.Event) -> None:
            if isinstance(event, protocol.UploadProgress):
                bar.update(task, completed=event.bytes, total=event.total_bytes)

        def on_restart() -> None:
            bar.update(task, completed=0)
            print(f"pai {args.command}: the pai daemon stopped while submitting; a new one takes over where it "
                  "stopped (the job is submitted once)", file=sys.stderr)

        # The request id lets a new daemon finish what one that died started, without submitting twice.
        result = daemon.call_sync(protocol.Submit(file=str(Path(args.file).resolve()), shown=args.file, cluster=cluster,
                                                  force=args.force, progress_token="cli", request_id=secrets.token_hex(16)),
                                  on_progress, on_restart=on_restart)
    if result["upload"]:
        print(_upload_line(result["upload"]), file=sys.stderr)
    for warning in result.get("warnings") or []:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"submitted {result['job']} to {result['cluster']}")
    if not args.follow:
        return 0
    return _follow(result["cluster"], result["job"], None)


def _upload_line(up: dict) -> str:
    """What an upload did, in one line (and one more per unfinished earlier upload it removed)."""
    lines = [f"removed an unfinished earlier upload to {up['remote']} ({path})" for path in up.get("cleaned") or []]
    if not up["sent_files"] and not up["removed_files"]:
        lines.append(f"code at {up['remote']} is up to date ({up['unchanged_files']} file(s) unchanged)")
        return "\n".join(lines)
    # What was sent, and why; what was kept there without being sent; what was removed.
    counts = [f"{up.get('changed_files', up['sent_files'])} new or changed"]
    if up.get("resent_files"):
        counts.append(f"{up['resent_files']} unchanged but sent again")
    counts.append(f"{up['unchanged_files']} unchanged kept")
    if up["removed_files"]:
        counts.append(f"{up['removed_files']} removed")
    lines.append(f"uploaded {up['sent_files']} file(s), {up['sent_bytes']:,} bytes to {up['remote']} "
                 f"({', '.join(counts)}) in {up['seconds']:.2f} s")
    return "\n".join(lines)


def _follow(cluster: str | None, job: str, task: str | None, follow: bool = True) -> int:
    """Print every task's log through the daemon (resumed, nothing lost or repeated, if it dies)."""
    import asyncio

    status = daemon.call_sync(protocol.Status(job=job, cluster=cluster))
    multi = task is None and len(status["tasks"]) > 1
    final: list[protocol.JobStatus] = []
    result = asyncio.run(daemon.follow(protocol.FollowLogs(job=job, cluster=cluster, task=task, follow=follow),
                                       lambda log, text: _print_chunk(log.task if multi else None, text), final.append))
    if not follow:
        return 0
    state = result["state"]
    how = describe_exit(state, final[-1].exit_code, final[-1].user_exit_code, final[-1].exit_reason or
                        final[-1].diagnostics) if final else ""
    print(f"{job}: {state}" + (f" ({how})" if how else ""), file=sys.stderr)
    if (why := failure_line(cluster, job, state)) is not None:
        print(f"why: {why}", file=sys.stderr)
    return 0 if state == "SUCCEEDED" else 1


def _print_chunk(label: str | None, data: bytes) -> None:
    """What the task wrote, byte for byte (prefixed by its task on each line when several run)."""
    if label:
        data = b"".join(f"[{label}] ".encode() + line for line in data.splitlines(keepends=True))
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def cmd_jobs(args: argparse.Namespace) -> int:
    answer = daemon.call_sync(protocol.Jobs(cluster=args.cluster))
    rows, cluster = answer["jobs"], answer["cluster"]
    print(f"{'NAME':32} {'STATE':10} {'STARTED':19} {'DURATION':>9}  CLUSTER")
    for job in rows:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(job["created"] / 1000)) if job.get("created") else "-"
        end = job.get("completed") or time.time() * 1000
        duration = _duration((end - job["created"]) / 1000) if job.get("created") else "-"
        print(f"{job['name']:32} {job['state']:10} {started:19} {duration:>9}  {cluster}")
    return 0


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def cmd_status(args: argparse.Namespace) -> int:
    status = daemon.call_sync(protocol.Status(job=args.job, cluster=args.cluster))
    how = describe_exit(status["state"], status["exitCode"], status["userExitCode"], status["exitReason"])
    print(f"{status['name']}: {status['state']}" + (f" ({how})" if how else ""))
    if status["diagnostics"]:
        print(f"  {status['diagnostics']}")
    if (why := failure_line(args.cluster, args.job, status["state"])) is not None:
        print(f"  why: {why}")
    for t in status["tasks"]:
        ports = " ".join(f"{k}={v}" for k, v in t["ports"].items())
        label = f"{t['role']}:{t['index']}"
        if t.get("worker"):  # a PaddlePaddle Cloud worker: its name, phase, start, exit code and message (§A.7)
            started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t["started"] / 1000)) if t.get("started") else "-"
            end = f"exit {t['exitCode']}" + (f": {t['message']}" if t.get("message") else "") if t["exitCode"] is not None else ""
            print(f"  {label:10} {t['worker']:40} {t['state']:10} {started:19} {end}".rstrip())
            continue
        print(f"  {label}  {t['state']:10} {t['ip'] or '-'}  {ports}")
    return 0


def cmd_logs(args: argparse.Namespace) -> int:
    _follow(args.cluster, args.job, args.task, follow=args.follow)
    return 0


def cmd_ssh(args: argparse.Namespace) -> int:
    running = daemon.call_sync(protocol.Ssh(job=args.job, cluster=args.cluster, task=args.task))["tasks"]
    for t in running:
        print(f"{t['task']}  {t['command'] or 'no ssh port'}")
        for label, urls in t["urls"].items():
            print(f"    {label}: " + ", ".join(urls))
    if args.connect:
        import os
        import shutil

        t = running[0]
        if shutil.which("ssh") is None:
            raise ConfigError(message("ssh.no-client"))
        if not t["sshPort"]:
            raise NotFound(message("ssh.no-port", task=t["task"], job=args.job))
        os.execvp("ssh", ["ssh", "-p", t["sshPort"], f"root@{t['ip']}"])
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    daemon.call_sync(protocol.Stop(job=args.job, cluster=args.cluster))
    print(f"stopped {args.job}")
    return 0


def cmd_outputs(args: argparse.Namespace) -> int:
    target = daemon.call_sync(protocol.Outputs(job=args.job, cluster=args.cluster, dest=str(Path(args.dest).resolve())))["path"]
    print(f"downloaded outputs of {args.job} to {target}")
    return 0


def cmd_cluster(args: argparse.Namespace) -> int:
    command = args.cluster_command
    if command == "add":
        password = sys.stdin.readline().rstrip("\n") if args.password_stdin else None
        added = daemon.call_sync(protocol.ClustersAdd(name=args.name, rest=args.rest, webhdfs=args.webhdfs, user=args.user,
                                                      kind=args.kind, protocol=args.protocol, password=password,
                                                      datacenter=args.datacenter))
        note = " as given" if added["protocolNote"] == "as given" else "" if added["protocolNote"] == "detected" \
            else f"; {added['protocolNote']}"
        kind = KINDS[args.kind]
        what = f"job protocol v{added['protocol']}{note}" if kind.protocols else kind.title[0]
        print(f"added cluster {args.name} ({what})" + (f", logged in as {args.user}" if added["loggedIn"] else
                                                         f"; not logged in: log in with `pai cluster login {args.name}`"))
    elif command == "import-paddle":
        done = daemon.call_sync(protocol.ClustersImportPaddle(config=args.config, keep_file=args.keep_file))
        for c in done["clusters"]:
            print(f"added cluster {c['name']} (PaddlePaddle Cloud {c['endpoint']}, datacenter {c['datacenter']}, user {c['user']})"
                  + (", active" if c["active"] else ""))
        stored = [c["name"] for c in done["clusters"] if c["passwordStored"]]
        if stored:
            where = (f"and removed from {done['config']} (give --keep-file to leave the file as it is)" if done["passwordsRemoved"]
                     else f"{done['config']} was left as it is")
            print(f"moved the password(s) of {', '.join(stored)} into the keyring, {where}")
        print(f"default cluster: {done['default']}")
    elif command == "list":
        for c in daemon.call_sync(protocol.ClustersList())["clusters"]:
            mark = "*" if c["default"] else " "
            if c["local"] and c["name"] != LOCAL:  # the embedded cluster's API of another kind
                datacenter = f" (datacenter {c['datacenter']})" if c.get("datacenter") else ""
                where = f" at {c['rest']}{datacenter}" if c["rest"] else " (started on demand)"
                what = f"embedded local cluster, {KINDS[c['kind']].title[0]} API{where}"
            elif c["local"]:
                what = "embedded local cluster (started on demand)"
            else:
                what = f"{c['rest']}  {c['user']}  {c['kind']}" + (f"  datacenter {c['datacenter']}" if c.get("datacenter") else "")
            print(f"{mark} {c['name']:16} {what}")
    elif command == "remove":
        daemon.call_sync(protocol.ClustersRemove(name=args.name))
        print(f"removed cluster {args.name}")
    elif command == "default":
        print(f"default cluster: {daemon.call_sync(protocol.ClustersSetDefault(name=args.name))['default']}")
    elif command == "login":
        if args.name in LOCALS:
            raise ConfigError(message("clusters.local-no-login"))
        password = sys.stdin.readline().rstrip("\n") if args.password_stdin else getpass.getpass(f"password for {args.name}: ")
        done = daemon.call_sync(protocol.ClustersLogin(name=args.name, password=password))
        print(f"logged in to {done['name']} as {done['user']}")
    elif command == "stop-local":  # in-process: stopping must not start the daemon
        from .service.clusters import stop_local_cluster

        stopped = stop_local_cluster()["stopped"]
        print("stopped the local cluster" if stopped else "the local cluster was not running")
    return 0


def cmd_hdfs(args: argparse.Namespace) -> int:
    import base64

    op, cluster = args.hdfs_command, args.cluster
    params: protocol.Params = {
        "ls": lambda: protocol.HdfsList(path=args.path, cluster=cluster),
        "stat": lambda: protocol.HdfsStat(path=args.path, cluster=cluster),
        "mkdir": lambda: protocol.HdfsMkdir(path=args.path, cluster=cluster),
        "cat": lambda: protocol.HdfsCat(path=args.path, cluster=cluster),
        "tail": lambda: protocol.HdfsTail(path=args.path, size=args.bytes, cluster=cluster),
        "rm": lambda: protocol.HdfsRemove(path=args.path, recursive=args.recursive, cluster=cluster),
        "mv": lambda: protocol.HdfsMove(source=args.src, target=args.dst, cluster=cluster),
        "put": lambda: protocol.HdfsPut(local=str(Path(args.local).resolve()), remote=args.remote, progress_token="cli",
                                        cluster=cluster),
        "get": lambda: protocol.HdfsGet(local=str(Path(args.local).resolve()), remote=args.remote, progress_token="cli",
                                        cluster=cluster),
    }[op]()
    with _progress() as bar:
        task = bar.add_task("transferring", total=None)

        def on_progress(event: protocol.Event) -> None:
            if isinstance(event, protocol.TransferProgress):
                bar.update(task, completed=event.bytes, total=event.total_bytes)

        result = daemon.call_sync(params, on_progress)
    if op == "ls":
        for e in result["entries"]:
            kind = "d" if e["type"] == "dir" else "-"
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e["modified"] / 1000))
            print(f"{kind}{_mode(e['permission'])} {e['owner']:10} {e['group']:12} {e['size']:>12} {when} {e['name']}")
    elif op == "stat":
        print(f"{result['path']}: {result['type']}, {result['size']} bytes, {_mode(result['permission'])} "
              f"{result['owner']}:{result['group']}, modified "
              f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(result['modified'] / 1000))}")
    elif op in ("cat", "tail"):
        sys.stdout.buffer.write(base64.b64decode(result["data"]))
        sys.stdout.flush()
    elif op in ("put", "get"):
        print(f"{'uploaded' if op == 'put' else 'downloaded'} {result['files']} file(s), {result['bytes']:,} bytes to {result['path']}")
    elif op == "mv":
        print(f"moved {result['from']} to {result['to']}")
    else:
        print(f"{'removed' if op == 'rm' else 'made'} {result['path']}")
    return 0


def _mode(octal: str) -> str:
    bits = int(octal, 8)
    return "".join(ch if bits & (1 << (8 - i)) else "-" for i, ch in enumerate("rwxrwxrwx"))


def cmd_daemon(args: argparse.Namespace) -> int:
    if args.daemon_command == "serve":
        from .daemon.server import serve

        return serve()
    try:
        if args.daemon_command == "stop":
            daemon.call_sync(protocol.StopDaemon(), start=False)
            print("stopped the pai daemon")
        else:
            info = daemon.call_sync(protocol.Ping(), start=False)
            print(f"the pai daemon runs (pid {info['pid']}, up {_duration(info['uptime'])}, watching {info['watched']} job(s))")
    except Unreachable:
        print("the pai daemon is not running")
        return 0 if args.daemon_command == "stop" else 1
    return 0


def cmd_quota(args: argparse.Namespace) -> int:
    quota = daemon.call_sync(protocol.Quota(cluster=args.cluster))
    print(f"{'':16} {'CPU':>8} {'MEMORY':>10} {'GPU':>5} {'MAXPARALLELISM':>15}")
    for row in ("limits", "used"):
        q = quota[row]
        print(f"{row:16} {q['cpu'] or '-':>8} {q['memory'] or '-':>10} {q['gpu'] or '-':>5} {q['maxParallelism'] or '-':>15}")
    return 0


def cmd_registry(args: argparse.Namespace) -> int:
    command, cluster = args.registry_command, args.cluster
    if command == "list":
        for r in daemon.call_sync(protocol.RegistryList(cluster=cluster))["registries"]:
            print(f"{r['name']:24} {r['created'] or '-'}")
    elif command == "add":
        password = sys.stdin.readline().rstrip("\n") if args.password_stdin else getpass.getpass(f"password for {args.server}: ")
        done = daemon.call_sync(protocol.RegistryAdd(cluster=cluster, name=args.name, username=args.username, password=password,
                                                     server=args.server))
        print(f"added registry {done['name']} (use \"registry\": \"{done['secret']}\" in a job file)")
    else:
        done = daemon.call_sync(protocol.RegistryRemove(cluster=cluster, name=args.name))
        print(f"removed registry {done['name']}")
    return 0


COMMANDS = {"ssh": cmd_ssh, "submit": cmd_submit, "run": cmd_submit, "jobs": cmd_jobs, "status": cmd_status, "logs": cmd_logs,
            "stop": cmd_stop, "why": cmd_why, "outputs": cmd_outputs, "cluster": cmd_cluster,
            "daemon": cmd_daemon, "hdfs": cmd_hdfs, "quota": cmd_quota, "registry": cmd_registry, **RECORD_COMMANDS}
