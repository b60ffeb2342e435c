"""Cluster profiles as users manage them (`pai cluster …` and the editor's Clusters view), once.

A password is kept in the OS keyring under the same key the job operations read
(`<profile>:<user>:password`), so a profile added from the editor works from the CLI and back.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..api import (
    ClusterRow,
    ClustersAddResult,
    ClustersImportPaddleResult,
    ClustersListResult,
    ClustersLoginResult,
    ClustersRemoveResult,
    ClustersSetDefaultResult,
    ImportedCluster,
    StoppedResult,
)
from ..clusters import paddle_config
from ..clusters.connect import backend_for, connect
from ..clusters.kinds import kind_named, kind_of, local_kind
from ..clusters.profiles import (
    LOCAL,
    LOCAL_PADDLE,
    LOCALS,
    PFS_PATH,
    Profile,
    Profiles,
    delete_secret,
    get_secret,
    local_paddle_profile,
    secret_key,
    secret_store,
    set_secret,
    stop_local,
)
from ..common.atomic import write_atomic
from ..core.messages import message
from ..errors import AuthFailed, ConfigError, InvalidInput, PaiError
from ..storage import session


def list_profiles() -> ClustersListResult:
    """Every profile, the local ones first: which is the default, and whether a password is stored."""
    profiles = Profiles()
    default = profiles.default if profiles.default in (*profiles.clusters, LOCAL_PADDLE) else LOCAL
    try:
        paddle = local_paddle_profile(start=False).rest_uri
        running = True
    except PaiError:
        running, paddle = False, None
    rows = [ClusterRow(name=LOCAL, local=True, default=default == LOCAL, logged_in=True, running=running, rest=None, webhdfs=None,
                       user=None, kind=local_kind(LOCAL).name, protocol=1),
            ClusterRow(name=LOCAL_PADDLE, local=True, default=default == LOCAL_PADDLE, logged_in=True, running=running, rest=paddle,
                       webhdfs=paddle + PFS_PATH if paddle else None, user=None, kind=local_kind(LOCAL_PADDLE).name, protocol=1,
                       datacenter="local")]
    for name, p in profiles.clusters.items():
        rows.append(ClusterRow(name=name, local=False, default=default == name,
                               logged_in=get_secret(secret_key(p, "password")) is not None, running=None, rest=p.rest_uri,
                               webhdfs=p.webhdfs_uri, user=p.user, kind=p.kind, protocol=p.protocol, datacenter=p.datacenter))
    return ClustersListResult(default=default, clusters=rows)


def add(name: str, rest: str, webhdfs: str | None, user: str, kind: str = "openpai", protocol: int | None = None,
        password: str | None = None, datacenter: str | None = None, make_default: bool = False) -> ClustersAddResult:
    """Add (or replace) a profile; with a password, log in first to check it (a failure adds nothing)
    and keep it. What the profile needs follows its kind (clusters/kinds.py): a PaddlePaddle Cloud
    profile's storage is its PFS, by default under the endpoint, and it names a datacenter. The
    first profile (or one with `make_default`) becomes the default: `isDefault` says so."""
    Profiles.check_name(name)
    record = kind_named(kind)
    rest = checked_url(rest.strip().rstrip("/"), "--rest")
    if not webhdfs and record.default_storage is None:
        raise ConfigError(message("clusters.storage-required", name=name, storage=record.storage))
    webhdfs = checked_url((webhdfs or rest + (record.default_storage or "")).strip().rstrip("/"), "--webhdfs")
    if record.protocols:  # OpenPAI: v1 JSON or v2 YAML jobs, as the server says
        detected, note = (protocol, "as given") if protocol else detect_protocol(rest)
    else:
        detected, note = 1, "as given"
    profile = Profile(name, rest, webhdfs, user, kind, detected, (datacenter or name) if record.datacenter else None)
    if password:
        check_login(profile, password)
        set_secret(secret_key(profile, "password"), password)
    profiles = Profiles()
    profiles.add(profile)
    if make_default:
        profiles.set_default(name)
    logged_in = get_secret(secret_key(profile, "password")) is not None  # as `list_profiles` says it
    return ClustersAddResult(name=name, protocol=detected, protocol_note=note, logged_in=logged_in, kind=kind,
                             is_default=profiles.default == name)


def checked_url(value: str, what: str) -> str:
    """A cluster's URI as given (`--rest`, `--webhdfs`), or one line saying what is wrong with it."""
    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018 - raises on a port that is no number in range
    except ValueError as exc:
        raise InvalidInput(message("clusters.bad-url", option=what, url=value, reason=str(exc))) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput(message("clusters.not-http-url", option=what, url=value))
    return value


