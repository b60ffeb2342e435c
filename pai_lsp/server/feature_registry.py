"""What a module of the server offers (LSP features, `workspace/executeCommand` commands), collected
by decorators at import and put on a server by `create_language_server` — so no module needs the
server object to exist first."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

F = Callable[..., Any]


class FeatureRegistry:
    def __init__(self) -> None:
        self.features: list[tuple[str, Any, F]] = []
        self.commands: list[tuple[str, F]] = []

    def feature(self, name: str, options: Any = None) -> Callable[[F], F]:
        def decorator(fn: F) -> F:
            self.features.append((name, options, fn))
            return fn

        return decorator

    def command(self, name: str) -> Callable[[F], F]:
        """A command; its parameters after `ls` are typed, and pygls reads the arguments into them."""

        def decorator(fn: F) -> F:
            self.commands.append((name, fn))
            return fn

        return decorator

    def register(self, server: LanguageServer) -> None:
        for name, options, fn in self.features:
            server.feature(name, options)(fn)
        for name, fn in self.commands:
            server.command(name)(fn)
