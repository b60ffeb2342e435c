"""How Azure Storage's failures are said, for its blob and its file clients alike (`azure.core`'s
exceptions; the services' error codes are the same on both)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from azure.core.exceptions import AzureError, ClientAuthenticationError, HttpResponseError, ResourceNotFoundError

from ..core.messages import Message, message
from ..errors import AuthFailed, InvalidInput, ServerError
from .base import Storage
from .http import transport_error


@contextlib.contextmanager
def azure_errors(storage: Storage, path: str, what: Message) -> Iterator[None]:
    """Around a call about `path` on `storage` (served at `what`): a missing path `NotFound`, a wrong
    key or an expired SAS `AuthFailed`, a refusal `PermissionDenied`, no answer `Unreachable`."""
    try:
        yield
    except ResourceNotFoundError:
        raise storage.missing(path) from None
    except ClientAuthenticationError:
        raise AuthFailed(message("storage.login-refused", what=what)) from None
    except HttpResponseError as exc:
        code = exc.error_code or (exc.response.headers.get("x-ms-error-code") if exc.response is not None else None)
        # a wrong key or an expired SAS: a 403, AuthenticationFailed (Azurite: AuthorizationFailure, same words)
        if code == "AuthenticationFailed" or "failed to authenticate" in (exc.reason or ""):
            raise AuthFailed(message("storage.login-refused", what=what)) from None
        if exc.status_code == 403:
            raise storage.denied(path, exc.reason or "forbidden") from None
        if code == "DirectoryNotEmpty":
            raise InvalidInput(message("hdfs.rm-folder", path=path)) from None
        raise ServerError(message("storage.failed", path=path, storage=storage.name,
                                  why=(str(exc.reason or exc.message or exc).splitlines() or [""])[0])) from None
    except AzureError as exc:  # no answer: refused, unknown host, timed out
        raise transport_error(exc, what) from None
