"""pai-lsp: PAI job configs checked as you type, and jobs submitted, watched and fetched from the editor."""

__version__ = "0.1.0"