def check_login(profile: Profile, password: str) -> None:
    """Log in to a profile not saved yet: a failure (a refused password, an unreachable cluster)
    leaves everything as it was, and says so."""
    backend = backend_for(profile, lambda: password)
    try:
        backend.login()
    except PaiError as exc:
        raise type(exc)(message("clusters.not-added", name=profile.name, reason=exc.said)) from None
    finally:
        backend.close()


def import_paddle(path: str | None = None, remove_passwords: bool = False) -> ClustersImportPaddleResult:
    """One profile per datacenter of `~/.paddle/config` (kind paddlecloud); each password is stored
    where this machine keeps secrets (`secretStore` says where). The file is the paddlecloud client's
    and is left as it is unless `remove_passwords` (then rewritten whole, comments kept). The active
    datacenter becomes the default profile when there is none yet."""
    config = Path(path).expanduser() if path else paddle_config.default_path()
    centers = paddle_config.read(config)
    profiles = Profiles()
    had_default = profiles.default is not None
    rows = []
    for dc in centers:
        name = dc.name if re.fullmatch(r"[A-Za-z0-9_.-]+", dc.name) and dc.name not in LOCALS else \
            "paddle-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", dc.name).strip("-")
        profile = Profile(name, dc.endpoint, dc.endpoint + PFS_PATH, dc.username, "paddlecloud", 1, dc.name)
        profiles.add(profile)
        stored = False
        if dc.password:
            set_secret(secret_key(profile, "password"), dc.password)
            stored = True
        rows.append(ImportedCluster(name=name, datacenter=dc.name, endpoint=dc.endpoint, user=dc.username, active=dc.active,
                                    password_stored=stored))
    active = next((r.name for r in rows if r.active), None)
    if not had_default and active:
        profiles.set_default(active)
    moved = any(r.password_stored for r in rows)
    rewritten = False
    if moved and remove_passwords:
        write_atomic(config, paddle_config.without_passwords(config), private=True)
        rewritten = True
    return ClustersImportPaddleResult(config=str(config), clusters=rows, default=Profiles().resolve(None), passwords_removed=rewritten,
                                      secret_store=secret_store())


def login(name: str | None, password: str) -> ClustersLoginResult:
    """Store the password and log in with it; a refused password is not kept."""
    profiles = Profiles()
    name = profiles.resolve(name)
    if name in LOCALS:
        raise ConfigError(message("clusters.local-no-login"))
    profile = profiles.clusters[name]
    set_secret(secret_key(profile, "password"), password)
    backend = connect(name)
    try:
        backend.login()
    except AuthFailed:
        delete_secret(secret_key(profile, "password"))
        raise
    finally:
        backend.close()
    return ClustersLoginResult(name=name, user=profile.user)


def remove(name: str) -> ClustersRemoveResult:
    """Remove a profile and the secrets kept for it."""
    profiles = Profiles()
    profile = profiles.clusters.get(name)
    profiles.remove(name)
    if profile is not None:
        for what in ("password", "token"):
            delete_secret(secret_key(profile, what))
        delete_secret(kind_of(profile).token_key(profile))  # where its kind keeps it, if not per profile
    return ClustersRemoveResult(name=name, default=profiles.resolve(None))


def set_default(name: str) -> ClustersSetDefaultResult:
    profiles = Profiles()
    profiles.set_default(profiles.resolve(name))
    return ClustersSetDefaultResult(default=profiles.resolve(None))


def stop_local_cluster() -> StoppedResult:
    return StoppedResult(stopped=stop_local())


def detect_protocol(rest: str) -> tuple[int, str]:
    """As clients of OpenPAI do: a k8s-era server (v1.0+) answers `GET /api/v2/info` with
    `launcherType: k8s` and takes only v2 YAML jobs; a YARN-era one (≤ 0.14, SCM) takes v1 JSON."""
    try:
        with session.client(read=10) as http:
            info = http.get(f"{rest}/api/v2/info")
    except httpx.HTTPError:
        return 1, "assumed"  # not reachable now
    try:
        k8s = info.status_code == 200 and info.json().get("launcherType") == "k8s"
    except (ValueError, AttributeError):
        k8s = False
    return (2, "detected") if k8s else (1, "detected")


def web_portal(profile: Profile, job: str) -> str | None:
    """The job's page in the cluster's web portal (none for the local cluster). OpenPAI serves the
    portal at the REST host's root when the REST server sits under /rest-server (pylon), else on
    port 9286 beside the REST server's 9186."""
    if profile.name in LOCALS or not kind_of(profile).web_portal:
        return None  # e.g. PaddlePaddle Cloud: no job page
    parts = urlsplit(profile.rest_uri)
    host = parts.netloc
    if parts.port == 9186 and parts.hostname:
        host = f"{parts.hostname}:9286"
    return urlunsplit((parts.scheme, host, "/job-detail.html", f"username={profile.user}&jobName={job}", ""))
