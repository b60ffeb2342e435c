"""One request over httpx, its transport failures said once the same way for every server we talk to
(an OpenPAI REST server, PaddlePaddle Cloud, PFS)."""

from __future__ import annotations

from typing import Any

import httpx

from ..errors import Unreachable


def request(http: httpx.Client, method: str, path: str, *, what: str, **kwargs: Any) -> httpx.Response:
    """`http.request`, with a refused connection, a timeout or a broken exchange raised as
    `Unreachable` naming `what` ("the cluster at https://…") instead of httpx's own exception."""
    try:
        return http.request(method, path, **kwargs)
    except httpx.ConnectError:
        raise Unreachable(f"cannot reach {what}: connection refused or no route") from None
    except httpx.TimeoutException:
        raise Unreachable(f"{what} did not answer in time") from None
    except httpx.HTTPError as exc:
        raise Unreachable(f"cannot talk to {what}: {exc}") from None
