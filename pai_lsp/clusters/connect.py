"""A session with a cluster profile: its backend, with its secrets wired in."""

from __future__ import annotations

from ..errors import PaiError
from .backend import Backend
from .openpai import OpenPai
from .profiles import LOCAL, Profiles, get_secret, local_password, local_profile, set_secret


def connect(cluster: str | None = None) -> Backend:
    """`cluster` names a profile (absent: the default one, else `local`). Every kind of profile so
    far ("openpai", "scm") is an OpenPAI REST server."""
    profiles = Profiles()
    name = profiles.resolve(cluster)
    if name == LOCAL:
        return OpenPai(local_profile(), local_password)
    profile = profiles.clusters[name]
    key = f"{name}:{profile.user}"
    return OpenPai(profile, lambda: get_secret(key + ":password"), token=get_secret(key + ":token"),
                   on_token=lambda token: _keep_token(key, token))


def _keep_token(key: str, token: str) -> None:
    try:
        set_secret(key + ":token", token)
    except PaiError:
        pass  # a token we cannot keep is simply fetched again next time
