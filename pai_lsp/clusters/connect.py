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
    secret_key,
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
    return backend_for(profile, lambda: get_secret(secret_key(profile, "password")))


def identity(name: str) -> Hashable:
    """What a session with profile `name` was made from (the profile and the stored token): when it
    differs from a kept session's, that session is stale (`pai cluster add/remove/login` happened).
    The local cluster's session is renewed when it stops answering instead."""
    if name in LOCALS:
        return None
    profile = Profiles().clusters[name]
    return (tuple(sorted(profile.to_json().items())), get_secret(token_key(profile)))


def backend_for(profile: Profile, password: Callable[[], str | None]) -> Backend:
    """A session with a profile (saved or not yet) that logs in with `password()`; the token it
    gets is kept in the keyring under the profile's key."""
    key = token_key(profile)
    cls = PaddleCloud if profile.kind == "paddlecloud" else OpenPai
    return cls(profile, password, token=get_secret(key), on_token=lambda token: _keep(key, token))


def token_key(profile: Profile) -> str:
    """The keyring key of the token a session with `profile` keeps."""
    if profile.kind == "paddlecloud":
        return paddle_token_key(profile.rest_uri, profile.user)  # DRF tokens are per (endpoint, user)
    return secret_key(profile, "token")


def paddle_token_key(endpoint: str, user: str) -> str:
    return f"paddlecloud:{endpoint.rstrip('/')}:{user}:token"


def _keep(key: str, token: str) -> None:
    try:
        set_secret(key, token)
    except PaiError:
        pass  # a token we cannot keep is simply fetched again next time
