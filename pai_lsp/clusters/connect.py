"""A session with a cluster profile: its backend, with its secrets wired in."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from ..errors import PaiError
from .backend import Backend
from .openpai import OpenPai
from .paddlecloud import PaddleCloud
from .profiles import (
    LOCAL,
    LOCAL_PADDLE,
    LOCALS,
    Profile,
    Profiles,
    get_secret,
    local_paddle_profile,
    local_password,
    local_profile,
    resolve,
    set_secret,
)


def connect(cluster: str | None = None, start: bool = True) -> Backend:
    """`cluster` names a profile (absent: the default one, else `local`). Kinds "openpai" and "scm"
    are OpenPAI REST servers, "paddlecloud" PaddlePaddle Cloud. `start`: start the local cluster if needed."""
    name = resolve(cluster)
    if name == LOCAL:
        return OpenPai(local_profile(start), local_password)
    if name == LOCAL_PADDLE:
        return PaddleCloud(local_paddle_profile(start), local_password)
    profile = Profiles().clusters[name]
    return backend_for(profile, lambda: get_secret(f"{name}:{profile.user}:password"))


def identity(name: str) -> Hashable:
    """What a session with profile `name` was made from (the profile and the stored token): when it
    differs from a kept session's, that session is stale (`pai cluster add/remove/login` happened).
    The local cluster's session is renewed when it stops answering instead."""
    if name in LOCALS:
        return None
    profile = Profiles().clusters[name]
    token = paddle_token_key(profile.rest_uri, profile.user) if profile.kind == "paddlecloud" else f"{name}:{profile.user}:token"
    return (tuple(sorted(profile.to_json().items())), get_secret(token))


def backend_for(profile: Profile, password: Callable[[], str | None]) -> Backend:
    """A session with a profile (saved or not yet) that logs in with `password()`; the token it
    gets is kept in the keyring under the profile's key."""
    key = f"{profile.name}:{profile.user}"
    if profile.kind == "paddlecloud":
        token_key = paddle_token_key(profile.rest_uri, profile.user)  # DRF tokens are per (endpoint, user)
        return PaddleCloud(profile, password, token=get_secret(token_key), on_token=lambda token: _keep(token_key, token))
    return OpenPai(profile, password, token=get_secret(key + ":token"), on_token=lambda token: _keep(key + ":token", token))


def paddle_token_key(endpoint: str, user: str) -> str:
    return f"paddlecloud:{endpoint.rstrip('/')}:{user}:token"


def _keep(key: str, token: str) -> None:
    try:
        set_secret(key, token)
    except PaiError:
        pass  # a token we cannot keep is simply fetched again next time
