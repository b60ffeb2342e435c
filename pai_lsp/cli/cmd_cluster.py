"""`pai cluster add|import-paddle|list|remove|login|default|stop-local`: the cluster profiles, kept
by the daemon (`service.clusters`)."""

from __future__ import annotations

import argparse
import getpass

from .. import api
from ..clusters.kinds import BY_NAME as CLUSTER_KINDS
from ..clusters.profiles import LOCAL, LOCALS
from ..core.messages import message
from ..daemon import client as daemon
from ..errors import ConfigError
from . import complete
from .args import _, command, group, ngettext, password
from .cmd_daemon import restart_if_stale
from .output import add_output_option, print_json, visible


def add_commands(sub) -> None:
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



def run(args: argparse.Namespace) -> int:
    """A command of the daemon's (failures become one line in `cli.guarded`)."""
    if args.cluster_command != "stop-local":
        restart_if_stale()
    return cmd_cluster(args)


def cmd_cluster(args: argparse.Namespace) -> int:
    command = args.cluster_command
    if command == "add":
        secret = password(True, "") if args.password_stdin else None
        added = daemon.call_sync(api.ClustersAdd(name=args.name, rest=args.rest, webhdfs=args.webhdfs, user=args.user,
                                                      kind=args.kind, protocol=args.protocol, password=secret,
                                                      datacenter=args.datacenter, make_default=args.default))
        note = {"as given": _(" as given"), "assumed": _("; not reachable now, so v1 was assumed")}.get(added.protocol_note, "")
        kind = CLUSTER_KINDS[args.kind]
        what = _("job protocol v{protocol}").format(protocol=added.protocol) + note if kind.protocols else kind.title[0]
        print((_("added cluster {name} ({what}), logged in as {user}") if added.logged_in else
               _("added cluster {name} ({what}); not logged in: log in with `pai cluster login {name}`")).format(
                   name=args.name, what=what, user=args.user))
        if added.is_default:
            print(_("{name} is the default cluster now: jobs, submit and hdfs go there unless --cluster says "
                    "(`pai cluster default local` goes back)").format(name=args.name))
    elif command == "import-paddle":
        done = daemon.call_sync(api.ClustersImportPaddle(config=args.config, remove_passwords=args.remove_passwords))
        for c in done.clusters:
            print(visible(_("added cluster {name} (PaddlePaddle Cloud {endpoint}, datacenter {datacenter}, user {user})").format(
                name=c.name, endpoint=c.endpoint, datacenter=c.datacenter, user=c.user) + (_(", active") if c.active else "")))
        stored = [c.name for c in done.clusters if c.password_stored]
        if stored:
            where = (_("and removed from {config} (the paddlecloud client asks for them now)") if done.passwords_removed
                     else _("{config} was left as it is")).format(config=done.config)
            print(ngettext("stored the password of {names} in {store}; {where}", "stored the passwords of {names} in {store}; {where}",
                           len(stored)).format(names=", ".join(stored), store=done.secret_store, where=where))
        print(_("default cluster: {name}").format(name=done.default))
    elif command == "list":
        answer = daemon.call_sync(api.ClustersList())
        if args.output == "json":
            print_json(answer)
            return 0
        for c in answer.clusters:
            mark = "*" if c.default else " "
            if c.local and c.name != LOCAL:  # the embedded cluster's API of another kind
                datacenter = _(" (datacenter {datacenter})").format(datacenter=c.datacenter) if c.datacenter else ""
                where = _(" at {url}").format(url=c.rest) + datacenter if c.rest else _(" (started on demand)")
                what = _("embedded local cluster, {kind} API").format(kind=CLUSTER_KINDS[c.kind].title[0]) + where
            elif c.local:
                what = _("embedded local cluster (started on demand)")
            else:
                what = f"{c.rest}  {c.user}  {c.kind}" + ("  " + _("datacenter {datacenter}").format(datacenter=c.datacenter)
                                                          if c.datacenter else "")
            print(visible(f"{mark} {c.name:16} {what}"))
    elif command == "remove":
        daemon.call_sync(api.ClustersRemove(name=args.name))
        print(_("removed cluster {name}").format(name=args.name))
    elif command == "default":
        print(_("default cluster: {name}").format(name=daemon.call_sync(api.ClustersSetDefault(name=args.name)).default))
    elif command == "login":
        if args.name in LOCALS:
            raise ConfigError(message("clusters.local-no-login"))
        secret = password(args.password_stdin, _("password for {name}: ").format(name=args.name))
        done = daemon.call_sync(api.ClustersLogin(name=args.name, password=secret))
        print(visible(_("logged in to {name} as {user}").format(name=done.name, user=done.user)))
    elif command == "stop-local":  # in-process: stopping must not start the daemon
        from ..service.clusters import stop_local_cluster

        stopped = stop_local_cluster().stopped
        print(_("stopped the local cluster") if stopped else _("the local cluster was not running"))
    return 0

