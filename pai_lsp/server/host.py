"""What the language server's feature objects (uploads, the cluster checks and their poller) need of the
language server that holds them: one description, so that each feature module names the server by it
rather than by the class that imports them all (language_server.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from lsprotocol import types

    from ..core.job_format import JobFormat
    from ..core.model import Diagnostic, Settings


class Host(Protocol):
    @property
    def documents(self) -> Iterable[str]: ...  # the URIs of the open documents

    def settings_for(self, uri: str) -> Settings: ...

    def job_format(self, uri: str) -> JobFormat: ...

    def publish(self, uri: str) -> None: ...  # the document's diagnostics, computed again

    def analysis(self, uri: str) -> Any: ...  # its `doc`: the document as parsed now

    def range(self, result: Any, start: int, end: int) -> types.Range: ...

    def to_lsp(self, d: Diagnostic, result: Any) -> types.Diagnostic: ...

    async def client_register_capability_async(self, params: types.RegistrationParams) -> Any: ...
