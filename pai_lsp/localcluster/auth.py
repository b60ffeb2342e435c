"""Users and tokens of the local cluster: salted password hashes in the data dir, HS256 JWTs."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import time
from pathlib import Path

from .errors import ClusterError

USER_NAME = re.compile(r"^[\w.-]+$")
DEFAULT_EXPIRATION = 7 * 24 * 3600
KEYRING_SERVICE = "pai-lsp local-cluster"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _write_private(path: Path, text: str) -> None:
    temp = path.with_suffix(".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temp, path)


class Users:
    def __init__(self, data_dir: Path):
        self.path = data_dir / "users.json"
        self.users: dict[str, dict] = json.loads(self.path.read_text()) if self.path.exists() else {}
        secret_file = data_dir / "token-secret"
        if not secret_file.exists():
            _write_private(secret_file, secrets.token_hex(32))
        self.secret = secret_file.read_text().strip().encode()

    def add(self, name: str, password: str, admin: bool = False) -> None:
        if not USER_NAME.match(name):
            raise ValueError(f"invalid user name {name!r}: use letters, digits, '.', '_' and '-'")
        if len(password) < 6:
            raise ValueError("the password needs at least 6 characters")
        salt = secrets.token_hex(16)
        digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), 100_000).hex()
        self.users[name] = {"salt": salt, "hash": digest, "admin": admin, "virtualCluster": ["default"]}
        _write_private(self.path, json.dumps(self.users, indent=2))

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
        if scheme.lower() != "bearer" or token.count(".") != 2:
            raise ClusterError(401, "UnauthorizedUserError", "Your token is invalid.")
        header, payload, signature = token.split(".")
        expected = _b64(hmac.new(self.secret, f"{header}.{payload}".encode(), hashlib.sha256).digest())
        try:
            claims = json.loads(_unb64(payload))
        except ValueError:
            claims = None
        if not hmac.compare_digest(signature, expected) or not isinstance(claims, dict) \
                or claims.get("exp", 0) < time.time() or claims.get("username") not in self.users:
            raise ClusterError(401, "UnauthorizedUserError", "Your token is invalid.")
        return claims["username"]

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
