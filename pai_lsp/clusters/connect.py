"""A session with a cluster profile: its backend, with its secrets wired in."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import PaiError
from .backend import Backend
from .openpai import OpenPai
from .paddlecloud import PaddleCloud
from .profiles import LOCAL, LOCAL_PADDLE, Profile, Profiles, get_secret, local_paddle_profile, local_password, local_profile, set_secret


def connect(cluster: str | None = None) -> Backend:
    """`cluster` names a profile (absent: the default one, else `local`). Kinds "openpai" and "scm"
    are OpenPAI REST servers, "paddlecloud" PaddlePaddle Cloud."""
    profiles = Profiles()
    name = profiles.resolve(cluster)
    if name == LOCAL:
        return OpenPai(local_profile(), local_password)
    if name == LOCAL_PADDLE:
        return PaddleCloud(local_paddle_profile(), local_password)
    profile = profiles.clusters[name]
    return backend_for(profile, lambda: get_secret(f"{name}:{profile.user}:password"))


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
