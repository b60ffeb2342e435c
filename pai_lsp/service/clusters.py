"""Cluster profiles as users manage them (`pai cluster …` and the editor's Clusters view), once.

A password is kept in the OS keyring under the same key the job operations read
(`<profile>:<user>:password`), so a profile added from the editor works from the CLI and back.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import httpx

from ..clusters.connect import connect
from ..clusters.profiles import LOCAL, Profile, Profiles, delete_secret, get_secret, local_profile, set_secret, stop_local
from ..errors import AuthFailed, ConfigError, PaiError


def secret_key(profile: Profile, what: str) -> str:
    return f"{profile.name}:{profile.user}:{what}"


def list_profiles() -> dict:
    """Every profile, `local` first: which is the default, and whether a password is stored."""
    profiles = Profiles()
    default = profiles.default if profiles.default in profiles.clusters else LOCAL
    try:
        running = bool(local_profile(start=False))
    except PaiError:
        running = False
    rows = [{"name": LOCAL, "local": True, "default": default == LOCAL, "loggedIn": True, "running": running,
             "rest": None, "webhdfs": None, "user": None, "kind": "openpai", "protocol": 1}]
    for name, p in profiles.clusters.items():
        rows.append({"name": name, "local": False, "default": default == name,
                     "loggedIn": get_secret(secret_key(p, "password")) is not None, "running": None,
                     "rest": p.rest_uri, "webhdfs": p.webhdfs_uri, "user": p.user, "kind": p.kind, "protocol": p.protocol})
    return {"default": default, "clusters": rows}


def add(name: str, rest: str, webhdfs: str, user: str, kind: str = "openpai", protocol: int | None = None,
        password: str | None = None) -> dict:
    """Add (or replace) a profile; with a password, store it and log in once to check it."""
    rest, webhdfs = rest.strip().rstrip("/"), webhdfs.strip().rstrip("/")
    detected, note = (protocol, "as given") if protocol else detect_protocol(rest)
    profiles = Profiles()
    profiles.add(Profile(name, rest, webhdfs, user, kind, detected))
    result = {"name": name, "protocol": detected, "protocolNote": note, "loggedIn": False}
    if password:
        login(name, password)
        result["loggedIn"] = True
    return result


def login(name: str | None, password: str) -> dict:
    """Store the password and log in with it; a refused password is not kept."""
    profiles = Profiles()
    name = profiles.resolve(name)
    if name == LOCAL:
        raise ConfigError("the local cluster needs no login")
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
    return {"name": name, "user": profile.user}


def remove(name: str) -> dict:
    """Remove a profile and the secrets kept for it."""
    profiles = Profiles()
    profile = profiles.clusters.get(name)
    profiles.remove(name)
    if profile is not None:
        for what in ("password", "token"):
            delete_secret(secret_key(profile, what))
    return {"name": name, "default": profiles.resolve(None)}


def set_default(name: str) -> dict:
    profiles = Profiles()
    profiles.set_default(profiles.resolve(name))
    return {"default": profiles.resolve(None)}


def stop_local_cluster() -> dict:
    return {"stopped": stop_local()}


def detect_protocol(rest: str) -> tuple[int, str]:
    """As clients of OpenPAI do: a k8s-era server (v1.0+) answers `GET /api/v2/info` with
    `launcherType: k8s` and takes only v2 YAML jobs; a YARN-era one (≤ 0.14, SCM) takes v1 JSON."""
    try:
        info = httpx.get(f"{rest}/api/v2/info", timeout=10)
    except httpx.HTTPError:
        return 1, "not reachable now, so v1 was assumed"
    try:
        k8s = info.status_code == 200 and info.json().get("launcherType") == "k8s"
    except (ValueError, AttributeError):
        k8s = False
    return (2, "detected") if k8s else (1, "detected")


def web_portal(profile: Profile, job: str) -> str | None:
    """The job's page in the cluster's web portal (none for the local cluster). OpenPAI serves the
    portal at the REST host's root when the REST server sits under /rest-server (pylon), else on
    port 9286 beside the REST server's 9186."""
    if profile.name == LOCAL:
        return None
    parts = urlsplit(profile.rest_uri)
    host = parts.netloc
    if parts.port == 9186 and parts.hostname:
        host = f"{parts.hostname}:9286"
    return urlunsplit((parts.scheme, host, "/job-detail.html", f"username={profile.user}&jobName={job}", ""))
