"""`pai local-cluster [serve]` and `pai local-cluster users add`: the embedded local cluster, in the
foreground, and its users."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .args import EXIT_ERRORS, EXIT_OK, EXIT_UNREADABLE, _


def run(args: argparse.Namespace) -> int:
    return local_cluster(args)


def local_cluster(args: argparse.Namespace) -> int:
    from ..localcluster.asgi import default_data_dir, prepare_data_dir, serve

    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    if args.lc_command == "users":
        from ..localcluster.auth import Users
        from .args import password

        secret = password(args.password_stdin, _("password for {name}: ").format(name=args.name))
        problem = prepare_data_dir(data_dir)
        if problem:
            print(f"pai local-cluster users add: {problem}", file=sys.stderr)
            return EXIT_UNREADABLE
        try:
            Users(data_dir).add(args.name, secret, admin=args.admin)
        except ValueError as exc:
            print(f"pai local-cluster users add: {exc}", file=sys.stderr)
            return EXIT_ERRORS
        print(_("user {name} added").format(name=args.name))
        return EXIT_OK
    if bool(args.ssl_certfile) != bool(args.ssl_keyfile):
        print("pai local-cluster: " + _("HTTPS needs both --ssl-certfile and --ssl-keyfile"), file=sys.stderr)
        return EXIT_ERRORS
    try:
        return serve(data_dir, args.host, args.port, args.hdfs_port, args.gpus, args.runtime, args.cpus, args.memory_mb,
                     allow_remote=args.allow_remote, private=args.private, strict_resources=args.strict_resources,
                     paddle_port=args.paddle_port, enforce_memory=args.enforce_memory,
                     metrics_interval=args.metrics_interval, prometheus=args.prometheus, storages=args.storage,
                     azurite=args.azurite, tls=(args.ssl_certfile, args.ssl_keyfile) if args.ssl_certfile else None)
    except OSError as exc:
        print("pai local-cluster: " + _("cannot listen on {address}: {why}").format(address=f"{args.host}:{args.port}", why=exc.strerror or exc),
              file=sys.stderr)
        return EXIT_ERRORS


def add_commands(sub) -> None:
    from .args import command, group

    p_lc = command(sub, "local-cluster", "run the embedded local cluster (OpenPAI REST + WebHDFS + task runner)", [
        ("pai local-cluster", "serve in the foreground on 127.0.0.1:9186 (Ctrl-C stops it)"),
        ("pai local-cluster --port 0 --gpus 2", "on a free port, offering two GPU slots"),
        ("pai local-cluster --storage samba:smb --storage nfs:data", "with a Samba and an NFS storage it serves itself"),
        ("echo s3cret | pai local-cluster users add bob --password-stdin", "a user for a colleague's jobs")])
    p_lc.add_argument("--data-dir", metavar="DIR",
                      help="where jobs, logs and HDFS files live (default: ~/.local/share/pai-lsp/local-cluster)")
    lc_sub = group(p_lc, "lc_command", required=False)
    serve_args = [p_lc, command(lc_sub, "serve", "serve in the foreground (the default)", [
        ("pai local-cluster serve --data-dir ./cluster", "keep this cluster's jobs and files in ./cluster")])]
    first = len(p_lc._actions)
    for p in serve_args:
        p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1; another needs --allow-remote)")
        p.add_argument("--port", type=int, default=9186, help="REST (and WebHDFS) port; 0 picks a free one")
        p.add_argument("--hdfs-port", type=int, help="also serve WebHDFS on this port, as a namenode does")
        p.add_argument("--paddle-port", type=int, default=0,
                       help="PaddlePaddle Cloud API (jobs and PFS) on this port (default: a free one, printed at start)")
        p.add_argument("--gpus", type=int, help="GPU slots to simulate (default: from nvidia-smi, else 0)")
        p.add_argument("--cpus", type=int, help="CPU slots to offer (default: this machine's cores)")
        p.add_argument("--memory-mb", type=int, help="memory to offer in MB (default: this machine's memory)")
        p.add_argument("--runtime", choices=["host", "container"], default="host",
                       help="run tasks as processes of yours (host, the default) or in containers (docker or podman)")
        p.add_argument("--allow-remote", action="store_true",
                       help="allow a --host reachable from other machines (every call then needs a token)")
        p.add_argument("--strict-resources", action="store_true",
                       help="refuse jobs larger than this machine, as a real cluster's quota does (default: run them "
                            "scaled to the machine, with a note)")
        p.add_argument("--enforce-memory", action="store_true",
                       help="kill a task whose processes use more memory than its role's memoryMB, as a real cluster does")
        p.add_argument("--storage", action="append", metavar="TYPE:NAME",
                       help="also serve storage NAME through a real server of TYPE that the cluster starts on 127.0.0.1: "
                            "samba (smbd), nfs (NFS-Ganesha) or azureBlob (Azurite); repeatable")
        p.add_argument("--azurite", metavar="PROGRAM",
                       help="Azurite's azurite-blob program for azureBlob storages (default: tests/servers' beside a "
                            "source checkout, else azurite-blob on PATH)")
        p.add_argument("--metrics-interval", type=int, metavar="SECONDS",
                       help="how often Prometheus scrapes the tasks' metrics (default: 10; OpenPAI's is 30)")
        p.add_argument("--prometheus", metavar="PROGRAM", default="prometheus",
                       help="the Prometheus serving /prometheus: a name on PATH or a path (default: prometheus; "
                            "none: no Prometheus, and /prometheus says so)")
        p.add_argument("--private", action="store_true",
                       help="require a token for reading jobs too, and for every WebHDFS call (delegation=<token>)")
        p.add_argument("--ssl-certfile", metavar="FILE", help="serve over HTTPS with this certificate (PEM; with --ssl-keyfile)")
        p.add_argument("--ssl-keyfile", metavar="FILE", help="the private key of --ssl-certfile (PEM)")
    for action in p_lc._actions[first:]:
        action.own_only = True  # serve's options, which `pai local-cluster` takes as the command it runs by default
    users = command(lc_sub, "users", "manage the cluster's users", [
        ("pai local-cluster users add bob --password-stdin < pw.txt", "add the user bob")])
    users_sub = group(users, "users_command")
    add = command(users_sub, "add", "add a user (a running cluster picks it up at once)", [
        ("echo s3cret | pai local-cluster users add bob --password-stdin", "the password from standard input"),
        ("pai local-cluster users add alice --admin", "asked on the terminal; alice may see everyone's jobs")])
    add.add_argument("name", metavar="NAME", help="the user's name, as jobs and HDFS paths show it (/user/NAME)")
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of standard input")
    add.add_argument("--admin", action="store_true", help="an administrator, who sees and stops every user's jobs")
