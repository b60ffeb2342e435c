"""The language server: maps the job-config core to LSP. No job logic of its own.

`create_language_server` builds the server and registers every module's features and commands;
`serve_stdio` runs it for an editor. Nothing here imports pygls or lsprotocol until it is called,
so `pai-lsp --kinds` and the CLI never load them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .language_server import PaiLanguageServer


def create_language_server() -> PaiLanguageServer:
    """The server with all its features (as esbonio's `create_language_server`)."""
    from . import commands, features
    from .job_relay import JobRelay
    from .language_server import PaiLanguageServer

    server = PaiLanguageServer()
    server.jobs = JobRelay(server)
    for module in (features, commands):
        module.registry.register(server)
    return server


def serve_stdio() -> int:
    """Serve an editor on stdin and stdout until it says `exit` (or closes stdin); the exit code."""
    from .pygls_compat import serve

    server = create_language_server()
    return serve(server, lambda: server.shut_down)
