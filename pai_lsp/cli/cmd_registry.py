"""`pai registry list|add|remove`: image registry secrets on a PaddlePaddle Cloud cluster (the daemon's
`registry.*`)."""

from __future__ import annotations

import argparse

from .. import api
from ..daemon import client as daemon
from .args import _, cluster_option, command, group, password
from .cmd_daemon import restart_if_stale
from .output import add_output_option, print_json, visible


def add_commands(sub) -> None:
    r = command(sub, "registry", "image registry secrets on a PaddlePaddle Cloud cluster", [
        ("pai registry list --cluster paddle", "the registry secrets there")])
    cluster_option(r)
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



def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    restart_if_stale()
    return cmd_registry(args)


def cmd_registry(args: argparse.Namespace) -> int:
    command, cluster = args.registry_command, args.cluster
    if command == "list":
        answer = daemon.call_sync(api.RegistryList(cluster=cluster))
        if args.output == "json":
            print_json(answer)
            return 0
        for r in answer.registries:
            print(visible(f"{r.name:24} {r.created or '-'}"))
    elif command == "add":
        secret = password(args.password_stdin, _("password for {name}: ").format(name=args.server))
        done = daemon.call_sync(api.RegistryAdd(cluster=cluster, name=args.name, username=args.username, password=secret,
                                                     server=args.server))
        print(visible(_("added registry {name} (use \"registry\": \"{secret}\" in a job file)").format(name=done.name, secret=done.secret)))
    else:
        done = daemon.call_sync(api.RegistryRemove(cluster=cluster, name=args.name))
        print(visible(_("removed registry {name}").format(name=done.name)))
    return 0

