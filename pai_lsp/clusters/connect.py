"""A session with a cluster profile: its backend, with its secrets wired in."""

from __future__ import annotations

from collections.abc import Hashable

from ..errors import PaiError
from .backend import Backend
from .openpai import OpenPai
from .profiles import LOCAL, Profiles, get_secret, local_password, local_profile, resolve, set_secret


def connect(cluster: str | None = None, start: bool = True) -> Backend:
    """`cluster` names a profile (absent: the default one, else `local`). Every kind of profile so
    far ("openpai", "scm") is an OpenPAI REST server. `start`: start the local cluster if needed."""
    name = resolve(cluster)
    if name == LOCAL:
        return OpenPai(local_profile(start), local_password)
    profile = Profiles().clusters[name]
    key = f"{name}:{profile.user}"
    return OpenPai(profile, lambda: get_secret(key + ":password"), token=get_secret(key + ":token"),
                   on_token=lambda token: _keep_token(key, token))


def identity(name: str) -> Hashable:
    """What a session with profile `name` was made from (the profile and the stored token): when it
    differs from a kept session's, that session is stale (`pai cluster add/remove/login` happened).
    The local cluster's session is renewed when it stops answering instead."""
    if name == LOCAL:
        return None
    profile = Profiles().clusters[name]
    return (tuple(sorted(profile.to_json().items())), get_secret(f"{name}:{profile.user}:token"))


def _keep_token(key: str, token: str) -> None:
    try:
        set_secret(key + ":token", token)
    except PaiError:
        pass  # a token we cannot keep is simply fetched again next time
