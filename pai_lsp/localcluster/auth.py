"""Users and tokens of the local cluster: salted password hashes and the HS256 signing key in the
cluster's secrets folder (outside the data folder tasks run in), JWTs as the real server issues them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from ..common.atomic import write_atomic
from .datadir import secrets_dir
from .rest_errors import ClusterError

USER_NAME = re.compile(r"^[\w.-]+$")
DEFAULT_EXPIRATION = 7 * 24 * 3600
KEYRING_SERVICE = "pai-lsp local-cluster"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Users:
    """The users file is read again whenever it changes, so `pai local-cluster users add` takes
    effect on a running cluster; `on_new_user` hears of each name the cluster did not know."""

    def __init__(self, data_dir: Path, on_new_user: Callable[[str], None] | None = None):
        folder = secrets_dir(data_dir)
        self.path = folder / "users.json"
        self.on_new_user = on_new_user
        self._users: dict[str, dict] = {}
        self._stamp: tuple | None = None
        secret_file = folder / "token-secret"
        if not secret_file.exists():
            temp = folder / f".token-secret.{os.getpid()}"
            write_atomic(temp, secrets.token_hex(32), private=True)
            try:
                os.link(temp, secret_file)  # the first process to create it wins; everyone reads the same key
            except FileExistsError:
                pass
            temp.unlink()
        self.secret = secret_file.read_text(encoding="utf-8").strip().encode()
        self._refresh()

    @property
    def users(self) -> dict[str, dict]:
        return self._refresh()

    def _refresh(self) -> dict[str, dict]:
        try:
            st = os.stat(self.path)
            stamp: tuple | None = (st.st_mtime_ns, st.st_size, st.st_ino)
        except FileNotFoundError:
            stamp = None
        if stamp != self._stamp:
            known = set(self._users)
            try:
                self._users = json.loads(self.path.read_text(encoding="utf-8")) if stamp else {}
            except ValueError:
                return self._users  # being replaced right now: keep what we had
            self._stamp = stamp
            for name in self._users.keys() - known:
                if self.on_new_user is not None:
                    self.on_new_user(name)
        return self._users

    def groups(self, name: str) -> set[str]:
        return set(self.users.get(name, {}).get("grouplist") or [])

    def add(self, name: str, password: str, admin: bool = False) -> None:
        if not USER_NAME.match(name):
            raise ValueError(f"invalid user name {name!r}: use letters, digits, '.', '_' and '-'")
        if len(password) < 6:
            raise ValueError("the password needs at least 6 characters")
        salt = secrets.token_hex(16)
        digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), 100_000).hex()
        users = dict(self.users)
        users[name] = {"salt": salt, "hash": digest, "admin": admin, "virtualCluster": ["default"]}
        write_atomic(self.path, json.dumps(users, indent=2), private=True)

    def check_password(self, name: str, password: str) -> dict:
        user = self.users.get(name)
        if user is None:
            raise ClusterError(400, "NoUserError", f"User {name} is not found.")
        digest = hashlib.pbkdf2_hmac("sha256", password.encode(), user["salt"].encode(), 100_000).hex()
        if not hmac.compare_digest(digest, user["hash"]):
            raise ClusterError(400, "IncorrectPasswordError", "Password is incorrect.")
        return user

    def issue(self, name: str, expiration: int = DEFAULT_EXPIRATION) -> str:
        now = int(time.time())
        header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        payload = _b64(json.dumps({"username": name, "admin": self.users[name]["admin"], "iat": now,
                                   "exp": now + expiration}).encode())
        signature = _b64(hmac.new(self.secret, f"{header}.{payload}".encode(), hashlib.sha256).digest())
        return f"{header}.{payload}.{signature}"

    def verify(self, authorization: str | None) -> str:
        """The user a `Bearer` header belongs to; 401 UnauthorizedUserError otherwise."""
        if not authorization:
            raise ClusterError(401, "UnauthorizedUserError", "Guest is not allowed to do this operation.")
        scheme, _, token = authorization.partition(" ")
        user = self._user_of(token) if scheme.lower() == "bearer" else None
        if user is None:
            raise ClusterError(401, "UnauthorizedUserError", "Your token is invalid.")
        return user

    def _user_of(self, token: str) -> str | None:
        """The user of a valid, unexpired token signed by this cluster; None for anything else."""
        if token.count(".") != 2 or not token.isascii():
            return None
        header, payload, signature = token.split(".")
        expected = _b64(hmac.new(self.secret, f"{header}.{payload}".encode(), hashlib.sha256).digest())
        if not hmac.compare_digest(signature.encode(), expected.encode()):
            return None
        try:
            claims = json.loads(_unb64(payload))
        except ValueError:
            return None
        if not isinstance(claims, dict) or not isinstance(claims.get("exp"), (int, float)) or claims["exp"] < time.time():
            return None
        name = claims.get("username")
        return name if isinstance(name, str) and name in self.users else None

    def user_of_token(self, token: str) -> str:
        """For WebHDFS `delegation=`: the token's user, or ClusterError."""
        return self.verify(f"Bearer {token}")

    def is_admin(self, name: str) -> bool:
        return bool(self.users.get(name, {}).get("admin"))


def ensure_first_user(users: Users, name: str) -> tuple[str, bool] | None:
    """On first start: a user named after the OS user, with a random password kept in the keyring.
    Returns (password to print once, whether the keyring kept it), or None when users exist."""
    if users.users:
        return None
    password = secrets.token_urlsafe(12)
    users.add(name, password, admin=True)
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, name, password)
    except Exception:  # noqa: BLE001 - any backend failure means "not kept"; the caller says so
        return password, False
    return password, True
