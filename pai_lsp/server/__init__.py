"""The language server: maps the job-config core to LSP. No job logic of its own."""

from .app import server

__all__ = ["server"]
