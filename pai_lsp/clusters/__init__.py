"""Cluster backends behind one interface, and the one error type every failure becomes.

A `PaiError` carries one line for the user (terminal: printed, exit non-zero; editor: one
message) and a `kind` a program can act on.
"""

from __future__ import annotations


class PaiError(Exception):
    KINDS = ("unreachable", "auth", "name-taken", "not-found", "permission", "server", "invalid", "config", "interrupted")

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message

    def to_json(self) -> dict:
        return {"kind": self.kind, "message": self.message}
