"""A session with a cluster profile: its kind's backend, with its secrets wired in."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from ..errors import PaiError
from .backend import Backend
from .kinds import kind_of, local_kind
from .profiles import LOCALS, Profile, Profiles, get_secret, local_password, resolve, secret_key, set_secret


def connect(cluster: str | None = None, start: bool = True) -> Backend:
    """`cluster` names a profile (absent: the default one, else `local`); its kind (clusters/kinds.py)
    says which backend talks to it. `start`: start the local cluster if needed."""
    name = resolve(cluster)
    local = local_kind(name)
    if local is not None and local.local_profile is not None:
        return local.backend()(local.local_profile(start), local_password)
    profile = Profiles().clusters[name]
    return backend_for(profile, lambda: get_secret(secret_key(profile, "password")))


def identity(name: str) -> Hashable:
    """What a session with profile `name` was made from (the profile and the stored token): when it
    differs from a kept session's, that session is stale (`pai cluster add/remove/login` happened).
    The local cluster's session is renewed when it stops answering instead."""
    if name in LOCALS:
        return None
    profile = Profiles().clusters[name]
    return (tuple(sorted(profile.to_json().items())), get_secret(kind_of(profile).token_key(profile)))


def backend_for(profile: Profile, password: Callable[[], str | None]) -> Backend:
    """A session with a profile (saved or not yet) that logs in with `password()`; the token it
    gets is kept in the keyring under its kind's key for the profile."""
    kind = kind_of(profile)
    key = kind.token_key(profile)
    return kind.backend()(profile, password, token=get_secret(key), on_token=lambda token: _keep(key, token))


def _keep(key: str, token: str) -> None:
    try:
        set_secret(key, token)
    except PaiError:
        pass  # a token we cannot keep is simply fetched again next time
