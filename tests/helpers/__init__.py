"""What the tests share: drivers for the editor, the CLI and clusters, and paths. No test module
imports another; they import from here."""
